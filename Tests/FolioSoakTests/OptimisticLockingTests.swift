import Folio
import FolioTestSupport
import Foundation
import Testing

/// Row versions (`Z_OPT`) on SQLite stores: read with every row, compared by every save in
/// place that changes or deletes a row, moved one on by it. They catch what the persistent
/// history does not say: a writer that keeps none (an app without history tracking, the
/// sqlite3 shell) saving between two history transactions.
@Suite("Optimistic locking with row versions")
struct OptimisticLockingTests {
  static let model = HistoryTakeInTests.model

  /// A SQLite store keeping history, holding Ada and her lunch (5.0), and a document on it.
  static func store(in folder: URL) throws -> (
    url: URL, model: ManagedObjectModel, document: Document
  ) {
    let url = folder.appendingPathComponent("Expenses.sqlite")
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let setup = try Document(model: model)
    let ada = try setup.context.insertNewObject(forEntityName: "Person")
    try ada.setValue("Ada", forKey: "name")
    let lunch = try setup.context.insertNewObject(forEntityName: "Spending")
    try lunch.setValue("lunch", forKey: "content")
    try lunch.setValue(5.0, forKey: "amount")
    try lunch.setValue(ada, forKey: "person")
    try setup.save(to: url, format: SQLiteStore())
    try SQLiteStore().enableHistoryTracking(at: url, model: model)
    return (url, model, try Document.open(url, model: model, formats: [SQLiteStore()]))
  }

  /// `sql` run by a writer that keeps no history, followed by a save of another document
  /// that does: the history then says something changed, and not what `sql` did.
  static func unrecordedChange(_ sql: String, at url: URL, model: ManagedObjectModel) throws {
    try PersistentHistoryTests.sqlite(url, sql)
    let other = try Document.open(url, model: model, formats: [SQLiteStore()])
    try other.context.insertNewObject(forEntityName: "Person").setValue("Bob", forKey: "name")
    try other.save()
  }

  static func lunch(_ document: Document) throws -> ManagedObject {
    try #require(try document.context.objects(ofEntity: "Spending").first)
  }

  @Test("an attribute another writer changed unrecorded, changed here too, is a conflict")
  func sameAttribute() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (url, model, document) = try Self.store(in: folder)
    try Self.unrecordedChange(
      "UPDATE ZSPENDING SET ZAMOUNT = 7, Z_OPT = Z_OPT + 1;", at: url, model: model)
    try Self.lunch(document).setValue(9.0, forKey: "amount")
    let error = try #require(throws: GraphError.self) { try document.save() }
    #expect(error.code == .mergeConflict)
    let conflict = try #require(error.conflicts.first)
    #expect(conflict.committed?["amount"] == .attribute(.double(7)))
    // Versions are the rows' Z_OPT, as Core Data's conflicts give them.
    #expect(conflict.snapshotVersion == 1 && conflict.committedVersion == 2)
    #expect(try PersistentHistoryTests.sqlite(url, "SELECT ZAMOUNT FROM ZSPENDING;") == "7.0")
    // The policy settles it, as between contexts.
    document.context.mergePolicy = .mergeByPropertyObjectTrump
    try document.save()
    #expect(try PersistentHistoryTests.sqlite(url, "SELECT ZAMOUNT FROM ZSPENDING;") == "9.0")
    #expect(document.coordinator.takeInsOfWholeStore == 1)
  }

  @Test("another attribute changed unrecorded is kept, and the document sees it after its save")
  func otherAttribute() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (url, model, document) = try Self.store(in: folder)
    try Self.unrecordedChange(
      "UPDATE ZSPENDING SET ZAMOUNT = 7, Z_OPT = Z_OPT + 1;", at: url, model: model)
    try Self.lunch(document).setValue("dinner", forKey: "content")
    try document.save()
    #expect(
      try PersistentHistoryTests.sqlite(url, "SELECT ZCONTENT, ZAMOUNT FROM ZSPENDING;")
        == "dinner|7.0")
    #expect(try Self.lunch(document).value(forKey: "amount") as? Double == 7)
    let fresh = try Document.open(url, model: model, formats: [SQLiteStore()])
    #expect(try HistoryTakeInTests.state(document) == HistoryTakeInTests.state(fresh))
  }

  @Test("an object another writer deleted unrecorded, changed here, is a conflict")
  func deletedUnrecorded() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (url, model, document) = try Self.store(in: folder)
    try Self.unrecordedChange("DELETE FROM ZSPENDING;", at: url, model: model)
    try Self.lunch(document).setValue(9.0, forKey: "amount")
    let error = try #require(throws: GraphError.self) { try document.save() }
    #expect(error.code == .mergeConflict)
    #expect(error.conflicts.first?.committed == nil)
    document.context.mergePolicy = .mergeByPropertyObjectTrump
    try document.save()
    #expect(try PersistentHistoryTests.sqlite(url, "SELECT count(*) FROM ZSPENDING;") == "0")
  }

  @Test("a row whose version alone moved saves after one read of the whole store")
  func versionAlone() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (url, model, document) = try Self.store(in: folder)
    try Self.unrecordedChange("UPDATE ZSPENDING SET Z_OPT = Z_OPT + 5;", at: url, model: model)
    try Self.lunch(document).setValue(9.0, forKey: "amount")
    try document.save()
    #expect(
      try PersistentHistoryTests.sqlite(url, "SELECT ZAMOUNT, Z_OPT FROM ZSPENDING;") == "9.0|7")
    #expect(document.coordinator.takeInsOfWholeStore == 1)
    // Its version is the file's now: the next save goes straight through.
    try Self.lunch(document).setValue(10.0, forKey: "amount")
    try document.save()
    #expect(
      try PersistentHistoryTests.sqlite(url, "SELECT ZAMOUNT, Z_OPT FROM ZSPENDING;") == "10.0|8")
    #expect(document.coordinator.takeInsOfWholeStore == 1)
  }

  @Test(
    "versions are read from the file, moved one on by each save that changes the row, and kept by a whole write"
  )
  func versions() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (url, model, document) = try Self.store(in: folder)
    #expect(
      try PersistentHistoryTests.sqlite(
        url, "SELECT Z_OPT FROM ZPERSON UNION ALL SELECT Z_OPT FROM ZSPENDING;")
        == "1\n1")
    try PersistentHistoryTests.sqlite(
      url, "UPDATE ZPERSON SET Z_OPT = 41; UPDATE ZSPENDING SET Z_OPT = NULL;")
    let reopened = try Document.open(url, model: model, formats: [SQLiteStore()])
    let ada = try #require(try reopened.context.objects(ofEntity: "Person").first)
    try ada.setValue("Ada King", forKey: "name")
    try Self.lunch(reopened).setValue(6.0, forKey: "amount")
    try reopened.save()
    // A missing version reads as 1.
    #expect(
      try PersistentHistoryTests.sqlite(
        url, "SELECT Z_OPT FROM ZPERSON UNION ALL SELECT Z_OPT FROM ZSPENDING;")
        == "42\n2")
    let copy = folder.appendingPathComponent("Copy.sqlite")
    try reopened.save(to: copy, format: SQLiteStore())
    #expect(
      try PersistentHistoryTests.sqlite(
        copy, "SELECT Z_OPT FROM ZPERSON UNION ALL SELECT Z_OPT FROM ZSPENDING;")
        == "42\n2")
    _ = document
  }
}
