import FolioModel
import Foundation

/// One entry of a ``ChangeJournal``: a save that replaced the store's file of stamp ``from`` by
/// the file of stamp ``to``, and what it changed.
///
/// Its payload, little-endian throughout: the two stamps (inode, size, seconds and nanoseconds
/// of the modification time: 8 bytes each), the store's identifier (a string: a UInt32 length
/// and UTF-8), the next object ID (Int64), the metadata (a UInt32 length and a binary property
/// list, Core Data's metadata keys), the records (a UInt32 count, then each record), the
/// deleted IDs (a UInt32 count, then each Int64). A record is its entity's name, its ID, its
/// attributes (a count, then a name and a tagged value each) and its relationships (a count,
/// then a name, a count of target IDs and the IDs, in order, each).
struct JournalEntry {
  /// The bytes of one stamp.
  static let stampBytes = 32
  var from: FileStamp
  var to: FileStamp
  var identifier: String
  var nextObjectID: Int64 = 1
  var metadata: StoreMetadata
  var records: [StoreRecord] = []
  var deleted: [Int64] = []

  init(from: FileStamp, to: FileStamp, metadata: StoreMetadata) {
    (self.from, self.to, self.metadata) = (from, to, metadata)
    identifier = metadata.identifier
  }

  /// The stamps at the start of the payload at `frame`, not checked.
  static func stamps(in bytes: [UInt8], at frame: Range<Int>) -> (from: FileStamp, to: FileStamp) {
    var decoder = JournalDecoder(bytes: bytes, offset: frame.lowerBound, end: frame.upperBound)
    let from = (try? decoder.stamp()) ?? FileStamp(inode: 0, size: -1, seconds: 0, nanoseconds: 0)
    let to = (try? decoder.stamp()) ?? from
    return (from, to)
  }

  /// Whether the payload at `frame` is a barrier: two stamps and an empty identifier.
  static func isBarrier(in bytes: [UInt8], at frame: Range<Int>) -> Bool {
    frame.count == stampBytes * 2 + 4
      && JournalDecoder.uint32(bytes, at: frame.lowerBound + stampBytes * 2) == 0
  }

  /// The payload's bytes.
  func encoded() -> [UInt8] {
    var encoder = JournalEncoder()
    encoder.stamp(from)
    encoder.stamp(to)
    encoder.string(identifier)
    encoder.int64(nextObjectID)
    encoder.data(BinaryPropertyList.encode(.dictionary(Self.dictionary(of: metadata))))
    encoder.count(records.count)
    for record in records { encoder.record(record) }
    encoder.count(deleted.count)
    for id in deleted { encoder.int64(id) }
    return encoder.bytes
  }

  /// The entry whose payload is at `frame` of `bytes`, followed by its checksum; `nil` when
  /// the checksum or the payload is wrong.
  init?(_ bytes: [UInt8], frame: Range<Int>) {
    guard frame.upperBound + 8 <= bytes.count,
      JournalDecoder.uint64(bytes, at: frame.upperBound) == ChangeJournal.checksum(bytes[frame])
    else { return nil }
    var decoder = JournalDecoder(bytes: bytes, offset: frame.lowerBound, end: frame.upperBound)
    do {
      from = try decoder.stamp()
      to = try decoder.stamp()
      identifier = try decoder.string()
      let next = try decoder.int64()
      let plist = try BinaryPropertyList.decode(decoder.data(), file: nil).propertyListValue
      guard case .dictionary(let values)? = plist, case .string(let type)? = values["NSStoreType"]
      else { return nil }
      metadata = StoreMetadata(storeType: type, identifier: identifier)
      metadata.apply(values)
      nextObjectID = next
      for _ in 0..<(try decoder.count()) { records.append(try decoder.record()) }
      for _ in 0..<(try decoder.count()) { deleted.append(try decoder.int64()) }
      guard decoder.offset == frame.upperBound else { return nil }
    } catch {
      return nil
    }
  }

  /// `metadata` under Core Data's keys, the app's own beside them.
  static func dictionary(of metadata: StoreMetadata) -> [String: PropertyListValue] {
    var values = metadata.userInfo
    values["NSStoreUUID"] = .string(metadata.identifier)
    values["NSStoreType"] = .string(metadata.storeType)
    values["NSStoreModelVersionHashes"] = .dictionary(
      metadata.modelVersionHashes.mapValues { .data($0) })
    values["NSStoreModelVersionIdentifiers"] = .array(
      metadata.modelVersionIdentifiers.map { .string($0) })
    if let version = metadata.frameworkVersion {
      values["NSPersistenceFrameworkVersion"] = .integer(version)
    }
    return values
  }
}

/// Writes a journal entry's payload.
struct JournalEncoder {
  var bytes: [UInt8] = []

  static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func int64(_ value: Int64) { Self.append(value, to: &bytes) }
  mutating func count(_ value: Int) { Self.append(UInt32(value), to: &bytes) }
  mutating func string(_ value: String) { data(Data(value.utf8)) }
  mutating func data(_ value: Data) {
    count(value.count)
    bytes.append(contentsOf: value)
  }

  mutating func stamp(_ stamp: FileStamp) {
    Self.append(stamp.inode, to: &bytes)
    for value in [stamp.size, stamp.seconds, stamp.nanoseconds] { int64(value) }
  }

