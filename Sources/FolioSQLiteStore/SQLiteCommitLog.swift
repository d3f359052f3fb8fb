import CFolioSQLite
import CSQLite
import FolioModel
import FolioStores
import Foundation

/// Folio's commit log: with each commit Folio makes to a SQLite store it made, the objects the
/// commit inserted, changed and deleted, so that another Folio process reads those objects only
/// rather than every row's version (`Formats/sqlite-store.md` §12c).
///
/// A store in a rollback journal moves its file change counter (header offset 24) one on at
/// every commit, whoever makes it. Each logged commit is recorded under the counter it found, in
/// the commit's own transaction: a reader that knows the store at counter K and finds it at S
/// reads the commits K … S−1 from the log, and when any of them is missing (another program
/// committed, or the log was trimmed) it compares row versions as before. The log is a hint:
/// losing it costs the slower read, never a change.
enum SQLiteCommitLog {
  /// The tables of the log.
  static let tables = [
    "CREATE TABLE Z_FOLIOCOMMIT (Z_COUNTER INTEGER PRIMARY KEY, Z_TOKEN INTEGER NOT NULL, "
      + "Z_LISTED INTEGER NOT NULL, Z_COUNT INTEGER NOT NULL)",
    "CREATE TABLE Z_FOLIOCHANGE (Z_COUNTER INTEGER NOT NULL, Z_ROOT INTEGER NOT NULL, "
      + "Z_PK INTEGER NOT NULL, Z_TYPE INTEGER NOT NULL)",
    "CREATE INDEX Z_FOLIOCHANGE_COUNTER ON Z_FOLIOCHANGE (Z_COUNTER)",
  ]
  /// How many commits the log keeps at most.
  static let window: Int64 = 256
  /// How many changes the log keeps at least before it drops its oldest commits; an eighth of
  /// the store's objects when that is more. A commit that changed more is recorded unlisted.
  static let minimumChanges = 65_536
  /// The types of a change, as persistent history numbers them.
  static let (insert, update, delete): (Int64, Int64, Int64) = (0, 1, 2)

  /// The file change counter of `database`'s main file, and whether the file is in a rollback
  /// journal (not a write-ahead log, where the counter does not move at every commit). Read
  /// through the connection's file while it holds a lock: the caller's transaction has read.
  /// A file with no header yet reads as counter 0 in a rollback journal.
  static func header(of database: SQLiteDatabase) -> (counter: Int64, isRollbackJournal: Bool)? {
    var bytes = [UInt8](repeating: 0, count: 28)
    let code = folio_sqlite_read_header(database.handle, &bytes, Int32(bytes.count))
    // SQLITE_IOERR_SHORT_READ, a macro Swift does not import, for a file shorter than asked.
    guard code == SQLITE_OK || code == SQLITE_IOERR | (2 << 8) else { return nil }
    let counter = bytes[24..<28].reduce(Int64(0)) { $0 << 8 | Int64($1) }
    return (counter, bytes[18] != 2 && bytes[19] != 2)
  }

  /// Whether the store has the log's tables.
  static func exists(in database: SQLiteDatabase) throws(StoreError) -> Bool {
    let count = try database.integer(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
        + "AND name IN ('Z_FOLIOCOMMIT', 'Z_FOLIOCHANGE')", at: "sqlite_master")
    return count == 2
  }

  /// Makes the log's tables, inside the caller's transaction.
  static func create(in database: SQLiteDatabase) throws(StoreError) {
    for sql in tables { try database.execute(sql) }
  }

  /// Records a commit with no changes, in a transaction of its own, on a new store whose build
  /// made the tables: the log's first commit, so that a reader that opens the store has a place
  /// in it to follow the next commits from.
  static func recordFirstCommit(in database: SQLiteDatabase) throws(StoreError) {
    try database.execute("BEGIN IMMEDIATE")
    if let commit = begin(in: database) { _ = try record(commit, in: database) }
    try database.execute("COMMIT")
  }

  /// The store's place in its log, inside the caller's read transaction; `nil` when it keeps
  /// none, keeps it in a write-ahead log, or has no place to follow from yet.
  static func position(in database: SQLiteDatabase) throws(StoreError) -> CommitLogPosition? {
    guard try exists(in: database), let header = header(of: database), header.isRollbackJournal
    else { return nil }
    return try position(at: header.counter, in: database)
  }

