import Folio
import Foundation

/// Standard input as a file: stores are read by their path (SQLite needs one), so what
/// arrives on standard input is saved once to a temporary file, removed when `folio` ends.
enum StandardInput {
  nonisolated(unsafe) private static var saved: ScratchFile?

  /// The copy is `.folio-stdin.folio-UUID.tmp` in the temporary folder, locked while this
  /// process runs, so one a killed `folio` left is removed by the next that reads `-`.
  static func file() throws -> URL {
    if let saved { return saved.url }
    let name = FileManager.default.temporaryDirectory.appendingPathComponent("folio-stdin")
    let scratch: ScratchFile
    do {
      scratch = try ScratchFile(besides: name)
    } catch {
      throw CommandFailure("cannot keep standard input beside \(name.path): \(error.message)")
    }
    let data = FileHandle.standardInput.readDataToEndOfFile()
    do {
      try data.write(to: scratch.url)
    } catch {
      scratch.discard()
      throw CommandFailure(
        "cannot keep standard input in \(scratch.url.path): \(error.localizedDescription)")
    }
    saved = scratch
    return scratch.url
  }

  /// Removes the saved copy, if there is one.
  static func remove() {
    saved?.discard()
    saved = nil
  }

  /// Standard input as text, for a script given as `-`.
  static func text() -> String {
    String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
  }
}
