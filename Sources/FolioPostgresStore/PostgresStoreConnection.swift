import FolioModel
import FolioSQLiteStore
import FolioStores
internal import FolioSupport
import Foundation

/// The save history of a PostgreSQL document: one row of `Z_FOLIOHISTORY` per save, naming
/// the client that wrote it and the objects it inserted, updated and deleted; each save also
/// notifies the document's channel, so that other clients learn of it without asking.
enum PostgresHistory {
  static let table = "Z_FOLIOHISTORY"

  static func create(in connection: PostgresConnection) throws(StoreError) {
    try connection.execute(
      "CREATE TABLE IF NOT EXISTS \(connection.qualified(table)) ("
        + "\"Z_PK\" bigserial PRIMARY KEY, \"Z_WRITER\" text NOT NULL, "
        + "\"Z_TIMESTAMP\" double precision NOT NULL, \"Z_AUTHOR\" text, \"Z_CONTEXTNAME\" text, "
        + "\"Z_INSERTED\" text NOT NULL, \"Z_UPDATED\" text NOT NULL, \"Z_DELETED\" text NOT NULL)",
      at: table)
  }

  /// The notification channel of the document: a name of its schema's, at most 63 bytes.
  static func channel(of location: PostgresLocation) -> String {
    // FNV-1a: the same in every process, unlike Swift's seeded hashes.
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in location.schema.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return "folio_" + String(hash, radix: 16)
  }

  /// Records `changes` as a save by `writer`, and notifies the document's channel when the
  /// transaction commits. Returns the save's key in the history.
  @discardableResult
  static func record(
    _ changes: StoreChanges, writer: String, schema: SQLiteSchema?,
    in connection: PostgresConnection
  ) throws(StoreError) -> Int64? {
    // Each object by its hierarchy's root entity number, whatever key space its ID is in.
    func ids(_ records: [StoreRecord]) -> String {
      records.map { record in
        let root =
          schema?.entity(record.entityName)?.rootNumber ?? StoreKeySpace.space(of: record.id)
        return "\(root).\(StoreKeySpace.key(of: record.id))"
      }
      .joined(separator: " ")
    }
    let key = try connection.query(
      "INSERT INTO \(connection.qualified(table)) (\"Z_WRITER\", \"Z_TIMESTAMP\", \"Z_AUTHOR\", "
        + "\"Z_CONTEXTNAME\", \"Z_INSERTED\", \"Z_UPDATED\", \"Z_DELETED\") "
        + "VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING \"Z_PK\"",
      [
        writer, PostgresValues.double(Date().timeIntervalSinceReferenceDate), changes.author,
        changes.contextName, ids(changes.inserted), ids(changes.updated.map(\.new)),
        ids(changes.deleted),
      ], at: table)
    try connection.run(
      "SELECT pg_notify($1, $2)", [channel(of: connection.location), writer], at: "NOTIFY")
    return key.first?[0].flatMap { Int64($0) }
  }

  /// What a save's object list holds when it replaced the whole document (a whole write, a
  /// migration): clients read the whole document again.
  static let wholeDocument = "*"

  /// Records that the whole document was replaced, and notifies the document's channel.
  static func recordReplacement(in connection: PostgresConnection) throws(StoreError) {
    try connection.run(
      "INSERT INTO \(connection.qualified(table)) (\"Z_WRITER\", \"Z_TIMESTAMP\", "
        + "\"Z_INSERTED\", \"Z_UPDATED\", \"Z_DELETED\") VALUES ($1, $2, $3, '', '')",
      [
        UUID().uuidString, PostgresValues.double(Date().timeIntervalSinceReferenceDate),
        wholeDocument,
      ], at: table)
    try connection.run(
      "SELECT pg_notify($1, 'replaced')", [channel(of: connection.location)], at: "NOTIFY")
  }

  /// Whether the save recorded under `key` by `writer` committed.
  static func contains(_ key: Int64, writer: String, in connection: PostgresConnection)
    throws(StoreError) -> Bool
  {
    try !connection.query(
      "SELECT 1 FROM \(connection.qualified(table)) WHERE \"Z_PK\" = $1 AND \"Z_WRITER\" = $2",
      [String(key), writer], at: table
    ).isEmpty
  }
}

