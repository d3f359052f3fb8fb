import FolioModel
import FolioStores
import Foundation

/// Persistent history in a SQLite store, in the tables Core Data keeps it in: `ATRANSACTION`
/// (one row a save), `ACHANGE` (one row an object the save changed) and `ATRANSACTIONSTRING`
/// (the names transactions refer to, each once), numbered 16002, 16001 and 16003 in
/// `Z_PRIMARYKEY` (`Formats/sqlite-store.md`, "Persistent history").
enum SQLiteHistory {
  static let changeEntity: Int64 = 16001
  static let transactionEntity: Int64 = 16002
  static let stringEntity: Int64 = 16003

  /// Whether the store at `database` keeps persistent history (its three tables exist).
  static func isTracked(_ database: SQLiteDatabase) throws(StoreError) -> Bool {
    let tables = Set(try database.tableNames().map { $0.uppercased() })
    return tables.isSuperset(of: ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"])
  }

  /// Makes the three tables and their `Z_PRIMARYKEY` rows, as Core Data makes them when a
  /// store is first opened with history tracking on; a store that has them is left as it is.
  ///
  /// `ACHANGE` gets a column `ZTOMBSTONE`*n* for each attribute the model's entity with the
  /// most of them keeps after deletion (``FolioModel/AttributeDescription/preservesValueInHistoryOnDeletion``).
  static func createTables(in database: SQLiteDatabase, model: ManagedObjectModel)
    throws(StoreError)
  {
    guard try !isTracked(database) else { return }
    let tombstones =
      model.entities.map { tombstoneAttributes(of: $0.name, model: model).count }
      .max() ?? 0
    let tombstoneColumns = (0..<tombstones).map { ", ZTOMBSTONE\($0)" }.joined()
    try database.execute(
      """
      CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \
      ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, \
      ZCOLUMNS BLOB\(tombstoneColumns) );
      CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \
      ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, \
      ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, \
      ZPROCESSID VARCHAR, ZQUERYGEN BLOB );
      CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, \
      Z_OPT INTEGER, ZNAME VARCHAR );
      CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME);
      CREATE INDEX Z_CHANGE_ZTRANSACTIONID ON ACHANGE (ZTRANSACTIONID);
      INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES
        (16001, 'CHANGE', 0, 0), (16002, 'TRANSACTION', 0, 0), (16003, 'TRANSACTIONSTRING', 0, 0);
      """, at: "persistent history tables")
  }

  /// The attributes of `entity` whose values a deletion's change keeps (its tombstone), in
  /// the order of the `ZTOMBSTONE`*n* columns: by name.
  static func tombstoneAttributes(of entity: String, model: ManagedObjectModel)
    -> [AttributeDescription]
  {
    guard let description = model.entity(named: entity) else { return [] }
    return description.allAttributes
      .filter { $0.preservesValueInHistoryOnDeletion && !$0.isTransient }
      .sorted { $0.name < $1.name }
  }

  /// How many `ZTOMBSTONE`*n* columns the store's `ACHANGE` has.
  static func tombstoneColumnCount(in database: SQLiteDatabase) throws(StoreError) -> Int {
    let names = Set(try database.columns(of: "ACHANGE").map { $0.name.uppercased() })
    var count = 0
    while names.contains("ZTOMBSTONE\(count)") { count += 1 }
    return count
  }

  /// What the save recorded in a transaction is attributed to.
  struct Origin {
    var author: String?
    var contextName: String?
    var bundleID: String? = ProcessInfo.processInfo.processName
    var processID: String? = ProcessInfo.processInfo.processName
    var timestamp = Date()
  }

  /// Records `changes` as one transaction, inside the caller's write transaction.
  static func record(
    _ changes: StoreChanges, origin: Origin, schema: SQLiteSchema, model: ManagedObjectModel,
    in database: SQLiteDatabase
  ) throws(StoreError) {
    guard !changes.isEmpty else { return }
    var keys: [Int64: Int64] = [:]
    func nextKey(_ entity: Int64) throws(StoreError) -> Int64 {
      if keys[entity] == nil {
        let statement = try database.prepare(
          "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", at: "Z_PRIMARYKEY")
        statement.bind(entity, at: 1)
        keys[entity] = try statement.step() ? statement.int64(0) : 0
      }
      keys[entity, default: 0] += 1
      return keys[entity] ?? 1
    }
    let stringID = try HistoryStrings(database: database)
    let transaction = try nextKey(transactionEntity)
    let insertTransaction = try database.prepare(
      "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, "
        + "ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, ?, NULL, ?, ?, ?, ?, ?)", at: "ATRANSACTION")
    insertTransaction.bind(transaction, at: 1)
    insertTransaction.bind(transactionEntity, at: 2)
    for (index, name) in [origin.author, origin.bundleID, origin.contextName, origin.processID]
      .enumerated()
    {
      if let name {
        insertTransaction.bind(
          try stringID.key(of: name, next: { () throws(StoreError) in try nextKey(stringEntity) }),
          at: 3 + index)
      } else {
        insertTransaction.bindNull(at: 3 + index)
      }
    }
    insertTransaction.bind(origin.timestamp.timeIntervalSinceReferenceDate, at: 7)
    try insertTransaction.run(at: "ATRANSACTION")

    let tombstoneCount = try tombstoneColumnCount(in: database)
    let tombstoneNames = (0..<tombstoneCount).map { ", ZTOMBSTONE\($0)" }.joined()
    let tombstoneValues = String(repeating: ", ?", count: tombstoneCount)
    let insertChange = try database.prepare(
      "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, "
        + "ZTRANSACTIONID, ZCOLUMNS\(tombstoneNames)) VALUES (?, ?, NULL, ?, ?, ?, ?, ?"
        + "\(tombstoneValues))", at: "ACHANGE")
    func change(_ type: PersistentHistoryChange.ChangeType, _ record: StoreRecord, columns: Data?)
      throws(StoreError)
    {
      guard let entity = schema.entity(record.entityName) else { return }
      insertChange.reset()
      insertChange.bind(try nextKey(changeEntity), at: 1)
      insertChange.bind(changeEntity, at: 2)
      insertChange.bind(Int64(type.rawValue), at: 3)
      insertChange.bind(Int64(entity.number), at: 4)
      insertChange.bind(StoreKeySpace.key(of: record.id), at: 5)
      insertChange.bind(transaction, at: 6)
      if let columns { insertChange.bind(columns, at: 7) } else { insertChange.bindNull(at: 7) }
      let kept =
        type == .delete ? tombstoneAttributes(of: record.entityName, model: model) : []
      for index in 0..<tombstoneCount {
        if index < kept.count {
          SQLiteValues.bind(
            record.attribute(kept[index].name), at: 8 + index, to: insertChange,
            attribute: kept[index])
        } else {
          insertChange.bindNull(at: 8 + index)
        }
      }
      try insertChange.run(at: "ACHANGE")
    }
    for record in changes.inserted { try change(.insert, record, columns: nil) }
    for (old, new) in changes.updated {
      let names = changedProperties(old, new)
      guard !names.isEmpty else { continue }
      try change(.update, new, columns: bitmap(of: names, entity: new.entityName, model: model))
    }
    for record in changes.deleted { try change(.delete, record, columns: nil) }
    let advance = try database.prepare(
      "UPDATE Z_PRIMARYKEY SET Z_MAX = ?1 WHERE Z_ENT = ?2", at: "Z_PRIMARYKEY")
    for (entity, key) in keys {
      advance.reset()
      advance.bind(key, at: 1)
      advance.bind(entity, at: 2)
      try advance.run(at: "Z_PRIMARYKEY")
    }
  }

  /// The properties whose values differ between two records of one object.
  static func changedProperties(_ old: StoreRecord, _ new: StoreRecord) -> Set<String> {
    var names: Set<String> = []
    for name in Set(old.attributes.keys).union(new.attributes.keys)
    where old.attribute(name) != new.attribute(name) {
      names.insert(name)
    }
    let oldLinks = old.relationships
    let newLinks = new.relationships
    for name in Set(oldLinks.keys).union(newLinks.keys)
    where Set(oldLinks[name] ?? []) != Set(newLinks[name] ?? [])
      || (oldLinks[name] ?? []) != (newLinks[name] ?? [])
    {
      names.insert(name)
    }
    return names
  }

  /// The persistent properties of `entity` (inherited ones included) in the order the
  /// `ZCOLUMNS` bitmap numbers them: by name.
  static func bitmapOrder(of entity: String, model: ManagedObjectModel) -> [String] {
    guard let description = model.entity(named: entity) else { return [] }
    let attributes = description.allAttributes.filter { !$0.isTransient }.map(\.name)
    let relationships = description.allRelationships.filter { !$0.isTransient }.map(\.name)
    return (attributes + relationships).sorted()
  }

  /// `names` as a bitmap: bit *i* (byte *i* / 8, bit *i* % 8 from the lowest) for the *i*th
  /// property of ``bitmapOrder(of:model:)``.
  static func bitmap(of names: Set<String>, entity: String, model: ManagedObjectModel) -> Data {
    let order = bitmapOrder(of: entity, model: model)
    var bytes = [UInt8](repeating: 0, count: (order.count + 7) / 8)
    for (index, name) in order.enumerated() where names.contains(name) {
      bytes[index / 8] |= 1 << (index % 8)
    }
    return Data(bytes)
  }

  /// The names a ``bitmap(of:entity:model:)`` sets.
  static func names(in bitmap: Data, entity: String, model: ManagedObjectModel) -> Set<String> {
    let order = bitmapOrder(of: entity, model: model)
    var names: Set<String> = []
    for (index, name) in order.enumerated()
    where index / 8 < bitmap.count
      && bitmap[bitmap.startIndex + index / 8] & (1 << (index % 8)) != 0
    {
      names.insert(name)
    }
    return names
  }

  /// The transactions after `token` (all of them without one), oldest first.
  static func transactions(
    after token: PersistentHistoryToken?, schema: SQLiteSchema, model: ManagedObjectModel,
    in database: SQLiteDatabase
  ) throws(StoreError) -> [PersistentHistoryTransaction] {
    guard try isTracked(database) else { return [] }
    var strings: [Int64: String] = [:]
    let stringRows = try database.prepare(
      "SELECT Z_PK, ZNAME FROM ATRANSACTIONSTRING", at: "ATRANSACTIONSTRING")
    while try stringRows.step() { strings[stringRows.int64(0)] = stringRows.text(1) }
    func string(_ statement: SQLiteStatement, _ index: Int, _ inline: Int) -> String? {
      if !statement.isNull(index) { return strings[statement.int64(index)] }
      return statement.text(inline)
    }
    let after = token?.transactionNumber ?? 0
    var transactions: [PersistentHistoryTransaction] = []
    var position: [Int64: Int] = [:]
    let rows = try database.prepare(
      "SELECT Z_PK, ZTIMESTAMP, ZAUTHORTS, ZAUTHOR, ZCONTEXTNAMETS, ZCONTEXTNAME, "
        + "ZBUNDLEIDTS, ZBUNDLEID, ZPROCESSIDTS, ZPROCESSID FROM ATRANSACTION WHERE Z_PK > ? "
        + "ORDER BY Z_PK", at: "ATRANSACTION")
    rows.bind(after, at: 1)
    while try rows.step(at: "ATRANSACTION row") {
      let number = rows.int64(0)
      position[number] = transactions.count
      transactions.append(
        PersistentHistoryTransaction(
          token: PersistentHistoryToken(transactionNumber: number),
          timestamp: Date(timeIntervalSinceReferenceDate: rows.double(1)),
          author: string(rows, 2, 3), contextName: string(rows, 4, 5),
          bundleID: string(rows, 6, 7), processID: string(rows, 8, 9)))
    }
    guard !transactions.isEmpty else { return [] }
    let tombstoneCount = try tombstoneColumnCount(in: database)
    let changes = try database.prepare(
      "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS"
        + (0..<tombstoneCount).map { ", ZTOMBSTONE\($0)" }.joined() + " FROM ACHANGE "
        + "WHERE ZTRANSACTIONID > ? ORDER BY Z_PK", at: "ACHANGE")
    changes.bind(after, at: 1)
    while try changes.step(at: "ACHANGE row") {
      guard let index = position[changes.int64(4)],
        let type = PersistentHistoryChange.ChangeType(rawValue: Int(changes.int64(1))),
        let entity = schema.entity(number: Int(changes.int64(2)))
      else { continue }
      var updated: Set<String>?
      if type == .update, let bitmap = changes.blob(5) {
        updated = Self.names(in: bitmap, entity: entity.name, model: model)
      }
      var tombstone: [String: AttributeValue]?
      if type == .delete {
        let kept = tombstoneAttributes(of: entity.name, model: model)
        var values: [String: AttributeValue] = [:]
        for (position, attribute) in kept.enumerated() where position < tombstoneCount {
          if let value = try? SQLiteValues.read(
            changes, 6 + position, as: SQLiteValues.Column(attribute), externalData: nil)
          {
            values[attribute.name] = value
          }
        }
        if !kept.isEmpty { tombstone = values }
      }
      transactions[index].changes.append(
        PersistentHistoryChange(
          changeNumber: changes.int64(0), changeType: type, entityName: entity.name,
          objectID: StoreKeySpace.id(space: entity.rootNumber, key: changes.int64(3)),
          updatedProperties: updated, tombstone: tombstone))
    }
    return transactions
  }

  /// Throws when transactions after `after` were given and the next one is gone: deleted,
  /// so a reader following the history from there would miss what it changed. Numbers are
  /// given one after another (`Z_MAX` of entity 16002) and never again.
  static func checkNotExpired(after: Int64, in database: SQLiteDatabase, at url: URL)
    throws(StoreError)
  {
    let given =
      try database.integer(
        "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(transactionEntity)", at: "Z_PRIMARYKEY")
      ?? 0
    guard after < given else { return }
    let next = try database.prepare("SELECT 1 FROM ATRANSACTION WHERE Z_PK = ?", at: "ATRANSACTION")
    next.bind(after + 1, at: 1)
    guard try !next.step() else { return }
    let oldest = try database.integer("SELECT min(Z_PK) FROM ATRANSACTION", at: "ATRANSACTION")
    throw StoreError(
      .historyTokenExpired,
      "the history token is expired: the transactions after \(after) "
        + (oldest.map { "up to \($0 - 1) were deleted" } ?? "were all deleted")
        + "; read the store again and follow the history from its last transaction (\(given))",
      at: InputLocation(file: url.path))
  }

  /// Deletes the transactions up to and including `token`, with their changes.
  static func deleteTransactions(through token: PersistentHistoryToken, in database: SQLiteDatabase)
    throws(StoreError)
  {
    guard try isTracked(database) else { return }
    let deleteChanges = try database.prepare(
      "DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= ?", at: "ACHANGE")
    deleteChanges.bind(token.transactionNumber, at: 1)
    try deleteChanges.run(at: "ACHANGE")
    let deleteTransactions = try database.prepare(
      "DELETE FROM ATRANSACTION WHERE Z_PK <= ?", at: "ATRANSACTION")
    deleteTransactions.bind(token.transactionNumber, at: 1)
    try deleteTransactions.run(at: "ATRANSACTION")
  }
}

/// The keys of `ATRANSACTIONSTRING` rows by name, adding a row for a name not there yet.
private final class HistoryStrings {
  let database: SQLiteDatabase
  private var known: [String: Int64] = [:]

  init(database: SQLiteDatabase) throws(StoreError) { self.database = database }

  func key(of name: String, next: () throws(StoreError) -> Int64) throws(StoreError) -> Int64 {
    if let key = known[name] { return key }
    let find = try database.prepare(
      "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", at: "ATRANSACTIONSTRING")
    find.bind(name, at: 1)
    if try find.step() {
      known[name] = find.int64(0)
      return find.int64(0)
    }
    let key = try next()
    let insert = try database.prepare(
      "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, NULL, ?)",
      at: "ATRANSACTIONSTRING")
    insert.bind(key, at: 1)
    insert.bind(SQLiteHistory.stringEntity, at: 2)
    insert.bind(name, at: 3)
    try insert.run(at: "ATRANSACTIONSTRING")
    known[name] = key
    return key
  }
}
