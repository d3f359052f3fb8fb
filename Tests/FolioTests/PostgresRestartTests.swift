import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

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

  /// Restarts the cluster, expecting the script to succeed.
  static func restartServer() throws {
    let status = PostgresTestServer.restart()
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

  /// What a writer thread saved, and the first save that failed.
  final class Saved: @unchecked Sendable {
    private let lock = NSLock()
    private var names: [String] = []
    private var failure: String?
    private var isDone = false

    func add(_ name: String) { lock.withLock { names.append(name) } }
    func fail(_ text: String) { lock.withLock { failure = failure ?? text } }
    func finish() { lock.withLock { isDone = true } }
    var count: Int { lock.withLock { names.count } }
    var result: (names: [String], failure: String?, isDone: Bool) {
      lock.withLock { (names, failure, isDone) }
    }
  }

  @Test("saves made one after another while the server restarts all return, and all are kept")
  func savesUnderRestart() throws {
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let url = PostgresTestServer.document("restart_load")
    defer { try? PostgresStore.dropSchema(at: url) }
    let setup = try Document(model: model)
    try setup.context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "name")
    try setup.save(to: url, format: PostgresStore())
    let saved = Saved()
    let stop = Saved()
    // A writer of its own, on its own thread: one person per save until told to stop.
    let writer = Thread {
      defer { saved.finish() }
      do {
        let document = try Document.open(url, model: model, formats: [PostgresStore()])
        var number = 0
        while stop.count == 0 {
          number += 1
          let name = "w\(number)"
          try document.context.insertNewObject(forEntityName: "Person")
            .setValue(name, forKey: "name")
          do {
            try document.save()
          } catch {
            saved.fail("save \(number): \(error)")
            return
          }
          saved.add(name)
        }
      } catch {
        saved.fail("\(error)")
      }
    }
    writer.start()
    while saved.count < 10, saved.result.failure == nil { usleep(10_000) }
    try Self.restartServer()
    // Saves after the restart, on connections made again.
    let atRestart = saved.count
    while saved.count < atRestart + 5, !saved.result.isDone { usleep(10_000) }
    stop.add("stop")
    while !saved.result.isDone { usleep(10_000) }
    let (names, failure, _) = saved.result
    #expect(failure == nil)
    let reopened = try Document.open(url, model: model, formats: [PostgresStore()])
    #expect(try Self.names(reopened) == (["Ada"] + names).sorted())
    #expect(names.count >= atRestart + 5)
  }

  @Test("a watching document goes on merging other clients' saves after a restart")
  func watchingThroughRestart() throws {
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let url = PostgresTestServer.document("restart_watch")
    defer { try? PostgresStore.dropSchema(at: url) }
    let setup = try Document(model: model)
    try setup.context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "name")
    try setup.save(to: url, format: PostgresStore())
    let queue = DispatchQueue(label: "document")
    // The watched document lives on `queue`, and is used there only.
    nonisolated(unsafe) var watched: Document?
    let merged = DispatchSemaphore(value: 0)
    try queue.sync {
      let document = try Document.open(url, model: model, formats: [PostgresStore()])
      document.watchForChangesFromOtherWriters(every: .milliseconds(100), on: queue) { _ in
        merged.signal()
      }
      watched = document
    }
    let other = try Document.open(url, model: model, formats: [PostgresStore()])
    for name in ["Before", "After"] {
      if name == "After" { try Self.restartServer() }
      try other.context.insertNewObject(forEntityName: "Person").setValue(name, forKey: "name")
      try other.save()
      #expect(merged.wait(timeout: .now() + 20) == .success, "\(name)")
    }
    let names = try queue.sync { try watched.map(Self.names) ?? [] }
    #expect(names == ["Ada", "After", "Before"])
    queue.sync {
      #expect(watched?.otherWritersProblem == nil)
      watched?.stopWatchingForChangesFromOtherWriters()
      watched = nil
    }
  }
}
