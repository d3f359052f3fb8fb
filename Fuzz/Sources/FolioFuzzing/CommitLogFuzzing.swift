import CSQLite
import Folio
import FolioSQLiteStore
import FolioStores
import Foundation

/// Taking another writer's commits in from a SQLite store's commit log (`Formats/
/// sqlite-store.md` §12c): any bytes, read as up to eight commits, each a UInt16 count, a
/// UInt16 length and that many bytes of packed changes (a count of 65535 records the commit
/// unlisted, its changes NULL). The harness opens a document on a SQLite copy of
/// `Samples/Expenses/Expenses.xml` (the Everything seed has a composite attribute, which a
/// SQLite store cannot hold), then makes each commit through a connection of its
/// own, recording it in the log under the counter it found: the log then holds every commit
/// since the document's place, and what the input decides is what they list.
///
/// The document then merges. It takes the listed objects in, or, when the log does not read or
/// names what the model does not have, compares row versions: the merge must not fail, and the
/// graph's invariants must hold after it. (A log that lists an object as deleted that the store
/// still has is believed: the log is a hint Folio's own commits write, and the harness checks
/// that believing it breaks nothing, not that it is true.)
package enum CommitLogFuzzing: FuzzTarget {
  nonisolated(unsafe) static var store = ScratchFile("log.sqlite")
  nonisolated(unsafe) static var seed = Data()

  package static func prepare() {
    let xml = FixedModels.root.appendingPathComponent("Samples/Expenses/Expenses.xml")
    let built = ScratchFile("log-seed.sqlite")
    try? FileManager.default.removeItem(at: built.url)
    do {
      let document = try Document.open(
        xml, model: FixedModels.all[0], formats: [XMLStore()], eventLoop: ManualEventLoop())
      try document.save(to: built.url, format: SQLiteStore())
      seed = try Data(contentsOf: built.url)
    } catch {
      preconditionFailure("the seed store does not convert to SQLite: \(error)")
    }
    try? FileManager.default.removeItem(at: built.url)
    run(Data())
  }

  /// The input's commits: each its count (`nil`: unlisted) and its packed changes.
  static func commits(in input: [UInt8]) -> [(count: Int?, changes: [UInt8])] {
    var commits: [(count: Int?, changes: [UInt8])] = []
    var offset = 0
    while offset + 4 <= input.count, commits.count < 8 {
      let count = Int(input[offset]) | Int(input[offset + 1]) << 8
      let length = Int(input[offset + 2]) | Int(input[offset + 3]) << 8
      let end = min(input.count, offset + 4 + length)
      commits.append((count == 0xFFFF ? nil : count, Array(input[offset + 4..<end])))
      offset = end
    }
    return commits
  }

  package static func run(_ input: Data) {
    for suffix in ["-journal", "-wal", "-shm"] {
      try? FileManager.default.removeItem(atPath: store.url.path + suffix)
    }
    store.write(seed)
    let document: Document
    let place: CommitLogPosition
    do {
      document = try Document.open(
        store.url, model: FixedModels.all[0], formats: [SQLiteStore()],
        eventLoop: ManualEventLoop())
      guard let position = try SQLiteStore().commitLogPosition(of: store.url) else {
        preconditionFailure("the seed store keeps no commit log")
      }
      place = position
    } catch {
      preconditionFailure("the seed store does not open: \(error)")
    }
    record(commits(in: [UInt8](input)), from: place.counter)
    do {
      _ = try document.mergeChangesFromOtherWriters()
    } catch {
      preconditionFailure("a merge from the commit log failed: \(error)")
    }
    PasteboardFuzzing.check(document.context, "after a merge from the commit log")
    if ProcessInfo.processInfo.environment["FOLIO_FUZZ_VERBOSE"] == "1" {
      let coordinator = document.coordinator
      print(
        "taken in: \(coordinator.takeInsFromLog) from the log, "
          + "\(coordinator.takeInsByVersions) by row versions, "
          + "\(coordinator.takeInsOfWholeStore) whole")
    }
  }

  /// Makes each of `commits` through a connection of the harness's own, each recorded in the
  /// log under the counter it finds: `counter` for the first, one more for each next.
  static func record(_ commits: [(count: Int?, changes: [UInt8])], from counter: Int64) {
    var database: OpaquePointer?
    guard sqlite3_open_v2(store.url.path, &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK
    else { preconditionFailure("cannot open the scratch store") }
    defer { sqlite3_close_v2(database) }
    for (index, commit) in commits.enumerated() {
      var statement: OpaquePointer?
      let sql =
        "INSERT INTO Z_FOLIOLOG (Z_COUNTER, Z_TOKEN, Z_COUNT, Z_CHANGES) VALUES (?, ?, ?, ?)"
      guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else {
        preconditionFailure("the seed store has no Z_FOLIOLOG")
      }
      sqlite3_bind_int64(statement, 1, counter + Int64(index))
      sqlite3_bind_int64(statement, 2, Int64(index) + 1)
      sqlite3_bind_int64(statement, 3, Int64(commit.count ?? 0))
      if commit.count == nil {
        sqlite3_bind_null(statement, 4)
      } else {
        _ = commit.changes.withUnsafeBytes { raw in
          sqlite3_bind_blob64(
            statement, 4, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
            sqlite3_uint64(raw.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
      }
      let done = sqlite3_step(statement)
      sqlite3_finalize(statement)
      precondition(done == SQLITE_DONE, "the harness's commit failed: \(done)")
    }
  }

  /// Commits as Folio's saves of the seed store record them: an object inserted, objects'
  /// relationships changed (both sides listed), an object deleted.
  package static func seeds() -> [(name: String, data: Data)] {
    prepare()
    var seeds: [(name: String, data: Data)] = []
    func saved(_ name: String, _ change: (ManagedObjectContext) throws -> Void) {
      store.write(seed)
      do {
        let document = try Document.open(
          store.url, model: FixedModels.all[0], formats: [SQLiteStore()],
          eventLoop: ManualEventLoop())
        guard let before = try SQLiteStore().commitLogPosition(of: store.url) else {
          preconditionFailure("the seed store keeps no commit log")
        }
        try change(document.context)
        try document.save()
        var database: OpaquePointer?
        sqlite3_open_v2(store.url.path, &database, SQLITE_OPEN_READONLY, nil)
        defer { sqlite3_close_v2(database) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(
          database, "SELECT Z_COUNT, Z_CHANGES FROM Z_FOLIOLOG WHERE Z_COUNTER = ?", -1,
          &statement, nil)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, before.counter)
        guard sqlite3_step(statement) == SQLITE_ROW else {
          preconditionFailure("the seed \(name) recorded no commit")
        }
        let count = Int(sqlite3_column_int64(statement, 0))
        let length = Int(sqlite3_column_bytes(statement, 1))
        var bytes = [
          UInt8(count & 0xFF), UInt8(count >> 8), UInt8(length & 0xFF), UInt8(length >> 8),
        ]
        if let blob = sqlite3_column_blob(statement, 1) {
          bytes += UnsafeRawBufferPointer(start: blob, count: length)
        }
        seeds.append((name: "\(name).commits", data: Data(bytes)))
      } catch {
        preconditionFailure("the seed \(name) does not save: \(error)")
      }
    }
    saved("insert") { context in
      let spending = try context.insertNewObject(forEntityName: "Spending")
      try spending.setValue("héllo", forKey: "content")
      try spending.setValue(7.5, forKey: "amount")
    }
    saved("relink") { context in
      let people = try context.objects(ofEntity: "Person")
      if let person = people.last {
        for spending in try context.objects(ofEntity: "Spending") {
          try spending.setValue(person, forKey: "person")
        }
      }
    }
    saved("delete") { context in
      if let spending = try context.objects(ofEntity: "Spending").first {
        try context.delete(spending)
      }
    }
    return seeds
  }
}
