import FolioModel
import FolioStores

/// A value a save writes into a column: an attribute's (of an entity, for messages), or a key
/// or entity number.
package enum RowColumnValue {
  case attribute(AttributeValue?, AttributeDescription, entity: String)
  case integer(Int64?)
}

/// A column a save writes, by the name the store gives it, with its value.
package typealias RowColumn = (column: String, value: RowColumnValue)

/// The statements a save in place runs on a database laid out as Core Data lays out a SQLite
/// store, each in the database's own SQL: what a SQLite store and a PostgreSQL document do
/// differently. Tables and columns come by the names the store gives them (``table(_:)``).
package protocol RowChangeTarget {
  /// Where messages place the store, and what they call it ("store", "document").
  var place: String { get }
  var noun: String { get }
  /// The join tables, as the store names them.
  var joinTables: [SQLiteSchema.JoinTable] { get }
  /// The name the store gives the table the schema names `name`.
  func table(_ name: String) -> String
  /// The name the store gives the column the schema names `name`, in the table the schema
  /// names `table`.
  func column(_ name: String, of table: String) -> String
  /// The order column of ordered to-many `relationship` of `owner` (an entity), which the
  /// schema names `column`.
  func orderColumn(of owner: String, relationship: String, named column: String) -> String
  /// Whether another writer gave the number `key` while this save did not hold the store's
  /// lock, which a save made again after a lost connection may have; asked once the keys
  /// given before the save are known (``largestKey(root:)``).
  mutating func wasGivenMeanwhile(_ key: Int64) throws(StoreError) -> Bool
  /// The largest key `Z_PRIMARYKEY` records for the hierarchy of root entity number `root`.
  mutating func largestKey(root: Int) throws(StoreError) -> Int64
  /// Records `key` as given in the hierarchy of `root`, unless a larger one is.
  mutating func advanceLargestKey(root: Int, to key: Int64) throws(StoreError)
  mutating func rowExists(table: String, key: Int64) throws(StoreError) -> Bool
  /// Inserts the row keyed `key` of entity number `entity`, at version 1.
  mutating func insertRow(table: String, key: Int64, entity: Int, columns: [RowColumn])
    throws(StoreError)
  /// Sets `columns` of the row keyed `key` and moves its version one on, if it is at
  /// `version`; whether it was.
  mutating func updateRow(table: String, key: Int64, version: UInt32, columns: [RowColumn])
    throws(StoreError) -> Bool
  /// Deletes the row keyed `key` if it is at `version`; whether it was.
  mutating func deleteRow(table: String, key: Int64, version: UInt32) throws(StoreError) -> Bool
  /// Deletes the rows of join table `join` whose `column` holds `owner`.
  mutating func deleteJoinRows(join: String, column: String, owner: Int64) throws(StoreError)
  /// Adds or removes the row of join table `join` linking `owner` and `member`.
  mutating func addJoinRow(join: String, owner: (String, Int64), member: (String, Int64))
    throws(StoreError)
  mutating func removeJoinRow(join: String, owner: (String, Int64), member: (String, Int64))
    throws(StoreError)
  /// Sets `column` of the row keyed `key` of `table` to `position`.
  mutating func setOrder(table: String, column: String, key: Int64, to position: Int64)
    throws(StoreError)
  /// Sets `column` of the row of join table `join` linking `owner` and `member` to `position`.
  mutating func setJoinOrder(
    join: String, column: String, owner: (String, Int64), member: (String, Int64),
    to position: Int64
  ) throws(StoreError)
}

