import CSQLite
import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

extension SQLiteStore: IncrementalStoreFormat, HistoryTrackingStoreFormat {
  /// Writes what a save changed into the store at `url` in one SQLite transaction: inserted
  /// rows, the changed columns of updated rows (`Z_OPT` incremented), deleted rows, their
  /// join-table rows and order columns, and `Z_MAX` advanced past new keys. SQLite's journal
  /// makes it all or nothing; tables the model does not know (history tracking) are kept.
  ///
  /// The metadata is written only when the app's own keys changed; the entity version hashes
  /// stay the file's.
  public func save(
    _ changes: StoreChanges, metadata: StoreMetadata, model: ManagedObjectModel, to url: URL
  ) throws(StoreError) {
    let database = try Self.open(url, readOnly: false)
    try database.transaction { () throws(StoreError) in
      var unlogged: SQLiteCommitLog.Commit?
      let stale = try Self.apply(
        changes, metadata: metadata, model: model, to: database, listingIn: &unlogged)
      if !stale.isEmpty { throw SQLiteRowVersion.staleError(stale, changes: changes, in: database) }
    }
  }

  /// Writes `changes` through `database`, inside the caller's transaction. Returns the IDs of
  /// the objects another writer changed since they were read (``IncrementalSaveResult``);
  /// when there are any, the caller rolls back what was written.
  static func apply(
    _ changes: StoreChanges, metadata: StoreMetadata, model: ManagedObjectModel,
    to database: SQLiteDatabase, listingIn commit: inout SQLiteCommitLog.Commit?
  ) throws(StoreError) -> [Int64] {
    let binding = try SQLiteBinding(schema: SQLiteSchema(model: model), database: database)
    var writer = RowChangeWriter(
      target: SQLiteChangeTarget(database: database, binding: binding), schema: binding.schema,
      changes: changes)
    try writer.apply()
    guard writer.staleIDs.isEmpty else { return writer.staleIDs }
    commit?.list(changes, schema: binding.schema)
    if try SQLiteHistory.isTracked(database) {
      try SQLiteHistory.record(
        changes,
        origin: SQLiteHistory.Origin(author: changes.author, contextName: changes.contextName),
        schema: binding.schema, model: model, in: database)
    }
    let old = try SQLiteMetadata.read(from: database)
    if SQLiteMetadata.appKeys(of: old) != SQLiteMetadata.appKeys(of: metadata) {
      var new = old
      new.userInfo = metadata.userInfo
      for key in SQLiteMetadata.hashDerivedKeys { new.userInfo[key] = old.userInfo[key] }
      try SQLiteMetadata.write(new, to: database)
    }
    return []
  }

  /// Turns persistent history on for the store at `url`, whose objects fit `model`: makes
  /// Core Data's history tables when the store has none, so that every save from then on is
  /// recorded (as Core Data's `NSPersistentHistoryTrackingKey` does when a store is opened with
  /// it), with a tombstone column for each attribute `model` keeps after deletion.
  ///
  /// - Throws: `StoreError` when the store cannot be written.
  public func enableHistoryTracking(at url: URL, model: ManagedObjectModel) throws(StoreError) {
    let database = try Self.open(url, readOnly: false)
    guard try !SQLiteHistory.isTracked(database) else { return }
    try SQLiteCommitLog.recordingNoObjectChanged(in: database) { () throws(StoreError) in
      try SQLiteHistory.createTables(in: database, model: model)
    }
  }

  /// Whether the store at `url` keeps persistent history.
  public func tracksHistory(at url: URL) throws(StoreError) -> Bool {
    try SQLiteHistory.isTracked(Self.open(url))
  }

  /// The transactions the store at `url` recorded after `token` (every one without a token),
  /// oldest first, each with the objects it changed (`NSPersistentHistoryChangeRequest
  /// .fetchHistory(after:)`); none when the store keeps no history.
  ///
  /// - Throws: `StoreError` when the store cannot be read; `historyTokenExpired` when the
  ///   transactions just after `token` were deleted, as Core Data's
  ///   `NSPersistentHistoryTokenExpiredError`.
  public func fetchHistory(
    after token: PersistentHistoryToken?, from url: URL, model: ManagedObjectModel
  ) throws(StoreError) -> [PersistentHistoryTransaction] {
    let database = try Self.beginReading(url)
    defer { try? database.execute("COMMIT") }
    if let token, try SQLiteHistory.isTracked(database) {
      try SQLiteHistory.checkNotExpired(after: token.transactionNumber, in: database, at: url)
    }
    return try SQLiteHistory.transactions(
      after: token, schema: SQLiteSchema(model: model), model: model, in: database)
  }

