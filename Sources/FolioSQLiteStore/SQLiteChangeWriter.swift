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
      let stale = try Self.apply(changes, metadata: metadata, model: model, to: database)
      if !stale.isEmpty { throw SQLiteRowVersion.staleError(stale, changes: changes, in: database) }
    }
  }

  /// Writes `changes` through `database`, inside the caller's transaction. Returns the IDs of
  /// the objects another writer changed since they were read (``IncrementalSaveResult``);
  /// when there are any, the caller rolls back what was written.
  static func apply(
    _ changes: StoreChanges, metadata: StoreMetadata, model: ManagedObjectModel,
    to database: SQLiteDatabase
  ) throws(StoreError) -> [Int64] {
    let binding = try SQLiteBinding(schema: SQLiteSchema(model: model), database: database)
    var writer = SQLiteChangeWriter(database: database, binding: binding, changes: changes)
    try writer.apply()
    guard writer.staleIDs.isEmpty else { return writer.staleIDs }
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
    try database.transaction { () throws(StoreError) in
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
  /// - Throws: `StoreError` when the store cannot be read.
  public func fetchHistory(
    after token: PersistentHistoryToken?, from url: URL, model: ManagedObjectModel
  ) throws(StoreError) -> [PersistentHistoryTransaction] {
    let database = try Self.open(url)
    return try SQLiteHistory.transactions(
      after: token, schema: SQLiteSchema(model: model), model: model, in: database)
  }

  /// Deletes the history the store at `url` recorded up to and including the transaction at
  /// `token`, as Core Data's `deleteHistory(before:)` does; the objects are not touched.
  ///
  /// - Throws: `StoreError` when the store cannot be written.
  public func deleteHistory(before token: PersistentHistoryToken, at url: URL) throws(StoreError) {
    let database = try Self.open(url, readOnly: false)
    try database.transaction { () throws(StoreError) in
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

/// Applies one save's ``StoreChanges`` to a store's tables, inside the caller's transaction.
struct SQLiteChangeWriter {
  let database: SQLiteDatabase
  let binding: SQLiteBinding
  let changes: StoreChanges
  private var schema: SQLiteSchema { binding.schema }
  private var statements: [String: SQLiteStatement] = [:]
  private var entityOfTarget: [Int64: String] = [:]
  /// The objects whose rows another writer changed, deleted or whose keys it gave since this
  /// save's records were read: when any, the save must not stand.
  private(set) var staleIDs: [Int64] = []

  init(database: SQLiteDatabase, binding: SQLiteBinding, changes: StoreChanges) {
    self.database = database
    self.binding = binding
    self.changes = changes
    for record in changes.inserted { entityOfTarget[record.id] = record.entityName }
    for (_, record) in changes.updated { entityOfTarget[record.id] = record.entityName }
  }

  private var file: String { database.path }

  mutating func apply() throws(StoreError) {
    for record in changes.deleted { try delete(record) }
    var maximumKey: [Int: Int64] = [:]
    var givenKeys: [Int: Int64] = [:]
    for record in changes.inserted {
      let entity = try self.entity(of: record)
      // A key above the table's Z_MAX is free; one at or below it is an object brought back
      // (a deletion undone), unless another writer's row holds it.
      let given: Int64
      if let known = givenKeys[entity.rootNumber] {
        given = known
      } else {
        let statement = try prepared("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
        statement.bind(Int64(entity.rootNumber), at: 1)
        given = try statement.step() && !statement.isNull(0) ? statement.int64(0) : 0
        givenKeys[entity.rootNumber] = given
      }
      if StoreKeySpace.key(of: record.id) <= given {
        let table = Quoting.sqlIdentifier(binding.table(entity.table))
        let exists = try prepared("SELECT 1 FROM \(table) WHERE Z_PK = ?")
        exists.bind(StoreKeySpace.key(of: record.id), at: 1)
        if try exists.step() {
          staleIDs.append(record.id)
          continue
        }
      }
      try insert(record, entity: entity)
      maximumKey[entity.rootNumber] = max(
        maximumKey[entity.rootNumber] ?? 0, StoreKeySpace.key(of: record.id))
    }
    for (old, new) in changes.updated { try update(old: old, new: new) }
    // Join rows and order columns once every row is in place.
    for record in changes.inserted {
      try writeJoins(old: nil, new: record)
      try renumber(old: nil, new: record)
    }
    for (old, new) in changes.updated {
      try writeJoins(old: old, new: new)
      try renumber(old: old, new: new)
    }
    for (root, key) in maximumKey {
      let statement = try prepared(
        "UPDATE Z_PRIMARYKEY SET Z_MAX = ?1 WHERE Z_ENT = ?2 AND (Z_MAX IS NULL OR Z_MAX < ?1)")
      statement.bind(key, at: 1)
      statement.bind(Int64(root), at: 2)
      try statement.run(at: "Z_PRIMARYKEY")
    }
  }

  // MARK: Rows

  private func entity(of record: StoreRecord) throws(StoreError) -> SQLiteSchema.Entity {
    guard let entity = schema.entity(record.entityName), !entity.isAbstract else {
      throw StoreError(
        .malformedStore, "\(record.entityName) is not a concrete entity of the store's model",
        at: InputLocation(file: file, entity: record.entityName))
    }
    let space = StoreKeySpace.space(of: record.id)
    guard space == 0 || space == entity.rootNumber, StoreKeySpace.key(of: record.id) >= 1 else {
      throw StoreError(
        .malformedStore,
        "the object ID \(record.id) of \(record.entityName) is not a key of its table",
        at: InputLocation(file: file, entity: record.entityName))
    }
    return entity
  }

  private mutating func prepared(_ sql: String) throws(StoreError) -> SQLiteStatement {
    if let known = statements[sql] {
      known.reset()
      return known
    }
    let statement = try database.prepare(sql)
    statements[sql] = statement
    return statement
  }

  private mutating func delete(_ record: StoreRecord) throws(StoreError) {
    let entity = try entity(of: record)
    let key = StoreKeySpace.key(of: record.id)
    let table = binding.table(entity.table)
    let q = Quoting.sqlIdentifier
    let statement = try prepared(
      "DELETE FROM \(q(table)) WHERE Z_PK = ? AND \(SQLiteRowVersion.sql) = ?")
    statement.bind(key, at: 1)
    statement.bind(Int64(record.version), at: 2)
    try statement.run(at: "\(table) row Z_PK \(key)")
    if sqlite3_changes(database.handle) == 0 {
      // Gone already is what the save wants; there at another version is another writer's.
      let exists = try prepared("SELECT 1 FROM \(q(table)) WHERE Z_PK = ?")
      exists.bind(key, at: 1)
      if try exists.step() { staleIDs.append(record.id) }
    }
    for join in binding.joinTables {
      for side in join.sides where isKind(entity, of: side.entity) {
        let statement = try prepared(
          "DELETE FROM \(Quoting.sqlIdentifier(join.name)) WHERE "
            + "\(Quoting.sqlIdentifier(side.ownerColumn)) = ?")
        statement.bind(key, at: 1)
        try statement.run(at: join.name)
      }
    }
  }

  private func isKind(_ entity: SQLiteSchema.Entity, of name: String) -> Bool {
    schema.entity(name)?.kindNumbers.contains(entity.number) ?? false
  }

  /// The columns of `entity` a record sets, with each one's value binder.
  private func columns(of entity: SQLiteSchema.Entity, record: StoreRecord, old: StoreRecord?)
    throws(StoreError) -> [(column: String, bind: (SQLiteStatement, Int) -> Void)]
  {
    var result: [(String, (SQLiteStatement, Int) -> Void)] = []
    for column in schema.attributes[entity.name] ?? [] {
      let name = column.attribute.name
      let value = record.attribute(name)
      if let old, old.attribute(name) == value { continue }
      if let value, !value.fits(column.attribute.attributeType) {
        throw StoreError(
          .typeMismatch,
          "\(value.modelText) is not of type \(column.attribute.attributeType.xcodeName)",
          at: InputLocation(file: file, entity: entity.name, property: name))
      }
      let attribute = column.attribute
      result.append(
        (
          binding.column(column.column, of: entity.table),
          { statement, index in
            SQLiteValues.bind(value, at: index, to: statement, attribute: attribute)
          }
        ))
    }
    for toOne in schema.toOnes[entity.name] ?? [] {
      let name = toOne.relationship.name
      let target = record.relationships[name]?.first
      if let old, old.relationships[name]?.first == target { continue }
      result.append(
        (
          binding.column(toOne.column, of: entity.table),
          { statement, index in
            if let target {
              statement.bind(StoreKeySpace.key(of: target), at: index)
            } else {
              statement.bindNull(at: index)
            }
          }
        ))
      if let entityColumn = toOne.entityColumn {
        var number: Int64?
        if let target {
          let targetEntity = entityOfTarget[target] ?? changes.record(target)?.entityName
          guard let targetEntity, let found = schema.entity(targetEntity) else {
            throw StoreError(
              .danglingReference,
              "\(entity.name).\(name) names an object that is not in the store",
              at: InputLocation(file: file, entity: entity.name, property: name))
          }
          number = Int64(found.number)
        }
        result.append(
          (
            binding.column(entityColumn, of: entity.table),
            { statement, index in
              if let number {
                statement.bind(number, at: index)
              } else {
                statement.bindNull(at: index)
              }
            }
          ))
      }
    }
    return result
  }

  private mutating func insert(_ record: StoreRecord, entity: SQLiteSchema.Entity)
    throws(StoreError)
  {
    let table = binding.table(entity.table)
    let key = StoreKeySpace.key(of: record.id)
    let columns = try columns(of: entity, record: record, old: nil)
    let q = Quoting.sqlIdentifier
    let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columns.map(\.column)
    let statement = try prepared(
      "INSERT INTO \(q(table)) (" + names.map(q).joined(separator: ", ") + ") VALUES ("
        + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")")
    statement.bind(key, at: 1)
    statement.bind(Int64(entity.number), at: 2)
    statement.bind(Int64(1), at: 3)
    for (index, column) in columns.enumerated() { column.bind(statement, index + 4) }
    try statement.run(at: "\(table) row Z_PK \(key)")
  }

  private mutating func update(old: StoreRecord, new: StoreRecord) throws(StoreError) {
    let entity = try entity(of: new)
    let table = binding.table(entity.table)
    let key = StoreKeySpace.key(of: new.id)
    let columns = try columns(of: entity, record: new, old: old)
    let q = Quoting.sqlIdentifier
    let sets = columns.map { "\(q($0.column)) = ?" } + ["Z_OPT = \(SQLiteRowVersion.sql) + 1"]
    let statement = try prepared(
      "UPDATE \(q(table)) SET " + sets.joined(separator: ", ")
        + " WHERE Z_PK = ? AND \(SQLiteRowVersion.sql) = ?")
    for (index, column) in columns.enumerated() { column.bind(statement, index + 1) }
    statement.bind(key, at: columns.count + 1)
    statement.bind(Int64(old.version), at: columns.count + 2)
    try statement.run(at: "\(table) row Z_PK \(key)")
    // No row at the version read: another writer changed or deleted it since.
    if sqlite3_changes(database.handle) != 1 { staleIDs.append(new.id) }
  }

  // MARK: Join tables and order

  /// The join-table rows of the relationships `new` owns whose members changed.
  private mutating func writeJoins(old: StoreRecord?, new: StoreRecord) throws(StoreError) {
    let entity = try entity(of: new)
    let q = Quoting.sqlIdentifier
    for join in binding.joinTables {
      for (index, side) in join.sides.enumerated() where isKind(entity, of: side.entity) {
        let name = side.relationship.name
        let before = Set(old?.relationships[name] ?? [])
        let after = Set(new.relationships[name] ?? [])
        guard before != after else { continue }
        let owner = StoreKeySpace.key(of: new.id)
        let other = join.sides[1 - index]
        for member in before.subtracting(after) {
          let statement = try prepared(
            "DELETE FROM \(q(join.name)) WHERE \(q(side.ownerColumn)) = ? AND "
              + "\(q(other.ownerColumn)) = ?")
          statement.bind(owner, at: 1)
          statement.bind(StoreKeySpace.key(of: member), at: 2)
          try statement.run(at: join.name)
        }
        for member in after.subtracting(before) {
          let statement = try prepared(
            "INSERT OR IGNORE INTO \(q(join.name)) (\(q(side.ownerColumn)), "
              + "\(q(other.ownerColumn))) VALUES (?, ?)")
          statement.bind(owner, at: 1)
          statement.bind(StoreKeySpace.key(of: member), at: 2)
          try statement.run(at: join.name)
        }
      }
    }
  }

  /// Numbers anew the members of each ordered relationship of `new` whose list changed:
  /// 2048, 3072, 4096, … in list order, as Core Data numbers a fresh list.
  private mutating func renumber(old: StoreRecord?, new: StoreRecord) throws(StoreError) {
    let entity = try entity(of: new)
    let q = Quoting.sqlIdentifier
    let owner = StoreKeySpace.key(of: new.id)
    for ancestor in schema.entities where ancestor.kindNumbers.contains(entity.number) {
      for ordered in schema.orderedToManys[ancestor.name] ?? [] {
        let name = ordered.relationship.name
        let list = new.relationships[name] ?? []
        guard old?.relationships[name] ?? [] != list else { continue }
        let table = binding.table(ordered.memberTable)
        let column =
          binding.orderColumns[ancestor.name + "." + name] ?? ordered.orderColumn
        for (index, member) in list.enumerated() {
          let statement = try prepared(
            "UPDATE \(q(table)) SET \(q(column)) = ? WHERE Z_PK = ?")
          statement.bind(Int64(index + 2) * 1024, at: 1)
          statement.bind(StoreKeySpace.key(of: member), at: 2)
          try statement.run(at: table)
        }
      }
    }
    for join in binding.joinTables {
      for (index, side) in join.sides.enumerated()
      where side.orderColumn != nil && isKind(entity, of: side.entity) {
        let name = side.relationship.name
        let list = new.relationships[name] ?? []
        guard old?.relationships[name] ?? [] != list, let order = side.orderColumn else {
          continue
        }
        let other = join.sides[1 - index]
        for (position, member) in list.enumerated() {
          let statement = try prepared(
            "UPDATE \(q(join.name)) SET \(q(order)) = ? WHERE \(q(side.ownerColumn)) = ? AND "
              + "\(q(other.ownerColumn)) = ?")
          statement.bind(Int64(position + 2) * 1024, at: 1)
          statement.bind(owner, at: 2)
          statement.bind(StoreKeySpace.key(of: member), at: 3)
          try statement.run(at: join.name)
        }
      }
    }
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
