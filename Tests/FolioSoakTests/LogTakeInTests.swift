import Folio
import FolioTestSupport
import Foundation
import Testing

/// Another writer's saves to a SQLite store Folio made, taken in from the store's commit log
/// (only the objects the logged commits name are read), against the slow twin, the whole
/// store read anew: after every save the document that took them in holds what a fresh open of
/// the file holds. And every way the log cannot lead (another program's commit, a store in a
/// write-ahead log, a log trimmed or replaced) falls back to the row versions.
@Suite("Taking in other writers' saves from the commit log")
struct LogTakeInTests {
  @Test(
    "every save taken in from the commit log leaves what a fresh open shows", arguments: [1, 2, 3])
  func differential(seed: UInt64) throws {
    try VersionTakeInTests.takeIns(seed: seed, keepingLog: true, expecting: \.takeInsFromLog)
  }

  @Test("the Expenses differential of the history take-in holds through the commit log too")
  func expenses() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Expenses.sqlite")
    try HistoryTakeInTests.takeIns(
      seed: 5, at: url, format: SQLiteStore(), expecting: \.takeInsFromLog
    ) { _, _ in }
  }

  /// Removes the commit log from the store at `url`, as a store another program made has none.
  static func dropLog(_ url: URL) throws {
    _ = try PersistentHistoryTests.sqlite(
      url, "DROP TABLE Z_FOLIOLOG;")
  }

  /// A watcher and a writer on a new Expenses store at `url`, with one person, Ada.
  static func pair(_ url: URL) throws -> (
    watcher: Document, writer: Document, model: ManagedObjectModel
  ) {
    let model = try ManagedObjectModel(contentsOf: HistoryTakeInTests.model)
    let setup = try Document(model: model)
    try setup.context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "name")
    try setup.save(to: url, format: SQLiteStore())
    return (
      try Document.open(url, model: model, formats: [SQLiteStore()]),
      try Document.open(url, model: model, formats: [SQLiteStore()]), model
    )
  }

  static func add(_ name: String, to document: Document) throws {
    try document.context.insertNewObject(forEntityName: "Person").setValue(name, forKey: "name")
    try document.save()
  }

  /// The watcher's take-ins so far: from the log, by row versions, of the whole store.
  static func roads(_ document: Document) -> [Int] {
    let coordinator = document.coordinator
    return [
      coordinator.takeInsFromLog, coordinator.takeInsByVersions, coordinator.takeInsOfWholeStore,
    ]
  }

  @Test(
    "another program's commit, which the log does not hold, makes the watcher compare row versions, and the log leads again after"
  )
  func foreignCommit() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Expenses.sqlite")
    let (watcher, writer, _) = try Self.pair(url)
    try Self.add("Bob", to: writer)
    try watcher.mergeChangesFromOtherWriters()
    #expect(Self.roads(watcher) == [1, 0, 0])
    // The sqlite3 shell keeps no log: the way from the watcher's place is broken.
    _ = try PersistentHistoryTests.sqlite(
      url, "UPDATE ZPERSON SET ZNAME = 'Ada King', Z_OPT = Z_OPT + 1 WHERE ZNAME = 'Ada';")
    try Self.add("Cy", to: writer)
    try watcher.mergeChangesFromOtherWriters()
    #expect(
      try HistoryTakeInTests.state(watcher) == [
        "Person Ada King []", "Person Bob []", "Person Cy []",
      ])
    #expect(Self.roads(watcher) == [1, 1, 0])
    try Self.add("Di", to: writer)
    try watcher.mergeChangesFromOtherWriters()
    #expect(Self.roads(watcher) == [2, 1, 0])
    // The writer took the shell's change in by versions at its save, and its own next save
    // leads from there.
    try Self.add("Ed", to: watcher)
    try writer.mergeChangesFromOtherWriters()
    #expect(try HistoryTakeInTests.state(writer) == HistoryTakeInTests.state(watcher))
    #expect(writer.coordinator.takeInsFromLog == 1)
  }

  @Test(
    "a store in a write-ahead log is compared by row versions: its counter does not move at every commit"
  )
  func writeAheadLog() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Expenses.sqlite")
    let (watcher, writer, _) = try Self.pair(url)
    _ = try PersistentHistoryTests.sqlite(url, "PRAGMA journal_mode = WAL;")
    try Self.add("Bob", to: writer)
    try watcher.mergeChangesFromOtherWriters()
    try Self.add("Cy", to: writer)
    try watcher.mergeChangesFromOtherWriters()
    #expect(
      try HistoryTakeInTests.state(watcher) == ["Person Ada []", "Person Bob []", "Person Cy []"])
    #expect(Self.roads(watcher) == [0, 2, 0])
  }

  @Test("a watcher further behind than the log keeps compares row versions")
  func trimmed() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Expenses.sqlite")
    let (watcher, writer, _) = try Self.pair(url)
    for index in 0..<260 { try Self.add("P\(index)", to: writer) }
    let kept = try PersistentHistoryTests.sqlite(url, "SELECT count(*) FROM Z_FOLIOLOG;")
    // At least the last 256, trimmed at every 16th counter.
    let count = try #require(Int(kept.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect((256...271).contains(count))
    try watcher.mergeChangesFromOtherWriters()
    #expect(try HistoryTakeInTests.state(watcher).count == 261)
    #expect(Self.roads(watcher) == [0, 1, 0])
  }

  @Test("a file written over in place by an older copy whose log went on otherwise is not followed")
  func forkedCopy() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Expenses.sqlite")
    let (watcher, writer, model) = try Self.pair(url)
    let copy = folder.appendingPathComponent("Copy.sqlite")
    try FileManager.default.copyItem(at: url, to: copy)
    for name in ["Bob", "Cy"] { try Self.add(name, to: writer) }
    try watcher.mergeChangesFromOtherWriters()
    #expect(Self.roads(watcher) == [1, 0, 0])
    // The copy goes on with saves of its own, past the watcher's counter.
    let other = try Document.open(copy, model: model, formats: [SQLiteStore()])
    for name in ["Xi", "Yu", "Zoe"] { try Self.add(name, to: other) }
    // Written over the store in place: the same file, its counter past the watcher's, its log
    // holding commits from the watcher's counter on, though not the ones the watcher knows.
    let bytes = try Data(contentsOf: copy)
    let handle = try FileHandle(forWritingTo: url)
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: bytes)
    try handle.close()
    try watcher.mergeChangesFromOtherWriters()
    let fresh = try Document.open(url, model: model, formats: [SQLiteStore()])
    #expect(try HistoryTakeInTests.state(watcher) == HistoryTakeInTests.state(fresh))
    #expect(try HistoryTakeInTests.state(watcher).contains("Person Zoe []"))
    // Its rows' versions agree with the watcher's where their values do not: the whole store
    // is read.
    #expect(Self.roads(watcher) == [1, 0, 1])
  }

  @Test(
    "a log whose changes do not read, or name what the model does not have, is not followed",
    arguments: [
      // None (the log is followed: the slow twin of the damage); a type 7; a root entity 999;
      // a key 0; a blob cut short; text; no blob (unlisted).
      nil, "X'07' || X'01000000' || X'0200000000000000'",
      "X'00' || X'E7030000' || X'0200000000000000'",
      "X'00' || X'01000000' || X'0000000000000000'",
      "X'000100'", "'insert'", "NULL",
    ])
  func damagedLog(damage: String?) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Expenses.sqlite")
    let (watcher, writer, _) = try Self.pair(url)
    try Self.add("Bob", to: writer)
    // The damage is a commit of the sqlite3 shell's, recorded in the log as if it were Folio's,
    // so that the log holds every commit and only the damaged one can stop the watcher.
    let counter = try #require(try SQLiteStore().commitLogPosition(of: url)).counter
    let damaging = damage.map {
      "UPDATE Z_FOLIOLOG SET Z_COUNT = 1, Z_CHANGES = \($0) WHERE Z_COUNTER = \(counter - 1); "
    }
    _ = try PersistentHistoryTests.sqlite(
      url,
      "BEGIN; \(damaging ?? "")INSERT INTO Z_FOLIOLOG VALUES (\(counter), 1, 0, X''); COMMIT;")
    try watcher.mergeChangesFromOtherWriters()
    #expect(try HistoryTakeInTests.state(watcher) == ["Person Ada []", "Person Bob []"])
    #expect(Self.roads(watcher) == (damage == nil ? [1, 0, 0] : [0, 1, 0]), "\(damage ?? "none")")
  }

  @Test(
    "history turned on or deleted by another process is a commit the log holds: the watcher follows the log past it"
  )
  func historyCommits() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Expenses.sqlite")
    let (watcher, writer, model) = try Self.pair(url)
    let counter = {
      try PersistentHistoryTests.sqlite(url, "SELECT max(Z_COUNTER) FROM Z_FOLIOLOG;")
    }
    let before = try counter()
    try SQLiteStore().enableHistoryTracking(at: url, model: model)
    #expect(try counter() != before, "turning history on was not logged")
    // Turning it on again changes nothing, and commits nothing.
    let on = try counter()
    try SQLiteStore().enableHistoryTracking(at: url, model: model)
    #expect(try counter() == on)
    try Self.add("Bob", to: writer)
    try watcher.mergeChangesFromOtherWriters()
    try SQLiteStore().deleteHistory(before: PersistentHistoryToken(transactionNumber: 1), at: url)
    #expect(try counter() != on)
    try Self.add("Cy", to: writer)
    try watcher.mergeChangesFromOtherWriters()
    #expect(
      try HistoryTakeInTests.state(watcher) == ["Person Ada []", "Person Bob []", "Person Cy []"])
    #expect(Self.roads(watcher) == [2, 0, 0])
  }

  @Test("a batch request's commit lists what it changed, and a watcher follows it")
  func batch() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Expenses.sqlite")
    let (watcher, writer, _) = try Self.pair(url)
    var request = BatchUpdateRequest(
      entityName: "Person", predicate: try QueryPredicate(format: "name == 'Ada'"),
      propertiesToUpdate: ["name": "Ada Lovelace"])
    request.resultType = .count
    #expect(try writer.context.execute(request) == .count(1))
    try watcher.mergeChangesFromOtherWriters()
    #expect(try HistoryTakeInTests.state(watcher) == ["Person Ada Lovelace []"])
    #expect(Self.roads(watcher) == [1, 0, 0])
  }
}
