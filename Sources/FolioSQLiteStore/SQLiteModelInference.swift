import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

/// A model inferred from a Core Data SQLite store's schema, for a store that caches none
/// (Core Data before 2011): what opens it when the model that wrote it is not at hand.
///
/// The schema keeps less than the model: entity names and inheritance (`Z_PRIMARYKEY`), each
/// table's columns with their SQL types, the indexes on foreign keys, join tables and order
/// columns. So the inferred model is the store's shape, not its author's model:
/// - Entities: every row of `Z_PRIMARYKEY` below the history-tracking numbers, with the
///   parent `Z_SUPER` names; none abstract.
/// - Attributes: each column of a hierarchy's table, declared on the root (subentities inherit
///   it), named by the column in lower case without its `Z` (`ZAUTHORNAME` → `authorname`:
///   the case of the original name is not kept), of the column's type: INTEGER Integer 64,
///   FLOAT Double, TIMESTAMP Date, DECIMAL Decimal, VARCHAR String, BLOB Binary Data. Booleans
///   read as integers, UUIDs and transformable values as binary data.
/// - To-one relationships: an INTEGER column that Core Data indexed as a foreign key
///   (`<TABLE>_<COLUMN>_INDEX`) or that has an entity column (`Z<n>_<NAME>`), whose destination
///   is the entity numbered `n`, or else the one whose name is the column's (or ends with it:
///   `ZTYPE` → `RecipeType`). Two to-ones whose keys name each other's rows are a one-to-one
///   pair. The to-many side of a one-to-many leaves nothing in the schema, so it is not
///   inferred: such relationships are to-ones without an inverse.
/// - Many-to-many: each join table `Z_<a><R>` with two columns, as a pair of to-many
///   relationships (ordered where an order column is).
enum SQLiteModelInference {
  static func infer(from database: SQLiteDatabase) throws(StoreError) -> ManagedObjectModel {
    var inference = try Inference(database)
    try inference.readTables()
    try inference.pairOneToOnes()
    try inference.readJoinTables()
    do {
      return try ManagedObjectModel(
        entities: inference.names.keys.sorted().compactMap { number in
          inference.names[number].flatMap { inference.entities[$0] }
        })
    } catch {
      throw inference.failure("\(error)")
    }
  }

  /// A model being inferred from one store: its entities by number from `Z_PRIMARYKEY`, then
  /// the properties its tables' columns and join tables show.
  private struct Inference {
    let database: SQLiteDatabase
    /// Each entity's name and parent, by number.
    var names: [Int: String] = [:]
    var parents: [Int: Int] = [:]
    var entities: [String: EntityDescription] = [:]
    /// The foreign keys read as to-ones, by owner, its table and column, name and target.
    var toOnes: [(owner: String, table: String, column: String, name: String, target: Int)] = []
    /// For each to-one in `toOnes`, the other side of its one-to-one pair.
    var inverse: [Int: Int] = [:]

    init(_ database: SQLiteDatabase) throws(StoreError) {
      self.database = database
      let statement = try database.prepare(
        "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16000 ORDER BY Z_ENT",
        at: "Z_PRIMARYKEY")
      while try statement.step() {
        let number = Int(statement.int64(0))
        guard let name = statement.text(1), !name.isEmpty, DerivationExpression.isName(name[...])
        else {
          throw failure("Z_PRIMARYKEY row \(number) names no entity")
        }
        names[number] = name
        if !statement.isNull(2), statement.int64(2) != 0 {
          parents[number] = Int(statement.int64(2))
        }
      }
      guard !names.isEmpty else { throw failure("Z_PRIMARYKEY lists no entity") }
      for (number, name) in names {
        let parent = parents[number].flatMap { names[$0] }
        entities[name] = EntityDescription(name, parent: parent)
      }
    }

    func failure(_ message: String) -> StoreError {
      StoreError(
        .malformedStore, "cannot infer a model from the store: \(message)",
        at: InputLocation(file: database.path))
    }

    /// The entity at the top of `number`'s hierarchy.
    func root(of number: Int) -> Int {
      var current = number
      var steps = 0
      while let parent = parents[current], names[parent] != nil, steps < names.count {
        current = parent
        steps += 1
      }
      return current
    }