  /// How many transactions the store at `url` holds and their range; `nil` when it keeps no
  /// history.
  ///
  /// - Throws: `StoreError` when the store cannot be read.
  public func historySummary(at url: URL) throws(StoreError) -> PersistentHistorySummary? {
    let database = try Self.beginReading(url)
    defer { try? database.execute("COMMIT") }
    guard try SQLiteHistory.isTracked(database) else { return nil }
    let range = try database.prepare(
      "SELECT count(*), min(Z_PK), max(Z_PK) FROM ATRANSACTION", at: "ATRANSACTION")
    guard try range.step(), !range.isNull(1) else {
      return PersistentHistorySummary(transactionCount: 0)
    }
    return PersistentHistorySummary(
      transactionCount: Int(range.int64(0)),
      first: PersistentHistoryToken(transactionNumber: range.int64(1)),
      last: PersistentHistoryToken(transactionNumber: range.int64(2)))
  }

  /// Deletes the history the store at `url` recorded up to and including the transaction at
  /// `token`, as Core Data's `deleteHistory(before:)` does; the objects are not touched.
  ///
  /// - Throws: `StoreError` when the store cannot be written.
  public func deleteHistory(before token: PersistentHistoryToken, at url: URL) throws(StoreError) {
    let database = try Self.open(url, readOnly: false)
    try SQLiteCommitLog.recordingNoObjectChanged(in: database) { () throws(StoreError) in
      try SQLiteHistory.deleteTransactions(through: token, in: database)
    }
  }

  /// A connection kept open on the store at `url` (``SQLiteStoreConnection``); `nil` when the
  /// file cannot be opened for writing (a read-only store is still read, and a save of it
  /// fails as the write would).
  public func connect(to url: URL) throws(StoreError) -> (any IncrementalStoreConnection)? {
    guard FileManager.default.isWritableFile(atPath: url.path),
      (try? WriteAccess.check(url.path, reportedAs: url.path)) == .file
    else { return nil }
    let connection = try SQLiteStoreConnection(url: url)
    connection.missingExternalData = missingExternalData
    return connection
  }
}

/// A SQLite store's statements for ``RowChangeWriter``, through the store's names for its
/// tables and columns (``SQLiteBinding``), each statement prepared once per save.
struct SQLiteChangeTarget: RowChangeTarget {
  let database: SQLiteDatabase
  let binding: SQLiteBinding
  private var statements: [String: SQLiteStatement] = [:]
  private let q = Quoting.sqlIdentifier

  init(database: SQLiteDatabase, binding: SQLiteBinding) {
    self.database = database
    self.binding = binding
  }

  var place: String { database.path }
  var noun: String { "store" }
  var joinTables: [SQLiteSchema.JoinTable] { binding.joinTables }
  func table(_ name: String) -> String { binding.table(name) }
  func column(_ name: String, of table: String) -> String { binding.column(name, of: table) }
  func orderColumn(of owner: String, relationship: String, named column: String) -> String {
    binding.orderColumns[owner + "." + relationship] ?? column
  }

  /// A save through SQLite holds the store's write lock from its first read of `Z_MAX`.
  func wasGivenMeanwhile(_ key: Int64) -> Bool { false }

  private mutating func prepared(_ sql: String) throws(StoreError) -> SQLiteStatement {
    if let known = statements[sql] {
      known.reset()
      return known
    }
    let statement = try database.prepare(sql)
    statements[sql] = statement
    return statement
  }

  private static func bind(_ columns: [RowColumn], to statement: SQLiteStatement, from first: Int) {
    for (offset, column) in columns.enumerated() {
      switch column.value {
      case .attribute(let value, let attribute, _):
        SQLiteValues.bind(value, at: first + offset, to: statement, attribute: attribute)
      case .integer(let value?): statement.bind(value, at: first + offset)
      case .integer(nil): statement.bindNull(at: first + offset)
      }
    }
  }

