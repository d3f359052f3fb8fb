import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

// The binary store (`.folio`): Folio's own format, built to load fast and to refuse bad input
// without ever crashing. `Formats/binary-store.md` specifies it byte by byte.
//
// A file is a header (magic, version, flags, model version hash, section count, CRC-32), a
// section table, and sections: META (metadata and entity version hashes, stored as is, so
// metadata reads without inflating anything), BODY (the objects, one zlib stream) and, since
// version 1.1, MODL (the model as Xcode model XML, so a store opens with nothing else at hand).
// Reading checks, in order: magic, major version, the table's fit, the header CRC, each
// entry, every section's CRC, the model hash (listing the entities that differ), then
// decodes the body against the model. Every step is bounded by the file's size.

/// Folio's binary store format: a compact, checksummed file that loads fast.
///
/// A store written with one model reads back only with a model of the same shape; any
/// corruption, truncation or hostile content is refused with a `StoreError` naming the byte.
///
/// ```swift
/// let store = BinaryStore()
/// try store.write(contents, model: model, to: url)
/// let loaded = try store.read(from: url, model: model)
/// ```
public struct BinaryStore: StoreFormat {
  /// Creates the format.
  public init() {}

  /// `"Binary"`.
  public var typeName: String { "Binary" }

  /// `"folio"`.
  public var fileExtension: String { "folio" }

  /// Whether `prefix` starts with the binary store's 10-byte magic.
  public func recognizes(_ prefix: Data) -> Bool {
    prefix.count >= BinaryFormat.magic.count && prefix.starts(with: BinaryFormat.magic)
  }

  /// The store's metadata, read from the header, the section table and the META section
  /// only: the body is neither read nor inflated.
  ///
  /// The metadata's ``StoreMetadata/modelVersionHashes`` are those of the model the store was
  /// written with.
  ///
  /// - Throws: `StoreError` — `.notFound`, `.unreadable`, `.badMagic`, `.unsupportedVersion`,
  ///   `.truncated`, `.badChecksum`, `.malformedStore` — naming the byte offset.
  public func readMetadata(from url: URL) throws(StoreError) -> StoreMetadata {
    let file = BinaryFile(url: url)
    let handle = try file.open()
    defer { try? handle.close() }
    let container = try Self.container(of: file, handle).container
    let meta = try BinarySections(container, file: file.path).metadata
    let bytes = try file.read(handle, at: meta.offset, count: meta.storedLength)
    return try withBytes(of: bytes) { (raw) throws(StoreError) in
      try BinarySections.checkCRC(of: meta, stored: raw, file: file.path)
      return try BinarySections.decodeMetadata(meta, raw, file: file.path).metadata
    }
  }

  /// The model the store was written with, from its MODL section, or `nil` for a file
  /// written before version 1.1 (which has none). Only the header, the table and MODL are read.
  ///
  /// The model comes back with the version hash the file's header records: a store opens with
  /// it without anything else at hand.
  ///
  /// - Throws: as ``readMetadata(from:)``; `.malformedStore` when the section does not
  ///   inflate, or holds a model that does not load or whose version hash is not the header's.
  public func readModel(from url: URL) throws(StoreError) -> ManagedObjectModel? {
    let file = BinaryFile(url: url)
    let handle = try file.open()
    defer { try? handle.close() }
    let container = try Self.container(of: file, handle).container
    guard let section = try BinarySections(container, file: file.path).model else { return nil }
    let stored = try file.read(handle, at: section.offset, count: section.storedLength)
    let text = try withBytes(of: stored) { (raw) throws(StoreError) in
      try BinarySections.checkCRC(of: section, stored: raw, file: file.path)
      return try BinarySections.inflate(section, raw, file: file.path)
    }
    let location = InputLocation(file: file.path, byteOffset: section.offset)
    let model: ManagedObjectModel
    do {
      model = try ManagedObjectModel(
        xcodeModelData: Data(text), path: "\(file.path) (section \"MODL\")")
    } catch {
      throw StoreError(
        .malformedStore, "the embedded model does not load: \(error)", at: location)
    }
    guard model.versionHash == container.modelHash else {
      throw StoreError(
        .malformedStore, "the embedded model's version hash is not the one in the header",
        at: location)
    }
    return model
  }