/// A connection kept open on a PostgreSQL document, which every save of its coordinator
/// writes through: the write lock is the document's advisory lock, held by a transaction; the
/// change counter is the last save another client recorded. The counter is asked of the
/// server each time: a notification of a commit reaches a listener a moment after the commit,
/// so a client that asked just after another's save would miss it.
///
/// A server that goes away (a restart) is connected to again, waiting for it a while. A write
/// it interrupted was rolled back with its connection: it is begun again on the new one, what
/// it had written written again (other clients' changes meanwhile found by the row versions, as
/// at any save), and the step that failed retried, through up to ``resumptions`` restarts. A
/// write stays under way, whatever fails, until it is committed or rolled back: a restart while
/// it waits for the lock again has it begun once more, and a `COMMIT` never ends a transaction
/// that lost what the write wrote. When the connection went with the `COMMIT` sent, the
/// write's row in the history says whether it committed. A save made again may find that
/// another client changed its objects, or gave its new objects' keys, while the lock was lost:
/// it is then stale, as at any save, and its commit says so.
final class PostgresStoreConnection: ResumingStoreConnection {
  let connection: PostgresConnection
  /// Names this connection's saves in the history, so that its own do not count as others'.
  let writer = UUID().uuidString
  private var isWriting = false

  /// What the write under way wrote, to write again when the server interrupted it.
  private enum Written {
    case save(StoreChanges, StoreMetadata, ManagedObjectModel)
    case keys([(entityName: String, key: Int64)], ManagedObjectModel)
  }
  private var written: Written?
  /// The history key of what the write under way wrote.
  private var recorded: Int64?
  /// The largest key given when the write under way first took the lock: its new objects'
  /// keys come after it (``PostgresChangeTarget``).
  private var largestKeyWhenLocked: Int64?
  /// Whether the write under way lost the lock and was begun again: other clients may have
  /// given keys meanwhile.
  private var isBegunAgain = false

  init(_ location: PostgresLocation) throws(StoreError) {
    connection = try PostgresConnection(location)
    connection.returnsToPool = false
    try listen()
  }

  private func listen() throws(StoreError) {
    try connection.execute(
      "LISTEN \(Quoting.sqlIdentifier(PostgresHistory.channel(of: connection.location)))",
      at: "LISTEN")
  }

  /// Connects again when the server went away (a restart): the coordinator's unsaved changes
  /// are its own, and the save that follows is made on the new connection. Returns whether it
  /// connected again.
  @discardableResult
  private func ensureConnected() throws(StoreError) -> Bool {
    guard !connection.isAlive else { return false }
    try connection.revive(patience: PostgresConnection.patience)
    try listen()
    return true
  }

  /// Runs `step`; when the server went away during it, connects again (beginning the write
  /// under way again, with what it wrote) and runs it again, through up to ``resumptions``
  /// restarts. A server away longer than the connection's patience fails it.
  private func resuming<T>(_ step: () throws(StoreError) -> T) throws(StoreError) -> T {
    var lost = 0
    while true {
      // Whether the connection is up is asked once: the server's end may arrive in between.
      let isRevived = try ensureConnected()
      do {
        if isRevived { try recoverWritten() }
        return try step()
      } catch  where !connection.isAlive && lost < Self.resumptions {
        lost += 1
      }
    }
  }

  /// ``recover()``, failing when what the write under way wrote cannot be written again.
  private func recoverWritten() throws(StoreError) {
    guard try recover() == .written else {
      rollBackWriting()
      throw Self.changedMeanwhile(at: connection.location)
    }
  }

  /// The refusal of a save made again that found another client's changes: the caller
  /// cannot save again under the same lock.
  private static func changedMeanwhile(at location: PostgresLocation) -> StoreError {
    StoreError(
      .modifiedOnDisk,
      "the server restarted during the save, and another client changed an object the save changes before it could be written again",
      at: location.inputLocation)
  }

  /// A new connection, on which the write under way, if any, is begun again and what it
  /// wrote written again: `.stale` when another client changed objects it changes, or gave
  /// keys it gives, meanwhile; nothing is written then, and the lock is held.
  private func recover() throws(StoreError) -> IncrementalSaveResult {
    try ensureConnected()
    guard isWriting else { return .written }
    isBegunAgain = true
    try begin()
    switch written {
    case .save(let changes, let metadata, let model):
      return try write(changes, metadata: metadata, model: model)
    case .keys(let keys, let model):
      try writeKeys(keys, model: model)
    case nil:
      break
    }
    return .written
  }

  /// The connection's socket, on which the server sends the notifications of other clients'
  /// saves that the connection listens for.
  var changeNotifier: ChangeNotifier? {
    let socket = connection.socket
    return socket < 0 ? nil : ChangeNotifier(descriptor: socket, connection: connection.revivals)
  }

