import FolioModel
import FolioSQLiteStore
import FolioStores
internal import FolioSupport
import Foundation

/// Applies one save's ``StoreChanges`` to a document's tables, inside the caller's
/// transaction, as a Core Data SQLite store is changed in place: inserted rows, the changed
/// columns of updated rows, deleted rows, their join-table rows and order columns, and
/// `Z_MAX` advanced past new keys. Every `UPDATE` and `DELETE` names the row's `Z_OPT` as the
/// save read it; a row that moved since is another client's change, and the save must not
/// stand (``staleIDs``).
///
/// A new object's key is one the client gave above every `Z_MAX` while it held the document's
/// lock (clients number the objects of every entity in one sequence), or one given before (an
/// object brought back, a key it reserved). A save made again after the server went away held
/// that lock no longer: another client may have given the same numbers meanwhile, to objects of
/// any entity, or reserved them. ``largestKeyWhenLocked``, the largest `Z_MAX` when the write
/// first took the lock, tells those keys: above it then, at or below the largest `Z_MAX` now.
struct PostgresChangeWriter {
  let connection: PostgresConnection
  let schema: SQLiteSchema
  let changes: StoreChanges
  /// For a write begun again after it lost the document's lock, the largest `Z_MAX` when it
  /// first took it; `nil` while the write holds the lock it first took.
  let largestKeyWhenLocked: Int64?
  private var entityOfTarget: [Int64: String] = [:]
  /// The objects whose rows another client changed, deleted or whose keys it gave since this
  /// save's records were read.
  private(set) var staleIDs: [Int64] = []

  init(
    connection: PostgresConnection, schema: SQLiteSchema, changes: StoreChanges,
    largestKeyWhenLocked: Int64?
  ) {
    self.connection = connection
    self.schema = schema
    self.changes = changes
    self.largestKeyWhenLocked = largestKeyWhenLocked
    for record in changes.inserted { entityOfTarget[record.id] = record.entityName }
    for (_, record) in changes.updated { entityOfTarget[record.id] = record.entityName }
  }

  /// A row's version as a save compares it, as the SQLite store reads `Z_OPT`.
  static let version = "LEAST(GREATEST(COALESCE(\"Z_OPT\", 1), 1), 4294967295)"

  private func table(_ name: String) -> String { connection.qualified(name) }
  private let q = Quoting.sqlIdentifier

  mutating func apply() throws(StoreError) {
    for record in changes.deleted { try delete(record) }
    var maximumKey: [Int: Int64] = [:]
    var givenKeys: [Int: Int64] = [:]
    // Numbers given while the write did not hold the lock: another client's since.
    var givenMeanwhile: ClosedRange<Int64>?
    if let largestKeyWhenLocked, !changes.inserted.isEmpty {
      let largest = try PostgresStore.largestKeyGiven(in: connection)
      if largest > largestKeyWhenLocked { givenMeanwhile = (largestKeyWhenLocked + 1)...largest }
    }
    for record in changes.inserted {
      let entity = try self.entity(of: record)
      // A key above the table's Z_MAX is free (unless another client gave its number
      // meanwhile); one at or below it is an object brought back (a deletion undone), unless
      // another client's row holds it.
      let given: Int64
      if let known = givenKeys[entity.rootNumber] {
        given = known
      } else {
        let rows = try connection.query(
          "SELECT \"Z_MAX\" FROM \(table("Z_PRIMARYKEY")) WHERE \"Z_ENT\" = $1",
          [String(entity.rootNumber)], at: "Z_PRIMARYKEY")
        given = rows.first?[0].flatMap { Int64($0) } ?? 0
        givenKeys[entity.rootNumber] = given
      }
      let key = StoreKeySpace.key(of: record.id)
      if givenMeanwhile?.contains(key) == true {
        staleIDs.append(record.id)
        continue
      }
      if key <= given {
        let rows = try connection.query(
          "SELECT 1 FROM \(table(entity.table)) WHERE \"Z_PK\" = $1", [String(key)],
          at: entity.table)
        if !rows.isEmpty {
          staleIDs.append(record.id)
          continue
        }
      }
      try insert(record, entity: entity)
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
      try connection.run(
        "UPDATE \(table("Z_PRIMARYKEY")) SET \"Z_MAX\" = $1 WHERE \"Z_ENT\" = $2 "
          + "AND (\"Z_MAX\" IS NULL OR \"Z_MAX\" < $1)", [String(key), String(root)],
        at: "Z_PRIMARYKEY")
    }
  }

