import FolioModel
import FolioStores
import Foundation

// One attribute value's bytes, by type. Fixed-width numbers are little-endian; floating-point
// values keep their bit pattern (NaN payloads included); strings, URIs and object IDs are
// indices into the body's string table; data is a UInt32 length and the bytes; a decimal is
// its exact decimal text (`-123.45`, or `NaN`) in the string table, since Foundation keeps
// its binary fields private; a composite is a count and (name, tag, value) per member.

/// The strings of a body being written, laid out as the string table stores them: every
/// length, and all the UTF-8 back to back.
struct StringTable {
  /// How many strings there are.
  private(set) var count = 0
  /// Each string's byte length, as a `UInt32`.
  private(set) var lengths = ByteWriter()
  /// The strings' UTF-8, concatenated.
  private(set) var utf8 = ByteWriter()
  private var indices: [String: UInt32] = [:]

  /// The index of a new entry for `string`: values are not looked up, since hashing every
  /// string costs more than zlib takes to squeeze out the repeats.
  mutating func add(_ string: String) -> UInt32 {
    let length = utf8.append(utf8Of: string)
    guard let stored = UInt32(exactly: length) else {
      preconditionFailure("a string of \(length) bytes does not fit the string table")
    }
    lengths.append(stored)
    count += 1
    return UInt32(count - 1)
  }

  /// The index of `string`, adding it if new: for names, which repeat.
  mutating func index(of string: String) -> UInt32 {
    if let index = indices[string] { return index }
    let index = add(string)
    indices[string] = index
    return index
  }
}

/// Encodes attribute values, checking each fits its type.
struct BinaryValueEncoder {
  let model: ManagedObjectModel
  var strings = StringTable()
  private let limits = StoreLimits.current

  /// Appends `value`, which must fit `type`, for `entity.key`; a composite `value` is on
  /// `level` (a member of a composite is one level below it).
  mutating func encode(
    _ value: AttributeValue, as type: AttributeType, composite: String?, entity: String,
    key: String, level: Int = 1, into writer: inout ByteWriter
  ) throws(StoreError) {
    func mismatch() -> StoreError {
      .recordMismatch(
        "value \(value) does not fit type \(type.xcodeName)", entity: entity, key: key)
    }
    switch (type, value) {
    case (.integer16, .integer(let integer)), (.integer32, .integer(let integer)),
      (.integer64, .integer(let integer)):
      guard let range = type.integerRange, range.contains(integer) else { throw mismatch() }
      switch type {
      case .integer16: writer.append(Int16(integer))
      case .integer32: writer.append(Int32(integer))
      default: writer.append(integer)
      }
    case (.decimal, .decimal(let decimal)):
      writer.append(strings.add(decimal.isNaN ? "NaN" : decimal.description))
    case (.double, .double(let double)): writer.append(double.bitPattern)
    case (.float, .float(let float)): writer.append(float.bitPattern)
    case (.string, .string(let string)), (.objectID, .objectID(let string)):
      try limits.check(value, entity: entity, key: key)
      writer.append(strings.add(string))
    case (.uri, .uri(let url)):
      try limits.check(value, entity: entity, key: key)
      writer.append(strings.add(url.absoluteString))
    case (.boolean, .boolean(let boolean)): writer.append(UInt8(boolean ? 1 : 0))
    case (.date, .date(let date)):
      writer.append(date.timeIntervalSinceReferenceDate.bitPattern)
    case (.binaryData, .binaryData(let data)), (.transformable, .transformable(let data)):
      try limits.check(value, entity: entity, key: key)
      writer.appendCounted(data)
    case (.uuid, .uuid(let uuid)): withUnsafeBytes(of: uuid.uuid) { writer.append($0) }
    case (.composite, .composite(let members)):
      // Members the model does not describe are written with their own types, so only they
      // can nest past the levels a model allows.
      guard level <= StoreLimits.maximumNestingLevels else {
        throw StoreError(
          .limitExceeded, StoreLimits.nestedTooDeeply("composites"),
          at: InputLocation(entity: entity, property: key))
      }
      let description = composite.flatMap { model.composite(named: $0) }
      writer.append(UInt32(members.count))
      for (name, member) in members.sorted(by: { $0.key < $1.key }) {
        let memberAttribute = description?.attributes.first { $0.name == name }
        guard let memberType = memberAttribute?.attributeType ?? Self.type(of: member),
          let tag = memberType.binaryTag
        else { throw mismatch() }
        writer.append(strings.index(of: name))
        writer.append(tag)
        try encode(
          member, as: memberType, composite: memberAttribute?.compositeName, entity: entity,
          key: "\(key).\(name)", level: level + 1, into: &writer)
      }
    default:
      throw mismatch()
    }
  }

  /// The natural type of a composite member no description names.
  private static func type(of value: AttributeValue) -> AttributeType? {
    switch value {
    case .integer: .integer64
    case .decimal: .decimal
    case .double: .double
    case .float: .float
    case .string: .string
    case .boolean: .boolean
    case .date: .date
    case .binaryData: .binaryData
    case .uuid: .uuid
    case .uri: .uri
    case .transformable: .transformable
    case .objectID: .objectID
    case .composite: .composite
    }
  }
}