  mutating func largestKey(root: Int) throws(StoreError) -> Int64 {
    let statement = try prepared("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
    statement.bind(Int64(root), at: 1)
    return try statement.step() && !statement.isNull(0) ? statement.int64(0) : 0
  }

  mutating func advanceLargestKey(root: Int, to key: Int64) throws(StoreError) {
    try run(
      "UPDATE Z_PRIMARYKEY SET Z_MAX = ?1 WHERE Z_ENT = ?2 AND (Z_MAX IS NULL OR Z_MAX < ?1)",
      [key, Int64(root)], at: "Z_PRIMARYKEY")
  }

  mutating func rowExists(table: String, key: Int64) throws(StoreError) -> Bool {
    let exists = try prepared("SELECT 1 FROM \(q(table)) WHERE Z_PK = ?")
    exists.bind(key, at: 1)
    return try exists.step()
  }

  mutating func insertRow(table: String, key: Int64, entity: Int, columns: [RowColumn])
    throws(StoreError)
  {
    let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columns.map(\.column)
    let statement = try prepared(
      "INSERT INTO \(q(table)) (" + names.map(q).joined(separator: ", ") + ") VALUES ("
        + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")")
    statement.bind(key, at: 1)
    statement.bind(Int64(entity), at: 2)
    statement.bind(Int64(1), at: 3)
    Self.bind(columns, to: statement, from: 4)
    try statement.run(at: "\(table) row Z_PK \(key)")
  }

  mutating func updateRow(table: String, key: Int64, version: UInt32, columns: [RowColumn])
    throws(StoreError) -> Bool
  {
    let sets = columns.map { "\(q($0.column)) = ?" } + ["Z_OPT = \(SQLiteRowVersion.sql) + 1"]
    let statement = try prepared(
      "UPDATE \(q(table)) SET " + sets.joined(separator: ", ")
        + " WHERE Z_PK = ? AND \(SQLiteRowVersion.sql) = ?")
    Self.bind(columns, to: statement, from: 1)
    statement.bind(key, at: columns.count + 1)
    statement.bind(Int64(version), at: columns.count + 2)
    try statement.run(at: "\(table) row Z_PK \(key)")
    return sqlite3_changes(database.handle) == 1
  }

  mutating func deleteRow(table: String, key: Int64, version: UInt32) throws(StoreError) -> Bool {
    let statement = try prepared(
      "DELETE FROM \(q(table)) WHERE Z_PK = ? AND \(SQLiteRowVersion.sql) = ?")
    statement.bind(key, at: 1)
    statement.bind(Int64(version), at: 2)
    try statement.run(at: "\(table) row Z_PK \(key)")
    return sqlite3_changes(database.handle) != 0
  }

  mutating func deleteJoinRows(join: String, column: String, owner: Int64) throws(StoreError) {
    try run("DELETE FROM \(q(join)) WHERE \(q(column)) = ?", [owner], at: join)
  }

  mutating func addJoinRow(join: String, owner: (String, Int64), member: (String, Int64))
    throws(StoreError)
  {
    try run(
      "INSERT OR IGNORE INTO \(q(join)) (\(q(owner.0)), \(q(member.0))) VALUES (?, ?)",
      [owner.1, member.1], at: join)
  }

  mutating func removeJoinRow(join: String, owner: (String, Int64), member: (String, Int64))
    throws(StoreError)
  {
    try run(
      "DELETE FROM \(q(join)) WHERE \(q(owner.0)) = ? AND \(q(member.0)) = ?",
      [owner.1, member.1], at: join)
  }

  mutating func setOrder(table: String, column: String, key: Int64, to position: Int64)
    throws(StoreError)
  {
    try run(
      "UPDATE \(q(table)) SET \(q(column)) = ? WHERE Z_PK = ?", [position, key], at: table)
  }

  mutating func setJoinOrder(
    join: String, column: String, owner: (String, Int64), member: (String, Int64),
    to position: Int64
  ) throws(StoreError) {
    try run(
      "UPDATE \(q(join)) SET \(q(column)) = ? WHERE \(q(owner.0)) = ? AND \(q(member.0)) = ?",
      [position, owner.1, member.1], at: join)
  }

  /// Runs `sql` with `values` bound to its parameters in order.
  private mutating func run(_ sql: String, _ values: [Int64], at place: String)
    throws(StoreError)
  {
    let statement = try prepared(sql)
    for (index, value) in values.enumerated() { statement.bind(value, at: index + 1) }
    try statement.run(at: place)
  }
}

/// A row's version as a save compares it: `Z_OPT`, Core Data's optimistic-locking counter,
/// read as 1 when it is missing or below 1, and as `UInt32.max` above that. A save in place
/// changes or deletes a row only at the version its record was read with, and moves it one on.
enum SQLiteRowVersion {
  /// The version of a row whose `Z_OPT` is `raw`.
  static func read(_ raw: Int64?) -> UInt32 {
    guard let raw, raw > 1 else { return 1 }
    return UInt32(clamping: raw)
  }

  /// The same, in SQL.
  static let sql = "min(max(coalesce(Z_OPT, 1), 1), 4294967295)"

  /// The error of a save that found `stale` objects changed by another writer.
  static func staleError(_ stale: [Int64], changes: StoreChanges, in database: SQLiteDatabase)
    -> StoreError
  {
    let id = stale[0]
    let entity =
      changes.updated.first { $0.new.id == id }?.new.entityName
      ?? changes.deleted.first { $0.id == id }?.entityName
      ?? changes.inserted.first { $0.id == id }?.entityName
    let others = stale.count == 1 ? "" : " (and \(stale.count - 1) more)"
    return StoreError(
      .modifiedOnDisk,
      "another writer changed object \(StoreKeySpace.key(of: id))\(others) since it was read; saving would overwrite that change",
      at: InputLocation(file: database.path, entity: entity))
  }
}
