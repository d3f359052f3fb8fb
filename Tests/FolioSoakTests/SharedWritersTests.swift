import Folio
import FolioPostgresStore
import FolioSoak
import FolioTestSupport
import Foundation
import Testing

/// Several processes saving one store at once (`FolioSoakRunner writer`, ``SharedWriter``):
/// every change a save reported committed is in the file at the end, and the shared objects'
/// conflicts went as the merge policy says.
@Suite("Several processes writing one store")
struct SharedWritersTests {
  static let model = packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld")
  static let sharedCount = SharedWriterRun.sharedCount
  static let runner = productsDirectory.appendingPathComponent("FolioSoakRunner")

  static func format(_ fileExtension: String) -> any StoreFormat {
    switch fileExtension {
    case "xml": XMLStore()
    case "folio": BinaryStore()
    case "postgresql": PostgresStore()
    default: SQLiteStore()
    }
  }

  /// The stores the writers share: files of each format, and a PostgreSQL document when the
  /// tests have a server.
  static let stores =
    ["xml", "folio", "sqlite"] + (PostgresTestServer.isAvailable ? ["postgresql"] : [])

  /// Drops the PostgreSQL document `store` names; a file goes with its folder.
  static func remove(_ store: URL) {
    if !store.isFileURL { try? PostgresStore.dropSchema(at: store) }
  }

  static func makeStore(_ format: any StoreFormat, in folder: URL) throws -> URL {
    try SharedWriterRun.makeStore(format, in: folder, model: model)
  }

  /// Runs the writers (``SharedWriterRun/runWriters(_:saves:policy:store:model:in:seed:runner:killing:)``),
  /// expecting no process to fail.
  static func runWriters(
    _ writers: Int, saves: Int, policy: MergePolicy, store: URL, in folder: URL, seed: UInt64,
    killing victim: (writer: Int, afterMilliseconds: Int)? = nil
  ) throws -> [[SharedWriter.LogEntry]] {
    let (logs, problems) = try SharedWriterRun.runWriters(
      writers, saves: saves, policy: policy, store: store, model: model, in: folder, seed: seed,
      runner: runner, killing: victim)
    #expect(problems == [])
    return logs
  }

  /// Checks the store against the logs (``SharedWriterRun/check(_:model:logs:policy:killed:)``),
  /// expecting no problem; returns how many saves conflicted.
  static func check(
    _ store: URL, logs: [[SharedWriter.LogEntry]], policy: MergePolicy, killed: Set<Int> = [],
    _ comment: String
  ) throws -> Int {
    let (conflicts, problems) = try SharedWriterRun.check(
      store, model: model, logs: logs, policy: policy, killed: killed)
    #expect(problems == [], "\(comment)")
    return conflicts
  }

  @Test(
    "writers saving at once keep every committed change; conflicts fail under error",
    arguments: stores)
  func errorPolicy(fileExtension: String) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let format = Self.format(fileExtension)
    // The writers must overlap for a conflict to be tested; on a loaded machine a run may
    // start them too far apart, so up to three runs (each checked whole) are made for one.
    var conflicts = 0
    for attempt in 0..<3 where conflicts == 0 {
      let store = try Self.makeStore(format, in: folder)
      defer { Self.remove(store) }
      let logs = try Self.runWriters(
        3, saves: 25, policy: .error, store: store, in: folder, seed: 11 + UInt64(attempt))
      conflicts = try Self.check(store, logs: logs, policy: .error, fileExtension)
    }
    #expect(conflicts > 0, "no save conflicted in three runs: the writers did not overlap")
  }

  @Test(
    "writers saving at once under each other policy never fail and keep every committed change",
    arguments: stores,
    [MergePolicy.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback])
  func otherPolicies(fileExtension: String, policy: MergePolicy) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let format = Self.format(fileExtension)
    let store = try Self.makeStore(format, in: folder)
    defer { Self.remove(store) }
    let logs = try Self.runWriters(3, saves: 12, policy: policy, store: store, in: folder, seed: 5)
    _ = try Self.check(store, logs: logs, policy: policy, "\(fileExtension) \(policy)")
    // An XML or binary writer took the others' saves in from the change journal, a SQLite
    // writer from the commit log, not by reading the file whole each time.
    if let road = ["xml": "journal", "folio": "journal", "sqlite": "log"][fileExtension] {
      let taken = logs.compactMap { $0.last { $0.takeIns != nil }?.takeIns?[road] }
      #expect(taken.reduce(0, +) > 0, "\(fileExtension) \(policy): \(taken)")
    }
  }

  @Test(
    "a writer killed at any point while others write leaves every save that returned",
    arguments: stores)
  func killedWriter(fileExtension: String) throws {
    var random = SeededGenerator(seed: 23)
    for trial in 0..<4 {
      let folder = try makeTemporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let store = try Self.makeStore(Self.format(fileExtension), in: folder)
      defer { Self.remove(store) }
      let delay = Int.random(in: 5..<120, using: &random)
      let logs = try Self.runWriters(
        3, saves: 20, policy: .mergeByPropertyObjectTrump, store: store, in: folder,
        seed: UInt64(31 + trial), killing: (trial % 3, delay))
      _ = try Self.check(
        store, logs: logs, policy: .mergeByPropertyObjectTrump, killed: [trial % 3],
        "\(fileExtension) trial \(trial), killed after \(delay) ms")
      // The next save removes the temporary file and the lock file a kill left.
      let document = try Document.open(
        store, model: try ManagedObjectModel(contentsOf: Self.model),
        formats: [Self.format(fileExtension)])
      try document.context.insertNewObject(forEntityName: "Person")
      try document.save()
      let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
        $0.hasSuffix(".tmp") || $0.hasSuffix(".folio-lock")
      }
      #expect(left.isEmpty, "\(left)")
    }
  }

  @Test(
    "folio convert over a SQLite store a document has open writes through it; the document then refuses to save"
  )
  func convertOverOpenStore() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try Self.makeStore(SQLiteStore(), in: folder)
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let document = try Document.open(store, model: model, formats: [SQLiteStore()])
    try document.context.insertNewObject(forEntityName: "Person").setValue("mine", forKey: "name")
    // Another store, converted over the open one by another process.
    let other = try Self.makeStore(XMLStore(), in: folder)
    let convert = Process()
    convert.executableURL = productsDirectory.appendingPathComponent("folio")
    convert.arguments = ["convert", other.path, store.path, "--model", Self.model.path]
    let errors = Pipe()
    convert.standardError = errors
    try convert.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    convert.waitUntilExit()
    #expect(convert.terminationStatus == 0, "\(message)")
    // The document's save sees another store where its own was, and writes nothing into it.
    let error = try #require(throws: GraphError.self) { try document.save() }
    #expect((error.underlying as? StoreError)?.code == .modifiedOnDisk, "\(error)")
    let reopened = try Document.open(store, model: model, formats: [SQLiteStore()])
    let names = try reopened.context.objects(ofEntity: "Person").compactMap {
      try $0.value(forKey: "name") as? String
    }
    #expect(names.isEmpty)
    #expect(try reopened.context.objects(ofEntity: "Spending").count == Self.sharedCount)
    #expect(
      reopened.coordinator.persistentStores.first?.identifier
        == (try XMLStore().readMetadata(from: other).identifier))
  }
}
