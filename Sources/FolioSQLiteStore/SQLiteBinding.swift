import FolioModel
import FolioStores

/// A model's ``SQLiteSchema`` matched against a real file: each table and column the model
/// needs, found under the name the file gives it, or a `.modelMismatch` naming what is missing.
///
/// Core Data's choices that cannot be derived from the model are found here: which side of a
/// many-to-many pair names its join table, and the numeric suffixes of join and order columns.
/// Tables and columns the model does not need (history tracking, stale indexes, columns a
/// migration left) are left alone.
struct SQLiteBinding {
  let schema: SQLiteSchema
  /// The file's name of each table the schema names, by the schema's name.
  private(set) var tableNames: [String: String] = [:]
  /// The file's name of each column, by "TABLE.COLUMN" as the schema names them.
  private(set) var columnNames: [String: String] = [:]
  /// Each join table as the file has it, sides' columns renamed.
  private(set) var joinTables: [SQLiteSchema.JoinTable] = []
  /// The ordered one-to-many relationships' order columns as the file names them, by the
  /// owner entity and relationship ("Entity.relationship").
  private(set) var orderColumns: [String: String] = [:]

  /// The binding of a database laid out exactly as `schema` says: every name the schema's.
  init(identity schema: SQLiteSchema) {
    self.schema = schema
    joinTables = schema.joinTables
  }

  init(schema: SQLiteSchema, database: SQLiteDatabase) throws(StoreError) {
    self.schema = schema
    var file = try FileSchema(database)
    guard schema.unsupported.isEmpty else {
      throw file.mismatch(
        "the model has what a SQLite store cannot hold: "
          + schema.unsupported.joined(separator: ", "))
    }
    try bindEntityTables(in: &file)
    try bindOrderColumns(in: &file)
    for join in schema.joinTables { joinTables.append(try bind(join, in: &file)) }
  }

  /// Each root entity's table and its columns, under the file's names.
  private mutating func bindEntityTables(in file: inout FileSchema) throws(StoreError) {
    let entityOfTable = Dictionary(
      schema.entities.filter { $0.number == $0.rootNumber }.map { ($0.table, $0.name) },
      uniquingKeysWith: { a, _ in a })
    for (table, tableColumns) in schema.tables {
      guard let root = entityOfTable[table] else { continue }
      guard let actual = file.tables[table.uppercased()] else {
        throw file.mismatch(
          "the store has no table \(table) for the entity \(root) and its subentities")
      }
      tableNames[table] = actual
      let found = try file.columns(actual)
      for (name, _) in tableColumns where !name.hasPrefix("Z_FOK_") {
        guard let present = found[name.uppercased()] else {
          throw file.mismatch(
            "the table \(actual) has no column \(name), which the model's "
              + "\(describe(column: name, table: table)) needs")
        }
        columnNames[table + "." + name] = present
      }
    }
  }

  /// The order columns of the ordered one-to-many relationships, with their suffixes.
  private mutating func bindOrderColumns(in file: inout FileSchema) throws(StoreError) {
    for (owner, ordered) in schema.orderedToManys {
      for relationship in ordered {
        let table = tableNames[relationship.memberTable] ?? relationship.memberTable
        let base = "Z_FOK_" + relationship.foreignKey.dropFirst()
        guard let present = FileSchema.column(base, in: try file.columns(table)) else {
          throw file.mismatch(
            "the table \(table) has no order column \(base) for the ordered relationship "
              + "\(owner).\(relationship.relationship.name)")
        }
        orderColumns[owner + "." + relationship.relationship.name] = present
      }
    }
  }

  /// `join` as the file has it: under whichever of its two names the file uses, each side's
  /// columns with their suffixes.
  private func bind(_ join: SQLiteSchema.JoinTable, in file: inout FileSchema)
    throws(StoreError) -> SQLiteSchema.JoinTable
  {
    guard
      let actual = file.tables[join.name.uppercased()]
        ?? file.tables[join.alternativeName.uppercased()]
    else {
      let side = join.sides[0]
      throw file.mismatch(
        "the store has no join table \(join.name) (or \(join.alternativeName)) for the "
          + "relationship \(side.entity).\(side.relationship.name)")
    }
    let found = try file.columns(actual)
    var bound = join
    bound.name = actual
    for index in bound.sides.indices {
      bound.sides[index] = try bind(bound.sides[index], of: actual, columns: found, file: file)
    }
    return bound
  }

