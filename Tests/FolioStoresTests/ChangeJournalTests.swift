import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores

/// The change journal's file: what a save records, what a reader finds from one file to
/// another, and what it refuses (`Formats/shared-writers.md` §2e).
@Suite("Change journal")
struct ChangeJournalTests {
  static let model = packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld")

  static func stamp(_ number: UInt64, size: Int64 = 1000) -> FileStamp {
    FileStamp(inode: number, size: size, seconds: 1_700_000_000, nanoseconds: Int64(number))
  }

  /// A store file in a new folder, and the journal beside it.
  static func store() throws -> (folder: URL, url: URL, journal: String) {
    let folder = try makeTemporaryFolder()
    let url = folder.appendingPathComponent("Expenses.xml")
    try Data("store".utf8).write(to: url)
    return (folder, url, try ChangeJournal.path(for: url))
  }

  static func person(_ id: Int64, _ name: String, spendings: [Int64] = []) -> StoreRecord {
    StoreRecord(
      entityName: "Person", id: id, attributes: ["name": .string(name)],
      relationships: spendings.isEmpty ? [:] : ["spendings": spendings])
  }

  static func save(
    _ records: [StoreRecord], deleting deleted: [Int64] = [], from: UInt64, to: UInt64,
    at url: URL, identifier: String = "STORE", next: Int64 = 100, objects: Int = 1000
  ) {
    var changes = StoreChanges(nextObjectID: next) { _ in nil }
    changes.inserted = records
    changes.deleted = deleted.map { StoreRecord(entityName: "Person", id: $0) }
    var metadata = StoreMetadata(storeType: "XML", identifier: identifier)
    metadata.userInfo["saved"] = .integer(Int64(to))
    ChangeJournal.record(
      changes, metadata: metadata, objectCount: objects, from: stamp(from), to: stamp(to), for: url)
  }

  static func read(_ url: URL, from: UInt64, to: UInt64, identifier: String = "STORE") throws
    -> StoreChangesSince?
  {
    ChangeJournal.changes(
      for: url, from: stamp(from), to: stamp(to), identifier: identifier,
      model: try ManagedObjectModel(contentsOf: model))
  }