  mutating func record(_ record: StoreRecord) {
    string(record.entityName)
    int64(record.id)
    var attributes: [(String, AttributeValue)] = []
    record.forEachAttribute { attributes.append(($0, $1)) }
    count(attributes.count)
    for (name, value) in attributes {
      string(name)
      self.value(value)
    }
    let relationships = record.relationships
    count(relationships.count)
    for (name, targets) in relationships {
      string(name)
      count(targets.count)
      for target in targets { int64(target) }
    }
  }

  /// A value: a tag byte (its case, in `AttributeValue`'s order from 0), then its bytes.
  mutating func value(_ value: AttributeValue) {
    switch value {
    case .integer(let number): tagged(0) { $0.int64(number) }
    case .decimal(let number):
      tagged(1) { $0.string(number.isNaN ? "NaN" : number.description) }
    case .double(let number): tagged(2) { Self.append(number.bitPattern, to: &$0.bytes) }
    case .float(let number): tagged(3) { Self.append(number.bitPattern, to: &$0.bytes) }
    case .string(let text): tagged(4) { $0.string(text) }
    case .boolean(let flag): tagged(5) { $0.bytes.append(flag ? 1 : 0) }
    case .date(let date):
      tagged(6) { Self.append(date.timeIntervalSinceReferenceDate.bitPattern, to: &$0.bytes) }
    case .binaryData(let data): tagged(7) { $0.data(data) }
    case .uuid(let uuid):
      tagged(8) { $0.bytes.append(contentsOf: withUnsafeBytes(of: uuid.uuid) { Array($0) }) }
    case .uri(let url): tagged(9) { $0.string(url.absoluteString) }
    case .transformable(let data): tagged(10) { $0.data(data) }
    case .objectID(let uri): tagged(11) { $0.string(uri) }
    case .composite(let members):
      tagged(12) {
        $0.count(members.count)
        for (name, member) in members.sorted(by: { $0.key < $1.key }) {
          $0.string(name)
          $0.value(member)
        }
      }
    }
  }

  private mutating func tagged(_ tag: UInt8, _ body: (inout JournalEncoder) -> Void) {
    bytes.append(tag)
    body(&self)
  }
}

/// Reads a journal entry's payload; every read is bounded by the payload's end.
struct JournalDecoder {
  struct Malformed: Error {}
  let bytes: [UInt8]
  var offset: Int
  let end: Int

  static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
  }

  static func uint64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
    (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
  }

  private mutating func take(_ count: Int) throws(Malformed) -> Int {
    guard count >= 0, count <= end - offset else { throw Malformed() }
    defer { offset += count }
    return offset
  }

  mutating func uint64() throws(Malformed) -> UInt64 { Self.uint64(bytes, at: try take(8)) }
  mutating func int64() throws(Malformed) -> Int64 { Int64(bitPattern: try uint64()) }
  mutating func count() throws(Malformed) -> Int { Int(Self.uint32(bytes, at: try take(4))) }
  mutating func data() throws(Malformed) -> Data {
    let count = try count()
    let start = try take(count)
    return Data(bytes[start..<start + count])
  }

  mutating func string() throws(Malformed) -> String {
    let count = try count()
    let start = try take(count)
    guard let text = String(validating: bytes[start..<start + count], as: UTF8.self) else {
      throw Malformed()
    }
    return text
  }

  mutating func stamp() throws(Malformed) -> FileStamp {
    FileStamp(
      inode: try uint64(), size: try int64(), seconds: try int64(), nanoseconds: try int64())
  }

  mutating func record() throws(Malformed) -> StoreRecord {
    var record = StoreRecord(entityName: try string(), id: try int64())
    var attributes: [String: AttributeValue] = [:]
    for _ in 0..<(try count()) { attributes[try string()] = try value() }
    var relationships: [String: [Int64]] = [:]
    for _ in 0..<(try count()) {
      let name = try string()
      let count = try count()
      guard count <= (end - offset) / 8 else { throw Malformed() }
      var targets: [Int64] = []
      targets.reserveCapacity(count)
      for _ in 0..<count { targets.append(try int64()) }
      relationships[name] = targets
    }
    record.attributes = attributes
    record.relationships = relationships
    return record
  }

  mutating func value(depth: Int = 0) throws(Malformed) -> AttributeValue {
    let tag = bytes[try take(1)]
    switch tag {
    case 0: return .integer(try int64())
    case 1:
      let text = try string()
      if text == "NaN" { return .decimal(.nan) }
      guard let number = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
        throw Malformed()
      }
      return .decimal(number)
    case 2: return .double(Double(bitPattern: try uint64()))
    case 3: return .float(Float(bitPattern: Self.uint32(bytes, at: try take(4))))
    case 4: return .string(try string())
    case 5: return .boolean(bytes[try take(1)] != 0)
    case 6: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try uint64())))
    case 7: return .binaryData(try data())
    case 8:
      let start = try take(16)
      let b = Array(bytes[start..<start + 16])
      return .uuid(
        UUID(
          uuid: (
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
            b[13], b[14], b[15]
          )))
    case 9:
      guard let url = URL(string: try string()) else { throw Malformed() }
      return .uri(url)
    case 10: return .transformable(try data())
    case 11: return .objectID(try string())
    case 12:
      guard depth < 32 else { throw Malformed() }
      var members: [String: AttributeValue] = [:]
      for _ in 0..<(try count()) { members[try string()] = try value(depth: depth + 1) }
      return .composite(members)
    default: throw Malformed()
    }
  }
}