  /// The place at `counter`: anchored at the newest commit below it. `nil` when the log records
  /// no commit below it, or records one at or past it: a whole store copied into an existing
  /// file (the online backup) brings the log of the file it was built in, whose counters are
  /// not this file's, until a commit of Folio's records its own (dropping every entry at or past
  /// its counter). Entries below the counter name no commit of this file's, but their random
  /// tokens still tell this file's history from any other's.
  private static func position(at counter: Int64, in database: SQLiteDatabase)
    throws(StoreError) -> CommitLogPosition?
  {
    let ahead = try database.prepare(
      "SELECT 1 FROM Z_FOLIOCOMMIT WHERE Z_COUNTER >= ? LIMIT 1", at: "Z_FOLIOCOMMIT")
    ahead.bind(counter, at: 1)
    guard try !ahead.step(at: "Z_FOLIOCOMMIT row"),
      let anchor = try anchor(below: counter, in: database)
    else { return nil }
    return CommitLogPosition(counter: counter, anchor: anchor)
  }

  /// The newest commit the log records below `counter`.
  private static func anchor(below counter: Int64, in database: SQLiteDatabase)
    throws(StoreError) -> CommitLogPosition.Anchor?
  {
    let statement = try database.prepare(
      "SELECT Z_COUNTER, Z_TOKEN FROM Z_FOLIOCOMMIT WHERE Z_COUNTER < ? "
        + "ORDER BY Z_COUNTER DESC LIMIT 1", at: "Z_FOLIOCOMMIT")
    statement.bind(counter, at: 1)
    guard try statement.step(at: "Z_FOLIOCOMMIT row") else { return nil }
    return CommitLogPosition.Anchor(counter: statement.int64(0), token: statement.int64(1))
  }

  /// What the commits from `position` on changed, read inside the caller's read transaction.
  enum Reading {
    /// By object ID, the type of each object's last change; and the place after the commits,
    /// when the log has one there.
    case changes([Int64: Int64], CommitLogPosition?)
    case cannotTell
    case otherHistory
  }

  /// What the commits from `position` on changed, by object ID (``Reading``): `cannotTell` when
  /// the log does not hold every commit since, holds one unlisted, or names what `schema` does
  /// not have; `otherHistory` when the store's counter went back, or its log lost or replaced
  /// the commit the place follows (a trim never drops it while the place is in the window).
  static func changes(
    since position: CommitLogPosition, in database: SQLiteDatabase, schema: SQLiteSchema
  ) throws(StoreError) -> Reading {
    guard try exists(in: database) else { return .otherHistory }
    guard let header = header(of: database), header.isRollbackJournal else { return .cannotTell }
    let (known, now) = (position.counter, header.counter)
    guard now >= known else { return .otherHistory }
    guard now - known <= window else { return .cannotTell }
    guard try anchor(below: known, in: database) == position.anchor else { return .otherHistory }
    guard now > known else { return .changes([:], position) }
    let commits = try database.prepare(
      "SELECT count(*), min(Z_LISTED) FROM Z_FOLIOCOMMIT WHERE Z_COUNTER >= ? AND Z_COUNTER < ?",
      at: "Z_FOLIOCOMMIT")
    commits.bind(known, at: 1)
    commits.bind(now, at: 2)
    guard try commits.step(at: "Z_FOLIOCOMMIT"), commits.int64(0) == now - known,
      commits.int64(1) == 1
    else { return .cannotTell }
    let rows = try database.prepare(
      "SELECT Z_ROOT, Z_PK, Z_TYPE FROM Z_FOLIOCHANGE WHERE Z_COUNTER >= ? AND Z_COUNTER < ? "
        + "ORDER BY Z_COUNTER", at: "Z_FOLIOCHANGE")
    rows.bind(known, at: 1)
    rows.bind(now, at: 2)
    var last: [Int64: Int64] = [:]
    while try rows.step(at: "Z_FOLIOCHANGE row") {
      let (root, key, type) = (rows.int64(0), rows.int64(1), rows.int64(2))
      guard (0..<3).allSatisfy({ rows.type($0) == SQLITE_INTEGER }), root > 0,
        root <= Int64(Int32.max),
        schema.entity(number: Int(root))?.rootNumber == Int(root),
        key >= 1, key <= StoreKeySpace.maximumKey, (insert...delete).contains(type)
      else { return .cannotTell }
      last[StoreKeySpace.id(space: Int(root), key: key)] = type
    }
    return .changes(last, try Self.position(at: now, in: database))
  }

  /// A commit being recorded: the counter it found, and the objects it changed.
  struct Commit {
    /// The store's counter when the commit's transaction began: the commit moves it one on.
    let counter: Int64
    var changes: [(root: Int64, key: Int64, type: Int64)] = []
    /// Whether every object the commit changed is listed.
    var isListed = true

    /// Lists the objects `changes` inserted, changed and deleted.
    mutating func list(_ changes: StoreChanges, schema: SQLiteSchema) {
      for record in changes.inserted { list(record, type: insert, schema: schema) }
      for (_, record) in changes.updated { list(record, type: update, schema: schema) }
      for record in changes.deleted { list(record, type: delete, schema: schema) }
    }