  func changeCounter() throws(StoreError) -> Int64 {
    let rows = try resuming { () throws(StoreError) in
      _ = connection.takeNotifications()
      return try connection.query(
        "SELECT COALESCE(max(\"Z_PK\"), 0) FROM \(connection.qualified(PostgresHistory.table)) "
          + "WHERE \"Z_WRITER\" <> $1", [writer], at: PostgresHistory.table)
    }
    return rows.first?[0].flatMap { Int64($0) } ?? 0
  }

  func beginWriting() throws(StoreError) {
    (isWriting, written, recorded) = (false, nil, nil)
    (largestKeyWhenLocked, isBegunAgain) = (nil, false)
    var lost = 0
    while true {
      try ensureConnected()
      do {
        try begin()
        isWriting = true
        return
      } catch  where !connection.isAlive && lost < Self.resumptions {
        lost += 1
      }
    }
  }

  /// `BEGIN`, and the document's lock; the first time for the write under way, the largest
  /// key given then. When it fails, the connection is left in no transaction, and the write under
  /// way, if any, is still under way: its caller begins it again or rolls it back.
  private func begin() throws(StoreError) {
    fault(.lock)
    try connection.execute("BEGIN", at: "BEGIN")
    do throws(StoreError) {
      fault(.waitForLock)
      try PostgresStore.lock(connection)
      if largestKeyWhenLocked == nil {
        largestKeyWhenLocked = try PostgresStore.largestKeyGiven(in: connection)
      }
    } catch {
      try? connection.execute("ROLLBACK")
      throw error
    }
  }

  func save(_ changes: StoreChanges, metadata: StoreMetadata, model: ManagedObjectModel)
    throws(StoreError) -> IncrementalSaveResult
  {
    try resuming { () throws(StoreError) in
      fault(.save)
      return try write(changes, metadata: metadata, model: model)
    }
  }

  private func write(_ changes: StoreChanges, metadata: StoreMetadata, model: ManagedObjectModel)
    throws(StoreError) -> IncrementalSaveResult
  {
    try connection.execute("SAVEPOINT folio_save")
    let applied: (stale: [Int64], history: Int64?)
    do throws(StoreError) {
      applied = try PostgresStore.apply(
        changes, metadata: metadata, model: model, writer: writer,
        largestKeyWhenLocked: isBegunAgain ? largestKeyWhenLocked : nil, to: connection)
    } catch {
      try? connection.execute("ROLLBACK TO SAVEPOINT folio_save")
      throw error
    }
    if !applied.stale.isEmpty { try connection.execute("ROLLBACK TO SAVEPOINT folio_save") }
    try connection.execute("RELEASE SAVEPOINT folio_save")
    guard applied.stale.isEmpty else {
      // Nothing of the save stands: there is nothing to write again.
      (written, recorded) = (nil, nil)
      return .stale(applied.stale)
    }
    (written, recorded) = (.save(changes, metadata, model), applied.history)
    return .written
  }

  func reserveKeys(_ keys: [(entityName: String, key: Int64)], model: ManagedObjectModel)
    throws(StoreError)
  {
    try resuming { () throws(StoreError) in try writeKeys(keys, model: model) }
  }

  private func writeKeys(_ keys: [(entityName: String, key: Int64)], model: ManagedObjectModel)
    throws(StoreError)
  {
    try PostgresStore.checkModel(
      model, of: try PostgresStore.metadata(in: connection), in: connection)
    let schema = SQLiteSchema(model: model)
    let largest = try schema.largestKeys(keys, place: connection.location.url.absoluteString)
    // The keys come after every key given, to objects of any entity, when the lock was taken;
    // a write made again after a restart finds whether another client gave some of those
    // numbers meanwhile.
    if let smallest = keys.map({ StoreKeySpace.key(of: $0.key) }).min(),
      smallest <= (try PostgresStore.largestKeyGiven(in: connection))
    {
      throw StoreError(
        .modifiedOnDisk,
        "another client gave keys this reservation was to take while the server restarted; obtain the permanent IDs again",
        at: connection.location.inputLocation)
    }
    for (root, key) in largest {
      try connection.run(
        "UPDATE \(connection.qualified("Z_PRIMARYKEY")) SET \"Z_MAX\" = $1 WHERE \"Z_ENT\" = $2 "
          + "AND (\"Z_MAX\" IS NULL OR \"Z_MAX\" < $1)", [String(key), String(root)],
        at: "Z_PRIMARYKEY")
    }
    // A save of nothing in the history: other clients learn that keys were taken, and read
    // Z_MAX again before they give keys of their own.
    let history = try PostgresHistory.record(
      StoreChanges(nextObjectID: 1, record: { _ in nil }), writer: writer, schema: nil,
      in: connection)
    (written, recorded) = (.keys(keys, model), history)
  }

  /// How many times a write is begun again after the server went away during it.
  static let resumptions = 3

