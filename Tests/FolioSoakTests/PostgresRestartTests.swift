import Folio
import FolioPostgresStore
import FolioSoak
import FolioTestSupport
import Foundation
import Testing

/// Several writer processes on one PostgreSQL document while its server restarts. The server is
/// restarted under the tests' feet, so these run only when `make test` runs them alone, after
/// the other tests, with `FOLIO_TEST_POSTGRES_RESTART=1` on the throwaway cluster it started.
@Suite(
  "Writer processes on a PostgreSQL document whose server restarts",
  .enabled(
    if: PostgresTestServer.isAvailable
      && ProcessInfo.processInfo.environment["FOLIO_TEST_POSTGRES_RESTART"] == "1",
    "make test runs these alone, on its own cluster"),
  .serialized)
struct PostgresRestartTests {
  /// Restarts the cluster, expecting the script to succeed.
  static func restartServer() throws {
    let status = PostgresTestServer.restart()
    #expect(status == 0, "the restart ended with status \(status)")
  }

  @Test(
    "random saves of three processes, the server restarted three times meanwhile: every save returns, every change kept",
    arguments: [MergePolicy.error, .mergeByPropertyObjectTrump])
  func writersThroughRestarts(policy: MergePolicy) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = SharedWritersTests.model
    let store = try SharedWriterRun.makeStore(PostgresStore(), in: folder, model: model)
    defer { try? PostgresStore.dropSchema(at: store) }
    let (logs, problems) = try SharedWriterRun.runWriters(
      3, saves: 40, policy: policy, store: store, model: model, in: folder, seed: 21,
      runner: SharedWritersTests.runner,
      during: {
        for _ in 0..<3 {
          usleep(100_000)
          try Self.restartServer()
        }
      })
    #expect(problems == [])
    #expect(
      logs.map { $0.filter { $0.pending != true }.count } == [40, 40, 40],
      "every writer made every save")
    let (_, checked) = try SharedWriterRun.check(store, model: model, logs: logs, policy: policy)
    // Nothing a save committed is missing, nothing is written that no save made, and no save
    // failed but as its policy says.
    #expect(checked == [])
  }
}
