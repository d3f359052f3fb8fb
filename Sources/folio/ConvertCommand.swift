import ArgumentParser
import Folio
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `folio convert IN OUT`: a store written again, in the format OUT's extension names.
struct ConvertCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "convert",
    abstract:
      "Write a store again in another format (.sqlite, .xml or .folio, by OUT's extension).",
    discussion: """
      The output is written atomically: an existing OUT is replaced only once the new file is \
      complete. Without --model, OUT records the version hashes IN records, so it opens with \
      the app's model; a conversion that would have to guess what IN does not record (the \
      order of an XML store's to-many relationships, in a SQLite or binary OUT; anything of a \
      SQLite store that caches no model) is refused: pass --model. Example:
        folio convert Samples/Expenses/Expenses.xml Expenses.folio \\
          --model Samples/Expenses/Expenses.xcdatamodeld

      \(progressHelp)
      """)

  @OptionGroup var store: StoreOptions

  @Argument(
    help: "The file to write; its extension chooses the format.",
    completion: Completions.writableStore)
  var output: String

  /// The format OUT's extension names, and that OUT is not the store itself, checked before
  /// anything is read.
  func validate() throws {
    _ = try outputFormat()
    if store.file != "-", Self.isSameFile(store.file, output) {
      throw ValidationError(
        "\"\(output)\" is the store being converted (\"\(store.file)\"): name another file to write"
      )
    }
  }

  /// Why `source`, whose model was inferred from it, cannot be written faithfully in `format`
  /// without the app's model (its format says); `nil` when it can.
  static func unfaithfulness(of source: StoreOptions.Source, writtenAs format: any StoreFormat)
    -> String?
  {
    guard source.modelIsInferred,
      let inferring = source.format as? any ModelInferringStoreFormat
    else { return nil }
    return inferring.unfaithfulness(
      of: source.model, inferredFrom: source.url.lastPathComponent, writtenAs: format)
  }

  /// Whether the paths `a` and `b` name one file: through symbolic links, hard links or
  /// spellings of the path. A path with no file names none.
  static func isSameFile(_ a: String, _ b: String) -> Bool {
    var first = stat()
    var second = stat()
    guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino
  }

  private func outputFormat() throws -> any StoreFormat {
    let url = URL(fileURLWithPath: output)
    guard
      let format = storeFormats.first(where: { $0.fileExtension == url.pathExtension.lowercased() })
    else {
      throw ValidationError(
        "\"\(output)\": the extension names no store format (use .sqlite, .xml or .folio)")
    }
    return format
  }

  func run() throws {
    let format = try outputFormat()
    let url = URL(fileURLWithPath: output)
    let progress = try store.progress()
    defer { progress.finish() }
    let source = try store.open(progress: progress)
    if let reason = Self.unfaithfulness(of: source, writtenAs: format) {
      throw ValidationError(reason)
    }
    var converted = try store.readContents(source, progress: progress)
    progress.begin(.writing(objects: converted.records.count, as: format))
    converted.metadata.storeType = format.typeName
    // Without --model, the model is the one the store carries or one inferred from it, not
    // necessarily the app's: the new file records the hashes and version the original does,
    // so it opens with the app's model (checked by structure) and migrates from it.
    converted.keepsVersionHashes =
      store.model == nil && !converted.metadata.modelVersionHashes.isEmpty
    try format.write(converted, model: source.model, to: url)
  }
}
