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
  /// transaction commits.
  static func record(
    _ changes: StoreChanges, writer: String, schema: SQLiteSchema?,
    in connection: PostgresConnection
  ) throws(StoreError) {
    // Each object by its hierarchy's root entity number, whatever key space its ID is in.
    func ids(_ records: [StoreRecord]) -> String {
      records.map { record in
        let root =
          schema?.entity(record.entityName)?.rootNumber ?? StoreKeySpace.space(of: record.id)
        return "\(root).\(StoreKeySpace.key(of: record.id))"
      }
      .joined(separator: " ")
    }
    try connection.run(
      "INSERT INTO \(connection.qualified(table)) (\"Z_WRITER\", \"Z_TIMESTAMP\", \"Z_AUTHOR\", "
        + "\"Z_CONTEXTNAME\", \"Z_INSERTED\", \"Z_UPDATED\", \"Z_DELETED\") "
        + "VALUES ($1, $2, $3, $4, $5, $6, $7)",
      [
        writer, PostgresValues.double(Date().timeIntervalSinceReferenceDate), changes.author,
        changes.contextName, ids(changes.inserted), ids(changes.updated.map(\.new)),
        ids(changes.deleted),
      ], at: table)
    try connection.run(
      "SELECT pg_notify($1, $2)", [channel(of: connection.location), writer], at: "NOTIFY")
  }
}

/// A connection kept open on a PostgreSQL document, which every save of its coordinator
/// writes through: the write lock is the document's advisory lock, held by a transaction; the
/// change counter is the last save another client recorded. The counter is asked of the
/// server each time: a notification of a commit reaches a listener a moment after the commit,
/// so a client that asked just after another's save would miss it.
final class PostgresStoreConnection: IncrementalStoreConnection {
  let connection: PostgresConnection
  /// Names this connection's saves in the history, so that its own do not count as others'.
  let writer = UUID().uuidString
  private var isWriting = false

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

  /// How long a save waits for a server that went away (a restart) to take connections
  /// again, as it waits for another writer's lock.
  static let patience = 10.0

  /// Connects again when the server went away (a restart): the coordinator's unsaved changes
  /// are its own, and the save that follows is made on the new connection.
  private func ensureConnected() throws(StoreError) {
    guard !connection.isAlive else { return }
    try connection.revive(patience: Self.patience)
    try listen()
  }

  func changeCounter() throws(StoreError) -> Int64 {
    try ensureConnected()
    _ = connection.takeNotifications()
    let rows: [[String?]]
    do {
      rows = try connection.query(
        "SELECT COALESCE(max(\"Z_PK\"), 0) FROM \(connection.qualified(PostgresHistory.table)) "
          + "WHERE \"Z_WRITER\" <> $1", [writer], at: PostgresHistory.table)
    } catch  where !connection.isConnected {
      try ensureConnected()
      return try changeCounter()
    }
    return rows.first?[0].flatMap { Int64($0) } ?? 0
  }

  func beginWriting() throws(StoreError) {
    try ensureConnected()
    do {
      try connection.execute("BEGIN", at: "BEGIN")
    } catch  where !connection.isConnected {
      // The server went away since the connection was last checked: once more, connected.
      try ensureConnected()
      try connection.execute("BEGIN", at: "BEGIN")
    }
    isWriting = true
    do throws(StoreError) {
      try PostgresStore.lock(connection)
    } catch {
      rollBackWriting()
      throw error
    }
  }

  func save(_ changes: StoreChanges, metadata: StoreMetadata, model: ManagedObjectModel)
    throws(StoreError) -> IncrementalSaveResult
  {
    try connection.execute("SAVEPOINT folio_save")
    let stale: [Int64]
    do throws(StoreError) {
      stale = try PostgresStore.apply(
        changes, metadata: metadata, model: model, writer: writer, to: connection)
    } catch {
      try? connection.execute("ROLLBACK TO SAVEPOINT folio_save")
      throw error
    }
    if !stale.isEmpty { try connection.execute("ROLLBACK TO SAVEPOINT folio_save") }
    try connection.execute("RELEASE SAVEPOINT folio_save")
    return stale.isEmpty ? .written : .stale(stale)
  }

  func reserveKeys(_ keys: [(entityName: String, key: Int64)], model: ManagedObjectModel)
    throws(StoreError)
  {
    let largest = try SQLiteSchema(model: model).largestKeys(
      keys, place: connection.location.url.absoluteString)
    for (root, key) in largest {
      try connection.run(
        "UPDATE \(connection.qualified("Z_PRIMARYKEY")) SET \"Z_MAX\" = $1 WHERE \"Z_ENT\" = $2 "
          + "AND (\"Z_MAX\" IS NULL OR \"Z_MAX\" < $1)", [String(key), String(root)],
        at: "Z_PRIMARYKEY")
    }
    // A save of nothing in the history: other clients learn that keys were taken, and read
    // Z_MAX again before they give keys of their own.
    try PostgresHistory.record(
      StoreChanges(nextObjectID: 1, record: { _ in nil }), writer: writer, schema: nil,
      in: connection)
  }

  func commitWriting() throws(StoreError) {
    try connection.execute("COMMIT", at: "COMMIT")
    isWriting = false
  }

  func rollBackWriting() {
    guard isWriting else { return }
    try? connection.execute("ROLLBACK")
    isWriting = false
  }
}

extension PostgresStore: IncrementalStoreFormat {
  /// Writes what a save changed into the document at `url` in one transaction, as a save
  /// through ``connect(to:)``'s connection does.
  ///
  /// - Throws: `StoreError.modifiedOnDisk` when another client changed an object the save
  ///   changes since it was read; what the server throws. Nothing is written then.
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
  /// of the objects another client changed since they were read; when there are any, the
  /// caller rolls back what was written.
  static func apply(
    _ changes: StoreChanges, metadata: StoreMetadata, model: ManagedObjectModel, writer: String,
    to connection: PostgresConnection
  ) throws(StoreError) -> [Int64] {
    let schema = SQLiteSchema(model: model)
    var changeWriter = PostgresChangeWriter(
      connection: connection, schema: schema, changes: changes)
    try changeWriter.apply()
    guard changeWriter.staleIDs.isEmpty else { return changeWriter.staleIDs }
    try PostgresHistory.record(changes, writer: writer, schema: schema, in: connection)
    let old = try Self.metadata(in: connection)
    if let new = SQLiteStore.metadata(metadata, savedOver: old) {
      try Self.replaceMetadata(new, in: connection)
    }
    return []
  }
}

extension PostgresStore: ServerStoreFormat {
  public var urlSchemes: Set<String> { PostgresLocation.schemes }

  public func storeExists(at url: URL) throws(StoreError) -> Bool {
    let connection = try PostgresConnection(try PostgresLocation(url))
    let rows = try connection.query(
      "SELECT 1 FROM information_schema.tables WHERE table_schema = $1 "
        + "AND table_name = 'Z_METADATA'", [connection.location.schema], at: "information_schema")
    return !rows.isEmpty
  }
}
