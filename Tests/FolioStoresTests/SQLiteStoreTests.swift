import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioSQLiteStore
@testable import FolioStores

@Suite("SQLite store: saving in place, external data, metadata")
struct SQLiteStoreTests: SQLiteFixtures {
  let store = SQLiteStore()

  /// The rows of `sql` on the store at `url`, each as its columns' text joined by "|".
  func rows(_ url: URL, _ sql: String) throws -> [String] {
    let database = try SQLiteDatabase(path: url.path, readOnly: true)
    let statement = try database.prepare(sql)
    var rows: [String] = []
    while try statement.step() {
      rows.append(
        (0..<statement.columnCount).map { statement.text($0) ?? "NULL" }.joined(separator: "|"))
    }
    return rows
  }

  @Test("a save in place leaves history-tracking tables and their key rows as they were")
  func historyTablesKept() throws {
    let url = try writtenStore()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    // The tables and Z_PRIMARYKEY rows persistent history tracking adds, as Core Data names them.
    try sql(
      url,
      """
      INSERT INTO Z_PRIMARYKEY VALUES (16001, 'CHANGE', 0, 4), (16002, 'TRANSACTION', 0, 2),
        (16003, 'TRANSACTIONSTRING', 0, 1);
      CREATE TABLE ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER,
        ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER,
        ZCOLUMNS BLOB);
      CREATE TABLE ATRANSACTION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER,
        ZAUTHORTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR);
      INSERT INTO ATRANSACTION VALUES (1, 16002, NULL, 1, 700000000.5, 'app');
      INSERT INTO ACHANGE VALUES (1, 16001, NULL, 0, 1, 1, 1, x'01');
      """)
    let history = try rows(url, "SELECT * FROM ATRANSACTION") + rows(url, "SELECT * FROM ACHANGE")
    let keys = try rows(url, "SELECT * FROM Z_PRIMARYKEY WHERE Z_ENT > 16000")
    let model = try expensesModel()
    let contents = try store.read(from: url, model: model)
    let ada = try #require(contents.records.first { $0.entityName == "Person" })
    var renamed = ada
    renamed.attributes["name"] = .string("Ada Lovelace")
    var changes = StoreChanges(nextObjectID: 3) { id in
      contents.records.first { $0.id == id }
    }
    changes.updated = [(ada, renamed)]
    try store.save(changes, metadata: contents.metadata, model: model, to: url)
    #expect(
      try rows(url, "SELECT * FROM ATRANSACTION") + rows(url, "SELECT * FROM ACHANGE") == history)
    #expect(try rows(url, "SELECT * FROM Z_PRIMARYKEY WHERE Z_ENT > 16000") == keys)
    #expect(try rows(url, "SELECT ZNAME, Z_OPT FROM ZPERSON") == ["Ada Lovelace|2"])
    // New objects are numbered above the model's keys, not the history's.
    #expect(try store.read(from: url, model: model).records.count == 2)
  }

  /// A record consumer that asks for both sides of every relationship, as a dump does.
  struct EveryRelationship: StoreRecordConsumer {
    var records: [StoreRecord] = []
    var wantsEveryRelationship: Bool { true }
    mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?) {}
    mutating func consume(_ record: StoreRecord) { records.append(record) }
    mutating func finish() {}
  }

  @Test("a relationship that is its own inverse keeps its pairs, read whole or record by record")
  func selfInverse() throws {
    let model = try ManagedObjectModel {
      EntityDescription("Node") {
        AttributeDescription("label", .string)
        RelationshipDescription("friends", to: "Node", inverse: "friends", toMany: true)
      }
    }
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("nodes.sqlite")
    // a is its own friend and b's.
    let records = [
      StoreRecord(
        entityName: "Node", id: 1, attributes: ["label": .string("a")],
        relationships: ["friends": [1, 2]]),
      StoreRecord(
        entityName: "Node", id: 2, attributes: ["label": .string("b")],
        relationships: ["friends": [1]]),
    ]
    try store.write(
      StoreContents(
        metadata: StoreMetadata(storeType: store.typeName), records: records, nextObjectID: 3),
      model: model, to: url)
    func friends(_ records: [StoreRecord]) -> [String] {
      records.sorted { $0.id < $1.id }.map { record in
        "\(StoreKeySpace.key(of: record.id)): "
          + (record.relationships["friends"] ?? []).map { "\(StoreKeySpace.key(of: $0))" }.sorted()
          .joined(separator: " ")
      }
    }
    #expect(friends(try store.read(from: url, model: model).records) == ["1: 1 2", "2: 1"])
    var streamed = EveryRelationship()
    try store.read(from: url, model: model, into: &streamed)
    #expect(friends(streamed.records) == ["1: 1 2", "2: 1"])
  }

  @Test("text holding a NUL character is written whole, not cut at the NUL")
  func nulInText() throws {
    let model = try ManagedObjectModel {
      EntityDescription("Note") { AttributeDescription("text", .string) }
    }
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("notes.sqlite")
    let texts = ["a\0b", "\0", "", "tail\0"]
    let records = texts.enumerated().map { index, text in
      StoreRecord(entityName: "Note", id: Int64(index + 1), attributes: ["text": .string(text)])
    }
    try store.write(
      StoreContents(metadata: StoreMetadata(storeType: store.typeName), records: records),
      model: model, to: url)
    let back = try store.read(from: url, model: model).records.sorted { $0.id < $1.id }
    #expect(back.map { $0.attribute("text") } == texts.map { .string($0) })
  }

  /// A model with one binary attribute that allows external storage.
  func photoModel() throws -> ManagedObjectModel {
    var data = AttributeDescription("data", .binaryData)
    data.allowsExternalBinaryDataStorage = true
    return try ManagedObjectModel {
      EntityDescription("Photo") {
        AttributeDescription("caption", .string)
        data
      }
    }
  }

  @Test("a value Core Data keeps in an external file is read from the store's folder beside it")
  func externalData() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Photos.sqlite")
    let model = try photoModel()
    let records = [
      StoreRecord(
        entityName: "Photo", id: 1,
        attributes: ["caption": .string("inline"), "data": .binaryData(Data([1, 2, 3]))]),
      StoreRecord(entityName: "Photo", id: 2, attributes: ["caption": .string("outside")]),
    ]
    try store.write(
      StoreContents(metadata: StoreMetadata(storeType: "SQLite"), records: records), model: model,
      to: url)
    // Inline values carry marker 1; an external one is marker 2, the file's UUID and a NUL.
    #expect(try rows(url, "SELECT hex(ZDATA) FROM ZPHOTO WHERE Z_PK = 1") == ["01010203"])
    let name = "D9B36DBE-1137-4623-9B8A-42FD754F69EA"
    let reference = ([2] + Array(name.utf8) + [0]).map { String(format: "%02X", $0) }.joined()
    try sql(url, "UPDATE ZPHOTO SET ZDATA = x'\(reference)' WHERE Z_PK = 2")
    let external = folder.appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA")
    try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
    let photo = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0) })
    try photo.write(to: external.appendingPathComponent(name))
    func value(_ contents: StoreContents, _ id: Int64) -> AttributeValue? {
      contents.records.first { StoreKeySpace.key(of: $0.id) == id }?.attribute("data")
    }
    let read = try store.read(from: url, model: model)
    #expect(value(read, 1) == .binaryData(Data([1, 2, 3])))
    #expect(value(read, 2) == .binaryData(photo))
    // Without its file the store is refused, naming it, unless asked to read it as nil.
    try FileManager.default.removeItem(at: external.appendingPathComponent(name))
    let failure = try #require(throws: StoreError.self) {
      try store.read(from: url, model: model)
    }
    #expect(failure.code == .danglingReference)
    #expect(failure.message.contains("ZPHOTO.ZDATA of row Z_PK 2 (Photo.data)"))
    #expect(failure.message.contains(".Photos_SUPPORT/_EXTERNAL_DATA/\(name)"))
    let lenient = try SQLiteStore(missingExternalData: .readAsNil).read(from: url, model: model)
    #expect(value(lenient, 2) == nil)
    #expect(lenient.records.count == 2)
  }

  @Test("metadata is rewritten without the objects; the file's hashes and checksums stay")
  func metadataAlone() throws {
    let url = try writtenStore()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let old = try store.readMetadata(from: url)
    #expect(old.storeType == "SQLite")
    #expect(old.hasFolioVersionHashes)
    var new = old
    new.userInfo["lastOpened"] = .string("today")
    new.modelVersionHashes = ["Person": Data(repeating: 7, count: 32)]
    try store.writeMetadata(new, to: url)
    let read = try store.readMetadata(from: url)
    #expect(read.userInfo["lastOpened"] == .string("today"))
    #expect(read.modelVersionHashes == old.modelVersionHashes)
    #expect(read.identifier == old.identifier)
    #expect(read.hasFolioVersionHashes)
    #expect(try store.read(from: url, model: try expensesModel()).records.count == 2)
  }
}
