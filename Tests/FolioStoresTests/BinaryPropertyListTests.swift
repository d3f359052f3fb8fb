import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioSQLiteStore
@testable import FolioStores

/// The `bplist00` codec: every value round-trips, Python's `plistlib` output and every corpus
/// store's Z_PLIST decode, and malformed or hostile bytes give a `StoreError` at the byte of
/// the bad object, never a crash.
@Suite("Binary property lists")
struct BinaryPropertyListTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

  static func fixture(_ path: String) throws -> Data {
    try Data(contentsOf: fixtures.appendingPathComponent(path))
  }

  // MARK: Round trips

  /// A value of each case and shape, by name. Made anew on each use: a table kept in a static
  /// holds enum payloads whose tagged pointers LeakSanitizer cannot follow.
  static var values: [(String, PropertyListValue)] {
    [
      ("ASCII string", .string("hello")),
      ("empty string", .string("")),
      ("non-ASCII string", .string("Grüße, 東京 🎉")),
      ("decomposed string", .string("e\u{301}")),
      ("long string", .string(String(repeating: "abc", count: 100))),
      ("zero", .integer(0)),
      ("one-byte integer", .integer(255)),
      ("two-byte integer", .integer(256)),
      ("four-byte integer", .integer(65_536)),
      ("largest four-byte integer", .integer(Int64(UInt32.max))),
      ("eight-byte integer", .integer(1 << 32)),
      ("largest integer", .integer(.max)),
      ("minus one", .integer(-1)),
      ("smallest integer", .integer(.min)),
      ("real", .real(3.25)),
      ("negative zero", .real(-0.0)),
      ("infinity", .real(-.infinity)),
      ("tiny real", .real(.leastNonzeroMagnitude)),
      ("true", .boolean(true)),
      ("false", .boolean(false)),
      ("date", .date(Date(timeIntervalSinceReferenceDate: 730_902_615))),
      ("date before 2001", .date(Date(timeIntervalSinceReferenceDate: -1e9 - 0.5))),
      ("data", .data(Data((0..<20).map { UInt8($0) }))),
      ("empty data", .data(Data())),
      ("long data", .data(Data(repeating: 0xAB, count: 70_000))),
      ("empty array", .array([])),
      ("empty dictionary", .dictionary([:])),
      ("array of 20", .array((0..<20).map { .integer($0) })),
      ("array of 300 distinct objects", .array((0..<300).map { .string("item \($0)") })),
      (
        "dictionary of 16",
        .dictionary(Dictionary(uniqueKeysWithValues: (0..<16).map { ("k\($0)", .integer($0)) }))
      ),
      ("non-ASCII keys", .dictionary(["clé": .string("valeur"), "鍵": .boolean(true)])),
      (
        "nested",
        .dictionary([
          "list": .array([.array([]), .dictionary([:]), .array([.array([.string("deep")])])]),
          "same": .array([.string("x"), .string("x"), .integer(1), .real(1), .boolean(true)]),
          "meta": .dictionary([
            "hashes": .dictionary(["Person": .data(Data(repeating: 7, count: 32))]),
            "when": .date(Date(timeIntervalSinceReferenceDate: 0)),
          ]),
        ])
      ),
    ]
  }

  @Test(
    "every kind of value decodes to itself and encodes to the same bytes again", arguments: values)
  func roundTrip(name: String, value: PropertyListValue) throws {
    let bytes = BinaryPropertyList.encode(value)
    let node = try BinaryPropertyList.decode(bytes, file: nil)
    #expect(node == PropertyListNode(value))
    let decoded = try #require(node.propertyListValue)
    #expect(Self.identical(decoded, value))
    #expect(BinaryPropertyList.encode(decoded) == bytes)
  }

  /// Whether two values are equal with reals and dates compared by their bits (so `-0.0` is
  /// not `0.0`) and strings by their scalars (so a decomposed é is not a precomposed one).
  static func identical(_ left: PropertyListValue, _ right: PropertyListValue) -> Bool {
    switch (left, right) {
    case (.string(let x), .string(let y)): Array(x.unicodeScalars) == Array(y.unicodeScalars)
    case (.real(let x), .real(let y)): x.bitPattern == y.bitPattern
    case (.date(let x), .date(let y)):
      x.timeIntervalSinceReferenceDate.bitPattern == y.timeIntervalSinceReferenceDate.bitPattern
    case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy(identical)
    case (.dictionary(let x), .dictionary(let y)):
      x.count == y.count
        && x.allSatisfy { key, value in y[key].map { identical(value, $0) } ?? false }
    default: left == right
    }
  }

  @Test("values take the narrowest marker: integers, counts, dates and strings")
  func narrowestEncodings() throws {
    func firstObject(_ value: PropertyListValue) -> [UInt8] {
      Array(BinaryPropertyList.encode(value).dropFirst(8).prefix(3))
    }
    #expect(firstObject(.integer(255)) == [0x10, 0xFF, 0x08])
    #expect(firstObject(.integer(256)).prefix(2) == [0x11, 0x01])
    #expect(firstObject(.integer(65_536)).prefix(1) == [0x12])
    #expect(firstObject(.integer(1 << 32)).prefix(1) == [0x13])
    #expect(firstObject(.integer(-1)) == [0x13, 0xFF, 0xFF])
    #expect(firstObject(.date(Date(timeIntervalSinceReferenceDate: 0))).prefix(1) == [0x33])
    #expect(firstObject(.real(1)).prefix(1) == [0x23])
    #expect(firstObject(.string("abc")).prefix(1) == [0x53])
    #expect(firstObject(.string("é")) == [0x61, 0x00, 0xE9])
    #expect(firstObject(.array((0..<15).map { _ in .boolean(true) })) == [0xAF, 0x10, 0x0F])
    #expect(firstObject(.array((0..<14).map { _ in .boolean(true) })).prefix(1) == [0xAE])
  }

  @Test("offsets and references take one byte in a small list and two past 255 objects")
  func narrowestTrailer() throws {
    let small = Array(BinaryPropertyList.encode(.dictionary(["a": .integer(1)])))
    #expect(small.suffix(32).prefix(8) == [0, 0, 0, 0, 0, 0, 1, 1])
    let large = Array(BinaryPropertyList.encode(.array((0..<300).map { .integer($0 + 1000) })))
    #expect(large.suffix(32).prefix(8) == [0, 0, 0, 0, 0, 0, 2, 2])
  }

  @Test("equal strings, numbers and data are written once; dictionaries come out sorted")
  func sharingAndOrder() throws {
    let shared = BinaryPropertyList.encode(.array(Array(repeating: .string("same"), count: 50)))
    let distinct = BinaryPropertyList.encode(.array((0..<50).map { .string("s\($0 + 10)") }))
    #expect(shared.count < distinct.count / 3)
    // Canonically equivalent strings stay distinct objects.
    let forms = BinaryPropertyList.encode(.array([.string("é"), .string("e\u{301}")]))
    let node = try BinaryPropertyList.decode(forms, file: nil)
    guard case .array(let strings) = node, strings.count == 2,
      case .string(let first) = strings[0], case .string(let second) = strings[1]
    else {
      Issue.record("expected two strings, got \(node)")
      return
    }
    #expect(Array(first.unicodeScalars) == ["é"])
    #expect(Array(second.unicodeScalars) == ["e", "\u{301}"])
    let keys = (0..<20).map { "key\(19 - $0)" }
    let a = BinaryPropertyList.encode(
      .dictionary(Dictionary(uniqueKeysWithValues: keys.map { ($0, .string($0)) })))
    let b = BinaryPropertyList.encode(
      .dictionary(Dictionary(uniqueKeysWithValues: keys.reversed().map { ($0, .string($0)) })))
    #expect(a == b)
  }

  // MARK: Python's plistlib

  @Test("plistlib's scalars decode: strings, integers of each width, reals, dates, data")
  func pythonScalars() throws {
    let node = try BinaryPropertyList.decode(
      try Self.fixture("PropertyLists/python-scalars.plist"), file: "python-scalars.plist")
    let expected: PropertyListNode = .dictionary([
      "ascii": .string("hello"), "unicode": .string("Grüße, 東京 🎉"), "empty": .string(""),
      "zero": .integer(0), "byte": .integer(255), "short": .integer(65_535),
      "int": .integer(4_294_967_295), "big": .integer(.max), "negative": .integer(-1),
      "min": .integer(.min), "real": .real(3.25), "negativeReal": .real(-1e300),
      "yes": .boolean(true), "no": .boolean(false),
      "date": .date(Date(timeIntervalSinceReferenceDate: 730_902_615)),
      "data": .data(Data((0..<20).map { UInt8($0) })), "emptyData": .data(Data()),
    ])
    #expect(node == expected)
  }

  @Test("plistlib's containers decode: 20-element arrays, nested and empty ones, shared strings")
  func pythonContainers() throws {
    let node = try BinaryPropertyList.decode(
      try Self.fixture("PropertyLists/python-containers.plist"), file: nil)
    let expected: PropertyListNode = .dictionary([
      "list": .array((1...20).map { .integer($0) }),
      "nested": .array([
        .array([]), .dictionary([:]), .array([.array([.array([.string("deep")])])]),
      ]),
      "shared": .array([.string("x"), .string("x"), .string("x")]),
      "dict": .dictionary(
        Dictionary(
          uniqueKeysWithValues: (0..<16).map {
            (String(format: "key%02d", $0), .integer(Int64($0 * $0)))
          })),
    ])
    #expect(node == expected)
    #expect(node.propertyListValue != nil)
  }

  @Test("plistlib's UIDs decode, and make the value no PropertyListValue")
  func pythonUIDs() throws {
    let node = try BinaryPropertyList.decode(
      try Self.fixture("PropertyLists/python-keyed-archive.plist"), file: nil)
    guard case .dictionary(let top) = node, case .array(let objects)? = top["$objects"],
      objects.count == 3, case .dictionary(let string) = objects[1]
    else {
      Issue.record("unexpected shape \(node)")
      return
    }
    #expect(top["$top"] == .dictionary(["root": .uid(1)]))
    #expect(string["$class"] == .uid(2))
    #expect(string["far"] == .uid(300))
    #expect(objects[0] == .string("$null"))
    #expect(node.propertyListValue == nil)
    #expect(PropertyListNode.set([.integer(1)]).propertyListValue == .array([.integer(1)]))
    #expect(PropertyListNode.null.propertyListValue == nil)
  }

  // MARK: Core Data metadata

  /// Each corpus store's Z_PLIST, with the NSPersistenceFrameworkVersion the corpus manifest
  /// gives for it.
  static let metadata: [(String, Int64)] = [
    ("alhoqbani-Recipes", 754), ("carekit-apple-SampleStore2.0", 1044),
    ("carekit-apple-SampleStore2.1", 1345), ("designatednerd-starter_database", 519),
    ("duckduckgo-Bookmarks_V1", 1251), ("duckduckgo-Bookmarks_V2", 1251),
    ("duckduckgo-Bookmarks_V4", 1333), ("hwaxxer-Model1", 419),
    ("richardpiazza-XCServerCoreData_1.2.0", 754), ("richardpiazza-XCServerCoreData_2.0.1", 851),
    ("thepost-Recipes", 241), ("wibosco-CoreDataMigration_Example_1", 847),
    ("wibosco-CoreDataMigration_Example_WAL", 847), ("wireapp-store1-25", 640),
    ("wireapp-store2-101-0", 1145), ("wireapp-store2-80-0", 866),
  ]

  @Test(
    "every corpus store's Z_PLIST decodes to SQLite metadata and round-trips", arguments: metadata)
  func coreDataMetadata(name: String, frameworkVersion: Int64) throws {
    let bytes = try Self.fixture("SQLiteMetadata/\(name).plist")
    let node = try BinaryPropertyList.decode(bytes, file: "\(name).plist")
    guard case .dictionary(let metadata) = node else {
      Issue.record("the top object is not a dictionary: \(node)")
      return
    }
    #expect(metadata["NSStoreType"] == .string("SQLite"))
    #expect(metadata["NSPersistenceFrameworkVersion"] == .integer(frameworkVersion))
    #expect(metadata["_NSAutoVacuumLevel"] == .string("2"))
    guard case .dictionary(let hashes)? = metadata["NSStoreModelVersionHashes"] else {
      Issue.record("NSStoreModelVersionHashes is not a dictionary")
      return
    }
    #expect(!hashes.isEmpty)
    for (entity, hash) in hashes {
      guard case .data(let bytes) = hash else {
        Issue.record("the hash of \(entity) is not data: \(hash)")
        continue
      }
      #expect(bytes.count == 32)
    }
    let value = try #require(node.propertyListValue)
    let again = try BinaryPropertyList.decode(BinaryPropertyList.encode(value), file: nil)
    #expect(again == node)
  }

  // MARK: Malformed input

  /// A property list laid out by hand: `objects`' bytes after the header, an offset table of
  /// one-byte entries and a trailer, which `edit` may then change.
  static func layout(
    _ objects: [[UInt8]], top: UInt8 = 0, edit: (inout [UInt8]) -> Void = { _ in }
  ) -> [UInt8] {
    var bytes = Array("bplist00".utf8)
    var offsets: [UInt8] = []
    for object in objects {
      offsets.append(UInt8(bytes.count))
      bytes += object
    }
    let table = UInt8(bytes.count)
    bytes += offsets
    bytes += [0, 0, 0, 0, 0, 0, 1, 1]
    bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)]
    bytes += [0, 0, 0, 0, 0, 0, 0, top]
    bytes += [0, 0, 0, 0, 0, 0, 0, table]
    edit(&bytes)
    return bytes
  }

  /// A malformed input, the byte offset its error names, and the error's message.
  struct MalformedCase: Sendable, CustomTestStringConvertible {
    var id: String
    var bytes: [UInt8]
    var offset: Int
    var message: String
    var code = StoreError.Code.malformedStore
    var testDescription: String { id }
  }

  static let malformed: [MalformedCase] = [
    MalformedCase(
      id: "empty", bytes: [], offset: 0,
      message: "its 0 bytes are too few for the 8-byte header and the 32-byte trailer"),
    MalformedCase(
      id: "an XML property list",
      bytes: Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist/>".utf8), offset: 0,
      message: "the bytes start 0x3C 0x3F 0x78 0x6D 0x6C 0x20 0x76 0x65, not \"bplist00\""),
    MalformedCase(
      id: "version 15",
      bytes: layout([[0x09]]) {
        $0[6] = 0x31; $0[7] = 0x35
      }, offset: 6,
      message: "the header has version bytes 0x31 0x35; only \"00\" is read"),
    MalformedCase(
      id: "truncated trailer", bytes: Array(layout([[0x09]]).dropLast(3)), offset: 39,
      message: "its 39 bytes are too few for the 8-byte header and the 32-byte trailer"),
    MalformedCase(
      id: "trailer cut and shifted",
      bytes: Array(layout([[0x5A] + Array("abcdefghij".utf8)]).dropLast(2)), offset: 24,
      message: "the trailer gives offsets 0 bytes; they must take 1 to 8"),
    MalformedCase(
      id: "offset size 9", bytes: layout([[0x09]]) { $0[$0.count - 26] = 9 }, offset: 16,
      message: "the trailer gives offsets 9 bytes; they must take 1 to 8"),
    MalformedCase(
      id: "offset table past the trailer", bytes: layout([[0x09]]) { $0[$0.count - 1] = 0xF0 },
      offset: 34, message: "the offset table is said to start at byte 240, outside bytes 9 to 10"),
    MalformedCase(
      id: "more objects than the table holds",
      bytes: layout([[0x09]]) { $0[$0.count - 18] = 0x10 }, offset: 18,
      message: "the trailer gives 4097 objects, but the offset table has room for 1"),
    MalformedCase(
      id: "top object out of range", bytes: layout([[0x09]], top: 3), offset: 26,
      message: "the top object is number 3, past the last object, number 0"),
    MalformedCase(
      id: "offset past the objects", bytes: layout([[0x09]]) { $0[9] = 0x20 }, offset: 9,
      message: "object 0 is said to start at byte 32, outside the objects (bytes 8 to 8)"),
    MalformedCase(
      id: "array containing itself", bytes: layout([[0xA1, 0x00]]), offset: 8,
      message:
        "object 0 (an array) refers to object 0, which contains it: the containers form a cycle"),
    MalformedCase(
      id: "dictionary containing its container",
      bytes: layout([[0xA1, 0x01], [0xD1, 0x02, 0x00], [0x51, 0x6B]]), offset: 10,
      message:
        "object 1 (a dictionary) refers to object 0, which contains it: the containers form a cycle"
    ),
    MalformedCase(
      id: "array count larger than the file",
      bytes: layout([[0xAF, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]), offset: 8,
      message: "object 0 is an array of 9223372036854775807 entries, which runs past the objects"),
    MalformedCase(
      id: "data count larger than the file",
      bytes: layout([[0x4F, 0x12, 0xFF, 0xFF, 0xFF, 0xFF]]), offset: 8,
      message: "object 0 (data of 4294967295 bytes) runs past the objects, which end at byte 14"),
    MalformedCase(
      id: "negative count", bytes: layout([[0xDF, 0x13] + Array(repeating: 0xFF, count: 8)]),
      offset: 8, message: "object 0 has a negative count -1"),
    MalformedCase(
      id: "count of marker 0x5", bytes: layout([[0xAF, 0x51, 0x41]]), offset: 8,
      message: "object 0 has its count in an object of marker 0x51, not an integer of 1 to 8 bytes"),
    MalformedCase(
      id: "unknown marker 0x90", bytes: layout([[0x90]]), offset: 8,
      message: "object 0 has marker 0x90, which is no property list type"),
    MalformedCase(
      id: "date of 4 bytes", bytes: layout([[0x32, 0, 0, 0, 0]]), offset: 8,
      message: "object 0 has marker 0x32, which is no property list type"),
    MalformedCase(
      id: "reference out of range", bytes: layout([[0xA1, 0x05]]), offset: 8,
      message: "object 0 (an array) refers to object 5, past the last object, number 0"),
    MalformedCase(
      id: "dictionary key not a string", bytes: layout([[0xD1, 0x01, 0x01], [0x10, 0x01]]),
      offset: 8, message: "object 0 (a dictionary) has key 1 of another type than string"),
    MalformedCase(
      id: "integer cut short", bytes: layout([[0x13, 0x01]]), offset: 8,
      message: "object 0 (an 8-byte integer) runs past the objects, which end at byte 10"),
    MalformedCase(
      id: "ASCII string with a byte over 0x7F", bytes: layout([[0x51, 0xE9]]), offset: 8,
      message: "object 0 is an ASCII string with a byte over 0x7F"),
    MalformedCase(
      id: "invalid UTF-8", bytes: layout([[0x72, 0xC3, 0x28]]), offset: 8,
      message: "object 0 is a UTF-8 string that is not valid UTF-8"),
    MalformedCase(
      id: "UID of 10 bytes", bytes: layout([[0x89] + Array(repeating: 1, count: 10)]), offset: 8,
      message: "object 0 is a UID of 10 bytes; at most 8 are read"),
  ]

  @Test("malformed input gives a StoreError at the bad byte", arguments: malformed)
  func malformedInput(_ input: MalformedCase) throws {
    let error = try #require(throws: StoreError.self) {
      try BinaryPropertyList.decode(Data(input.bytes), file: "bad.plist")
    }
    #expect(error.code == input.code)
    #expect(error.location == InputLocation(file: "bad.plist", byteOffset: input.offset))
    #expect(error.message == "binary property list: \(input.message)")
  }

  @Test("an integer of plistlib's 16 bytes beyond Int64 is refused at its object")
  func sixteenByteInteger() throws {
    let error = try #require(throws: StoreError.self) {
      try BinaryPropertyList.decode(
        try Self.fixture("PropertyLists/python-uint64.plist"), file: "python-uint64.plist")
    }
    #expect(error.code == .malformedStore)
    #expect(
      error.description
        == "python-uint64.plist@16: binary property list: object 2 is a 16-byte integer outside the 64-bit range"
    )
    // The same width holding a value that fits is read.
    let fits = Self.layout([[0x14] + Array(repeating: 0xFF, count: 16)])
    #expect(try BinaryPropertyList.decode(Data(fits), file: nil) == .integer(-1))
  }

  /// `depth` arrays, each holding the next; the innermost is empty. References and offsets
  /// take four bytes.
  static func nestedArrays(_ depth: Int) -> [UInt8] {
    func fourBytes(_ value: Int) -> [UInt8] {
      (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    for level in 0..<depth {
      offsets.append(bytes.count)
      bytes += level == depth - 1 ? [0xA0] : [0xA1] + fourBytes(level + 1)
    }
    let table = bytes.count
    for offset in offsets { bytes += fourBytes(offset) }
    bytes += [0, 0, 0, 0, 0, 0, 4, 4]
    for field in [depth, 0, table] { bytes += [0, 0, 0, 0] + fourBytes(field) }
    return bytes
  }

  @Test("containers nest 512 deep, and one more is refused as past the limit")
  func nestingLimit() throws {
    let limit = BinaryPropertyList.maximumNestingLevels
    var node = try BinaryPropertyList.decode(Data(Self.nestedArrays(limit)), file: nil)
    var depth = 0
    while case .array(let elements) = node {
      depth += 1
      guard let first = elements.first else { break }
      node = first
    }
    #expect(depth == limit)
    let error = try #require(throws: StoreError.self) {
      try BinaryPropertyList.decode(Data(Self.nestedArrays(limit + 1)), file: nil)
    }
    #expect(error.code == .limitExceeded)
    #expect(error.location?.byteOffset == 8 + 5 * limit)
    #expect(
      error.message
        == "binary property list: object 512 (an array) is nested more than 512 containers deep")
    // A hundred thousand levels are refused the same way, without using the stack.
    #expect(throws: StoreError.self) {
      try BinaryPropertyList.decode(Data(Self.nestedArrays(100_000)), file: nil)
    }
  }

  @Test("arrays that share their halves cannot expand into billions of nodes")
  func expansionLimit() throws {
    // Array i holds array i+1 twice: 64 levels expand to 2^64 nodes.
    var objects: [[UInt8]] = (0..<64).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
    objects.append([0xA0])
    let error = try #require(throws: StoreError.self) {
      try BinaryPropertyList.decode(Data(Self.layout(objects)), file: nil)
    }
    #expect(error.code == .limitExceeded)
    #expect(error.message.hasSuffix("nodes through shared references"))
  }

  @Test("ten thousand random corruptions of real property lists throw or decode, never crash")
  func corruptions() throws {
    let sources = try [
      "PropertyLists/python-scalars.plist", "PropertyLists/python-containers.plist",
      "PropertyLists/python-keyed-archive.plist", "SQLiteMetadata/wireapp-store1-25.plist",
    ].map { Array(try Self.fixture($0)) }
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    var decoded = 0
    for round in 0..<10_000 {
      var bytes = sources[round % sources.count]
      switch Int.random(in: 0..<4, using: &random) {
      case 0:
        bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))
      default:
        for _ in 0..<Int.random(in: 1...4, using: &random) {
          bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(
            in: 0...255, using: &random)
        }
      }
      do {
        let node = try BinaryPropertyList.decode(Data(bytes), file: nil)
        if let value = node.propertyListValue {
          _ = try BinaryPropertyList.decode(BinaryPropertyList.encode(value), file: nil)
        }
        decoded += 1
      } catch {
        #expect(
          error.code == .malformedStore || error.code == .limitExceeded, "seed \(seed)")
      }
    }
    #expect(decoded > 0, "seed \(seed)")
  }
}
