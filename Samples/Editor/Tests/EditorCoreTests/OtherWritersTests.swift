import Folio
import FolioPostgresStore
import Foundation
import Testing

@testable import EditorCore

/// The PostgreSQL server the tests may use, as Folio's own tests do: `FOLIO_TEST_POSTGRES_URL`
/// (a database URL without a schema), which `make test-editor` sets to a throwaway cluster.
/// Without it the PostgreSQL tests are skipped.
enum PostgresServer {
  static let url: String? = {
    guard let value = ProcessInfo.processInfo.environment["FOLIO_TEST_POSTGRES_URL"],
      !value.isEmpty
    else { return nil }
    return value
  }()

  static var isAvailable: Bool { url != nil }

  /// A new document in a schema no other test uses, holding the Expenses sample.
  static func document(from sample: SampleDocument, model: ManagedObjectModel) throws -> URL {
    let base = url ?? "postgresql://localhost/folio_test"
    let schema = "editor_\(UInt32.random(in: 0...UInt32.max))"
    let url = try #require(
      URL(string: base + (base.contains("?") ? "&" : "?") + "schema=" + schema))
    let document = try Document.open(sample.file, model: model, formats: [XMLStore()])
    try document.save(to: url, formats: [PostgresStore()])
    return url
  }

  /// Drops the document's schema, with `psql` when there is one; the throwaway cluster goes
  /// whole anyway.
  static func drop(_ url: URL) {
    guard let base = self.url,
      let schema = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
        .first(where: { $0.name == "schema" })?.value
    else { return }
    let psql = Process()
    psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    psql.arguments = [
      "psql", "-q", "-d", base, "-c", "DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE",
    ]
    psql.standardOutput = FileHandle.nullDevice
    psql.standardError = FileHandle.nullDevice
    try? psql.run()
    psql.waitUntilExit()
  }
}

/// Two hubs on one document, as two editor processes have it: what one saves reaches every tab
/// of the other, live, through its watch or when it looks.
@Suite("Other writers")
struct OtherWritersTests {
  static let modelURL = SampleDocument.samples.appendingPathComponent("Expenses.xcdatamodeld")

  /// Waits on `live` until a `saved` event from another process has come and `done` holds for
  /// the changes heard since the start.
  static func hear(
    _ live: AsyncStream<LiveEvent>, until done: ([LiveEvent.Change]) -> Bool
  ) async -> (changes: [LiveEvent.Change], savedByOtherProcess: Bool) {
    var changes: [LiveEvent.Change] = []
    var saved = false
    for await event in live {
      changes += event.changes
      if event.kind == "saved" && event.tab == nil { saved = true }
      if saved && done(changes) { break }
    }
    return (changes, saved)
  }

  /// Runs the exchange on the document at `url`: the second hub edits and inserts, and the
  /// first hub's two tabs show it (one through its live channel); then the first hub's tab
  /// edits the new row, and the second hub takes it in when it looks.
  static func exchange(on url: URL) async throws {
    let first = try DocumentHub(storeAt: url, modelAt: modelURL)
    let second = try DocumentHub(storeAt: url, modelAt: modelURL)
    let watched = try await first.openTab().tab
    let quiet = try await first.openTab().tab
    let gears = try #require(
      try await first.table("Spending", tab: watched).rows.first {
        $0.values["content"] == .string("Brass gears")
      })
    _ = try await first.table("Spending", tab: quiet)
    let live = try await first.liveEvents(tab: watched)
    await first.watchForOtherWriters(every: .milliseconds(20))
    #expect(try await first.mergeChangesFromOtherWriters() == false)

    let writer = try await second.openTab().tab
    _ = try await second.edit(object: gears.id, key: "amount", value: .integer(321), tab: writer)
    let inserted = try #require(try await second.insert("Spending", tab: writer).row)
    _ = try await second.edit(
      object: inserted.id, key: "content", value: .string("Jacquard loom"), tab: writer)
    _ = try await second.save(tab: writer)

    let heard = await hear(live) { changes in
      changes.contains { $0.id == gears.id && $0.row?.values["amount"] == .number(321) }
        && changes.contains {
          $0.type == "insert" && $0.row?.values["content"] == .string("Jacquard loom")
        }
    }
    #expect(heard.savedByOtherProcess)
    await first.stopWatchingForOtherWriters()
    // The same merge reached the tab that was not listening.
    let rows = try await first.table("Spending", tab: quiet).rows
    #expect(rows.first { $0.id == gears.id }?.values["amount"] == .number(321))
    let loom = try #require(rows.first { $0.values["content"] == .string("Jacquard loom") })
    #expect(try await first.state(tab: quiet).undo == nil)

    // The other way, without a watch: the second hub takes the first's save in when it looks.
    _ = try await first.edit(object: loom.id, key: "amount", value: .integer(7), tab: quiet)
    _ = try await first.save(tab: quiet)
    #expect(try await second.mergeChangesFromOtherWriters())
    #expect(try await second.mergeChangesFromOtherWriters() == false)
    let loomThere = try await second.table("Spending", tab: writer).rows.first {
      $0.values["content"] == .string("Jacquard loom")
    }
    #expect(loomThere?.values["amount"] == .number(7))
    #expect(try await second.state(tab: writer).hasChanges == false)
    // The first hub's watched tab had the first's own save merged as a tab's.
    #expect(
      try await first.table("Spending", tab: watched).rows.first { $0.id == loom.id }?
        .values["amount"] == .number(7))
  }

  @Test(
    "another process's save to a file reaches every tab",
    .timeLimit(.minutes(1)), arguments: ["xml", "sqlite"])
  func fileStore(fileExtension: String) async throws {
    let sample = try SampleDocument()
    defer { sample.remove() }
    var url = sample.file
    if fileExtension == "sqlite" {
      url = sample.folder.appendingPathComponent("Expenses.sqlite")
      let document = try Document.open(
        sample.file, model: try ManagedObjectModel(contentsOf: Self.modelURL),
        formats: [XMLStore()])
      try document.save(to: url, format: SQLiteStore())
    }
    try await Self.exchange(on: url)
  }

  @Test(
    "another process's save to a PostgreSQL document reaches every tab",
    .enabled(if: PostgresServer.isAvailable, "FOLIO_TEST_POSTGRES_URL unset"),
    .timeLimit(.minutes(1)))
  func postgres() async throws {
    let sample = try SampleDocument()
    defer { sample.remove() }
    let url = try PostgresServer.document(
      from: sample, model: try ManagedObjectModel(contentsOf: Self.modelURL))
    defer { PostgresServer.drop(url) }
    let hub = try DocumentHub(storeAt: url, modelAt: Self.modelURL)
    #expect(hub.modelPayload.file == url.absoluteString)
    try await Self.exchange(on: url)
  }

  @Test("a PostgreSQL URL names a server's document; anything else a file")
  func storeURLs() throws {
    let url = try DocumentHub.storeURL("postgresql://me@db:5432/app?schema=books")
    #expect(!url.isFileURL && url.absoluteString == "postgresql://me@db:5432/app?schema=books")
    #expect(try DocumentHub.storeURL("Expenses.xml").isFileURL)
    #expect(try DocumentHub.storeURL("mysql://me@db/app").isFileURL)
  }
}
