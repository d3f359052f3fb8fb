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
  /// The log's table: a row a commit, its changes packed in one blob (``Change``), so that a
  /// small commit adds one row to one page.
  static let table =
    "CREATE TABLE Z_FOLIOLOG (Z_COUNTER INTEGER PRIMARY KEY, Z_TOKEN INTEGER NOT NULL, "
    + "Z_COUNT INTEGER NOT NULL, Z_CHANGES BLOB)"
  /// How many commits the log keeps at least (a trim at every 16th counter keeps this many),
  /// and how far behind a reader may be.
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

  /// The query that counts the log's table: 1 when the store has it.
  static let existence =
    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_FOLIOLOG'"

  /// Whether the store has the log's table.
  static func exists(in database: SQLiteDatabase) throws(StoreError) -> Bool {
    try database.integer(existence, at: "sqlite_master") == 1
  }

  /// Makes the log's table, inside the caller's transaction.
  static func create(in database: SQLiteDatabase) throws(StoreError) {
    try database.execute(table)
  }

  /// One change a commit lists: the object's hierarchy (its root entity's number), its key,
  /// and the change's type. Packed in 13 bytes, little-endian: the type (UInt8), the root
  /// (UInt32), the key (Int64).
  struct Change: Equatable {
    static let size = 13
    var root: Int64
    var key: Int64
    var type: Int64

    static func pack(_ changes: [Change]) -> [UInt8] {
      var bytes: [UInt8] = []
      bytes.reserveCapacity(changes.count * size)
      for change in changes {
        bytes.append(UInt8(truncatingIfNeeded: change.type))
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: change.root).littleEndian) {
          bytes.append(contentsOf: $0)
        }
        withUnsafeBytes(of: change.key.littleEndian) { bytes.append(contentsOf: $0) }
      }
      return bytes
    }

    /// The changes packed in `bytes`; `nil` when its length is not a whole number of them.
    static func unpack(_ bytes: Data) -> [Change]? {
      guard bytes.count % size == 0 else { return nil }
      let raw = [UInt8](bytes)
      func integer(_ at: Int, _ width: Int) -> UInt64 {
        (0..<width).reduce(UInt64(0)) { $0 | UInt64(raw[at + $1]) << (8 * $1) }
      }
      return stride(from: 0, to: raw.count, by: size).map { at in
        Change(
          root: Int64(integer(at + 1, 4)), key: Int64(bitPattern: integer(at + 5, 8)),
          type: Int64(raw[at]))
      }
    }
  }

  /// Records a commit with no changes, in a transaction of its own, on a new store whose build
  /// made the tables: the log's first commit, so that a reader that opens the store has a place
  /// in it to follow the next commits from.
  static func recordFirstCommit(in database: SQLiteDatabase) throws(StoreError) {
    let recorder = Recorder(database: database)
    try database.execute("BEGIN IMMEDIATE")
    if let commit = recorder.begin(), recorder.record(commit) == nil {
      throw StoreError(
        .writeFailed, "cannot start the commit log", at: InputLocation(file: database.path))
    }
    try database.execute("COMMIT")
  }

  /// Runs `body` in a write transaction of its own, recorded in the log (where the store keeps
  /// one) as a commit that changed no object: its persistent history's tables made, or its
  /// oldest transactions deleted. Another Folio writer then follows the log past it.
  static func recordingNoObjectChanged(
    in database: SQLiteDatabase, _ body: () throws(StoreError) -> Void
  ) throws(StoreError) {
    try database.transaction { () throws(StoreError) in
      let recorder = Recorder(database: database)
      let commit = recorder.begin()
      try body()
      if let commit { _ = recorder.record(commit) }
    }
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
      "SELECT 1 FROM Z_FOLIOLOG WHERE Z_COUNTER >= ? LIMIT 1", at: "Z_FOLIOLOG")
    ahead.bind(counter, at: 1)
    guard try !ahead.step(at: "Z_FOLIOLOG row"),
      let anchor = try anchor(below: counter, in: database)
    else { return nil }
    return CommitLogPosition(counter: counter, anchor: anchor)
  }

  /// The newest commit the log records below `counter`.
  private static func anchor(below counter: Int64, in database: SQLiteDatabase)
    throws(StoreError) -> CommitLogPosition.Anchor?
  {
    let statement = try database.prepare(
      "SELECT Z_COUNTER, Z_TOKEN FROM Z_FOLIOLOG WHERE Z_COUNTER < ? "
        + "ORDER BY Z_COUNTER DESC LIMIT 1", at: "Z_FOLIOLOG")
    statement.bind(counter, at: 1)
    guard try statement.step(at: "Z_FOLIOLOG row") else { return nil }
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
  /// the log does not hold every commit since, holds one unlisted (no blob of changes), or
  /// names what `schema` does not have; `otherHistory` when the store's counter went back, or its log lost or replaced
  /// the commit the place follows (a trim never drops it while the place is in the window).
  static func changes(
    since position: CommitLogPosition, in database: SQLiteDatabase, schema: SQLiteSchema
  ) throws(StoreError) -> Reading {
    guard try exists(in: database) else { return .otherHistory }
    guard let header = header(of: database), header.isRollbackJournal else { return .cannotTell }
    let (known, now) = (position.counter, header.counter)
    guard now >= known else { return .otherHistory }
    // A commit the place follows is trimmed only once the window holds 256 newer ones.
    guard now - known < window else { return .cannotTell }
    guard try anchor(below: known, in: database) == position.anchor else { return .otherHistory }
    guard now > known else { return .changes([:], position) }
    let commits = try database.prepare(
      "SELECT Z_COUNTER, Z_COUNT, Z_CHANGES FROM Z_FOLIOLOG "
        + "WHERE Z_COUNTER >= ? AND Z_COUNTER < ? ORDER BY Z_COUNTER", at: "Z_FOLIOLOG")
    commits.bind(known, at: 1)
    commits.bind(now, at: 2)
    var (expected, last): (Int64, [Int64: Int64]) = (known, [:])
    while try commits.step(at: "Z_FOLIOLOG row") {
      // Every commit since, in turn, each listed: its changes one blob, of the count it says.
      guard commits.int64(0) == expected, commits.type(1) == SQLITE_INTEGER,
        commits.type(2) == SQLITE_BLOB, let changes = Change.unpack(commits.blob(2) ?? Data()),
        Int64(changes.count) == commits.int64(1)
      else { return .cannotTell }
      for change in changes {
        guard change.root > 0, change.root <= Int64(Int32.max),
          schema.entity(number: Int(change.root))?.rootNumber == Int(change.root),
          change.key >= 1, change.key <= StoreKeySpace.maximumKey,
          (insert...delete).contains(change.type)
        else { return .cannotTell }
        last[StoreKeySpace.id(space: Int(change.root), key: change.key)] = change.type
      }
      expected += 1
    }
    guard expected == now else { return .cannotTell }
    return .changes(last, try Self.position(at: now, in: database))
  }

  /// A commit being recorded: the counter it found, and the objects it changed.
  struct Commit {
    /// The store's counter when the commit's transaction began: the commit moves it one on.
    let counter: Int64
    var changes: [Change] = []
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
        self.changes.append(Change(root: Int64(root), key: StoreKeySpace.key(of: id), type: delete))
      }
    }

    private mutating func list(_ record: StoreRecord, type: Int64, schema: SQLiteSchema) {
      guard let entity = schema.entity(record.entityName) else { return isListed = false }
      changes.append(
        Change(root: Int64(entity.rootNumber), key: StoreKeySpace.key(of: record.id), type: type))
    }
  }
}
