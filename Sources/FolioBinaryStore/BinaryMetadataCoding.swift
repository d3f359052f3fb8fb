import FolioModel
import FolioStores
import Foundation

// The META section: the store's metadata, stored uncompressed so `readMetadata` reads it
// without touching the body. Strings are inline (a UInt32 length and UTF-8); property lists
// are tagged values. Readers ignore bytes after the fields they know: a newer minor version
// may append fields here.

/// Encodes and decodes the META section.
enum BinaryMetadataCoding {
  private enum Tag: UInt8 {
    case string = 1
    case integer = 2
    case real = 3
    case falseValue = 4
    case trueValue = 5
    case date = 6
    case data = 7
    case array = 8
    case dictionary = 9
  }

  /// The META bytes for `metadata`, whose version hashes are `entityHashes`.
  ///
  /// - Throws: `limitExceeded` when a property list nests deeper than
  ///   ``StoreLimits/maximumNestingLevels``, which no reader would accept.
  static func encode(
    _ metadata: StoreMetadata, entityHashes: [String: Data], nextObjectID: Int64
  ) throws(StoreError) -> [UInt8] {
    try StoreLimits.checkNesting(ofMetadata: metadata.userInfo)
    var writer = ByteWriter(capacity: 256)
    writer.append(string: metadata.identifier)
    writer.append(string: metadata.storeType)
    writer.append(nextObjectID)
    writer.append(UInt8(metadata.frameworkVersion == nil ? 0 : 1))
    writer.append(metadata.frameworkVersion ?? 0)
    writer.append(UInt32(metadata.modelVersionIdentifiers.count))
    for identifier in metadata.modelVersionIdentifiers { writer.append(string: identifier) }
    writer.append(UInt32(entityHashes.count))
    for (name, hash) in entityHashes.sorted(by: { $0.key < $1.key }) {
      writer.append(string: name)
      writer.appendCounted(hash)
    }
    encode(.dictionary(metadata.userInfo), into: &writer)
    return writer.finished()
  }

  /// The metadata and next object ID in META's `bytes`.
  static func decode(_ reader: inout ByteReader) throws(StoreError) -> (StoreMetadata, Int64) {
    let identifier = try reader.string("the store identifier")
    let storeType = try reader.string("the store type")
    var metadata = StoreMetadata(storeType: storeType, identifier: identifier)
    let nextObjectID = try reader.int64("the next object ID")
    let flagOffset = reader.offset
    let hasFrameworkVersion = try reader.uint8("the framework version flag")
    let frameworkVersion = try reader.int64("the framework version")
    guard hasFrameworkVersion <= 1 else {
      throw reader.error(
        .malformedStore, "the framework version flag is \(hasFrameworkVersion), not 0 or 1",
        at: flagOffset)
    }
    metadata.frameworkVersion = hasFrameworkVersion == 1 ? frameworkVersion : nil
    let identifierCount = try reader.count("the version identifier count", elementSize: 4)
    for _ in 0..<identifierCount {
      metadata.modelVersionIdentifiers.append(try reader.string("a version identifier"))
    }
    let hashCount = try reader.count("the entity hash count", elementSize: 8)
    for _ in 0..<hashCount {
      let nameOffset = reader.offset
      let name = try reader.string("an entity name")
      let length = try reader.count("the length of a version hash", elementSize: 1)
      let hash = Data(try reader.slice(length, "a version hash"))
      guard metadata.modelVersionHashes.updateValue(hash, forKey: name) == nil else {
        throw reader.error(
          .malformedStore, "entity \"\(name)\" has two version hashes", at: nameOffset)
      }
    }
    let userInfoOffset = reader.offset
    guard case .dictionary(let userInfo) = try decodeValue(&reader, depth: 0) else {
      throw reader.error(
        .malformedStore, "the user metadata is not a dictionary", at: userInfoOffset)
    }
    metadata.userInfo = userInfo
    return (metadata, nextObjectID)
  }

  private static func encode(_ value: PropertyListValue, into writer: inout ByteWriter) {
    switch value {
    case .string(let string):
      writer.append(Tag.string.rawValue)
      writer.append(string: string)
    case .integer(let integer):
      writer.append(Tag.integer.rawValue)
      writer.append(integer)
    case .real(let real):
      writer.append(Tag.real.rawValue)
      writer.append(real.bitPattern)
    case .boolean(let boolean):
      writer.append((boolean ? Tag.trueValue : Tag.falseValue).rawValue)
    case .date(let date):
      writer.append(Tag.date.rawValue)
      writer.append(date.timeIntervalSinceReferenceDate.bitPattern)
    case .data(let data):
      writer.append(Tag.data.rawValue)
      writer.appendCounted(data)
    case .array(let values):
      writer.append(Tag.array.rawValue)
      writer.append(UInt32(values.count))
      for value in values { encode(value, into: &writer) }
    case .dictionary(let entries):
      writer.append(Tag.dictionary.rawValue)
      writer.append(UInt32(entries.count))
      for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
        writer.append(string: key)
        encode(value, into: &writer)
      }
    }
  }

  /// The value whose tag is next, inside `depth` containers: an array or dictionary is level
  /// `depth + 1`, refused past ``StoreLimits/maximumNestingLevels``.
  private static func decodeValue(_ reader: inout ByteReader, depth: Int) throws(StoreError)
    -> PropertyListValue
  {
    let start = reader.offset
    let rawTag = try reader.uint8("a property list tag")
    let tag = Tag(rawValue: rawTag)
    if tag == .array || tag == .dictionary, depth >= StoreLimits.maximumNestingLevels {
      throw reader.error(
        .limitExceeded, StoreLimits.nestedTooDeeply("property lists"), at: start)
    }
    switch tag {
    case .string: return .string(try reader.string("a property list string"))
    case .integer: return .integer(try reader.int64("a property list integer"))
    case .real: return .real(Double(bitPattern: try reader.uint64("a property list real")))
    case .falseValue: return .boolean(false)
    case .trueValue: return .boolean(true)
    case .date:
      let seconds = Double(bitPattern: try reader.uint64("a property list date"))
      return .date(Date(timeIntervalSinceReferenceDate: seconds))
    case .data:
      let length = try reader.count("the length of property list data", elementSize: 1)
      return .data(Data(try reader.slice(length, "property list data")))
    case .array:
      let count = try reader.count("a property list array's count", elementSize: 1)
      var values: [PropertyListValue] = []
      for _ in 0..<count { values.append(try decodeValue(&reader, depth: depth + 1)) }
      return .array(values)
    case .dictionary:
      let count = try reader.count("a property list dictionary's count", elementSize: 5)
      var entries: [String: PropertyListValue] = [:]
      for _ in 0..<count {
        let keyOffset = reader.offset
        let key = try reader.string("a property list key")
        guard entries.updateValue(try decodeValue(&reader, depth: depth + 1), forKey: key) == nil
        else {
          throw reader.error(
            .malformedStore, "property list key \"\(key)\" appears twice", at: keyOffset)
        }
      }
      return .dictionary(entries)
    case nil:
      throw reader.error(.malformedStore, "unknown property list tag \(rawTag)", at: start)
    }
  }
}
