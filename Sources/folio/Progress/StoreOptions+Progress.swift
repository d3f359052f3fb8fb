import Folio
import Foundation

/// What the help of the commands that read or write whole stores says of their progress line.
let progressHelp = """
  On a terminal, a store of 8 MB or more shows the progress of the work on standard error: \
  the phase, the bytes and objects so far, a percentage, the rate and the time left, on one \
  line erased when the work ends. Nothing is drawn when standard error is not a terminal or \
  TERM is dumb; NO_COLOR, set and not empty, leaves the line without bold.
  """

extension StoreOptions {
  /// The progress line for this store's command: shown when the store is large and standard
  /// error a terminal; `standardOutputBusy` when the command prints as it reads.
  func progress(standardOutputBusy: Bool = false) throws -> ProgressReporter {
    ProgressReporter(
      workSize: ProgressReporter.size(of: try url()), standardOutputBusy: standardOutputBusy)
  }
}

extension ProgressReporter.Phase {
  /// A pass over the store at `url` that counts the bytes read against its size, and no
  /// objects: inferring an XML store's model.
  static func scanning(_ url: URL, as name: String) -> Self {
    Self(name: name, bytes: .read, totalBytes: ProgressReporter.size(of: url))
  }

  /// Reading the store `source` names, through a `ProgressCountingFormat`: by its records one
  /// at a time, or with `isWhole` by `read(from:model:)`.
  ///
  /// How far a read has come shows differently by format: its bytes tell the share
  /// `FormatRegistry` gives, its objects the rest. A whole read hands over no object one at a
  /// time, but for the formats whose whole read is their streaming read collected
  /// (`CountingWholeRead`).
  static func reading(_ source: StoreOptions.Source, isWhole: Bool = false) -> Self {
    var phase = Self(
      name: "reading", bytes: .read, totalBytes: ProgressReporter.size(of: source.url),
      countsObjects: !isWhole || source.format is any CountingWholeRead)
    phase.bytesShare = FormatRegistry.entry(for: source.format)?.readProgressByBytes ?? 0.5
    return phase
  }

  /// Reading the XML store at `url` while its model is inferred on another thread: the bytes
  /// of both passes count, halved, against the file's size.
  static func readingWhileInferring(_ url: URL) -> Self {
    var phase = Self(
      name: "reading, inferring", bytes: .read, totalBytes: ProgressReporter.size(of: url),
      countsObjects: true)
    phase.passes = 2
    return phase
  }

  /// Writing `objects` objects as `format`, counting the bytes written where the format writes
  /// as it goes; a binary store is laid out and deflated whole before its first byte is
  /// written, so its line shows the time taken instead of a count stuck at zero.
  static func writing(objects: Int, as format: any StoreFormat) -> Self {
    Self(
      name: "writing \(ProgressLine.objects(objects, of: nil))",
      bytes: FormatRegistry.entry(for: format)?.writesAsItGoes == false ? nil : .written)
  }
}