    /// Each root entity's table: its columns as attributes, or as to-ones where Core Data
    /// indexed the column or gave it an entity column.
    mutating func readTables() throws(StoreError) {
      var tableByUpper: [String: String] = [:]
      for table in try database.tableNames() { tableByUpper[table.uppercased()] = table }
      let indexes = try SQLiteModelInference.indexNames(database)
      for (number, name) in names.sorted(by: { $0.key < $1.key }) where root(of: number) == number {
        guard let table = tableByUpper["Z" + name.uppercased()] else {
          throw failure("there is no table Z\(name.uppercased()) for the entity \(name)")
        }
        let columns = try database.columns(of: table)
        let upper = Set(columns.map { $0.name.uppercased() })
        for (column, type) in columns {
          let key = column.uppercased()
          guard key.hasPrefix("Z"), !key.hasPrefix("Z_"), key.count > 1,
            !SQLiteModelInference.isEntityColumn(key)
          else { continue }
          let propertyName = String(key.dropFirst()).lowercased()
          guard DerivationExpression.isName(propertyName[...]) else { continue }
          let declared = type.uppercased()
          if declared.hasPrefix("INTEGER") {
            let entityColumn = upper.first {
              SQLiteModelInference.isEntityColumn($0) && $0.hasSuffix("_" + key.dropFirst())
            }
            let indexed = indexes.contains("\(table.uppercased())_\(key)_INDEX")
            if indexed || entityColumn != nil,
              let target = SQLiteModelInference.destination(
                of: key, entityColumn: entityColumn, names: names, root: root)
            {
              toOnes.append((name, table, column, propertyName, target))
              continue
            }
          }
          entities[name]?.attributes.append(
            AttributeDescription(propertyName, SQLiteModelInference.attributeType(declared)))
        }
      }
    }

    /// One-to-one pairs, where each side's keys name the other's rows; then every to-one as a
    /// relationship, with its inverse where it has one.
    mutating func pairOneToOnes() throws(StoreError) {
      for (i, a) in toOnes.enumerated() {
        for (j, b) in toOnes.enumerated() where j > i && inverse[i] == nil && inverse[j] == nil {
          guard names[a.target] == b.owner || names[root(of: a.target)] == b.owner,
            names[b.target] == a.owner || names[root(of: b.target)] == a.owner,
            try SQLiteModelInference.mirrors(a.table, a.column, b.table, b.column, database)
          else { continue }
          inverse[i] = j
          inverse[j] = i
        }
      }
      for (index, toOne) in toOnes.enumerated() {
        guard let destination = names[toOne.target] else { continue }
        let other = inverse[index].map { toOnes[$0].name }
        entities[toOne.owner]?.relationships.append(
          RelationshipDescription(toOne.name, to: destination, inverse: other))
      }
    }

    /// Join tables: `Z_<a><R>` (`Z_<a><S>`, `Z_<b><R>`), each a pair of to-manys.
    mutating func readJoinTables() throws(StoreError) {
      for table in try database.tableNames() {
        let upper = table.uppercased()
        guard upper.hasPrefix("Z_"), !upper.hasPrefix("Z_PRIMARYKEY"),
          !upper.hasPrefix("Z_METADATA"), !upper.hasPrefix("Z_MODELCACHE")
        else { continue }
        let columns = try database.columns(of: table).map { $0.name.uppercased() }
        let members = columns.filter { !$0.hasPrefix("Z_FOK_") }
        guard members.count == 2,
          let first = SQLiteModelInference.joinColumn(members[0]),
          let second = SQLiteModelInference.joinColumn(members[1]),
          let firstEntity = names[first.number], let secondEntity = names[second.number]
        else { continue }
        // A column holds the keys of its entity's objects, and is named after the
        // relationship of the other entity whose members they are.
        let firstName = first.name.lowercased()
        let secondName = second.name.lowercased()
        let firstOrdered = columns.contains { $0.hasPrefix("Z_FOK_" + members[1].dropFirst(2)) }
        let secondOrdered = columns.contains { $0.hasPrefix("Z_FOK_" + members[0].dropFirst(2)) }
        guard DerivationExpression.isName(firstName[...]),
          DerivationExpression.isName(secondName[...]),
          entities[secondEntity]?.relationships.contains(where: { $0.name == firstName }) == false,
          entities[firstEntity]?.relationships.contains(where: { $0.name == secondName }) == false
        else { continue }
        // Members of `secondEntity.firstName` are firstEntity's objects, and the other way
        // round.
        entities[secondEntity]?.relationships.append(
          RelationshipDescription(
            firstName, to: firstEntity, inverse: secondName, toMany: true, ordered: firstOrdered))
        entities[firstEntity]?.relationships.append(
          RelationshipDescription(
            secondName, to: secondEntity, inverse: firstName, toMany: true,
            ordered: secondOrdered))
      }
    }
  }