  // MARK: Rows

  private func entity(of record: StoreRecord) throws(StoreError) -> SQLiteSchema.Entity {
    guard let entity = schema.entity(record.entityName), !entity.isAbstract else {
      throw StoreError(
        .malformedStore, "\(record.entityName) is not a concrete entity of the document's model",
        at: InputLocation(file: connection.location.url.absoluteString, entity: record.entityName))
    }
    let space = StoreKeySpace.space(of: record.id)
    guard space == 0 || space == entity.rootNumber, StoreKeySpace.key(of: record.id) >= 1 else {
      throw StoreError(
        .malformedStore,
        "the object ID \(record.id) of \(record.entityName) is not a key of its table",
        at: InputLocation(file: connection.location.url.absoluteString, entity: record.entityName))
    }
    return entity
  }

  private mutating func delete(_ record: StoreRecord) throws(StoreError) {
    let entity = try entity(of: record)
    let key = String(StoreKeySpace.key(of: record.id))
    let deleted = try connection.run(
      "DELETE FROM \(table(entity.table)) WHERE \"Z_PK\" = $1 AND \(Self.version) = $2",
      [key, String(record.version)], at: "\(entity.table) row Z_PK \(key)")
    if deleted == 0 {
      // Gone already is what the save wants; there at another version is another client's.
      let rows = try connection.query(
        "SELECT 1 FROM \(table(entity.table)) WHERE \"Z_PK\" = $1", [key], at: entity.table)
      if !rows.isEmpty { staleIDs.append(record.id) }
    }
    for join in schema.joinTables {
      for side in join.sides where isKind(entity, of: side.entity) {
        try connection.run(
          "DELETE FROM \(table(join.name)) WHERE \(q(side.ownerColumn)) = $1", [key],
          at: join.name)
      }
    }
  }

  private func isKind(_ entity: SQLiteSchema.Entity, of name: String) -> Bool {
    schema.entity(name)?.kindNumbers.contains(entity.number) ?? false
  }

  /// The columns of `entity` a record sets, with each one's value as a parameter.
  private func columns(of entity: SQLiteSchema.Entity, record: StoreRecord, old: StoreRecord?)
    throws(StoreError) -> [(column: String, value: String?)]
  {
    var result: [(String, String?)] = []
    for column in schema.attributes[entity.name] ?? [] {
      let name = column.attribute.name
      let value = record.attribute(name)
      if let old, old.attribute(name) == value { continue }
      if let value, !value.fits(column.attribute.attributeType) {
        throw StoreError(
          .typeMismatch,
          "\(value.modelText) is not of type \(column.attribute.attributeType.xcodeName)",
          at: InputLocation(entity: entity.name, property: name))
      }
      result.append(
        (
          column.column,
          try PostgresValues.parameter(value, attribute: column.attribute, entity: entity.name)
        ))
    }
    for toOne in schema.toOnes[entity.name] ?? [] {
      let name = toOne.relationship.name
      let target = record.relationships[name]?.first
      if let old, old.relationships[name]?.first == target { continue }
      result.append((toOne.column, target.map { String(StoreKeySpace.key(of: $0)) }))
      if let entityColumn = toOne.entityColumn {
        var number: String?
        if let target {
          let targetEntity = entityOfTarget[target] ?? changes.record(target)?.entityName
          guard let targetEntity, let found = schema.entity(targetEntity) else {
            throw StoreError(
              .danglingReference,
              "\(entity.name).\(name) names an object that is not in the document",
              at: InputLocation(entity: entity.name, property: name))
          }
          number = String(found.number)
        }
        result.append((entityColumn, number))
      }
    }
    return result
  }

  private mutating func insert(_ record: StoreRecord, entity: SQLiteSchema.Entity)
    throws(StoreError)
  {
    let key = StoreKeySpace.key(of: record.id)
    let columns = try columns(of: entity, record: record, old: nil)
    let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columns.map(\.column)
    try connection.run(
      "INSERT INTO \(table(entity.table)) (" + names.map(q).joined(separator: ", ")
        + ") VALUES (" + names.indices.map { "$\($0 + 1)" }.joined(separator: ", ") + ")",
      [String(key), String(entity.number), "1"] + columns.map(\.value),
      at: "\(entity.table) row Z_PK \(key)")
  }