/// Applies one save's ``StoreChanges`` to a store's tables through a ``RowChangeTarget``,
/// inside the caller's transaction, as Core Data changes a SQLite store in place: inserted
/// rows, the changed columns of updated rows (`Z_OPT` moved one on), deleted rows, their
/// join-table rows and order columns, and `Z_MAX` advanced past new keys. Every update and
/// deletion names the row's version as the save read it: a row that moved since is another
/// writer's change, and the save must not stand (``staleIDs``). So is a new object whose key
/// another writer's row holds, or gave meanwhile.
package struct RowChangeWriter<Target: RowChangeTarget> {
  package private(set) var target: Target
  let schema: SQLiteSchema
  let changes: StoreChanges
  private var entityOfTarget: [Int64: String] = [:]
  /// The objects whose rows another writer changed, deleted or whose keys it gave since this
  /// save's records were read: when any, the save must not stand.
  package private(set) var staleIDs: [Int64] = []

  package init(target: Target, schema: SQLiteSchema, changes: StoreChanges) {
    self.target = target
    self.schema = schema
    self.changes = changes
    for record in changes.inserted { entityOfTarget[record.id] = record.entityName }
    for (_, record) in changes.updated { entityOfTarget[record.id] = record.entityName }
  }

  package mutating func apply() throws(StoreError) {
    for record in changes.deleted { try delete(record) }
    var maximumKey: [Int: Int64] = [:]
    var givenKeys: [Int: Int64] = [:]
    for record in changes.inserted {
      let entity = try self.entity(of: record)
      // A key above the table's Z_MAX is free (unless another writer gave its number
      // meanwhile); one at or below it is an object brought back (a deletion undone), unless
      // another writer's row holds it.
      let given: Int64
      if let known = givenKeys[entity.rootNumber] {
        given = known
      } else {
        given = try target.largestKey(root: entity.rootNumber)
        givenKeys[entity.rootNumber] = given
      }
      let key = StoreKeySpace.key(of: record.id)
      let table = target.table(entity.table)
      if try target.wasGivenMeanwhile(key) {
        staleIDs.append(record.id)
        continue
      }
      if key <= given, try target.rowExists(table: table, key: key) {
        staleIDs.append(record.id)
        continue
      }
      try target.insertRow(
        table: table, key: key, entity: entity.number,
        columns: try columns(of: entity, record: record, old: nil))
      maximumKey[entity.rootNumber] = max(maximumKey[entity.rootNumber] ?? 0, key)
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
    for (root, key) in maximumKey.sorted(by: { $0.key < $1.key }) {
      try target.advanceLargestKey(root: root, to: key)
    }
  }

  // MARK: Rows

  private func entity(of record: StoreRecord) throws(StoreError) -> SQLiteSchema.Entity {
    guard let entity = schema.entity(record.entityName), !entity.isAbstract else {
      throw StoreError(
        .malformedStore,
        "\(record.entityName) is not a concrete entity of the \(target.noun)'s model",
        at: InputLocation(file: target.place, entity: record.entityName))
    }
    let space = StoreKeySpace.space(of: record.id)
    guard space == 0 || space == entity.rootNumber, StoreKeySpace.key(of: record.id) >= 1 else {
      throw StoreError(
        .malformedStore,
        "the object ID \(record.id) of \(record.entityName) is not a key of its table",
        at: InputLocation(file: target.place, entity: record.entityName))
    }
    return entity
  }

  private func isKind(_ entity: SQLiteSchema.Entity, of name: String) -> Bool {
    schema.entity(name)?.kindNumbers.contains(entity.number) ?? false
  }

  private mutating func delete(_ record: StoreRecord) throws(StoreError) {
    let entity = try entity(of: record)
    let key = StoreKeySpace.key(of: record.id)
    let table = target.table(entity.table)
    if try !target.deleteRow(table: table, key: key, version: record.version),
      try target.rowExists(table: table, key: key)
    {
      // Gone already is what the save wants; there at another version is another writer's.
      staleIDs.append(record.id)
    }
    for join in target.joinTables {
      for side in join.sides where isKind(entity, of: side.entity) {
        try target.deleteJoinRows(join: join.name, column: side.ownerColumn, owner: key)
      }
    }
  }

  private mutating func update(old: StoreRecord, new: StoreRecord) throws(StoreError) {
    let entity = try entity(of: new)
    let key = StoreKeySpace.key(of: new.id)
    let changed = try target.updateRow(
      table: target.table(entity.table), key: key, version: old.version,
      columns: try columns(of: entity, record: new, old: old))
    // No row at the version read: another writer changed or deleted it since.
    if !changed { staleIDs.append(new.id) }
  }

  /// The columns of `entity` a record sets (those that differ from `old`'s), with their
  /// values.
  private func columns(of entity: SQLiteSchema.Entity, record: StoreRecord, old: StoreRecord?)
    throws(StoreError) -> [RowColumn]
  {
    let table = entity.table
    var result: [RowColumn] = []
    for column in schema.attributes[entity.name] ?? [] {
      let name = column.attribute.name
      let value = record.attribute(name)
      if let old, old.attribute(name) == value { continue }
      if let value, !value.fits(column.attribute.attributeType) {
        throw StoreError(
          .typeMismatch,
          "\(value.modelText) is not of type \(column.attribute.attributeType.xcodeName)",
          at: InputLocation(file: target.place, entity: entity.name, property: name))
      }
      result.append(
        (
          target.column(column.column, of: table),
          .attribute(value, column.attribute, entity: entity.name)
        ))
    }
    for toOne in schema.toOnes[entity.name] ?? [] {
      let name = toOne.relationship.name
      let related = record.relationships[name]?.first
      if let old, old.relationships[name]?.first == related { continue }
      result.append(
        (target.column(toOne.column, of: table), .integer(related.map(StoreKeySpace.key(of:)))))
      if let entityColumn = toOne.entityColumn {
        var number: Int64?
        if let related {
          let relatedEntity = entityOfTarget[related] ?? changes.record(related)?.entityName
          guard let relatedEntity, let found = schema.entity(relatedEntity) else {
            throw StoreError(
              .danglingReference,
              "\(entity.name).\(name) names an object that is not in the \(target.noun)",
              at: InputLocation(file: target.place, entity: entity.name, property: name))
          }
          number = Int64(found.number)
        }
        result.append((target.column(entityColumn, of: table), .integer(number)))
      }
    }
    return result
  }

  // MARK: Join tables and order

  /// The join-table rows of the relationships `new` owns whose members changed.
  private mutating func writeJoins(old: StoreRecord?, new: StoreRecord) throws(StoreError) {
    let entity = try entity(of: new)
    for join in target.joinTables {
      for (index, side) in join.sides.enumerated() where isKind(entity, of: side.entity) {
        let name = side.relationship.name
        let before = Set(old?.relationships[name] ?? [])
        let after = Set(new.relationships[name] ?? [])
        guard before != after else { continue }
        let owner = (side.ownerColumn, StoreKeySpace.key(of: new.id))
        let other = join.sides[1 - index].ownerColumn
        for member in before.subtracting(after).sorted() {
          try target.removeJoinRow(
            join: join.name, owner: owner, member: (other, StoreKeySpace.key(of: member)))
        }
        for member in after.subtracting(before).sorted() {
          try target.addJoinRow(
            join: join.name, owner: owner, member: (other, StoreKeySpace.key(of: member)))
        }
      }
    }
  }

  /// Numbers anew the members of each ordered relationship of `new` whose list changed:
  /// 2048, 3072, 4096, … in list order, as Core Data numbers a fresh list.
  private mutating func renumber(old: StoreRecord?, new: StoreRecord) throws(StoreError) {
    let entity = try entity(of: new)
    for ancestor in schema.entities where ancestor.kindNumbers.contains(entity.number) {
      for ordered in schema.orderedToManys[ancestor.name] ?? [] {
        let name = ordered.relationship.name
        let list = new.relationships[name] ?? []
        guard old?.relationships[name] ?? [] != list else { continue }
        let table = target.table(ordered.memberTable)
        let column = target.orderColumn(
          of: ancestor.name, relationship: name, named: ordered.orderColumn)
        for (index, member) in list.enumerated() {
          try target.setOrder(
            table: table, column: column, key: StoreKeySpace.key(of: member),
            to: Int64(index + 2) * 1024)
        }
      }
    }
    for join in target.joinTables {
      for (index, side) in join.sides.enumerated()
      where side.orderColumn != nil && isKind(entity, of: side.entity) {
        let name = side.relationship.name
        let list = new.relationships[name] ?? []
        guard old?.relationships[name] ?? [] != list, let order = side.orderColumn else {
          continue
        }
        let owner = (side.ownerColumn, StoreKeySpace.key(of: new.id))
        let other = join.sides[1 - index].ownerColumn
        for (position, member) in list.enumerated() {
          try target.setJoinOrder(
            join: join.name, column: order, owner: owner,
            member: (other, StoreKeySpace.key(of: member)), to: Int64(position + 2) * 1024)
        }
      }
    }
  }
}