  /// The whole store, checked against `model`.
  ///
  /// - Throws: `StoreError` naming the byte offset and section: `.notFound`, `.unreadable`,
  ///   `.badMagic`, `.unsupportedVersion` (a newer major version, or a required section this
  ///   build does not know), `.truncated`, `.badChecksum`, `.malformedStore`;
  ///   `.modelMismatch` listing the entities whose version hashes differ; `.typeMismatch`
  ///   for a value stored with another type than the model's; `.danglingReference`.
  /// - Complexity: O(*n*) in the file's size.
  public func read(from url: URL, model: ManagedObjectModel) throws(StoreError) -> StoreContents {
    var collector = StoreContentsCollector()
    try read(from: url, model: model, into: &collector)
    return collector.contents
  }

  package func read(
    from url: URL, model: ManagedObjectModel, counting counted: (_ done: Int, _ total: Int?) -> Void
  ) throws(StoreError) -> StoreContents {
    try collectRecords(from: url, model: model, counting: counted)
  }

  /// Reads the store at `url` into `consumer`, record by record, checked against `model` as
  /// ``read(from:model:)`` is. Only the file and its inflated body are held while reading.
  ///
  /// - Throws: what ``read(from:model:)`` throws, and whatever `consumer` throws.
  public func read<Consumer: StoreRecordConsumer>(
    from url: URL, model: ManagedObjectModel, into consumer: inout Consumer
  ) throws(StoreError) {
    var source = try FileSource(url: url)
    try decode(&source, model: model, into: &consumer)
  }

  /// Writes `contents` atomically, its metadata's store type set to `"Binary"` and its
  /// version hashes to `model`'s.
  ///
  /// - Throws: `StoreError` — `.typeMismatch`, `.modelMismatch`, `.danglingReference` or
  ///   `.malformedStore` when the records do not fit `model`, naming `Entity.key`;
  ///   `.writeFailed` when the file cannot be written. Either way the old file is intact.
  /// - Complexity: O(*n*) in the records and their values.
  public func write(_ contents: StoreContents, model: ManagedObjectModel, to url: URL)
    throws(StoreError)
  {
    let bytes = try encode(contents, model: model)
    try AtomicFile.write(to: url) { output throws(StoreError) in try output.write(bytes) }
  }

  /// The file's bytes for `contents`, with `extraSections` after the standard ones.
  func encode(
    _ contents: StoreContents, model: ManagedObjectModel,
    extraSections: [(kind: UInt32, flags: SectionFlags, bytes: [UInt8])] = [],
    minor: UInt16 = BinaryFormat.minorVersion
  ) throws(StoreError) -> [UInt8] {
    guard model.versionHash.count == BinaryFormat.modelHashLength else {
      preconditionFailure("model version hash is not a SHA-256")
    }
    let body = try BinaryBodyWriter.encode(contents.records, model: model)
    var metadata = contents.metadata
    metadata.storeType = typeName
    let maximumID = contents.records.map(\.id).max() ?? 0
    let meta = try BinaryMetadataCoding.encode(
      metadata,
      entityHashes: contents.keepsVersionHashes
        ? contents.metadata.modelVersionHashes : model.entityVersionHashesByName,
      nextObjectID: max(contents.nextObjectID, maximumID + 1))
    let embedded = Array(model.xcodeModelXML().utf8)
    let standard: [(kind: UInt32, flags: SectionFlags, bytes: [UInt8])] = [
      (SectionKind.metadata, [.required], meta),
      (SectionKind.body, [.required, .deflated], body),
      (SectionKind.model, [.deflated], embedded),
    ]
    return BinaryContainer.assemble(
      standard + extraSections, modelHash: model.versionHash, minor: minor)
  }

  /// The contents of a whole file's `data`, checked against `model`.
  func decode(_ data: Data, model: ManagedObjectModel, file: String) throws(StoreError)
    -> StoreContents
  {
    var collector = StoreContentsCollector()
    try decode(data, model: model, file: file, into: &collector)
    return collector.contents
  }

