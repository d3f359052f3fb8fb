import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

/// A watching PostgreSQL document, woken by its server's notification of another client's
/// save rather than by its timer.
@Suite(
  "A watching PostgreSQL document",
  .enabled(if: PostgresTestServer.isAvailable, "FOLIO_TEST_POSTGRES_URL unset"))
struct PostgresWatchTests {
  @Test("another client's save is merged at once, long before the watch's interval")
  func notified() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let url = try OtherWriterTests.sharedFile(PostgresStore(), in: fixture)
    defer { try? PostgresStore.dropSchema(at: url) }
    let queue = DispatchQueue(label: "document")
    // The watched document and what it was told live on `queue`, and are used there only.
    nonisolated(unsafe) var watched: Document?
    nonisolated(unsafe) var merges: [ObjectIDChanges] = []
    let merged = DispatchSemaphore(value: 0)
    try queue.sync {
      let document = try Document.open(
        url, model: try musicModel(), formats: [PostgresStore()], eventLoop: ManualEventLoop())
      // A minute between ticks: only the notification can bring the merge within the test.
      document.watchForChangesFromOtherWriters(every: .seconds(60), on: queue) {
        merges.append($0)
        merged.signal()
      }
      watched = document
    }
    let other = try OtherWriterTests.open(url, fixture)
    for (round, title) in ["Noon", "Dusk"].enumerated() {
      try other.context.insertNewObject(forEntityName: "Track").setValue(title, forKey: "title")
      fixture.loop.endTurn()
      try other.save()
      #expect(merged.wait(timeout: .now() + 10) == .success, "round \(round)")
    }
    let titles = try queue.sync { try watched.map(OtherWriterTests.titles) ?? [] }
    #expect(titles == ["Dusk", "Noon", "Sunrise"])
    queue.sync {
      #expect(merges.map(\.inserted.count) == [1, 1])
      #expect(watched?.otherWritersProblem == nil)
      watched?.stopWatchingForChangesFromOtherWriters()
      watched = nil
    }
  }
}
