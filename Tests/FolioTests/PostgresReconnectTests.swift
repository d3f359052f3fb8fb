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

  @Test(
    "the save is made again on a new connection, once, whatever step the drop interrupted",
    arguments: [
      [PostgresWriteStep.lock], [.save], [.commit], [.commitAnswer], [.lock, .save, .commit],
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
}
