import ArgumentParser
import Folio
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `folio convert IN OUT`: a store written again, in the format OUT's extension names, or as a
/// PostgreSQL document OUT's URL names.
struct ConvertCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "convert",
    abstract: """
      Write a store again in another format (.sqlite, .xml or .folio, by OUT's extension), \
      or as a PostgreSQL document.
      """,
    discussion: """
      The output is written atomically: an existing OUT is replaced only once the new file is \
      complete. Without --model, OUT records the version hashes IN records, so it opens with \
      the app's model; a conversion that would have to guess what IN does not record (the \
      order of an XML store's to-many relationships, in a SQLite or binary OUT; anything of a \
      SQLite store that caches no model) is refused: pass --model. Example:
        folio convert Samples/Expenses/Expenses.xml Expenses.folio \\
          --model Samples/Expenses/Expenses.xcdatamodeld

      IN or OUT may be a PostgreSQL document's URL, \
      postgresql://USER@HOST:PORT/DATABASE?schema=NAME (Formats/postgres-store.md). An OUT \
      URL gets the whole document in one transaction, its schema created when missing; a \
      schema that already holds a document is left as it is, and the conversion refused, \
      unless --replace is given. A URL never carries a password: libpq reads it from \
      PGPASSWORD or ~/.pgpass.

      \(progressHelp)
      """)

  @OptionGroup var store: StoreOptions

  @Argument(
    help: """
      The file to write; its extension chooses the format. A PostgreSQL document's URL \
      writes the document into the URL's schema.
      """,
    completion: Completions.writableStore)
  var output: String

  @Flag(
    help: """
      Write over the document the schema OUT names already holds; without it, such a \
      conversion is refused. A file OUT is replaced either way.
      """)
  var replace = false

  /// The format OUT names, and that OUT is not the store itself, checked before anything is
  /// read.
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

  /// The format of a server's document OUT's URL names, or of the file by its extension.
  private func outputFormat() throws -> any StoreFormat {
    let url = try StoreArgument.url(output)
    guard url.isFileURL else {
      let formats = FormatRegistry.formats(.init(replacesExistingDocument: replace))
      return try PersistentStoreCoordinator.format(of: url, among: formats)
    }
    guard
      let format = FormatRegistry.fileFormats().first(where: {
        $0.fileExtension == url.pathExtension.lowercased()
      })
    else {
      throw ValidationError(
        "\"\(output)\": the extension names no store format (use .sqlite, .xml or .folio, or a postgresql:// URL)"
      )
    }
    return format
  }

  func run() throws {
    let format = try outputFormat()
    let url = try StoreArgument.url(output)
    // Refused before IN is read; the write itself refuses too, in its transaction, should
    // a document arrive meanwhile.
    if !replace, let server = format as? any ServerStoreFormat, try server.storeExists(at: url) {
      throw CommandFailure(
        "\(output): the schema already holds a document: pass --replace to write over it (nothing was written)"
      )
    }
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
