import FolioModel
import FolioSQLiteStore
import FolioStores
internal import FolioSupport
import Foundation

extension PostgresStore: HistoryChangesReading {
  /// The document's last save in its history (`Z_FOLIOHISTORY`), or `nil` for a document that
  /// keeps none.
  package func historyPosition(of url: URL) throws(StoreError) -> PersistentHistoryToken? {
    let connection = try PostgresConnection(try PostgresLocation(url))
    guard try Self.keepsHistory(connection) else { return nil }
    let rows = try connection.query(
      "SELECT COALESCE(max(\"Z_PK\"), 0) FROM \(connection.qualified(PostgresHistory.table))",
      at: PostgresHistory.table)
    return PersistentHistoryToken(transactionNumber: rows.first?[0].flatMap { Int64($0) } ?? 0)
  }

  /// What the saves after `token` changed, read from one snapshot: the objects they inserted
  /// or updated as they are now, and those they deleted; `nil` when the history cannot tell
  /// (none kept, or the save just after `token` is gone from it, or none came after it).
  package func changes(
    after token: PersistentHistoryToken, from url: URL, model: ManagedObjectModel
  ) throws(StoreError) -> StoreChangesSince? {
    let connection = try PostgresConnection(try PostgresLocation(url))
    // Not read-only: the keys to read are listed in a temporary table.
    try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    defer { try? connection.execute("ROLLBACK") }
    guard try Self.keepsHistory(connection) else { return nil }
    let history = connection.qualified(PostgresHistory.table)
    let next = try connection.query(
      "SELECT 1 FROM \(history) WHERE \"Z_PK\" = $1", [String(token.transactionNumber + 1)],
      at: PostgresHistory.table)
    guard !next.isEmpty else { return nil }
    // Rows of a document migrated since are not read in the old layout.
    try Self.checkModel(model, of: try Self.metadata(in: connection), in: connection)
    let schema = SQLiteSchema(model: model)
    var result = StoreChangesSince()
    // The last change of each object decides: inserted or updated objects are read now,
    // deleted ones are gone.
    var last: [Int64: Bool] = [:]
    var latest = token.transactionNumber
    let saves = try connection.query(
      "SELECT \"Z_PK\", \"Z_INSERTED\", \"Z_UPDATED\", \"Z_DELETED\" FROM \(history) "
        + "WHERE \"Z_PK\" > $1 ORDER BY \"Z_PK\"", [String(token.transactionNumber)],
      at: PostgresHistory.table)
    for save in saves {
      // A replacement of the whole document: only reading it whole tells what changed.
      if save[1] == PostgresHistory.wholeDocument { return nil }
      latest = max(latest, save[0].flatMap { Int64($0) } ?? latest)
      for (column, deleted) in [(1, false), (2, false), (3, true)] {
        for id in try Self.ids(save[column] ?? "", at: connection) { last[id] = deleted }
      }
    }
    result.token = PersistentHistoryToken(transactionNumber: latest)
    let largest = try connection.query(
      "SELECT max(\"Z_MAX\") FROM \(connection.qualified("Z_PRIMARYKEY"))", at: "Z_PRIMARYKEY")
    result.nextObjectID =
      min(max(largest.first?[0].flatMap { Int64($0) } ?? 0, 0), StoreKeySpace.maximumKey) + 1
    try connection.execute(
      "CREATE TEMP TABLE IF NOT EXISTS folio_keys (root bigint, key bigint); "
        + "DELETE FROM pg_temp.folio_keys", at: "folio_keys")
    let listed = last.filter { !$0.value }.keys.sorted()
    try connection.copyIn("COPY pg_temp.folio_keys (root, key) FROM STDIN", at: "folio_keys") {
      writer throws(StoreError) in
      for id in listed {
        writer.append(Int64(StoreKeySpace.space(of: id)))
        writer.append(StoreKeySpace.key(of: id))
        writer.endRow()
      }
    }
    result.deleted = last.filter(\.value).keys.sorted()
    try connection.execute("SET LOCAL search_path TO \(connection.quotedSchema)")
    var reader = SQLiteRecordReader(
      database: CopyTextDatabase(connection), schema: schema)
    reader.readsListedKeysOnly = true
    var collector = StoreContentsCollector()
    collector.begin(
      metadata: StoreMetadata(storeType: typeName), nextObjectID: 1, recordCount: nil)
    try reader.read(into: &collector)
    result.records = collector.contents.records
    // Objects saved and then deleted by a later save read as nothing: they are gone.
    let read = Set(result.records.map(\.id))
    result.deleted += listed.filter { !read.contains($0) }
    result.givenRelationships = SQLiteStore.givenRelationships(schema: schema)
    return result
  }

  private static func keepsHistory(_ connection: PostgresConnection) throws(StoreError) -> Bool {
    try connection.hasTable(PostgresHistory.table)
  }

  /// The objects a history column names, `ROOT.KEY` each, as object IDs.
  private static func ids(_ text: String, at connection: PostgresConnection)
    throws(StoreError) -> [Int64]
  {
    var ids: [Int64] = []
    for item in text.split(separator: " ") {
      let parts = item.split(separator: ".")
      guard parts.count == 2, let root = Int(parts[0]), let key = Int64(parts[1]),
        key >= 1, key <= StoreKeySpace.maximumKey
      else {
        throw StoreError(
          .malformedStore, "\(PostgresHistory.table) names \"\(item)\", not an object",
          at: connection.location.inputLocation)
      }
      ids.append(StoreKeySpace.id(space: root, key: key))
    }
    return ids
  }
}