  /// Whether `column` is an entity column of a to-one into a hierarchy: `Z<n>_<NAME>`.
  static func isEntityColumn(_ column: String) -> Bool {
    let body = column.dropFirst()
    guard column.hasPrefix("Z"), let underscore = body.firstIndex(of: "_") else { return false }
    let digits = body[..<underscore]
    return !digits.isEmpty && digits.allSatisfy(\.isNumber)
  }

  /// A join column `Z_<n><NAME>`: the entity number and the name.
  static func joinColumn(_ column: String) -> (number: Int, name: String)? {
    guard column.hasPrefix("Z_") else { return nil }
    let body = column.dropFirst(2)
    let digits = body.prefix { $0.isNumber }
    guard let number = Int(digits), digits.count < body.count else { return nil }
    var name = String(body.dropFirst(digits.count))
    // A clash between join tables adds digits at the end.
    while let last = name.last, last.isNumber { name.removeLast() }
    return name.isEmpty ? nil : (number, name)
  }

  static func attributeType(_ declared: String) -> AttributeType {
    if declared.hasPrefix("INTEGER") { return .integer64 }
    if declared.hasPrefix("FLOAT") || declared.hasPrefix("REAL") { return .double }
    if declared.hasPrefix("TIMESTAMP") { return .date }
    if declared.hasPrefix("DECIMAL") { return .decimal }
    if declared.hasPrefix("VARCHAR") || declared.hasPrefix("TEXT") { return .string }
    return .binaryData
  }

  /// The entity a foreign key column points to: the number its entity column names, or the
  /// entity whose name is the column's, or ends with it.
  private static func destination(
    of column: String, entityColumn: String?, names: [Int: String], root: (Int) -> Int
  ) -> Int? {
    if let entityColumn, let number = Int(entityColumn.dropFirst().prefix { $0.isNumber }),
      names[number] != nil
    {
      return number
    }
    let name = column.dropFirst()
    if let exact = names.first(where: { $0.value.uppercased() == name }) { return exact.key }
    let suffixed = names.filter { $0.value.uppercased().hasSuffix(name) }
    return suffixed.count == 1 ? suffixed.first?.key : nil
  }

  /// Whether the keys in `a.column` and `b.column` name each other's rows wherever set.
  private static func mirrors(
    _ tableA: String, _ columnA: String, _ tableB: String, _ columnB: String,
    _ database: SQLiteDatabase
  ) throws(StoreError) -> Bool {
    let q = Quoting.sqlIdentifier
    let mismatches = try database.integer(
      "SELECT count(*) FROM \(q(tableA)) AS a LEFT JOIN \(q(tableB)) AS b "
        + "ON b.Z_PK = a.\(q(columnA)) WHERE a.\(q(columnA)) IS NOT NULL "
        + "AND (b.Z_PK IS NULL OR b.\(q(columnB)) IS NOT a.Z_PK)")
    return mismatches == 0
  }

  private static func indexNames(_ database: SQLiteDatabase) throws(StoreError) -> Set<String> {
    let statement = try database.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'index'", at: "sqlite_master")
    var names: Set<String> = []
    while try statement.step() { names.insert((statement.text(0) ?? "").uppercased()) }
    return names
  }
}
