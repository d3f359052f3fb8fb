import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

/// Saves whose connection the server drops part-way, as a restart does: the server ends the
/// connection's process (`pg_terminate_backend`) before a chosen step of the write.
@Suite(
  "A PostgreSQL save whose connection the server drops",
  .enabled(if: PostgresTestServer.isAvailable, "FOLIO_TEST_POSTGRES_URL unset"))
struct PostgresReconnectTests {
  static let model = packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld")

  static func names(_ document: Document) throws -> [String] {
    try document.context.objects(ofEntity: "Person").compactMap {
      try $0.value(forKey: "name") as? String
    }.sorted()
  }

  /// A document of one person, and two clients of it.
  static func clients(_ name: String) throws -> (URL, Document, Document) {
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let url = PostgresTestServer.document(name)
    let setup = try Document(model: model)
    try setup.context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "name")
    try setup.save(to: url, format: PostgresStore())
    return (
      url, try Document.open(url, model: model, formats: [PostgresStore()]),
      try Document.open(url, model: model, formats: [PostgresStore()])
    )
  }

  @Test("a document's read the server cuts short is made again on a new connection")
  func droppedRead() throws {
    let (url, first, second) = try Self.clients("read")
    defer { try? PostgresStore.dropSchema(at: url) }
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let plan = PostgresFaults.Plan([.read])
    let reopened = try PostgresFaults.$drops.withValue(plan) {
      try Document.open(url, model: model, formats: [PostgresStore()])
    }
    #expect(plan.remaining.isEmpty, "the read was cut short")
    #expect(try Self.names(reopened) == ["Ada"])
    // The first client's merge of the second's save reads the same way, and goes on.
    try second.context.insertNewObject(forEntityName: "Person").setValue("Grace", forKey: "name")
    try second.save()
    try first.mergeChangesFromOtherWriters()
    #expect(try Self.names(first) == ["Ada", "Grace"])
  }

  @Test(
    "the save is made again on a new connection and written once, whatever steps the drops interrupted",
    arguments: [
      [PostgresWriteStep.lock], [.waitForLock], [.save], [.commit], [.commitAnswer],
      [.lock, .save, .commit], [.save, .waitForLock], [.commit, .waitForLock],
      [.commit, .waitForLock, .waitForLock],
    ])
  func dropped(steps: [PostgresWriteStep]) throws {
    let (url, first, second) = try Self.clients("drop")
    defer { try? PostgresStore.dropSchema(at: url) }
    let ada = try #require(first.context.objects(ofEntity: "Person").first)
    try ada.setValue("Ada Lovelace", forKey: "name")
    try first.context.insertNewObject(forEntityName: "Person").setValue("Grace", forKey: "name")
    let plan = PostgresFaults.Plan(steps)
    try PostgresFaults.$drops.withValue(plan) { try first.save() }
    #expect(plan.remaining.isEmpty, "every planned drop happened")
    #expect(!first.isEdited)
    // Written once: a save made again after it committed would insert Grace twice.
    try second.mergeChangesFromOtherWriters()
    #expect(try Self.names(second) == ["Ada Lovelace", "Grace"])
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let reopened = try Document.open(url, model: model, formats: [PostgresStore()])
    #expect(try Self.names(reopened) == ["Ada Lovelace", "Grace"])
    // The connection goes on: the next save is an ordinary one.
    try first.context.insertNewObject(forEntityName: "Person").setValue("Hedy", forKey: "name")
    try first.save()
    try second.mergeChangesFromOtherWriters()
    #expect(try Self.names(second) == ["Ada Lovelace", "Grace", "Hedy"])
  }

  @Test(
    "a save made again meets another client's change meanwhile as a conflict, nothing lost",
    arguments: [PostgresWriteStep.save, .commit])
  func conflictMeanwhile(step: PostgresWriteStep) throws {
    let (url, first, second) = try Self.clients("drop_conflict")
    defer { try? PostgresStore.dropSchema(at: url) }
    let mine = try #require(first.context.objects(ofEntity: "Person").first)
    try mine.setValue("Mine", forKey: "name")
    let theirs = try #require(second.context.objects(ofEntity: "Person").first)
    try theirs.setValue("Theirs", forKey: "name")
    // While the first save's connection is down, the second client saves a change to the
    // same object: the first save, made again, finds the row moved, and its merge policy
    // (error, by default) decides.
    let plan = PostgresFaults.Plan([step]) { try second.save() }
    let error = try #require(throws: (any Error).self) {
      try PostgresFaults.$drops.withValue(plan) { try first.save() }
    }
    #expect(plan.remaining.isEmpty)
    #expect(!second.isEdited, "the other client saved meanwhile")
    #expect(first.isEdited, "\(error)")
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let reopened = try Document.open(url, model: model, formats: [PostgresStore()])
    #expect(try Self.names(reopened) == ["Theirs"])
    // Under a policy that keeps this client's values, the next save writes them.
    first.context.mergePolicy = .mergeByPropertyObjectTrump
    try first.save()
    let after = try Document.open(url, model: model, formats: [PostgresStore()])
    #expect(try Self.names(after) == ["Mine"])
  }

  @Test(
    "a save made again gives its new objects keys after those another client reserved meanwhile",
    arguments: [PostgresWriteStep.save, .commit], ["Person", "Spending"])
  func keysReservedMeanwhile(step: PostgresWriteStep, entity: String) throws {
    let (url, first, second) = try Self.clients("drop_keys")
    defer { try? PostgresStore.dropSchema(at: url) }
    let grace = try first.context.insertNewObject(forEntityName: "Person")
    try grace.setValue("Grace", forKey: "name")
    let theirs = try second.context.insertNewObject(forEntityName: entity)
    try theirs.setValue("Hedy", forKey: entity == "Person" ? "name" : "content")
    // While the first save's connection is down, the second client reserves the key the first
    // save gave its new object (clients number the objects of every entity in one sequence):
    // the save, made again, must give it another.
    let plan = PostgresFaults.Plan([step]) {
      try second.context.obtainPermanentIDs(for: [theirs])
    }
    try PostgresFaults.$drops.withValue(plan) { try first.save() }
    #expect(plan.remaining.isEmpty)
    let reserved = theirs.objectID
    #expect(!reserved.isTemporaryID)
    try second.save()
    #expect(theirs.objectID == reserved, "the reserved key is kept")
    #expect(
      grace.objectID.uriRepresentation.lastPathComponent
        != reserved.uriRepresentation.lastPathComponent, "one key, two objects")
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let reopened = try Document.open(url, model: model, formats: [PostgresStore()])
    #expect(
      try Self.names(reopened)
        == (entity == "Person" ? ["Ada", "Grace", "Hedy"] : ["Ada", "Grace"]))
    try first.mergeChangesFromOtherWriters()
    #expect(try first.context.objects(ofEntity: entity).count == (entity == "Person" ? 3 : 1))
  }

  @Test(
    "an object of another entity another client saves and deletes while a save's connection is down takes none of this client's objects with it",
    arguments: [PostgresWriteStep.save, .commit])
  func otherEntityMeanwhile(step: PostgresWriteStep) throws {
    let (url, first, second) = try Self.clients("drop_entities")
    defer { try? PostgresStore.dropSchema(at: url) }
    try first.context.insertNewObject(forEntityName: "Person").setValue("Grace", forKey: "name")
    let lunch = try second.context.insertNewObject(forEntityName: "Spending")
    try lunch.setValue("lunch", forKey: "content")
    // The second client's spending takes the number the first save gave its person while the
    // first save's connection is down; its deletion later must not delete the person.
    let plan = PostgresFaults.Plan([step]) { try second.save() }
    try PostgresFaults.$drops.withValue(plan) { try first.save() }
    #expect(plan.remaining.isEmpty)
    try second.context.delete(lunch)
    try second.save()
    try first.mergeChangesFromOtherWriters()
    #expect(try Self.names(first) == ["Ada", "Grace"])
    #expect(try first.context.objects(ofEntity: "Spending").isEmpty)
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let reopened = try Document.open(url, model: model, formats: [PostgresStore()])
    #expect(try Self.names(reopened) == ["Ada", "Grace"])
  }
}