  func commitWriting() throws(StoreError) {
    guard try commitSave() == .written else {
      rollBackWriting()
      throw Self.changedMeanwhile(at: connection.location)
    }
  }

  func commitSave() throws(StoreError) -> IncrementalSaveResult {
    fault(.commit)
    var lost = 0
    while true {
      do {
        try connection.execute("COMMIT", at: "COMMIT")
        break
      } catch  where !connection.isAlive && lost < Self.resumptions {
        // Sent or not, the COMMIT may have been carried out: the write's row in the history
        // says. If it is not there, nothing was written, and the write is made again.
        lost += 1
        if try hasCommitted() { break }
        do {
          let result = try recover()
          guard result == .written else { return result }
        } catch  where !connection.isAlive && lost < Self.resumptions {
          continue
        }
      }
    }
    (isWriting, written, recorded) = (false, nil, nil)
    return .written
  }

  /// Whether the write whose `COMMIT` went with the connection was carried out: its row in the
  /// history is there, asked on a new connection, through further restarts if need be.
  private func hasCommitted() throws(StoreError) -> Bool {
    guard let recorded else { return false }
    var lost = 0
    while true {
      do {
        try ensureConnected()
        return try PostgresHistory.contains(recorded, writer: writer, in: connection)
      } catch  where !connection.isAlive && lost < Self.resumptions {
        lost += 1
      }
    }
  }

  func rollBackWriting() {
    guard isWriting else { return }
    try? connection.execute("ROLLBACK")
    (isWriting, written, recorded) = (false, nil, nil)
  }
}

extension PostgresStore: IncrementalStoreFormat {
  /// Writes what a save changed into the document at `url` in one transaction, as a save
  /// through ``connect(to:)``'s connection does.
  ///
  /// - Throws: `StoreError.modifiedOnDisk` when another client changed an object the save
  ///   changes since it was read; `.modelMismatch` when the document was migrated to another
  ///   version of its model since; what the server throws. Nothing is written then.
  public func save(
    _ changes: StoreChanges, metadata: StoreMetadata, model: ManagedObjectModel, to url: URL
  ) throws(StoreError) {
    let connection = try PostgresStoreConnection(try PostgresLocation(url))
    try connection.beginWriting()
    let result: IncrementalSaveResult
    do throws(StoreError) {
      result = try connection.save(changes, metadata: metadata, model: model)
    } catch {
      connection.rollBackWriting()
      throw error
    }
    guard result == .written else {
      connection.rollBackWriting()
      throw StoreError(
        .modifiedOnDisk,
        "another client changed an object this save changes since it was read; saving would overwrite that change",
        at: InputLocation(file: url.absoluteString))
    }
    try connection.commitWriting()
  }

  public func connect(to url: URL) throws(StoreError) -> (any IncrementalStoreConnection)? {
    try PostgresStoreConnection(try PostgresLocation(url))
  }

  /// Writes `changes` through `connection`, inside the caller's transaction. Returns the IDs
  /// of the objects another client changed since they were read, or whose keys it gave while
  /// the write did not hold the lock (`largestKeyWhenLocked`, for a write begun again: the
  /// largest key given when it first took it; when there are any, the caller rolls back what
  /// was written), or else the save's key in the history.
  static func apply(
    _ changes: StoreChanges, metadata: StoreMetadata, model: ManagedObjectModel, writer: String,
    largestKeyWhenLocked: Int64?, to connection: PostgresConnection
  ) throws(StoreError) -> (stale: [Int64], history: Int64?) {
    // Under the lock: a document migrated since it was read is not written in this layout.
    let old = try Self.metadata(in: connection)
    try checkModel(model, of: old, in: connection)
    let schema = SQLiteSchema(model: model)
    var changeWriter = RowChangeWriter(
      target: PostgresChangeTarget(
        connection: connection, schema: schema, largestKeyWhenLocked: largestKeyWhenLocked),
      schema: schema, changes: changes)
    try changeWriter.apply()
    guard changeWriter.staleIDs.isEmpty else { return (changeWriter.staleIDs, nil) }
    let history = try PostgresHistory.record(
      changes, writer: writer, schema: schema, in: connection)
    if let new = SQLiteStore.metadata(metadata, savedOver: old) {
      try Self.replaceMetadata(new, in: connection)
    }
    return ([], history)
  }
}

extension PostgresStore: ServerStoreFormat {
  public var urlSchemes: Set<String> { PostgresLocation.schemes }

  public func storeExists(at url: URL) throws(StoreError) -> Bool {
    try PostgresConnection(try PostgresLocation(url)).hasTable("Z_METADATA")
  }
}