  func decode<Consumer: StoreRecordConsumer>(
    _ data: Data, model: ManagedObjectModel, file: String, into consumer: inout Consumer
  ) throws(StoreError) {
    try withBytes(of: data) { (raw) throws(StoreError) in
      var source = MemorySource(raw, path: file)
      try decode(&source, model: model, into: &consumer)
    }
  }

  /// Reads a whole store from `source`, front to back: the header and table, then each
  /// section as it comes, its CRC-32 computed and the BODY inflated a piece at a time. Nothing
  /// is decoded before every checksum has passed, so a corrupt file fails at its checksum
  /// whatever else is wrong with it.
  func decode<Source: BinarySource & ~Copyable, Consumer: StoreRecordConsumer>(
    _ source: inout Source, model: ManagedObjectModel, into consumer: inout Consumer
  ) throws(StoreError) {
    let file = source.path
    let size = source.size
    var prefix = try source.next(min(size, BinaryFormat.headerLength)) { Array($0) }
    let prefixLength = try withBytes(of: prefix) { (raw) throws(StoreError) in
      try BinaryContainer.prefixLength(header: raw, fileSize: size, file: file)
    }
    prefix += try source.next(prefixLength - prefix.count) { Array($0) }
    let container = try withBytes(of: prefix) { (raw) throws(StoreError) in
      try BinaryContainer(prefix: raw, fileSize: size, file: file)
    }
    let sections = try BinarySections(container, file: file)
    let meta = sections.metadata
    let body = sections.body
    var metaBytes: [UInt8] = []
    let content = UnsafeMutableRawBufferPointer.allocate(byteCount: body.length, alignment: 16)
    defer { content.deallocate() }
    // The CRC-32 above covers the stream's every byte, so its Adler-32 is not computed again.
    var inflater = Inflater(into: content, checksAdler32: false)
    for section in container.sections {
      var crc: UInt32 = 0
      var left = section.storedLength
      while left > 0 {
        let count = section.offset == meta.offset ? left : min(left, source.pieceSize)
        try source.next(count) { piece in
          crc = Zlib.crc32(piece, continuing: crc)
          if section.offset == meta.offset {
            metaBytes = Array(piece)
          } else if section.offset == body.offset {
            inflater.feed(piece)
          }
        }
        left -= count
      }
      guard crc == section.checksum else {
        throw StoreError.badChecksum(
          of: "section \"\(section.name)\"", stored: section.checksum, computed: crc,
          file: file, offset: section.offset)
      }
    }
    let (metadata, nextObjectID) = try withBytes(of: metaBytes) { (raw) throws(StoreError) in
      try BinarySections.decodeMetadata(meta, raw, file: file)
    }
    guard container.modelHash == model.versionHash else {
      throw StoreError.modelMismatch(
        stored: metadata.modelVersionHashes, model: model, file: file)
    }
    do {
      try inflater.finish()
    } catch {
      throw BinarySections.inflateError(error, of: body, file: file)
    }
    let place = BinaryPlace(
      file: file, section: body.name, fileOffset: body.offset, isInflated: true)
    var reader = try BinaryBodyReader.open(
      ByteReader(UnsafeRawBufferPointer(content), place: place), model: model)
    let maximumID = reader.maximumID
    guard nextObjectID > maximumID else {
      throw StoreError(
        .malformedStore,
        "the next object ID \(nextObjectID) is not above the largest ID \(maximumID)",
        at: InputLocation(file: file, byteOffset: meta.offset))
    }
    try consumer.begin(
      metadata: metadata, nextObjectID: nextObjectID, recordCount: reader.objectCount)
    try reader.readRecords(into: &consumer)
    try consumer.finish()
  }
}

extension BinaryStore: CountingWholeRead {}

extension BinaryStore: ModelCarryingStoreFormat {
  package var carriedModelPlace: String { "carried in the file" }

  package var missingModelReason: String {
    "this .folio store was written before version 1.1 and carries no model"
  }
}
