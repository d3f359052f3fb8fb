import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

// The sections of a version-1 file, found in the table and checked: exactly one META and one
// BODY, any other kind skipped when optional and refused when required; each section's CRC-32
// checked before its bytes are used; the BODY inflated into exactly its declared length.

/// The standard sections of a binary store, found in its table.
struct BinarySections {
  /// The META section: metadata and entity version hashes, stored as is.
  var metadata: BinarySection
  /// The BODY section: the objects, deflated.
  var body: BinarySection
  /// The MODL section, when the file has one: the model as Xcode model XML, deflated.
  var model: BinarySection?

  /// Finds the standard sections of `container`.
  ///
  /// - Throws: `.unsupportedVersion` for an unknown required section; `.malformedStore` when
  ///   META or BODY is missing, doubled, or stored in the wrong form.
  init(_ container: BinaryContainer, file: String) throws(StoreError) {
    var metadata: [BinarySection] = []
    var body: [BinarySection] = []
    var model: [BinarySection] = []
    for section in container.sections {
      switch section.kind {
      case SectionKind.metadata: metadata.append(section)
      case SectionKind.body: body.append(section)
      case SectionKind.model: model.append(section)
      default:
        if section.flags.contains(.required) {
          throw StoreError.unknownRequiredSection(
            section.name, file: file, offset: section.offset)
        }
      }
    }
    guard metadata.count == 1, let meta = metadata.first else {
      throw StoreError.sectionCount("META", count: metadata.count, file: file)
    }
    guard body.count == 1, let content = body.first else {
      throw StoreError.sectionCount("BODY", count: body.count, file: file)
    }
    guard !meta.flags.contains(.deflated), content.flags.contains(.deflated) else {
      throw StoreError(
        .malformedStore, "the META section must be stored as is and the BODY deflated",
        at: InputLocation(file: file, byteOffset: BinaryFormat.headerLength))
    }
    guard model.count <= 1 else {
      throw StoreError.sectionCount("MODL", count: model.count, file: file, limit: "at most one")
    }
    if let model = model.first, !model.flags.contains(.deflated) {
      throw StoreError(
        .malformedStore, "the MODL section must be deflated",
        at: InputLocation(file: file, byteOffset: model.offset))
    }
    self.metadata = meta
    self.body = content
    self.model = model.first
  }

  /// Checks `stored`, the section's bytes in the file, against its CRC-32.
  static func checkCRC(of section: BinarySection, stored: UnsafeRawBufferPointer, file: String)
    throws(StoreError)
  {
    let crc = Zlib.crc32(stored)
    guard crc == section.checksum else {
      throw StoreError.badChecksum(
        of: "section \"\(section.name)\"", stored: section.checksum, computed: crc, file: file,
        offset: section.offset)
    }
  }

  /// The metadata and next object ID in the META section's `bytes`.
  static func decodeMetadata(
    _ section: BinarySection, _ bytes: UnsafeRawBufferPointer, file: String
  ) throws(StoreError) -> (metadata: StoreMetadata, nextObjectID: Int64) {
    var reader = ByteReader(
      bytes, place: BinaryPlace(file: file, section: section.name, fileOffset: section.offset))
    return try BinaryMetadataCoding.decode(&reader)
  }

  /// A deflated section's content, inflated from `stored` into exactly its declared length.
  ///
  /// - Throws: `.malformedStore` when the stream is corrupt, or inflates to more or fewer
  ///   bytes than declared (a decompression bomb is stopped at the declared length).
  static func inflate(_ section: BinarySection, _ stored: UnsafeRawBufferPointer, file: String)
    throws(StoreError) -> [UInt8]
  {
    do {
      return try Zlib.inflate(stored, length: section.length)
    } catch {
      throw inflateError(error, of: section, file: file)
    }
  }

  /// The error for `section`'s stream refused by zlib with `failure`.
  static func inflateError(_ failure: InflateFailure, of section: BinarySection, file: String)
    -> StoreError
  {
    let location = InputLocation(file: file, byteOffset: section.offset)
    let name = "section \"\(section.name)\""
    switch failure {
    case .tooLong:
      return StoreError(
        .malformedStore,
        "\(name) inflates to more than the \(section.length) bytes it declares", at: location)
    case .tooShort(let produced):
      return StoreError(
        .malformedStore,
        "\(name) inflates to \(produced) bytes where it declares \(section.length)",
        at: location)
    case .trailingBytes(let consumed):
      return StoreError(
        .malformedStore, "\(name) has bytes after the end of its compressed stream",
        at: InputLocation(file: file, byteOffset: section.offset + consumed))
    case .corrupt(let message, let consumed):
      return StoreError(
        .malformedStore, "\(name) cannot be inflated (zlib: \(message))",
        at: InputLocation(file: file, byteOffset: section.offset + consumed))
    case .cutShort(let consumed):
      return StoreError(
        .malformedStore, "\(name) cannot be inflated (zlib: the compressed stream is cut short)",
        at: InputLocation(file: file, byteOffset: section.offset + consumed))
    }
  }
}
