import CSQLite
import FolioStores
import Foundation

extension SQLiteCommitLog {
  /// Records the commits a connection makes in the store's log. It keeps its statements
  /// prepared for as long as the connection lives: a save of one object pays for a few steps,
  /// not for compiling SQL.
  final class Recorder {
    private let database: SQLiteDatabase
    private var statements: [String: SQLiteStatement] = [:]
    /// Whether the store was last seen to have the log's table: Folio makes it with the store
    /// and never drops it, so it is looked for again only after a commit failed to record.
    private var hasTable = false

    init(database: SQLiteDatabase) { self.database = database }

    /// The statement of `sql`, prepared once, reset and cleared of its bindings.
    private func statement(_ sql: String, at place: String) throws(StoreError) -> SQLiteStatement {
      if let statement = statements[sql] {
        statement.reset()
        return statement
      }
      let statement = try database.prepare(sql, at: place)
      statements[sql] = statement
      return statement
    }

    /// The commit the write transaction just begun makes, when the store keeps a log it can
    /// follow; read before the transaction writes anything.
    func begin() -> Commit? {
      if !hasTable {
        guard let table = try? statement(existence, at: "sqlite_master") else { return nil }
        // Reset at once: a statement left on a row keeps SQLite's shared lock past `COMMIT`.
        hasTable = (try? table.step(at: "sqlite_master")) == true && table.int64(0) == 1
        table.reset()
      }
      guard hasTable, let header = header(of: database), header.isRollbackJournal else {
        return nil
      }
      return Commit(counter: header.counter)
    }

    /// The most changes the log keeps, and a commit may list: an eighth of the store's objects
    /// (the sum of `Z_PRIMARYKEY`'s `Z_MAX`es), at least ``minimumChanges``.
    private func limit() throws(StoreError) -> Int {
      let objects = try statement(
        "SELECT sum(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT < 16000", at: "Z_PRIMARYKEY")
      defer { objects.reset() }
      guard try objects.step(at: "Z_PRIMARYKEY") else { return minimumChanges }
      return max(minimumChanges, Int(clamping: objects.int64(0) / 8))
    }

    /// Records `commit` inside its transaction, just before `COMMIT`, and, at every 16th
    /// counter or after a commit of more than 1,024 changes, drops the commits the log no
    /// longer keeps. Returns the store's place after the commit; `nil` when it was not
    /// recorded. Each statement is atomic, and the log is whole after any of them, so one that
    /// fails leaves the commit unrecorded (or recorded and not trimmed), never half recorded.
    func record(_ commit: Commit) -> CommitLogPosition? {
      do {
        return try write(commit)
      } catch {
        hasTable = false
        return nil
      }
    }

    private func write(_ commit: Commit) throws(StoreError) -> CommitLogPosition {
      // Entries at or past the counter are of a file before this one (a counter that wrapped,
      // a store copied in): no way through them leads here.
      let stale = try statement("DELETE FROM Z_FOLIOLOG WHERE Z_COUNTER >= ?", at: "Z_FOLIOLOG")
      stale.bind(commit.counter, at: 1)
      try stale.run(at: "Z_FOLIOLOG")
      let count = commit.changes.count
      var listed = commit.isListed
      if listed, count > minimumChanges { listed = count <= (try limit()) }
      let token = Int64.random(in: .min ... .max)
      let insert = try statement(
        "INSERT INTO Z_FOLIOLOG (Z_COUNTER, Z_TOKEN, Z_COUNT, Z_CHANGES) VALUES (?, ?, ?, ?)",
        at: "Z_FOLIOLOG")
      insert.bind(commit.counter, at: 1)
      insert.bind(token, at: 2)
      insert.bind(Int64(listed ? count : 0), at: 3)
      if listed {
        insert.bind(Data(Change.pack(commit.changes)), at: 4)
      } else {
        insert.bindNull(at: 4)
      }
      try insert.run(at: "Z_FOLIOLOG")
      if commit.counter % 16 == 0 || (listed && count > 1_024) { try trim() }
      return CommitLogPosition(
        counter: (commit.counter + 1) & 0xFFFF_FFFF,
        anchor: CommitLogPosition.Anchor(counter: commit.counter, token: token))
    }

    /// Drops the oldest commits past the window, or past the limit of changes in all.
    private func trim() throws(StoreError) {
      let newest = try statement(
        "SELECT Z_COUNTER, Z_COUNT FROM Z_FOLIOLOG ORDER BY Z_COUNTER DESC", at: "Z_FOLIOLOG")
      defer { newest.reset() }
      var (kept, changes) = (Int64(0), 0)
      var cut: Int64?
      var limit: Int?
      while try newest.step(at: "Z_FOLIOLOG row") {
        kept += 1
        changes += Int(clamping: max(newest.int64(1), 0))
        if changes > minimumChanges, limit == nil { limit = try self.limit() }
        if kept > window || changes > (limit ?? minimumChanges) {
          cut = newest.int64(0)
          break
        }
      }
      newest.reset()
      guard let cut else { return }
      let old = try statement("DELETE FROM Z_FOLIOLOG WHERE Z_COUNTER <= ?", at: "Z_FOLIOLOG")
      old.bind(cut, at: 1)
      try old.run(at: "Z_FOLIOLOG")
    }
  }
}
