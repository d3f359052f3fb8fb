import FolioModel
import FolioStores
import Foundation

/// Core Data's XML store: the whole graph in one XML file, read and written as Core Data on a
/// Mac reads and writes it.
///
/// Reading streams the file through libxml2's `xmlTextReader` (never a tree of the whole
/// document) with no network access, no DTD loading and no entities: the one DOCTYPE allowed is
/// Core Data's `<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">`, which is
/// recognised and never fetched. Writing goes through libxml2's `xmlTextWriter` into a temporary
/// file that replaces the old one atomically (``AtomicFile``). `Formats/xml-store.md`
/// specifies the format, its encodings and what is refused.
///
/// ```swift
/// let store = XMLStore()
/// let contents = try store.read(from: url, model: model)
/// try store.write(contents, model: model, to: url)
/// ```
///
/// A store from a Mac comes without its model; ``inferModel(from:)`` infers one from the file.
public struct XMLStore: StoreFormat {
  /// Whether a relationship target that is not in the store is left out rather than refused.
  ///
  /// Core Data opens such a store (the target becomes a fault that cannot be fulfilled), and
  /// some real stores have them. The default is `false`: a dangling idref is an error.
  public var dropsDanglingReferences: Bool
  /// Whether a store Folio wrote is checked against the model by its version hashes before
  /// its structure is. Turn it off to read a store with a model inferred from it, whose hashes
  /// cannot match. The default is `true`.
  public var checksVersionHashes: Bool

  /// Creates the format, refusing dangling references and checking version hashes.
  public init() {
    self.dropsDanglingReferences = false
    self.checksVersionHashes = true
  }

  /// Creates the format.
  ///
  /// - Parameters:
  ///   - dropsDanglingReferences: Whether a target that is not in the store is left out
  ///     rather than refused.
  ///   - checksVersionHashes: Whether a store Folio wrote is checked by its version hashes.
  public init(dropsDanglingReferences: Bool, checksVersionHashes: Bool = true) {
    self.dropsDanglingReferences = dropsDanglingReferences
    self.checksVersionHashes = checksVersionHashes
  }

  /// `"XML"`.
  public var typeName: String { "XML" }

  /// `"xml"`.
  public var fileExtension: String { "xml" }

  /// Whether `prefix` starts like an XML store: XML (after an optional byte-order mark and
  /// white space) whose first 64 bytes mention `<?xml`, `<!DOCTYPE database` or `<database`.
  public func recognizes(_ prefix: Data) -> Bool {
    var bytes = Array(prefix.prefix(64))
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
    let text = String(decoding: bytes, as: UTF8.self)
      .drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
    return text.hasPrefix("<?xml") || text.hasPrefix("<!DOCTYPE database")
      || text.hasPrefix("<database")
  }

  /// The store's metadata, read from `<databaseInfo>` without reading any object.
  ///
  /// A store without `<databaseInfo>` has empty metadata with an empty identifier.
  ///
  /// - Throws: `StoreError` — `.notFound`, `.unreadable`, `.malformedXML` (with line and
  ///   column), `.truncated`, `.malformedStore`, `.unsupportedVersion`.
  public func readMetadata(from url: URL) throws(StoreError) -> StoreMetadata {
    try XMLStoreParser(url: url).metadata
  }

  /// The whole store, each value typed by `model`.
  ///
  /// Entity and property names are matched case-insensitively and given the model's spelling.
  /// A store Folio wrote is first checked by its version hashes; any store is checked by
  /// structure as it is read: every entity and property it uses must be in the model with a
  /// compatible type, and every relationship target must exist.
  ///
  /// - Throws: `StoreError` naming the file, line, column and `Entity.key` — `.modelMismatch`
  ///   (version hashes listing the entities that differ, an unknown entity or property, names
  ///   that differ only by case in the model), `.typeMismatch`, `.danglingReference`,
  ///   `.malformedStore`, `.malformedXML`, `.truncated`, `.unsupportedVersion`, `.notFound`.
  /// - Complexity: O(*n*) in the size of the file.
  public func read(from url: URL, model: ManagedObjectModel) throws(StoreError) -> StoreContents {
    let parser = try XMLStoreParser(url: url)
    if checksVersionHashes {
      try parser.metadata.checkVersionHashes(against: model, file: url.path)
    }
    let reader = try XMLRecordReader(
      parser: parser, model: model, dropsDanglingReferences: dropsDanglingReferences)
    let records = try reader.read()
    let metadata = parser.metadata
    let largest = records.map(\.id).max() ?? 0
    let next = max(parser.nextObjectID ?? 0, largest + 1)
    return StoreContents(metadata: metadata, records: records, nextObjectID: next)
  }

