import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioSQLiteStore
@testable import FolioStores

@Suite("SQLite store: a copy in SQL into another model's schema")
struct SQLiteCopyTests {
  /// Notes with a title, and a second version where the title is renamed `heading`, a
  /// required `kind` with a default is new, and the entity is renamed `Memo`.
  func models() throws -> (ManagedObjectModel, ManagedObjectModel) {
    let old = try ManagedObjectModel {
      EntityDescription("Note") {
        AttributeDescription("title", .string)
        AttributeDescription("words", .integer16)
      }
    }
    let new = try ManagedObjectModel {
      EntityDescription("Memo") {
        AttributeDescription("heading", .string)
        AttributeDescription("words", .integer64)
        AttributeDescription("kind", .string, isOptional: false, defaultValue: .string("plain"))
      }
    }
    return (old, new)
  }

  let plan = SQLiteCopyPlan(entities: [
    SQLiteCopyPlan.Entity(
      source: "Note", destination: "Memo", attributes: ["heading": "title", "words": "words"],
      relationships: [:])
  ])

  /// A folder with a store of `count` notes.
  func store(_ count: Int, model: ManagedObjectModel) throws -> (URL, URL) {
    let folder = try makeTemporaryFolder()
    let url = folder.appendingPathComponent("notes.sqlite")
    let records = (1...count).map { index in
      StoreRecord(
        entityName: "Note", id: Int64(index),
        attributes: [
          "title": .string("note \(index)"), "words": .integer(Int64(index % 1000)),
        ])
    }
    try SQLiteStore().write(
      StoreContents(metadata: StoreMetadata(storeType: "SQLite"), records: records),
      model: model, to: url)
    return (folder, url)
  }

  @Test("rows are copied with their keys, renamed columns and defaults, and counted")
  func copies() throws {
    let (old, new) = try models()
    let (folder, url) = try store(3, model: old)
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = try Data(contentsOf: url)
    let copy = folder.appendingPathComponent("copy.sqlite")
    var reports: [(Int, Int)] = []
    let outcome = try SQLiteStore.copy(
      plan, from: url, model: old, to: copy, model: new, progress: { reports.append(($0, $1)) })
    guard case .copied(let result) = outcome else {
      Issue.record("the copy did not run: \(outcome)")
      return
    }
    #expect(result.sourceObjects == ["Note": 3])
    #expect(result.destinationObjects == ["Memo": 3])
    #expect(reports.map(\.0) == [3] && reports.map(\.1) == [3])
    #expect(try Data(contentsOf: url) == before)
    let records = try SQLiteStore().read(from: copy, model: new).records.sorted { $0.id < $1.id }
    #expect(records.map { StoreKeySpace.key(of: $0.id) } == [1, 2, 3])
    #expect(records.map { $0.attribute("heading") } == (1...3).map { .string("note \($0)") })
    #expect(records.map { $0.attribute("words") } == (1...3).map { .integer(Int64($0)) })
    #expect(records.allSatisfy { $0.attribute("kind") == .string("plain") })
  }

  @Test("a copy with nowhere to go only checks and counts")
  func countsOnly() throws {
    let (old, new) = try models()
    let (folder, url) = try store(2, model: old)
    defer { try? FileManager.default.removeItem(at: folder) }
    let outcome = try SQLiteStore.copy(plan, from: url, model: old, to: nil, model: new)
    guard case .copied(let result) = outcome else {
      Issue.record("the copy did not run: \(outcome)")
      return
    }
    #expect(result.destinationObjects == ["Memo": 2])
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["notes.sqlite"])
  }

  @Test("a value that needs converting is declined before anything is written")
  func declined() throws {
    let (old, _) = try models()
    let narrower = try ManagedObjectModel {
      EntityDescription("Memo") {
        AttributeDescription("heading", .string)
        AttributeDescription("words", .boolean)
      }
    }
    let (folder, url) = try store(2, model: old)
    defer { try? FileManager.default.removeItem(at: folder) }
    let copy = folder.appendingPathComponent("copy.sqlite")
    let outcome = try SQLiteStore.copy(plan, from: url, model: old, to: copy, model: narrower)
    guard case .declined(let reason) = outcome else {
      Issue.record("the copy was not declined: \(outcome)")
      return
    }
    #expect(reason == "Note.words needs converting to Memo.words")
    #expect(!FileManager.default.fileExists(atPath: copy.path))
  }

  @Test("a cancellation stops the statement running and removes the new database")
  func cancelled() throws {
    let (old, new) = try models()
    let (folder, url) = try store(50_000, model: old)
    defer { try? FileManager.default.removeItem(at: folder) }
    let copy = folder.appendingPathComponent("copy.sqlite")
    var asked = 0
    let outcome = try SQLiteStore.copy(
      plan, from: url, model: old, to: copy, model: new,
      isCancelled: {
        asked += 1
        return true
      })
    guard case .cancelled = outcome else {
      Issue.record("the copy was not cancelled: \(outcome)")
      return
    }
    // SQLite asked while the rows were being copied, not only afterwards.
    #expect(asked >= 2)
    #expect(!FileManager.default.fileExists(atPath: copy.path))
  }
}
