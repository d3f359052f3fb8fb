import FolioModel
import FolioStores
import Foundation

extension SQLiteStore: HistoryChangesReading {
  /// The history position of the store at `url`: its last transaction, or `nil` when it keeps
  /// no history.
  package func historyPosition(of url: URL) throws(StoreError) -> PersistentHistoryToken? {
    let database = try Self.beginReading(url)
    defer { try? database.execute("COMMIT") }
    guard try SQLiteHistory.isTracked(database) else { return nil }
    let last = try database.integer("SELECT max(Z_PK) FROM ATRANSACTION", at: "ATRANSACTION")
    return PersistentHistoryToken(transactionNumber: last ?? 0)
  }

  /// What the transactions after `token` changed, read in one read transaction of the store at
  /// `url`; `nil` when the history cannot tell: the store keeps none, or the transactions just
  /// after `token` were deleted, or none came after it (a writer that keeps no history changed
  /// the store, as far as the caller knows).
  package func changes(
    after token: PersistentHistoryToken, from url: URL, model: ManagedObjectModel
  ) throws(StoreError) -> StoreChangesSince? {
    let database = try Self.beginReading(url)
    defer { try? database.execute("COMMIT") }
    guard try SQLiteHistory.isTracked(database) else { return nil }
    let schema = SQLiteSchema(model: model)
    let binding = try SQLiteBinding(schema: schema, database: database)
    let next = try database.prepare(
      "SELECT 1 FROM ATRANSACTION WHERE Z_PK = ?", at: "ATRANSACTION")
    next.bind(token.transactionNumber + 1, at: 1)
    guard try next.step() else { return nil }
    var result = StoreChangesSince()
    result.token = PersistentHistoryToken(
      transactionNumber: try database.integer("SELECT max(Z_PK) FROM ATRANSACTION") ?? 0)
    let largest = try database.integer("SELECT max(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")
    result.nextObjectID = min(max(largest ?? 0, 0), StoreKeySpace.maximumKey) + 1
    // The last change of each object decides: inserted or updated objects are read now,
    // deleted ones are gone.
    let changes = try database.prepare(
      "SELECT ZENTITY, ZENTITYPK, ZCHANGETYPE FROM ACHANGE WHERE ZTRANSACTIONID > ? "
        + "ORDER BY Z_PK", at: "ACHANGE")
    changes.bind(token.transactionNumber, at: 1)
    var last: [Int64: Int64] = [:]
    while try changes.step(at: "ACHANGE row") {
      guard let entity = schema.entity(number: Int(changes.int64(0))) else { continue }
      last[StoreKeySpace.id(space: entity.rootNumber, key: changes.int64(1))] = changes.int64(2)
    }
    var listed: [Int64] = []
    for (id, type) in last {
      guard type != Int64(PersistentHistoryChange.ChangeType.delete.rawValue) else {
        result.deleted.append(id)
        continue
      }
      listed.append(id)
    }
    result.records = try readRecords(listed, database: database, binding: binding, url: url)
    // Updated objects the store no longer has were deleted after all.
    let read = Set(result.records.map(\.id))
    for id in listed where !read.contains(id) { result.deleted.append(id) }
    result.givenRelationships = Self.givenRelationships(schema: schema, binding: binding)
    return result
  }

  /// The records of the objects `ids` name that the store has, read inside the caller's read
  /// transaction.
  func readRecords(
    _ ids: [Int64], database: SQLiteDatabase, binding: SQLiteBinding, url: URL
  ) throws(StoreError) -> [StoreRecord] {
    try database.execute("CREATE TEMP TABLE IF NOT EXISTS folio_keys (root INTEGER, key INTEGER)")
    try database.execute("DELETE FROM temp.folio_keys")
    let list = try database.prepare("INSERT INTO temp.folio_keys (root, key) VALUES (?, ?)")
    for id in ids {
      list.reset()
      list.bind(Int64(StoreKeySpace.space(of: id)), at: 1)
      list.bind(StoreKeySpace.key(of: id), at: 2)
      try list.run(at: "temp.folio_keys")
    }
    var reader = SQLiteRecordReader(
      database: database, binding: binding,
      externalData: ExternalDataFolder(store: url, missing: missingExternalData))
    reader.readsListedKeysOnly = true
    var collector = StoreContentsCollector()
    collector.begin(
      metadata: StoreMetadata(storeType: typeName), nextObjectID: 1, recordCount: nil)
    try reader.read(into: &collector)
    return collector.contents.records
  }

  /// By entity, the relationships the records of a store give: to-ones, ordered one-to-manys,
  /// and the sides of join tables the reader reads (ordered ones, or the first of a pair).
  /// The same, of a database laid out exactly as `schema` says.
  package static func givenRelationships(schema: SQLiteSchema) -> [String: Set<String>] {
    givenRelationships(schema: schema, binding: SQLiteBinding(identity: schema))
  }

  static func givenRelationships(schema: SQLiteSchema, binding: SQLiteBinding)
    -> [String: Set<String>]
  {
    var given: [String: Set<String>] = [:]
    for entity in schema.entities {
      var names = Set((schema.toOnes[entity.name] ?? []).map(\.relationship.name))
      names.formUnion((schema.orderedToManys[entity.name] ?? []).map(\.relationship.name))
      given[entity.name] = names
    }
    for join in binding.joinTables {
      let ordered = join.sides.filter { $0.orderColumn != nil }
      for side in ordered.isEmpty ? [join.sides[0]] : ordered {
        for entity in schema.entities
        where schema.entity(side.entity)?.kindNumbers.contains(entity.number) == true {
          given[entity.name, default: []].insert(side.relationship.name)
        }
      }
    }
    return given
  }
}
