import Folio
import FolioPostgresStore
import Foundation

/// The store formats the CLI knows: the one place that names them. Detection, `convert`'s
/// extensions, Tab completion and every command's options read this list; everything else
/// asks a format what it can do through the capability protocols (a model it carries or
/// infers, a whole read it can count), so a new format is one entry here.
enum FormatRegistry {
  /// How leniently a command reads a store, as its options ask.
  struct Leniency {
    /// Relationships naming objects the file lacks are left out instead of refused.
    var dropsDanglingReferences = false
    /// The store's version hashes are checked against the model (a model was given).
    var checksVersionHashes = true
    /// Binary values a SQLite store keeps in missing external files read as empty.
    var allowsMissingExternalData = false
    /// A whole write into a server's schema that already holds a document replaces it,
    /// instead of being refused (`convert --replace`).
    var replacesExistingDocument = false
  }

  /// A format and what the CLI shows of its work.
  struct Entry: Sendable {
    /// The format, read as `Leniency` asks.
    let make: @Sendable (Leniency) -> any StoreFormat
    /// How much of a read's progress its bytes tell, from 0 to 1; its objects tell the rest.
    /// An XML store is parsed as it is read: its bytes tell. A SQLite store gives its number
    /// of objects first and reads its pages as it goes, some twice: its objects tell. A
    /// binary store is read and checked whole, then decoded: half each.
    let readProgressByBytes: Double
    /// Whether a write puts its bytes on disk as it goes; a binary store is laid out and
    /// deflated whole before its first byte is written.
    let writesAsItGoes: Bool
    /// Whether inferring the model is a pass over the whole file (worth a progress line).
    let inferenceReadsFile: Bool
    /// The file's sections, for `info`, when the format has any.
    let sections: (@Sendable (URL) throws -> [BinaryStoreLayout.Section])?
    /// For a server's format, the check of a URL naming one of its documents that needs no
    /// connection (a password in it, no database).
    var checksURL: (@Sendable (URL) throws(StoreError) -> Void)? = nil
  }

  /// Every format, in the order files are recognised in.
  static let entries: [Entry] = [
    Entry(
      make: {
        XMLStore(
          dropsDanglingReferences: $0.dropsDanglingReferences,
          checksVersionHashes: $0.checksVersionHashes)
      },
      readProgressByBytes: 1, writesAsItGoes: true, inferenceReadsFile: true, sections: nil),
    Entry(
      make: { _ in BinaryStore() }, readProgressByBytes: 0.5, writesAsItGoes: false,
      inferenceReadsFile: false, sections: { try BinaryStore().layout(of: $0).sections }),
    Entry(
      make: {
        SQLiteStore(
          missingExternalData: $0.allowsMissingExternalData ? .readAsNil : .fail,
          checksVersionHashes: $0.checksVersionHashes)
      },
      readProgressByBytes: 0, writesAsItGoes: true, inferenceReadsFile: false, sections: nil),
    // Named by URL, never recognised in a file: its place in the list does not matter. Its
    // reads come through a SQLite copy, whose objects tell how far they are.
    Entry(
      make: { PostgresStore(replacesExisting: $0.replacesExistingDocument) },
      readProgressByBytes: 0, writesAsItGoes: false, inferenceReadsFile: false, sections: nil,
      checksURL: { url throws(StoreError) in _ = try PostgresLocation(url) }),
  ]

  /// Every format, read as `leniency` asks.
  static func formats(_ leniency: Leniency = Leniency()) -> [any StoreFormat] {
    entries.map { $0.make(leniency) }
  }

  /// The formats whose stores are files, chosen by a file's extension where one is written.
  static func fileFormats(_ leniency: Leniency = Leniency()) -> [any StoreFormat] {
    formats(leniency).filter { !($0 is any ServerStoreFormat) }
  }

  /// The URL schemes that name a document on a server, lowercase.
  static let urlSchemes: Set<String> = Set(
    formats().compactMap { $0 as? any ServerStoreFormat }.flatMap(\.urlSchemes))

  /// Checks `url`, whose scheme is a server format's, as that format would before it
  /// connects.
  ///
  /// - Throws: the format's `StoreError`.
  static func checkServerURL(_ url: URL) throws(StoreError) {
    let scheme = url.scheme?.lowercased() ?? ""
    for entry in entries {
      guard let server = entry.make(Leniency()) as? any ServerStoreFormat,
        server.urlSchemes.contains(scheme)
      else { continue }
      try entry.checksURL?(url)
    }
  }

  /// The entry of `format` (or of the format it wraps), by its type name.
  static func entry(for format: any StoreFormat) -> Entry? {
    entries.first { $0.make(Leniency()).typeName == format.typeName }
  }
}

/// The store formats the CLI reads and writes, recognised by content.
let storeFormats = FormatRegistry.formats()
