import FolioModel
import FolioSQLiteStore
import FolioStores
import FolioTestSupport
import FolioXMLStore
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Kills `folio replay` while it saves into a SQLite store, just before each operation that
/// changes a file in turn (`FOLIO_TEST_KILL_BEFORE_SQLITE_OPERATION`: a write, truncation, sync
/// or deletion of the database, its journal or its WAL), and checks that the store then reads
/// as it was before the save or as it is after, never a mix, and is sound.
///
/// `make test` kills each save of each journal mode at every operation once; with
/// `FOLIO_SQLITE_KILL_TRIALS=N` in the environment the test goes round again until N trials
/// have run.
@Suite("Crash safety: SQLite saves")
struct SQLiteCrashSafetyTests {
  static let expenses = packageRoot.appendingPathComponent(
    "Samples/Expenses/Expenses.xcdatamodeld")

  /// The script the killed process runs: edits, inserts and deletes, saved in one save.
  static let script = """
    model \(expenses.path)
    open document.sqlite
    fetch Person where "name == 'old 3'" as $p
    set $p.name = "renamed"
    fetch Person where "name == 'old 7'" as $gone
    delete $gone
    insert Person $new name="new person"
    insert Spending $s amount=9.5 content="new spending" person=$new
    fetch Spending where "content == 'old spending 2 of person 5'" as $moved
    set $moved.person = $new
    save
    """

  /// Each record as a line, sorted: the state a reader sees.
  func state(of url: URL, model: ManagedObjectModel) throws -> [String] {
    try SQLiteStore().read(from: url, model: model).records.map { record in
      let attributes = record.attributes.keys.sorted().map {
        "\($0)=\(record.attributes[$0].map { "\($0)" } ?? "nil")"
      }
      let relationships = record.relationships.keys.sorted().map {
        "\($0)=\((record.relationships[$0] ?? []).sorted())"
      }
      return "\(record.entityName) \(record.id) \(attributes) \(relationships)"
    }.sorted()
  }

  func runFolio(_ arguments: [String], in folder: URL, killBefore: Int?) throws -> Bool {
    let child = Process()
    child.executableURL = productsDirectory.appendingPathComponent("folio")
    child.arguments = arguments
    child.currentDirectoryURL = folder
    var environment = ProcessInfo.processInfo.environment
    environment["FOLIO_TEST_KILL_BEFORE_SQLITE_OPERATION"] = killBefore.map(String.init)
    child.environment = environment
    child.standardOutput = FileHandle.nullDevice
    child.standardError = FileHandle.nullDevice
    try child.run()
    child.waitUntilExit()
    if child.terminationReason == .uncaughtSignal {
      #expect(child.terminationStatus == SIGKILL)
      return true
    }
    #expect(child.terminationStatus == 0)
    return false
  }

  /// Puts the store in `saved` (a file and its companions) back at `url`.
  func restore(_ saved: [String: Data], at url: URL) throws {
    for suffix in ["", "-journal", "-wal", "-shm"] {
      let path = url.path + suffix
      try? FileManager.default.removeItem(atPath: path)
      if let data = saved[suffix] { try data.write(to: URL(fileURLWithPath: path)) }
    }
  }

  /// How the killed process writes the store: a save in place, or a whole store converted
  /// from an XML file over it.
  enum Write: CaseIterable { case save, convert }

