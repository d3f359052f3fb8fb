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
  /// without the app's model; `nil` when it can. A SQLite store's tables do not say which
  /// integer columns are references, nor a one-to-many's other side; an XML store does not say
  /// whether a to-many relationship keeps an order, which SQLite and binary stores record
  /// (written again as XML, the order it has is kept).
  static func unfaithfulness(of source: StoreOptions.Source, writtenAs format: any StoreFormat)
    -> String?
  {
    guard source.modelIsInferred else { return nil }
    let name = source.url.lastPathComponent
    if source.format is SQLiteStore {
      return
        "the model of \"\(name)\" was inferred from its tables, which keep no model: which columns are references, and the other sides of one-to-many relationships, are guesses. Pass --model with the model that wrote it"
    }
    guard !(format is XMLStore) else { return nil }
    let toManys = source.model.entities.flatMap { entity in
      entity.relationships.filter(\.isToMany).map { "\(entity.name).\($0.name)" }
    }.sorted()
    guard let first = toManys.first else { return nil }
    let others = toManys.count > 1 ? " (and \(toManys.count - 1) more)" : ""
    return
      "the model of \"\(name)\" was inferred from it, and an XML store does not say whether \(first)\(others) keeps an order, which a \(format.typeName) store records. Pass --model with the model that wrote it, or convert to .xml"
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
