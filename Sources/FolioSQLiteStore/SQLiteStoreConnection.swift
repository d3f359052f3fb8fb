import CSQLite
import FolioModel
import FolioStores
import Foundation

/// A connection a coordinator keeps open on a SQLite store while it has the store open.
///
/// It tells whether another connection committed a change since the coordinator last looked
/// (`PRAGMA data_version`, which this connection's own commits leave as it is), and every save
/// goes through it: `BEGIN IMMEDIATE` takes SQLite's write lock before the coordinator looks
/// for other writers' changes, so none can come between that look and the save's `COMMIT`.
/// A store another connection keeps locked is waited for up to ``busyTimeout``, then reported
/// as `StoreError.busy`. In a store that keeps Folio's commit log, each commit records what it
/// changed there (``SQLiteCommitLog``).
final class SQLiteStoreConnection: CommitLoggingConnection {
  let database: SQLiteDatabase
  private var isWriting = false
  /// The commit the write begun makes, for the commit log; `nil` when the store keeps none.
  private var commit: SQLiteCommitLog.Commit?
  private lazy var recorder = SQLiteCommitLog.Recorder(database: database)
  private(set) var commitLogPosition: CommitLogPosition?
  /// What a missing external-data file reads as, when a batch reads records.
  var missingExternalData = SQLiteStore.MissingExternalData.fail

  /// How long a save waits for another writer's transaction: 10 seconds.
  static let busyTimeout: Int32 = 10_000

  init(url: URL) throws(StoreError) {
    database = try SQLiteStore.open(url, readOnly: false)
    sqlite3_busy_timeout(database.handle, Self.busyTimeout)
  }

  private var dataVersion: SQLiteStatement?

  func changeCounter() throws(StoreError) -> Int64 {
    // Asked at every save and every look of a watch: prepared once.
    if dataVersion == nil {
      dataVersion = try database.prepare("PRAGMA data_version", at: "PRAGMA data_version")
    }
    guard let statement = dataVersion else { return 0 }
    defer { statement.reset() }
    return try statement.step(at: "PRAGMA data_version") ? statement.int64(0) : 0
  }

  func beginWriting() throws(StoreError) {
    do {
      try database.execute("BEGIN IMMEDIATE")
    } catch  where error.code == .busy {
      throw StoreError(
        .busy,
        "another program has been writing the store for \(Self.busyTimeout / 1000) s and holds its lock; try again when it is done",
        at: InputLocation(file: database.path), underlying: error)
    }
    isWriting = true
    commit = recorder.begin()
  }

  func save(_ changes: StoreChanges, metadata: StoreMetadata, model: ManagedObjectModel)
    throws(StoreError) -> IncrementalSaveResult
  {
    // Within a savepoint, so a save that finds rows moved, or fails, leaves the write lock
    // held and nothing written.
    try database.execute("SAVEPOINT folio_save")
    let stale: [Int64]
    // What the commit lists, as it was: a save rolled back lists nothing.
    let listed = commit
    do {
      stale = try SQLiteStore.apply(
        changes, metadata: metadata, model: model, to: database, listingIn: &commit)
    } catch {
      commit = listed
      try? database.execute("ROLLBACK TO folio_save")
      try? database.execute("RELEASE folio_save")
      throw error
    }
    if !stale.isEmpty { try database.execute("ROLLBACK TO folio_save") }
    try database.execute("RELEASE folio_save")
    return stale.isEmpty ? .written : .stale(stale)
  }

  func reserveKeys(_ keys: [(entityName: String, key: Int64)], model: ManagedObjectModel)
    throws(StoreError)
  {
    let largest = try SQLiteSchema(model: model).largestKeys(keys, place: database.path)
    let statement = try database.prepare(
      "UPDATE Z_PRIMARYKEY SET Z_MAX = ?1 WHERE Z_ENT = ?2 AND (Z_MAX IS NULL OR Z_MAX < ?1)")
    for (root, key) in largest {
      statement.reset()
      statement.bind(key, at: 1)
      statement.bind(Int64(root), at: 2)
      try statement.run(at: "Z_PRIMARYKEY")
    }
  }

  func commitWriting() throws(StoreError) {
    // A log that cannot be written leaves the commit unrecorded: readers then compare row
    // versions, as they do after another program's commit.
    let position = commit.flatMap { recorder.record($0) }
    try database.execute("COMMIT")
    (isWriting, commit, commitLogPosition) = (false, nil, position)
  }

  func rollBackWriting() {
    guard isWriting else { return }
    try? database.execute("ROLLBACK")
    (isWriting, commit) = (false, nil)
  }

  /// Lists what a batch request changed in the commit begun.
  func listBatchChanges(_ changes: StoreChangesSince?, schema: SQLiteSchema) {
    commit?.list(changes, schema: schema)
  }

  deinit { rollBackWriting() }
}
