import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

/// A PostgreSQL document replaced whole (`folio convert --replace`, a whole write) under a
/// client that has it open.
@Suite(
  "A PostgreSQL document replaced under an open client",
  .enabled(if: PostgresTestServer.isAvailable, "FOLIO_TEST_POSTGRES_URL unset"))
struct PostgresReplaceTests {
  static let model = packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld")

  static func names(_ document: Document) throws -> [String] {
    try document.context.objects(ofEntity: "Person").compactMap {
      try $0.value(forKey: "name") as? String
    }.sorted()
  }

  /// A document of `names` on `model`, as a new store of its own.
  static func document(_ names: [String], model: ManagedObjectModel) throws -> Document {
    let document = try Document(model: model)
    for name in names {
      try document.context.insertNewObject(forEntityName: "Person").setValue(name, forKey: "name")
    }
    return document
  }

  @Test("the client learns it at once, and its save is refused rather than written over it")
  func anotherStore() throws {
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let url = PostgresTestServer.document("replaced")
    defer { try? PostgresStore.dropSchema(at: url) }
    try Self.document(["Ada"], model: model).save(to: url, format: PostgresStore())
    let open = try Document.open(url, model: model, formats: [PostgresStore()])
    let ada = try #require(open.context.objects(ofEntity: "Person").first)
    try ada.setValue("Ada Lovelace", forKey: "name")
    // Another store, its objects numbered as the open client's, replaces the document.
    var replacing = PostgresStore()
    replacing.replacesExisting = true
    let other = try Self.document(["Grace"], model: model)
    try other.save(
      to: FileManager.default.temporaryDirectory.appendingPathComponent(
        "replacing-\(UUID().uuidString).sqlite"), format: SQLiteStore())
    let contents = try SQLiteStore().read(from: try #require(other.fileURL), model: model)
    defer { try? FileManager.default.removeItem(at: try #require(other.fileURL)) }
    try replacing.write(contents, model: model, to: url)
    #expect(open.isChangedOnDisk)
    let error = try #require(throws: (any Error).self) { try open.save() }
    #expect("\(error)".contains("the document was replaced by another store"), "\(error)")
    let reopened = try Document.open(url, model: model, formats: [PostgresStore()])
    #expect(try Self.names(reopened) == ["Grace"])
  }

  @Test("a replacement by the same store's later copy is merged whole, and saves go on")
  func sameStore() throws {
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let url = PostgresTestServer.document("replaced_same")
    defer { try? PostgresStore.dropSchema(at: url) }
    try Self.document(["Ada"], model: model).save(to: url, format: PostgresStore())
    let open = try Document.open(url, model: model, formats: [PostgresStore()])
    // The document read whole, changed, and written whole again over itself.
    var contents = try PostgresStore().read(from: url, model: model)
    let grace = StoreRecord(
      entityName: "Person", id: contents.nextObjectID, attributes: ["name": .string("Grace")])
    contents.records.append(grace)
    contents.nextObjectID += 1
    var replacing = PostgresStore()
    replacing.replacesExisting = true
    try replacing.write(contents, model: model, to: url)
    #expect(open.isChangedOnDisk)
    try open.mergeChangesFromOtherWriters()
    #expect(try Self.names(open) == ["Ada", "Grace"])
    try open.context.insertNewObject(forEntityName: "Person").setValue("Hedy", forKey: "name")
    try open.save()
    let reopened = try Document.open(url, model: model, formats: [PostgresStore()])
    #expect(try Self.names(reopened) == ["Ada", "Grace", "Hedy"])
  }
}