/// Decodes attribute values from a body.
struct BinaryValueDecoder {
  let model: ManagedObjectModel
  let strings: [String]
  private let limits = StoreLimits.current

  /// The string at the table index read next.
  @inline(__always)
  func string(_ reader: inout ByteReader, _ what: String) throws(StoreError) -> String {
    let start = reader.offset
    let index = Int(try reader.uint32(what))
    guard index < strings.count else {
      throw reader.error(
        .malformedStore,
        "string index \(index) is past the string table's \(strings.count) strings", at: start)
    }
    return strings[index]
  }

  /// One value of `type`.
  func decode(
    _ reader: inout ByteReader, as type: AttributeType, composite: String?, depth: Int = 0
  ) throws(StoreError) -> AttributeValue {
    let start = reader.offset
    switch type {
    case .integer16: return .integer(Int64(Int16(bitPattern: try reader.uint16("an Integer 16"))))
    case .integer32: return .integer(Int64(Int32(bitPattern: try reader.uint32("an Integer 32"))))
    case .integer64: return .integer(try reader.int64("an Integer 64"))
    case .decimal: return .decimal(try decimal(&reader))
    case .double: return .double(Double(bitPattern: try reader.uint64("a Double")))
    case .float: return .float(Float(bitPattern: try reader.uint32("a Float")))
    case .string: return .string(try string(&reader, "a String"))
    case .objectID: return .objectID(try string(&reader, "an ObjectID"))
    case .uri:
      let text = try string(&reader, "a URI")
      guard let url = URL(string: text) else {
        throw reader.error(.malformedStore, "\"\(text)\" is not a URI", at: start)
      }
      return .uri(url)
    case .boolean:
      let byte = try reader.uint8("a Boolean")
      guard byte <= 1 else {
        throw reader.error(.malformedStore, "a Boolean is \(byte), not 0 or 1", at: start)
      }
      return .boolean(byte == 1)
    case .date:
      let seconds = Double(bitPattern: try reader.uint64("a Date"))
      return .date(Date(timeIntervalSinceReferenceDate: seconds))
    case .binaryData, .transformable:
      let length = try reader.count("the length of a \(type.xcodeName) value", elementSize: 1)
      guard length <= limits.maximumValueBytes else {
        throw reader.error(.limitExceeded, limits.valueTooLarge(length), at: start)
      }
      let data = Data(try reader.slice(length, "a \(type.xcodeName) value"))
      return type == .binaryData ? .binaryData(data) : .transformable(data)
    case .uuid:
      let bytes = try reader.slice(16, "a UUID")
      var uuid = UUID().uuid
      withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: bytes) }
      return .uuid(UUID(uuid: uuid))
    case .composite:
      return .composite(try members(&reader, composite: composite, depth: depth))
    case .undefined:
      throw reader.error(.malformedStore, "a value of type Undefined cannot be stored", at: start)
    }
  }

  private func decimal(_ reader: inout ByteReader) throws(StoreError) -> Decimal {
    let start = reader.offset
    let text = try string(&reader, "a Decimal")
    if text == "NaN" { return .nan }
    guard
      text.utf8.allSatisfy({
        $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || (48...57).contains($0)
      }),
      let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    else {
      throw reader.error(.malformedStore, "\"\(text)\" is not a Decimal", at: start)
    }
    return decimal
  }

  private func members(_ reader: inout ByteReader, composite: String?, depth: Int)
    throws(StoreError) -> [String: AttributeValue]
  {
    let start = reader.offset
    guard depth < StoreLimits.maximumNestingLevels else {
      throw reader.error(.limitExceeded, StoreLimits.nestedTooDeeply("composites"), at: start)
    }
    let description = composite.flatMap { model.composite(named: $0) }
    let count = try reader.count("a composite's member count", elementSize: 5)
    var members: [String: AttributeValue] = [:]
    for _ in 0..<count {
      let memberOffset = reader.offset
      let name = try string(&reader, "a composite member's name")
      let tag = try reader.uint8("a composite member's type")
      guard let type = AttributeType(binaryTag: tag) else {
        throw reader.error(.malformedStore, "unknown type tag \(tag)", at: memberOffset + 4)
      }
      let member = description?.attributes.first { $0.name == name }
      if let member, member.attributeType != type {
        throw reader.error(
          .typeMismatch,
          "composite member \"\(name)\" is stored as \(type.xcodeName) but the model says"
            + " \(member.attributeType.xcodeName)", at: memberOffset)
      }
      let value = try decode(
        &reader, as: type, composite: member?.compositeName, depth: depth + 1)
      guard members.updateValue(value, forKey: name) == nil else {
        throw reader.error(
          .malformedStore, "composite member \"\(name)\" appears twice", at: memberOffset)
      }
    }
    return members
  }
}