  /// One side of the join table `table`, its columns found among `found`.
  private func bind(
    _ side: SQLiteSchema.JoinTable.Side, of table: String, columns found: [String: String],
    file: FileSchema
  ) throws(StoreError) -> SQLiteSchema.JoinTable.Side {
    var bound = side
    var owners = FileSchema.column(side.ownerBase, in: found)
    var members = FileSchema.column(side.memberBase, in: found)
    if side.ownerBase == side.memberBase {
      // A relationship that is its own inverse: two columns of one base, the schema's names
      // where the file has them, else the plain name and the suffixed one.
      let names = [side.ownerColumn, side.memberColumn]
      if names.allSatisfy({ found[$0.uppercased()] != nil }) {
        owners = found[names[0].uppercased()]
        members = found[names[1].uppercased()]
      } else {
        let candidates = found.keys.filter { name in
          name.hasPrefix(side.ownerBase.uppercased())
            && name.dropFirst(side.ownerBase.count).allSatisfy(\.isNumber)
        }.sorted { ($0.count, $0) < ($1.count, $1) }
        owners = candidates.count == 2 ? found[candidates[0]] : nil
        members = candidates.count == 2 ? found[candidates[1]] : nil
      }
    }
    guard let owners, let members else {
      throw file.mismatch(
        "the join table \(table) has no column \(side.ownerBase) or \(side.memberBase) for "
          + "\(side.entity).\(side.relationship.name)")
    }
    bound.ownerColumn = owners
    bound.memberColumn = members
    if side.orderColumn != nil {
      let base = "Z_FOK_" + members.dropFirst(2)
      guard let order = FileSchema.column(base, in: found) else {
        throw file.mismatch(
          "the join table \(table) has no order column \(base) for the ordered "
            + "relationship \(side.entity).\(side.relationship.name)")
      }
      bound.orderColumn = order
    }
    return bound
  }

  /// The tables and columns a file has, by their names in upper case (SQLite's names are
  /// case-insensitive), each table's columns read once.
  private struct FileSchema {
    let database: SQLiteDatabase
    /// The file's name of each table, by its name in upper case.
    let tables: [String: String]
    private var columnsByTable: [String: [String: String]] = [:]

    init(_ database: SQLiteDatabase) throws(StoreError) {
      self.database = database
      var tables: [String: String] = [:]
      for name in try database.tableNames() { tables[name.uppercased()] = name }
      self.tables = tables
    }

    /// The file's name of each column of `table`, by its name in upper case.
    mutating func columns(_ table: String) throws(StoreError) -> [String: String] {
      if let known = columnsByTable[table] { return known }
      var found: [String: String] = [:]
      for column in try database.columns(of: table) {
        found[column.name.uppercased()] = column.name
      }
      columnsByTable[table] = found
      return found
    }

    /// The column named `base`, or `base` followed by digits (Core Data's clash suffix).
    static func column(_ base: String, in columns: [String: String]) -> String? {
      if let exact = columns[base.uppercased()] { return exact }
      let candidates = columns.keys.filter { name in
        name.hasPrefix(base.uppercased())
          && name.dropFirst(base.count).allSatisfy(\.isNumber)
      }
      return candidates.count == 1 ? columns[candidates[0]] : nil
    }

    func mismatch(_ message: String) -> StoreError {
      StoreError(.modelMismatch, message, at: InputLocation(file: database.path))
    }
  }

  /// What the schema's column `name` of `table` stores, for messages.
  private func describe(column name: String, table: String) -> String {
    for entity in schema.entities where entity.table == table {
      if let attribute = schema.attributes[entity.name]?.first(where: { $0.column == name }) {
        return "attribute \(entity.name).\(attribute.attribute.name)"
      }
      if let toOne = schema.toOnes[entity.name]?.first(where: {
        $0.column == name || $0.entityColumn == name
      }) {
        return "relationship \(entity.name).\(toOne.relationship.name)"
      }
    }
    return "column"
  }

  /// The file's name of the schema's column `column` in `table`.
  func column(_ column: String, of table: String) -> String {
    columnNames[table + "." + column] ?? column
  }

  func table(_ table: String) -> String { tableNames[table] ?? table }
}