  private mutating func update(old: StoreRecord, new: StoreRecord) throws(StoreError) {
    let entity = try entity(of: new)
    let key = StoreKeySpace.key(of: new.id)
    let columns = try columns(of: entity, record: new, old: old)
    let sets =
      columns.enumerated().map { "\(q($0.element.column)) = $\($0.offset + 1)" }
      + ["\"Z_OPT\" = \(Self.version) + 1"]
    let changed = try connection.run(
      "UPDATE \(table(entity.table)) SET " + sets.joined(separator: ", ")
        + " WHERE \"Z_PK\" = $\(columns.count + 1) AND \(Self.version) = $\(columns.count + 2)",
      columns.map(\.value) + [String(key), String(old.version)],
      at: "\(entity.table) row Z_PK \(key)")
    // No row at the version read: another client changed or deleted it since.
    if changed != 1 { staleIDs.append(new.id) }
  }

  // MARK: Join tables and order

  private mutating func writeJoins(old: StoreRecord?, new: StoreRecord) throws(StoreError) {
    let entity = try entity(of: new)
    for join in schema.joinTables {
      for (index, side) in join.sides.enumerated() where isKind(entity, of: side.entity) {
        let name = side.relationship.name
        let before = Set(old?.relationships[name] ?? [])
        let after = Set(new.relationships[name] ?? [])
        guard before != after else { continue }
        let owner = String(StoreKeySpace.key(of: new.id))
        let other = join.sides[1 - index]
        for member in before.subtracting(after).sorted() {
          try connection.run(
            "DELETE FROM \(table(join.name)) WHERE \(q(side.ownerColumn)) = $1 AND "
              + "\(q(other.ownerColumn)) = $2", [owner, String(StoreKeySpace.key(of: member))],
            at: join.name)
        }
        for member in after.subtracting(before).sorted() {
          try connection.run(
            "INSERT INTO \(table(join.name)) (\(q(side.ownerColumn)), \(q(other.ownerColumn))) "
              + "VALUES ($1, $2) ON CONFLICT DO NOTHING",
            [owner, String(StoreKeySpace.key(of: member))], at: join.name)
        }
      }
    }
  }

  /// Numbers anew the members of each ordered relationship of `new` whose list changed:
  /// 2048, 3072, 4096, … in list order, as Core Data numbers a fresh list.
  private mutating func renumber(old: StoreRecord?, new: StoreRecord) throws(StoreError) {
    let entity = try entity(of: new)
    let owner = String(StoreKeySpace.key(of: new.id))
    for ancestor in schema.entities where ancestor.kindNumbers.contains(entity.number) {
      for ordered in schema.orderedToManys[ancestor.name] ?? [] {
        let name = ordered.relationship.name
        let list = new.relationships[name] ?? []
        guard old?.relationships[name] ?? [] != list else { continue }
        for (index, member) in list.enumerated() {
          try connection.run(
            "UPDATE \(table(ordered.memberTable)) SET \(q(ordered.orderColumn)) = $1 "
              + "WHERE \"Z_PK\" = $2",
            [String(Int64(index + 2) * 1024), String(StoreKeySpace.key(of: member))],
            at: ordered.memberTable)
        }
      }
    }
    for join in schema.joinTables {
      for (index, side) in join.sides.enumerated()
      where side.orderColumn != nil && isKind(entity, of: side.entity) {
        let name = side.relationship.name
        let list = new.relationships[name] ?? []
        guard old?.relationships[name] ?? [] != list, let order = side.orderColumn else {
          continue
        }
        let other = join.sides[1 - index]
        for (position, member) in list.enumerated() {
          try connection.run(
            "UPDATE \(table(join.name)) SET \(q(order)) = $1 WHERE \(q(side.ownerColumn)) = $2 "
              + "AND \(q(other.ownerColumn)) = $3",
            [String(Int64(position + 2) * 1024), owner, String(StoreKeySpace.key(of: member))],
            at: join.name)
        }
      }
    }
  }
}
