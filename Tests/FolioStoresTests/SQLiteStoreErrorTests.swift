import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioSQLiteStore
@testable import FolioStores

/// Bad input of every kind a SQLite store can be: each a typed error naming the place, never a
/// crash.
@Suite("SQLite store: bad input")
struct SQLiteStoreErrorTests: SQLiteFixtures {
  let store = SQLiteStore()

  func error(reading url: URL, model: ManagedObjectModel? = nil) throws -> StoreError {
    let model = try model ?? expensesModel()
    return try #require(throws: StoreError.self) { try store.read(from: url, model: model) }
  }

  @Test("a file with SQLite's header and garbage after it is refused, naming the file")
  func garbage() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("bad.sqlite")
    var bytes = Array("SQLite format 3\0".utf8)
    bytes += (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    try Data(bytes).write(to: url)
    #expect(store.recognizes(Data(bytes.prefix(64))))
    #expect(!store.recognizes(Data("<?xml version".utf8)))
    let failure = try error(reading: url)
    #expect(failure.location?.file == url.path)
    #expect(failure.code == .malformedStore || failure.code == .unreadable)
  }

  @Test("a SQLite database that is not a Core Data store is told apart")
  func notCoreData() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("other.sqlite")
    let database = try SQLiteDatabase(path: url.path, readOnly: false, create: true)
    try database.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    database.close()
    let failure = try error(reading: url)
    #expect(failure.code == .unknownFormat)
    #expect(failure.message.contains("not a Core Data store"))
  }

  @Test("a schema that does not fit the model names the table and column")
  func schemaMismatch() throws {
    let url = try writtenStore()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    // Without Folio's checksum of its hashes, the store is checked by structure, as one that
    // Core Data wrote is.
    let database = try SQLiteDatabase(path: url.path, readOnly: false)
    var metadata = try SQLiteMetadata.read(from: database)
    metadata.userInfo[StoreMetadata.folioChecksumKey] = nil
    try SQLiteMetadata.write(metadata, to: database)
    database.close()
    var person = EntityDescription("Person") {
      AttributeDescription("name", .string)
      AttributeDescription("nickname", .string)
    }
    person.relationships = []
    let other = try ManagedObjectModel { person }
    let failure = try error(reading: url, model: other)
    #expect(failure.code == .modelMismatch)
    #expect(failure.message.contains("ZPERSON"))
    #expect(failure.message.contains("ZNICKNAME"))
    #expect(failure.message.contains("Person.nickname"))
  }

  @Test("a store Folio wrote is checked against the model by its version hashes")
  func hashMismatch() throws {
    let url = try writtenStore()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let other = try ManagedObjectModel {
      EntityDescription("Person") { AttributeDescription("name", .integer32) }
    }
    #expect(try error(reading: url, model: other).code == .modelMismatch)
  }

  /// A record that cannot be written stops the whole write: the file holds what it held.
  @Test(
    "writing a record with a value of the wrong type or a target not in the store names it and leaves the file as it was",
    arguments: [
      (
        StoreRecord(
          entityName: "Spending", id: 3, attributes: ["amount": .string("a lot")],
          relationships: ["person": [1]]), StoreError.Code.typeMismatch, "amount"
      ),
      (
        StoreRecord(
          entityName: "Spending", id: 3, attributes: ["amount": .double(1)],
          relationships: ["person": [9]]), .danglingReference, "person"
      ),
    ])
  func failedWriteKeepsFile(bad: StoreRecord, code: StoreError.Code, key: String) throws {
    let url = try writtenStore()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let model = try expensesModel()
    let before = try store.read(from: url, model: model).records
    let bytes = try Data(contentsOf: url)
    let records = [
      StoreRecord(entityName: "Person", id: 1, attributes: ["name": .string("Bea")]), bad,
    ]
    let failure = try #require(throws: StoreError.self) {
      try store.write(
        StoreContents(metadata: StoreMetadata(storeType: "SQLite"), records: records),
        model: model, to: url)
    }
    #expect(failure.code == code)
    #expect(failure.location?.entity == "Spending")
    #expect(failure.location?.property == key)
    #expect(try Data(contentsOf: url) == bytes)
    #expect(Set(try store.read(from: url, model: model).records) == Set(before))
  }

  @Test("a value of the wrong type names the table, column, row and property")
  func wrongType() throws {
    let url = try writtenStore()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    try sql(url, "UPDATE ZSPENDING SET ZAMOUNT = 'a lot' WHERE Z_PK = 2")
    let failure = try error(reading: url)
    #expect(failure.code == .typeMismatch)
    #expect(failure.message.contains("ZSPENDING.ZAMOUNT of row Z_PK 2 (Spending.amount)"))
    #expect(failure.location?.entity == "Spending")
    #expect(failure.location?.property == "amount")
  }

  @Test("text that is not UTF-8 in a string column is refused")
  func notUTF8() throws {
    let url = try writtenStore()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    try sql(url, "UPDATE ZPERSON SET ZNAME = CAST(x'41FF42' AS TEXT) WHERE Z_PK = 1")
    let failure = try error(reading: url)
    #expect(failure.code == .typeMismatch)
    #expect(failure.message.contains("UTF-8"))
  }

  @Test("a row whose Z_ENT is not an entity of its table's hierarchy is named")
  func wrongEntity() throws {
    let url = try writtenStore()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    try sql(url, "UPDATE ZPERSON SET Z_ENT = 2 WHERE Z_PK = 1")
    let failure = try error(reading: url)
    #expect(failure.code == .malformedStore)
    #expect(failure.message.contains("ZPERSON row Z_PK 1 has Z_ENT 2"))
  }

  @Test("a damaged page is reported, not read as data")
  func corruptedPage() throws {
    let url = try writtenStore()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    var bytes = try Data(contentsOf: url)
    let pageSize = 4096
    // Every b-tree page after the schema's gets a broken header.
    for page in stride(from: pageSize, to: bytes.count, by: pageSize) {
      for offset in 0..<12 { bytes[page + offset] = 0xEE }
    }
    try bytes.write(to: url)
    let failure = try #require(throws: StoreError.self) {
      try store.read(from: url, model: try expensesModel())
    }
    #expect(failure.code == .malformedStore)
    #expect(failure.location?.file?.hasPrefix(url.path) == true)
  }

  @Test("a database another connection holds locked is reported as locked")
  func locked() throws {
    let url = try writtenStore()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let holder = try SQLiteDatabase(path: url.path, readOnly: false)
    try holder.execute("BEGIN EXCLUSIVE")
    defer { try? holder.execute("ROLLBACK") }
    let failure = try #require(throws: StoreError.self) {
      try store.read(from: url, model: try expensesModel())
    }
    #expect(failure.message.contains("locked"))
  }

  @Test("a model SQLite cannot hold is refused before anything is written")
  func unsupportedModel() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("new.sqlite")
    let model = try ManagedObjectModel {
      EntityDescription("Folder") {
        RelationshipDescription("items", to: "Note", toMany: true)
      }
      EntityDescription("Note") { AttributeDescription("text", .string) }
    }
    let failure = try #require(throws: StoreError.self) {
      try store.write(
        StoreContents(metadata: StoreMetadata(storeType: "SQLite"), records: []), model: model,
        to: url)
    }
    #expect(failure.code == .modelMismatch)
    #expect(failure.message.contains("Folder.items (a to-many relationship without an inverse)"))
    #expect(!FileManager.default.fileExists(atPath: url.path))
  }
}