  @Test(
    "a SQLite save or a conversion over a store, killed before any of its writes, leaves the old or the new store",
    arguments: ["DELETE", "WAL"], Write.allCases)
  func killMidSave(journalMode: String, write: Write) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try ManagedObjectModel(contentsOf: Self.expenses)
    let url = folder.appendingPathComponent("document.sqlite")
    try SQLiteStore().write(CrashSafetyTests().store(people: 10, tag: "old"), model: model, to: url)
    let mode = try run(
      URL(fileURLWithPath: "/usr/bin/sqlite3"), [url.path, "PRAGMA journal_mode = \(journalMode)"])
    #expect(mode.standardOutput.lowercased() == journalMode.lowercased() + "\n")
    var saved: [String: Data] = [:]
    for suffix in ["", "-wal", "-shm"] {
      saved[suffix] = FileManager.default.contents(atPath: url.path + suffix)
    }
    let scriptURL = folder.appendingPathComponent("save.undo")
    try Self.script.write(to: scriptURL, atomically: true, encoding: .utf8)
    let source = folder.appendingPathComponent("source.xml")
    try XMLStore().write(CrashSafetyTests().store(people: 12, tag: "new"), model: model, to: source)
    let command =
      write == .save
      ? ["replay", scriptURL.path]
      : ["convert", source.path, url.path, "--model", Self.expenses.path]
    let old = try state(of: url, model: model)
    try restore(saved, at: url)
    let inode =
      try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber]
      as? NSNumber
    #expect(try !runFolio(command, in: folder, killBefore: nil))
    let new = try state(of: url, model: model)
    #expect(new != old)
    if write == .convert {
      // Written through: the same file, in the same journal mode.
      let mode = try run(
        URL(fileURLWithPath: "/usr/bin/sqlite3"), [url.path, "PRAGMA journal_mode"])
      #expect(mode.standardOutput.lowercased() == journalMode.lowercased() + "\n")
      let now = try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber]
      #expect(now as? NSNumber == inode)
    }
    let systemBefore = Set(
      try FileManager.default.contentsOfDirectory(
        atPath: FileManager.default.temporaryDirectory.path))
    let wanted = Int(ProcessInfo.processInfo.environment["FOLIO_SQLITE_KILL_TRIALS"] ?? "") ?? 0
    var trials = 0
    var operation = 1
    var sawOld = false
    var sawNew = false
    while true {
      try restore(saved, at: url)
      let killed = try runFolio(command, in: folder, killBefore: operation)
      if killed { trials += 1 }
      let now = try state(of: url, model: model)
      #expect(now == old || now == new, "killed before operation \(operation)")
      if now == old { sawOld = true } else if now == new { sawNew = true }
      let check = try run(
        URL(fileURLWithPath: "/usr/bin/sqlite3"), [url.path, "PRAGMA integrity_check"])
      #expect(check.standardOutput == "ok\n", "killed before operation \(operation)")
      if !killed {
        // Every operation has been a crash point; go round again for more trials.
        if trials >= wanted / 2 { break }
        operation = 1
        continue
      }
      operation += 1
    }
    #expect(sawOld && sawNew)
    // What the killed runs built is beside the store, never in the system's temporary folder,
    // and the next run clears it.
    let system = try FileManager.default.contentsOfDirectory(
      atPath: FileManager.default.temporaryDirectory.path)
    #expect(
      Set(system).subtracting(systemBefore).filter {
        $0.hasPrefix("folio-") && $0.hasSuffix(".sqlite")
      } == [])
    try restore(saved, at: url)
    #expect(try !runFolio(command, in: folder, killBefore: nil))
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
      $0.contains(".folio-")
    }
    #expect(left == [], "\(left)")
    print("SQLite \(journalMode) \(write) killed: \(trials) trials")
  }

  /// The history tables there are, and the transactions and changes they hold.
  func history(of url: URL) throws -> String {
    let tables = try run(
      URL(fileURLWithPath: "/usr/bin/sqlite3"),
      [
        url.path,
        "SELECT group_concat(name) FROM (SELECT name FROM sqlite_master WHERE name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING') ORDER BY name)",
      ]
    ).standardOutput
    guard tables.contains("ATRANSACTION") else { return tables }
    return tables
      + (try run(
        URL(fileURLWithPath: "/usr/bin/sqlite3"),
        [url.path, "SELECT group_concat(Z_PK) FROM ATRANSACTION; SELECT count(*) FROM ACHANGE"]
      ).standardOutput)
  }

  @Test(
    "folio history --enable or --delete-through, killed before any of its writes, leaves the history as it was or as it is after",
    arguments: ["DELETE", "WAL"], ["--enable", "--delete-through"])
  func killHistoryWrite(journalMode: String, action: String) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try ManagedObjectModel(contentsOf: Self.expenses)
    let url = folder.appendingPathComponent("document.sqlite")
    try SQLiteStore().write(CrashSafetyTests().store(people: 10, tag: "old"), model: model, to: url)
    _ = try run(
      URL(fileURLWithPath: "/usr/bin/sqlite3"), [url.path, "PRAGMA journal_mode = \(journalMode)"])
    if action == "--delete-through" {
      #expect(try !runFolio(["history", url.path, "--enable"], in: folder, killBefore: nil))
      for amount in 1...3 {
        let update = [
          "update", url.path, "--entity", "Spending", "--where", "TRUEPREDICATE", "--set",
          "amount=\(amount)",
        ]
        #expect(try !runFolio(update, in: folder, killBefore: nil))
      }
    }
    var saved: [String: Data] = [:]
    for suffix in ["", "-wal", "-shm"] {
      saved[suffix] = FileManager.default.contents(atPath: url.path + suffix)
    }
    let command = ["history", url.path, action] + (action == "--enable" ? [] : ["2"])
    let objects = try state(of: url, model: model)
    let old = try history(of: url)
    #expect(try !runFolio(command, in: folder, killBefore: nil))
    let new = try history(of: url)
    #expect(new != old)
    var (operation, sawOld, sawNew) = (1, false, false)
    while true {
      try restore(saved, at: url)
      let killed = try runFolio(command, in: folder, killBefore: operation)
      let now = try history(of: url)
      #expect(now == old || now == new, "killed before operation \(operation): \(now)")
      if now == old { sawOld = true } else if now == new { sawNew = true }
      #expect(try state(of: url, model: model) == objects)
      let check = try run(
        URL(fileURLWithPath: "/usr/bin/sqlite3"), [url.path, "PRAGMA integrity_check"])
      #expect(check.standardOutput == "ok\n", "killed before operation \(operation)")
      if !killed { break }
      operation += 1
    }
    #expect(sawOld && sawNew && operation > 1)
  }
}