  /// Reads the store at `url` into `consumer`, checked as ``read(from:model:)`` checks it,
  /// handing each record over as soon as its IDs are final: only records that name an object
  /// further on in the file (or carry IDs that are not Core Data's `z` numbers) wait, so the
  /// records are never all held at once. Records arrive in the file's order but for those
  /// that waited.
  ///
  /// - Throws: what ``read(from:model:)`` throws, and whatever `consumer` throws.
  public func read<Consumer: StoreRecordConsumer>(
    from url: URL, model: ManagedObjectModel, into consumer: inout Consumer
  ) throws(StoreError) {
    let parser = try XMLStoreParser(url: url)
    if checksVersionHashes {
      try parser.metadata.checkVersionHashes(against: model, file: url.path)
    }
    let reader = try XMLRecordReader(
      parser: parser, model: model, dropsDanglingReferences: dropsDanglingReferences)
    try reader.read(into: &consumer)
  }

  /// Writes `contents` to `url` atomically, as Core Data writes an XML store.
  ///
  /// The metadata gets the model's entity version hashes, Folio's checksum of them, version
  /// identifiers from the model, `NSStoreModelVersionHashesVersion` 3 and the model itself
  /// (``carriedModelKey``, which ``readModel(from:)`` reads back); the other keys of
  /// `userInfo` are written as they are (Apple's `NSStoreModelVersionHashesDigest`, which
  /// describes hashes no longer there, is dropped). An empty identifier gets a new UUID.
  ///
  /// - Throws: `StoreError` — `.modelMismatch`, `.typeMismatch`, `.danglingReference` or
  ///   `.malformedStore` when a record does not fit `model`, before anything is written;
  ///   `.writeFailed` when the file cannot be written. The old file is then intact.
  /// - Complexity: O(*n*) in the size of the records.
  public func write(_ contents: StoreContents, model: ManagedObjectModel, to url: URL)
    throws(StoreError)
  {
    let names = try XMLNameMap(model: model)
    let encoder = try XMLObjectEncoder(names: names, records: contents.records)
    let largest = contents.records.map(\.id).max() ?? 0
    let nextObjectID = max(contents.nextObjectID, largest + 1)
    var metadata =
      contents.keepsVersionHashes
      ? Self.metadataDictionary(
        contents.metadata, hashes: contents.metadata.modelVersionHashes,
        identifiers: contents.metadata.modelVersionIdentifiers)
      : Self.metadataDictionary(contents.metadata, model: model)
    let hashes =
      contents.keepsVersionHashes
      ? contents.metadata.modelVersionHashes : model.entityVersionHashesByName
    metadata[Self.carriedModelKey] = Self.carriedModelValue(model, hashes: hashes)
    let identifier =
      contents.metadata.identifier.isEmpty ? UUID().uuidString : contents.metadata.identifier
    try AtomicFile.write(to: url) { output throws(StoreError) in
      let writer = try XMLStoreWriter(output: output)
      try writer.writeHeader(identifier: identifier, nextObjectID: nextObjectID, metadata: metadata)
      var buffer: [UInt8] = []
      buffer.reserveCapacity(1 << 17)
      for record in contents.records {
        try encoder.encode(record, into: &buffer)
        if buffer.count >= 1 << 16 {
          try writer.raw(buffer)
          buffer.removeAll(keepingCapacity: true)
        }
      }
      try writer.raw(buffer)
      try writer.finish()
    }
  }

  /// The metadata property list Folio writes.
  static func metadataDictionary(_ metadata: StoreMetadata, model: ManagedObjectModel)
    -> [String: PropertyListValue]
  {
    let hashes = model.entityVersionHashesByName
    var result = metadataDictionary(
      metadata, hashes: hashes,
      identifiers: model.versionIdentifier.map { [$0] } ?? metadata.modelVersionIdentifiers)
    result["NSStoreModelVersionHashesDigest"] = nil
    result[StoreMetadata.folioChecksumKey] = .string(StoreMetadata.folioChecksum(of: hashes))
    return result
  }

  /// The metadata property list for `metadata` with entity version hashes `hashes` and model
  /// version identifiers `identifiers`; the keys derived from the hashes are the caller's.
  static func metadataDictionary(
    _ metadata: StoreMetadata, hashes: [String: Data], identifiers: [String]
  ) -> [String: PropertyListValue] {
    var result = metadata.userInfo
    result["NSStoreUUID"] = nil
    result["NSStoreType"] = nil
    result["NSPersistenceFrameworkVersion"] = .integer(
      metadata.frameworkVersion ?? Self.frameworkVersion)
    result["NSStoreModelVersionHashes"] = .dictionary(hashes.mapValues { .data($0) })
    result["NSStoreModelVersionHashesVersion"] = .integer(3)
    result["NSStoreModelVersionIdentifiers"] = .array(identifiers.map { .string($0) })
    return result
  }

  /// The `NSPersistenceFrameworkVersion` Folio writes when the metadata has none: 1, a version
  /// no Core Data release has used, so a reader can tell Folio wrote the file.
  public static let frameworkVersion: Int64 = StoreMetadata.folioFrameworkVersion
}
