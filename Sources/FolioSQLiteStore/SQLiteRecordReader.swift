import CSQLite
import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

/// Reads the rows of a Core Data SQLite store as records, one hierarchy table at a time.
///
/// A record's ID is its `Z_PK` in its hierarchy's key space (``StoreKeySpace``). Each to-one
/// relationship gives its target from its foreign-key column. To-many relationships are given
/// where their order lives: an ordered one-to-many from the members' order column, each
/// ordered side of a many-to-many from its join table's order column, and an unordered
/// many-to-many from one side of its join table; the reader of the records completes the
/// other sides.
package struct SQLiteRecordReader<Database: RecordDatabase> {
  let database: Database
  let binding: SQLiteBinding
  let externalData: ExternalDataFolder?
  /// Whether only the rows whose keys the connection's `temp.folio_keys` table lists (by root
  /// entity number and `Z_PK`) are read, with their relationships: ``SQLiteStore/read(keys:from:model:into:)``.
  package var readsListedKeysOnly = false
  /// Whether each record gives every relationship, both sides of each pair (an unordered
  /// one-to-many from its members' foreign keys, each side of a join table), for a consumer
  /// that takes records one at a time and cannot complete them
  /// (``StoreRecordConsumer/wantsEveryRelationship``). Unordered sides list their members in
  /// ID order, as a whole read completes them.
  package var givesEveryRelationship = false
  private var schema: SQLiteSchema { binding.schema }

  init(database: Database, binding: SQLiteBinding, externalData: ExternalDataFolder?) {
    (self.database, self.binding, self.externalData) = (database, binding, externalData)
  }

  /// A reader of a database that keeps `schema`'s layout exactly, as Folio writes it (a
  /// PostgreSQL document), whose values are all in its rows.
  package init(database: Database, schema: SQLiteSchema) {
    self.init(database: database, binding: SQLiteBinding(identity: schema), externalData: nil)
  }

  /// The condition that keeps to the listed keys a query of `column` (of rows of the hierarchy
  /// whose root is `root`); empty when every row is read.
  private func listed(_ column: String, root: Int) -> String {
    guard readsListedKeysOnly else { return "" }
    return "\(column) IN (SELECT key FROM \(database.listedKeysTable) WHERE root = \(root))"
  }

  /// One entity's place in the select of its table: where each attribute and to-one is.
  ///
  /// Filled as its table is laid out, then only read, at every row: the checks of exclusive
  /// access, made at each read otherwise, are left out.
  private final class EntityColumns {
    let entity: SQLiteSchema.Entity
    init(entity: SQLiteSchema.Entity) { self.entity = entity }
    @exclusivity(unchecked) var attributes:
      [(name: String, column: SQLiteValues.Column, index: Int)] = []
    @exclusivity(unchecked) var toOnes:
      [(toOne: SQLiteSchema.ToOneColumn, index: Int, entityIndex: Int?)] = []
    /// What each row needs of `toOnes`, without copying relationship descriptions per row.
    @exclusivity(unchecked) var toOneReads:
      [(name: String, index: Int, entityIndex: Int?, targetRoot: Int)] = []
    /// Per to-one, the keys of the rows whose target is gone, where Core Data may leave one.
    @exclusivity(unchecked) var gone: [Set<Int64>?] = []
    /// The destination of each to-one, for checking entity columns.
    @exclusivity(unchecked) var destinations: [SQLiteSchema.Entity?] = []
  }

  /// How many rows the hierarchy tables hold: the records that follow.
  package func recordCount() throws(StoreError) -> Int {
    var total: Int64 = 0
    for entity in schema.entities where entity.number == entity.rootNumber {
      let table = binding.table(entity.table)
      total +=
        try database.firstInteger(
          "SELECT count(*) FROM \(Quoting.sqlIdentifier(table))", at: table) ?? 0
    }
    return Int(total)
  }

  package func read<Consumer: StoreRecordConsumer>(into consumer: inout Consumer)
    throws(StoreError)
  {
    for root in schema.entities where root.number == root.rootNumber {
      try readTable(of: root, into: &consumer)
    }
  }

  /// One hierarchy table's select, laid out once before its rows are read: the columns it
  /// selects, and per entity where each attribute and to-one is and the names its records'
  /// values and relationships are read by.
  private struct TableLayout {
    let table: String
    /// Every column any entity of the hierarchy stores, after `Z_PK`, `Z_ENT` and `Z_OPT`.
    var selected: [String] = ["Z_PK", "Z_ENT", "Z_OPT"]
    /// The lowest entity number of the hierarchy (its numbers are consecutive: depth-first).
    var first: Int
    /// Each entity by its number's offset from `first`.
    var shapes: [EntityColumns?]
    /// Per entity present, in `shapes`' order: the builder of its records, whose attributes
    /// are the entity's and whose relationships are its to-ones, then the hierarchy's to-manys.
    var builders: [RecordBuilder] = []
    /// The position in `builders` of each offset in `shapes`.
    var nameSlot: [Int] = []
    /// The hierarchy's to-many targets, by relationship and owner key, sorted by name.
    var toManys: [(key: String, value: [Int64: [Int64]])]
  }

  /// The layout of `root`'s hierarchy table.
  private func layOut(_ root: SQLiteSchema.Entity) throws(StoreError) -> TableLayout {
    let table = binding.table(root.table)
    let numbers = root.kindNumbers.sorted()
    let first = numbers.first ?? root.number
    var layout = TableLayout(
      table: table, first: first,
      shapes: Array(repeating: nil, count: (numbers.last ?? first) - first + 1),
      toManys: try toManyTargets(ownedIn: root).sorted { $0.key < $1.key })
    var indexOfColumn: [String: Int] = [:]
    func index(of column: String) -> Int {
      let actual = binding.column(column, of: root.table)
      if let known = indexOfColumn[actual] { return known }
      layout.selected.append(actual)
      indexOfColumn[actual] = layout.selected.count - 1
      return layout.selected.count - 1
    }
    let toManyNames = layout.toManys.map(\.key)
    var goneByColumn: [String: Set<Int64>] = [:]
    for number in numbers {
      guard let entity = schema.entity(number: number) else { continue }
      let attributes = schema.attributes[entity.name] ?? []
      let columns = EntityColumns(entity: entity)
      for attribute in attributes {
        columns.attributes.append(
          (
            attribute.attribute.name, SQLiteValues.Column(attribute.attribute),
            index(of: attribute.column)
          ))
      }
      for toOne in schema.toOnes[entity.name] ?? [] {
        let position = (index(of: toOne.column), toOne.entityColumn.map { index(of: $0) })
        columns.toOnes.append((toOne, position.0, position.1))
        columns.toOneReads.append(
          (toOne.relationship.name, position.0, position.1, toOne.targetRoot))
        columns.destinations.append(schema.entity(toOne.relationship.destinationEntityName))
        guard schema.mayOutliveTarget(toOne.relationship) else {
          columns.gone.append(nil)
          continue
        }
        let column = binding.column(toOne.column, of: root.table)
        if goneByColumn[column] == nil {
          goneByColumn[column] = try goneTargets(
            of: column, in: table, root: toOne.targetRoot, ownerRoot: root.number)
        }
        columns.gone.append(goneByColumn[column])
      }
      layout.shapes[number - first] = columns
      layout.builders.append(
        RecordBuilder(
          entityName: entity.name, attributeNames: attributes.map(\.attribute.name),
          relationshipNames: columns.toOneReads.map(\.name) + toManyNames))
    }
    layout.nameSlot = Array(repeating: 0, count: layout.shapes.count)
    var slot = 0
    for (offset, shape) in layout.shapes.enumerated() where shape != nil {
      layout.nameSlot[offset] = slot
      slot += 1
    }
    return layout
  }

  /// What a row's reading keeps from one row to the next: the blocks its records' values and
  /// targets go in, and the buffers a row's relationships are gathered in.
  private struct RowBuffers {
    var rowBlock: RowBlock?
    var targetBlock: TargetBlock?
    /// Each relationship present, by its position in the entity's link names.
    var present: [Int] = []
    /// For each relationship in `present`, its number of targets and then their IDs.
    var targets: [Int64] = []
  }

  private func readTable<Consumer: StoreRecordConsumer>(
    of root: SQLiteSchema.Entity, into consumer: inout Consumer
  ) throws(StoreError) {
    var layout = try layOut(root)
    let table = layout.table
    var sql =
      "SELECT " + layout.selected.map(Quoting.sqlIdentifier).joined(separator: ", ") + " FROM "
      + Quoting.sqlIdentifier(table)
    if readsListedKeysOnly { sql += " WHERE " + listed("\"Z_PK\"", root: root.number) }
    let statement = try database.rows(sql, at: table)
    var buffers = RowBuffers()
    while try statement.nextRow() {
      let primaryKey = statement.int64(0)
      let number = Int(statement.int64(1))
      guard primaryKey >= 1, primaryKey <= StoreKeySpace.maximumKey else {
        throw StoreError(
          .malformedStore, "\(table) has a row whose Z_PK \(primaryKey) is out of range",
          at: InputLocation(file: database.path))
      }
      let offset = number - layout.first
      guard offset >= 0, offset < layout.shapes.count, let columns = layout.shapes[offset],
        !columns.entity.isAbstract
      else {
        throw StoreError(
          .malformedStore,
          "\(table) row Z_PK \(primaryKey) has Z_ENT \(number), which is not a concrete entity "
            + "of \(root.name)'s hierarchy",
          at: InputLocation(file: database.path))
      }
      let links = try self.links(
        of: statement, primaryKey, columns, slot: layout.nameSlot[offset], in: &layout,
        buffers: &buffers)
      var record = try self.record(
        of: statement, id: StoreKeySpace.id(space: root.number, key: primaryKey), primaryKey,
        columns, slot: layout.nameSlot[offset], links: links, in: &layout,
        rowBlock: &buffers.rowBlock)
      record.version = SQLiteRowVersion.read(statement.isNull(2) ? nil : statement.int64(2))
      try consumer.consume(record)
    }
  }

  /// The relationships of the row `statement` stands at: its to-ones from their columns, and
  /// the hierarchy's to-many lists found under its key. Kept in `buffers.targetBlock` with
  /// names shared by every row of the entity that has the same relationships, for an entity
  /// of at most ``RecordBuilder/maximumColumns`` relationships; else a dictionary.
  @inline(__always)
  private func links(
    of statement: Database.Rows, _ primaryKey: Int64, _ columns: EntityColumns, slot: Int,
    in layout: inout TableLayout, buffers: inout RowBuffers
  ) throws(StoreError) -> RecordLinks {
    let table = layout.table
    let entity = columns.entity
    buffers.present.removeAll(keepingCapacity: true)
    buffers.targets.removeAll(keepingCapacity: true)
    for (position, read) in columns.toOneReads.enumerated() where !statement.isNull(read.index) {
      // A reference Core Data left when its target was deleted (No Action) names nothing.
      if let gone = columns.gone[position], gone.contains(primaryKey) { continue }
      let target = statement.int64(read.index)
      guard target >= 1, target <= StoreKeySpace.maximumKey else {
        let toOne = columns.toOnes[position].toOne
        throw StoreError(
          .danglingReference,
          "\(table).\(toOne.column) of row Z_PK \(primaryKey) names key \(target)",
          at: InputLocation(
            file: database.path, entity: entity.name, property: toOne.relationship.name))
      }
      if let entityIndex = read.entityIndex, !statement.isNull(entityIndex) {
        let targetNumber = Int(statement.int64(entityIndex))
        guard columns.destinations[position]?.kindNumbers.contains(targetNumber) == true else {
          let toOne = columns.toOnes[position].toOne
          throw StoreError(
            .danglingReference,
            "\(table).\(toOne.entityColumn ?? "") of row Z_PK \(primaryKey) names entity "
              + "\(targetNumber), which is not a \(toOne.relationship.destinationEntityName)",
            at: InputLocation(
              file: database.path, entity: entity.name, property: toOne.relationship.name))
        }
      }
      buffers.present.append(position)
      buffers.targets.append(1)
      buffers.targets.append(StoreKeySpace.id(space: read.targetRoot, key: target))
    }
    // A key names one row of the hierarchy, so a list found under it is this row's; an
    // entity without that relationship is reported by the reader of the records.
    for (position, (_, owners)) in layout.toManys.enumerated() {
      guard let found = owners[primaryKey] else { continue }
      buffers.present.append(columns.toOneReads.count + position)
      buffers.targets.append(Int64(found.count))
      buffers.targets.append(contentsOf: found)
    }
    if buffers.present.isEmpty { return .dictionary([:]) }
    guard columns.toOneReads.count + layout.toManys.count <= RecordBuilder.maximumColumns else {
      var dictionary: [String: [Int64]] = [:]
      var at = 0
      for position in buffers.present {
        let count = Int(buffers.targets[at])
        dictionary[layout.builders[slot].relationshipNames[position]] = Array(
          buffers.targets[at + 1..<at + 1 + count])
        at += 1 + count
      }
      return .dictionary(dictionary)
    }
    var mask: UInt64 = 0
    for position in buffers.present { mask |= 1 << UInt64(position) }
    return layout.builders[slot].sharedLinks(
      mask: mask, targets: buffers.targets, in: &buffers.targetBlock)
  }

  /// The record `id` of the row `statement` stands at, with `links`: its values in
  /// `rowBlock`, named by the names shared by every row of the entity that has the same
  /// attributes, for an entity of at most ``RecordBuilder/maximumColumns`` attributes; else
  /// in a dictionary.
  @inline(__always)
  private func record(
    of statement: Database.Rows, id: Int64, _ primaryKey: Int64, _ columns: EntityColumns,
    slot: Int, links: RecordLinks, in layout: inout TableLayout, rowBlock: inout RowBlock?
  ) throws(StoreError) -> StoreRecord {
    let (table, entity) = (layout.table, columns.entity)
    let width = columns.attributes.count
    guard width <= RecordBuilder.maximumColumns else {
      var dictionary: [String: AttributeValue] = [:]
      for (name, column, index) in columns.attributes {
        if let value = try value(
          statement, index, column, at: table, layout.selected[index], primaryKey, entity.name,
          name)
        {
          dictionary[name] = value
        }
      }
      var record = StoreRecord(entityName: entity.name, id: id, attributes: dictionary)
      record.relationships = links.dictionary
      return record
    }
    let block = RecordBuilder.room(for: max(width, 1), in: &rowBlock)
    let start = block.end
    var mask: UInt64 = 0
    for (position, (name, column, index)) in columns.attributes.enumerated() {
      guard
        let value = try value(
          statement, index, column, at: table, layout.selected[index], primaryKey, entity.name,
          name)
      else { continue }
      mask |= 1 << UInt64(position)
      block.append(value)
    }
    return layout.builders[slot].record(
      id: id, mask: mask, block: block, start: start, links: links)
  }

  /// The value in column `index`, an error naming its place when it is not right.
  @inline(__always)
  private func value(
    _ statement: Database.Rows, _ index: Int, _ column: SQLiteValues.Column, at table: String,
    _ columnName: String, _ primaryKey: Int64, _ entity: String, _ key: String
  ) throws(StoreError) -> AttributeValue? {
    do {
      return try SQLiteValues.read(statement, index, as: column, externalData: externalData)
    } catch {
      throw SQLiteValues.Place(
        file: database.path, table: table, column: columnName, primaryKey: primaryKey,
        entity: entity, key: key
      ).error(error)
    }
  }

  /// The keys of the rows of `table` whose foreign key `column` names no row of the target
  /// hierarchy `root`: references a deletion left behind.
  private func goneTargets(of column: String, in table: String, root: Int, ownerRoot: Int)
    throws(StoreError) -> Set<Int64>
  {
    guard let target = schema.entity(number: root) else { return [] }
    let q = Quoting.sqlIdentifier
    let targetTable = binding.table(target.table)
    let statement = try database.rows(
      "SELECT h.\"Z_PK\" FROM \(q(table)) h WHERE h.\(q(column)) IS NOT NULL AND NOT EXISTS "
        + "(SELECT 1 FROM \(q(targetTable)) t WHERE t.\"Z_PK\" = h.\(q(column)))"
        + (readsListedKeysOnly ? " AND " + listed("h.\"Z_PK\"", root: ownerRoot) : ""),
      at: table)
    var keys: Set<Int64> = []
    while try statement.nextRow() { keys.insert(statement.int64(0)) }
    return keys
  }

  /// The to-many targets the records of `root`'s hierarchy are given, by relationship and
  /// owner key: ordered one-to-many from the members' order column, and the sides of join
  /// tables that are ordered (or the first side of an unordered pair), in order.
  private func toManyTargets(ownedIn root: SQLiteSchema.Entity) throws(StoreError)
    -> [String: [Int64: [Int64]]]
  {
    var result: [String: [Int64: [Int64]]] = [:]
    let q = Quoting.sqlIdentifier
    for number in root.kindNumbers.sorted() {
      guard let entity = schema.entity(number: number) else { continue }
      for ordered in schema.orderedToManys[entity.name] ?? [] {
        let name = ordered.relationship.name
        let table = binding.table(ordered.memberTable)
        let foreignKey = binding.column(ordered.foreignKey, of: ordered.memberTable)
        let order = binding.orderColumns[entity.name + "." + name] ?? ordered.orderColumn
        let restriction =
          readsListedKeysOnly ? " AND " + listed(q(foreignKey), root: root.number) : ""
        let statement = try database.rows(
          "SELECT \(q(foreignKey)), \"Z_PK\" FROM \(q(table)) WHERE \(q(foreignKey)) IS NOT NULL "
            + restriction + " ORDER BY \(q(foreignKey)), \(q(order)), \"Z_PK\"",
          at: table)
        var lists: [Int64: [Int64]] = [:]
        while try statement.nextRow() {
          lists[statement.int64(0), default: []].append(
            StoreKeySpace.id(space: ordered.memberRoot, key: statement.int64(1)))
        }
        result[name, default: [:]].merge(lists) { a, b in a + b }
      }
      for unordered in givesEveryRelationship ? schema.unorderedToManys[entity.name] ?? [] : [] {
        let table = binding.table(unordered.memberTable)
        let foreignKey = binding.column(unordered.foreignKey, of: unordered.memberTable)
        let statement = try database.rows(
          "SELECT \(q(foreignKey)), \"Z_PK\" FROM \(q(table)) WHERE \(q(foreignKey)) IS NOT NULL "
            + "ORDER BY \(q(foreignKey)), \"Z_PK\"",
          at: table)
        var lists: [Int64: [Int64]] = [:]
        while try statement.nextRow() {
          lists[statement.int64(0), default: []].append(
            StoreKeySpace.id(space: unordered.memberRoot, key: statement.int64(1)))
        }
        result[unordered.relationship.name, default: [:]].merge(lists) { a, b in a + b }
      }
    }
    for join in binding.joinTables {
      let ordered = join.sides.filter { $0.orderColumn != nil }
      let read = givesEveryRelationship ? join.sides : ordered.isEmpty ? [join.sides[0]] : ordered
      for side in read {
        guard let owner = schema.entity(side.entity), owner.rootNumber == root.number else {
          continue
        }
        var sql = "SELECT \(q(side.ownerColumn)), \(q(side.memberColumn)) FROM \(q(join.name))"
        // Rows naming a member whose deletion Core Data left them behind (No Action) name
        // nothing.
        if schema.mayOutliveTarget(side.relationship),
          let member = schema.entity(number: side.memberRoot)
        {
          sql +=
            " WHERE EXISTS (SELECT 1 FROM \(q(binding.table(member.table))) m"
            + " WHERE m.\"Z_PK\" = \(q(join.name)).\(q(side.memberColumn)))"
        }
        if readsListedKeysOnly {
          sql +=
            (sql.contains(" WHERE ") ? " AND " : " WHERE ")
            + listed("\(q(join.name)).\(q(side.ownerColumn))", root: root.number)
        }
        // Members in a stated order, whatever order the database keeps the rows in: the
        // key order of an unordered side is the order SQLite's primary key keeps them in.
        if let order = side.orderColumn {
          sql += " ORDER BY \(q(side.ownerColumn)), \(q(order)), \(q(side.memberColumn))"
        } else {
          sql += " ORDER BY \(q(side.ownerColumn)), \(q(side.memberColumn))"
        }
        let statement = try database.rows(sql, at: join.name)
        var lists: [Int64: [Int64]] = [:]
        while try statement.nextRow() {
          guard !statement.isNull(0), !statement.isNull(1) else {
            throw StoreError(
              .malformedStore, "\(join.name) has a row with a NULL key",
              at: InputLocation(file: database.path))
          }
          lists[statement.int64(0), default: []].append(
            StoreKeySpace.id(space: side.memberRoot, key: statement.int64(1)))
        }
        // A relationship that is its own inverse has both columns: a pair counts once.
        let selfInverse = join.sides[0].relationship.name == join.sides[1].relationship.name
        result[side.relationship.name, default: [:]].merge(lists) { a, b in
          selfInverse ? Array(Set(a + b)).sorted() : a + b
        }
      }
    }
    return result
  }
}
