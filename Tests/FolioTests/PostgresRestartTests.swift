import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Clients of a PostgreSQL document that outlive a restart of its server. The server is
/// restarted under the tests' feet, so these run only when `make test` runs them alone, after
/// the other tests, with `FOLIO_TEST_POSTGRES_RESTART=1` on the throwaway cluster it started.
@Suite(
  "A PostgreSQL server restarted under its clients",
  .enabled(
    if: PostgresTestServer.isAvailable
      && ProcessInfo.processInfo.environment["FOLIO_TEST_POSTGRES_RESTART"] == "1",
    "make test runs these alone, on its own cluster"),
  .serialized)
struct PostgresRestartTests {
  static let model = packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld")

  /// Restarts the cluster, waiting for the script with `waitpid`: the server it starts
  /// again outlives it, which Foundation's `Process` does not always see the end of.
  static func restartServer() throws {
    let path = packageRoot.appendingPathComponent("scripts/postgres-cluster.sh").path
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup(path), strdup("restart"), nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    #expect(posix_spawn(&pid, path, nil, nil, argv, environ) == 0)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    #expect(status == 0, "the restart ended with status \(status)")
  }

  static func names(_ document: Document) throws -> [String] {
    try document.context.objects(ofEntity: "Person").compactMap {
      try $0.value(forKey: "name") as? String
    }.sorted()
  }

  @Test("a document keeps its unsaved changes through a restart and saves them after it")
  func unsavedChangesKept() throws {
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let url = PostgresTestServer.document("restart")
    defer { try? PostgresStore.dropSchema(at: url) }
    let setup = try Document(model: model)
    try setup.context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "name")
    try setup.save(to: url, format: PostgresStore())
    let first = try Document.open(url, model: model, formats: [PostgresStore()])
    let second = try Document.open(url, model: model, formats: [PostgresStore()])
    try first.context.insertNewObject(forEntityName: "Person").setValue("Before", forKey: "name")
    first.context.processPendingChanges()
    try Self.restartServer()
    // The kept connection died with the server: the save connects again and writes.
    #expect(first.isEdited)
    try first.save()
    try second.mergeChangesFromOtherWriters()
    #expect(try Self.names(second) == ["Ada", "Before"])
    try second.context.insertNewObject(forEntityName: "Person").setValue("After", forKey: "name")
    try second.save()
    let reopened = try Document.open(url, model: model, formats: [PostgresStore()])
    #expect(try Self.names(reopened) == ["Ada", "After", "Before"])
  }
}