  @Test("every kind of value comes back with the same bits")
  func values() throws {
    let (folder, url, _) = try Self.store()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try ManagedObjectModel(
      contentsOf: packageRoot.appendingPathComponent("Fuzz/Seeds/Everything.xcdatamodel"))
    let first: [String: AttributeValue] = [
      "int16": .integer(-42), "int32": .integer(1 << 30), "int64": .integer(.min),
      "decimal": .decimal(Decimal(string: "-123.4500")!), "double": .double(-0.0),
      "float": .float(1.5), "string": .string("ü\u{0}x"), "boolean": .boolean(true),
      "date": .date(Date(timeIntervalSinceReferenceDate: 1e9 + 0.25)),
      "binary": .binaryData(Data([0, 255, 7])), "uuid": .uuid(UUID()),
      "uri": .uri(URL(string: "https://example.com/a?b=c")!),
      "transformable": .transformable(Data()),
      "location": .composite(["label": .string("d"), "floor": .integer(3)]),
    ]
    let second: [String: AttributeValue] = [
      "decimal": .decimal(.nan), "double": .double(.nan), "boolean": .boolean(false),
      "float": .float(-.infinity),
    ]
    var changes = StoreChanges(nextObjectID: 9) { _ in nil }
    changes.inserted = [
      StoreRecord(entityName: "Everything", id: 7, attributes: first),
      StoreRecord(entityName: "Everything", id: 8, attributes: second),
    ]
    changes.deleted = [StoreRecord(entityName: "Everything", id: 4)]
    let metadata = StoreMetadata(storeType: "Binary", identifier: "STORE")
    ChangeJournal.record(
      changes, metadata: metadata, objectCount: 100, from: Self.stamp(1), to: Self.stamp(2),
      for: url)
    let since = try #require(
      ChangeJournal.changes(
        for: url, from: Self.stamp(1), to: Self.stamp(2), identifier: "STORE", model: model))
    #expect(since.records.map(\.id) == [7, 8])
    for (record, values) in zip(since.records, [first, second]) {
      #expect(Set(record.attributes.keys) == Set(values.keys))
      for (name, value) in values {
        #expect(record.attributes[name]?.isIdentical(to: value) == true, "\(name)")
      }
    }
    #expect(since.deleted == [4] && since.nextObjectID == 9)
    #expect(since.metadata == metadata)
  }

  @Test("a reader follows the entries from its file to the one on disk, and no further")
  func chains() throws {
    let (folder, url, _) = try Self.store()
    defer { try? FileManager.default.removeItem(at: folder) }
    Self.save([Self.person(1, "a")], from: 1, to: 2, at: url)
    Self.save([Self.person(1, "b"), Self.person(2, "c", spendings: [5])], from: 2, to: 3, at: url)
    Self.save([Self.person(3, "d", spendings: [5, 6])], deleting: [2], from: 3, to: 4, at: url)
    // From 1 to 4: the last record of each object, the deleted one's dropped with its ID, and
    // the targets of the deleted object left out where a later record names them.
    let all = try #require(try Self.read(url, from: 1, to: 4))
    #expect(all.records.map(\.id) == [1, 3])
    #expect(all.records.first?.attributes["name"] == .string("b"))
    #expect(all.deleted == [2])
    #expect(all.metadata?.userInfo["saved"] == .integer(4))
    // From 2 to 3 while an entry leaves 3: the file of stamp 3 was replaced since.
    #expect(try Self.read(url, from: 2, to: 3) == nil)
    // No entry leaves the file, the chain does not reach the file on disk, or names another
    // store: nothing.
    #expect(try Self.read(url, from: 9, to: 4) == nil)
    #expect(try Self.read(url, from: 1, to: 5) == nil)
    #expect(try Self.read(url, from: 1, to: 4, identifier: "OTHER") == nil)
  }

  @Test("of two entries leaving files of one stamp, the later is the reader's")
  func reusedStamp() throws {
    let (folder, url, _) = try Self.store()
    defer { try? FileManager.default.removeItem(at: folder) }
    // File 1 was replaced by 2, and 2 by a file that took 1's stamp (its inode freed, the
    // same size and clock tick), which a reader holds open.
    Self.save([Self.person(1, "first")], from: 1, to: 2, at: url)
    Self.save([Self.person(1, "second")], from: 2, to: 1, at: url)
    Self.save([Self.person(1, "third")], from: 1, to: 3, at: url)
    let since = try #require(try Self.read(url, from: 1, to: 3))
    #expect(since.records.map { $0.attributes["name"] } == [.string("third")])
  }

  @Test("a damaged entry breaks the way through it; a save after a cut-short entry starts anew")
  func damage() throws {
    let (folder, url, journal) = try Self.store()
    defer { try? FileManager.default.removeItem(at: folder) }
    Self.save([Self.person(1, "a")], from: 1, to: 2, at: url)
    Self.save([Self.person(1, "b")], from: 2, to: 3, at: url)
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: journal)))
    // A flipped byte in the first entry's name: its checksum no longer holds.
    let index = try #require(bytes.firstIndex(of: UInt8(ascii: "a")))
    bytes[index] = UInt8(ascii: "z")
    try Data(bytes).write(to: URL(fileURLWithPath: journal))
    #expect(try Self.read(url, from: 1, to: 3) == nil)
    #expect(try Self.read(url, from: 2, to: 3) != nil)
    // An entry cut short at the end: the next save writes the journal anew, with its entry.
    try Data(bytes.dropLast(5)).write(to: URL(fileURLWithPath: journal))
    #expect(try Self.read(url, from: 2, to: 3) == nil)
    Self.save([Self.person(1, "c")], from: 3, to: 4, at: url)
    #expect(try Self.read(url, from: 3, to: 4)?.records.first?.attributes["name"] == .string("c"))
    #expect(try Self.read(url, from: 2, to: 4) == nil)
    // Not a journal at all: started anew too.
    try Data("not a journal".utf8).write(to: URL(fileURLWithPath: journal))
    #expect(try Self.read(url, from: 3, to: 4) == nil)
    Self.save([Self.person(1, "d")], from: 4, to: 5, at: url)
    #expect(try Self.read(url, from: 4, to: 5) != nil)
  }

  @Test("the journal is started anew past its limit, and a save of many objects leaves no entry")
  func limits() throws {
    let (folder, url, journal) = try Self.store()
    defer { try? FileManager.default.removeItem(at: folder) }
    let big = String(repeating: "x", count: 300_000)
    for step in UInt64(1)...4 {
      Self.save([Self.person(1, big)], from: step, to: step + 1, at: url)
    }
    // Four entries of 300 kB pass the 1 MiB limit: the fourth starts the journal anew.
    let size = try #require(
      try FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int)
    #expect(size < 400_000 && size > 300_000)
    #expect(try Self.read(url, from: 4, to: 5) != nil)
    #expect(try Self.read(url, from: 3, to: 5) == nil)
    // 200 of 1,000 objects: more than an eighth, no entry.
    let many = (1...200).map { Self.person(Int64($0), "p") }
    Self.save(many, from: 5, to: 6, at: url)
    #expect(try Self.read(url, from: 5, to: 6) == nil)
    Self.save(many, from: 5, to: 6, at: url, objects: 2000)
    #expect(try Self.read(url, from: 5, to: 6)?.records.count == 200)
  }
  @Test(
    "an entry holding what the model cannot (a wrong type, an unknown property or entity) is refused"
  )
  func shapes() throws {
    let (folder, url, _) = try Self.store()
    defer { try? FileManager.default.removeItem(at: folder) }
    let refused = [
      StoreRecord(entityName: "Person", id: 1, attributes: ["name": .integer(1)]),
      StoreRecord(entityName: "Person", id: 1, attributes: ["nickname": .string("x")]),
      StoreRecord(entityName: "Person", id: 1, relationships: ["friends": [2]]),
      StoreRecord(entityName: "Spending", id: 1, relationships: ["person": [2, 3]]),
      StoreRecord(entityName: "Planet", id: 1),
      StoreRecord(entityName: "Person", id: 0),
    ]
    for (step, record) in refused.enumerated() {
      let from = UInt64(step * 2 + 1)
      Self.save([record], from: from, to: from + 1, at: url)
      #expect(try Self.read(url, from: from, to: from + 1) == nil, "\(record)")
    }
    let spending = StoreRecord(
      entityName: "Spending", id: 1, attributes: ["amount": .double(2)],
      relationships: ["person": [2]])
    Self.save([spending], from: 100, to: 101, at: url)
    #expect(try Self.read(url, from: 100, to: 101)?.records == [spending])
  }
  @Test(
    "a whole write notes a barrier in a journal that exists; a save's entry after it is followed")
  func barriers() throws {
    let (folder, url, journal) = try Self.store()
    defer { try? FileManager.default.removeItem(at: folder) }
    // No journal: a whole write makes none.
    try AtomicFile.write(Data("first".utf8), to: url)
    #expect(!FileManager.default.fileExists(atPath: journal))
    let model = try ManagedObjectModel(contentsOf: Self.model)
    func read(_ from: FileStamp, _ to: FileStamp) -> StoreChangesSince? {
      ChangeJournal.changes(for: url, from: from, to: to, identifier: "STORE", model: model)
    }
    func save(_ name: String, from: FileStamp, to: FileStamp) {
      var changes = StoreChanges(nextObjectID: 10) { _ in nil }
      changes.inserted = [Self.person(1, name)]
      ChangeJournal.record(
        changes, metadata: StoreMetadata(storeType: "XML", identifier: "STORE"),
        objectCount: 100, from: from, to: to, for: url)
    }
    // A save: the write's barrier, then the save's entry from the same file.
    let first = try #require(FileStamp(of: url))
    try AtomicFile.write(Data("second".utf8), to: url)
    let second = try #require(FileStamp(of: url))
    save("b", from: first, to: second)
    #expect(read(first, second)?.records.first?.attributes["name"] == .string("b"))
    // A whole write with no entry after its barrier (convert, setMetadata): no way through.
    try AtomicFile.write(Data("third!".utf8), to: url)
    let third = try #require(FileStamp(of: url))
    #expect(read(second, third) == nil)
    #expect(read(first, third) == nil)
    // Another file took the second's stamp after the barrier: the way from the first to it
    // does not count, since an entry left that stamp after it.
    #expect(read(first, second) == nil)
    // A journal at the path that is not a regular file takes no barrier.
    try FileManager.default.removeItem(atPath: journal)
    #expect(mkfifo(journal, 0o644) == 0)
    try AtomicFile.write(Data("fourth".utf8), to: url)
    #expect(try String(contentsOf: url, encoding: .utf8) == "fourth")
  }
}