    /// Lists the objects a batch request changed, as it collected them; a batch that did not
    /// collect them leaves the commit unlisted.
    mutating func list(_ changes: StoreChangesSince?, schema: SQLiteSchema) {
      guard let changes else { return isListed = false }
      for record in changes.records { list(record, type: update, schema: schema) }
      for id in changes.deleted {
        let root = StoreKeySpace.space(of: id)
        guard root > 0, schema.entity(number: root)?.rootNumber == root else {
          return isListed = false
        }
        self.changes.append((Int64(root), StoreKeySpace.key(of: id), delete))
      }
    }

    private mutating func list(_ record: StoreRecord, type: Int64, schema: SQLiteSchema) {
      guard let entity = schema.entity(record.entityName) else { return isListed = false }
      changes.append((Int64(entity.rootNumber), StoreKeySpace.key(of: record.id), type))
    }
  }

  /// The commit the write transaction just begun on `database` makes, when the store keeps a
  /// log it can follow; read before the transaction writes anything.
  static func begin(in database: SQLiteDatabase) -> Commit? {
    guard (try? exists(in: database)) == true, let header = header(of: database),
      header.isRollbackJournal
    else { return nil }
    return Commit(counter: header.counter)
  }

  /// Records `commit` inside its transaction, just before `COMMIT`, and drops the commits the
  /// log no longer keeps. Returns the store's place after the commit.
  static func record(_ commit: Commit, in database: SQLiteDatabase) throws(StoreError)
    -> CommitLogPosition
  {
    // Entries at or past the counter are of a file before this one (a counter that wrapped, a
    // store copied in): no way through them leads here.
    for table in ["Z_FOLIOCOMMIT", "Z_FOLIOCHANGE"] {
      let stale = try database.prepare("DELETE FROM \(table) WHERE Z_COUNTER >= ?", at: table)
      stale.bind(commit.counter, at: 1)
      try stale.run(at: table)
    }
    let objects =
      try database.integer(
        "SELECT sum(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT < 16000", at: "Z_PRIMARYKEY") ?? 0
    let limit = max(minimumChanges, Int(clamping: objects / 8))
    let listed = commit.isListed && commit.changes.count <= limit
    let token = Int64.random(in: .min ... .max)
    let insertCommit = try database.prepare(
      "INSERT INTO Z_FOLIOCOMMIT (Z_COUNTER, Z_TOKEN, Z_LISTED, Z_COUNT) VALUES (?, ?, ?, ?)",
      at: "Z_FOLIOCOMMIT")
    for (index, value) in [
      commit.counter, token, listed ? 1 : 0, listed ? Int64(commit.changes.count) : 0,
    ]
    .enumerated() {
      insertCommit.bind(Int64(value), at: index + 1)
    }
    try insertCommit.run(at: "Z_FOLIOCOMMIT")
    if listed {
      let insertChange = try database.prepare(
        "INSERT INTO Z_FOLIOCHANGE (Z_COUNTER, Z_ROOT, Z_PK, Z_TYPE) VALUES (?, ?, ?, ?)",
        at: "Z_FOLIOCHANGE")
      for change in commit.changes {
        insertChange.reset()
        insertChange.bind(commit.counter, at: 1)
        insertChange.bind(change.root, at: 2)
        insertChange.bind(change.key, at: 3)
        insertChange.bind(change.type, at: 4)
        try insertChange.run(at: "Z_FOLIOCHANGE")
      }
    }
    try trim(limit: limit, in: database)
    return CommitLogPosition(
      counter: (commit.counter + 1) & 0xFFFF_FFFF,
      anchor: CommitLogPosition.Anchor(counter: commit.counter, token: token))
  }

  /// Drops the oldest commits past the window, or past `limit` changes in all.
  private static func trim(limit: Int, in database: SQLiteDatabase) throws(StoreError) {
    let newest = try database.prepare(
      "SELECT Z_COUNTER, Z_COUNT FROM Z_FOLIOCOMMIT ORDER BY Z_COUNTER DESC", at: "Z_FOLIOCOMMIT")
    var (kept, changes) = (Int64(0), 0)
    var cut: Int64?
    while try newest.step(at: "Z_FOLIOCOMMIT row") {
      kept += 1
      changes += Int(clamping: max(newest.int64(1), 0))
      if kept > window || changes > limit {
        cut = newest.int64(0)
        break
      }
    }
    newest.reset()
    guard let cut else { return }
    for table in ["Z_FOLIOCOMMIT", "Z_FOLIOCHANGE"] {
      let old = try database.prepare("DELETE FROM \(table) WHERE Z_COUNTER <= ?", at: table)
      old.bind(cut, at: 1)
      try old.run(at: table)
    }
  }
}
