import FolioModel
import FolioSQLiteStore
import FolioStores
internal import FolioSupport
import Foundation

/// A PostgreSQL document's statements for ``FolioSQLiteStore/RowChangeWriter``, which applies
/// one save's changes to the document's tables inside the caller's transaction, as a Core Data
/// SQLite store is changed in place. Tables are named as in a SQLite store, in the document's
/// schema; values go as text parameters.
///
/// A new object's key is one the client gave above every `Z_MAX` while it held the document's
/// lock (clients number the objects of every entity in one sequence), or one given before (an
/// object brought back, a key it reserved). A save made again after the server went away held
/// that lock no longer: another client may have given the same numbers meanwhile, to objects of
/// any entity, or reserved them. ``largestKeyWhenLocked``, the largest `Z_MAX` when the write
/// first took the lock, tells those keys: above it then, at or below the largest `Z_MAX` now.
struct PostgresChangeTarget: RowChangeTarget {
  let connection: PostgresConnection
  let schema: SQLiteSchema
  /// For a write begun again after it lost the document's lock, the largest `Z_MAX` when it
  /// first took it; `nil` while the write holds the lock it first took.
  let largestKeyWhenLocked: Int64?
  /// The numbers given while the write did not hold the lock, once asked.
  private var givenMeanwhile: ClosedRange<Int64>??

  init(connection: PostgresConnection, schema: SQLiteSchema, largestKeyWhenLocked: Int64?) {
    self.connection = connection
    self.schema = schema
    self.largestKeyWhenLocked = largestKeyWhenLocked
  }

  /// A row's version as a save compares it, as the SQLite store reads `Z_OPT`.
  static let version = "LEAST(GREATEST(COALESCE(\"Z_OPT\", 1), 1), 4294967295)"

  private func qualified(_ name: String) -> String { connection.qualified(name) }
  private let q = Quoting.sqlIdentifier

  var place: String { connection.location.url.absoluteString }
  var noun: String { "document" }
  var joinTables: [SQLiteSchema.JoinTable] { schema.joinTables }
  func table(_ name: String) -> String { name }
  func column(_ name: String, of table: String) -> String { name }
  func orderColumn(of owner: String, relationship: String, named column: String) -> String {
    column
  }

  mutating func wasGivenMeanwhile(_ key: Int64) throws(StoreError) -> Bool {
    guard let largestKeyWhenLocked else { return false }
    if givenMeanwhile == nil {
      let largest = try PostgresStore.largestKeyGiven(in: connection)
      givenMeanwhile = largest > largestKeyWhenLocked ? (largestKeyWhenLocked + 1)...largest : nil
    }
    return givenMeanwhile??.contains(key) == true
  }

  private func parameters(_ columns: [RowColumn]) throws(StoreError) -> [String?] {
    var result: [String?] = []
    for column in columns {
      switch column.value {
      case .attribute(let value, let attribute, let entity):
        result.append(try PostgresValues.parameter(value, attribute: attribute, entity: entity))
      case .integer(let value): result.append(value.map { String($0) })
      }
    }
    return result
  }

  mutating func largestKey(root: Int) throws(StoreError) -> Int64 {
    let rows = try connection.query(
      "SELECT \"Z_MAX\" FROM \(qualified("Z_PRIMARYKEY")) WHERE \"Z_ENT\" = $1", [String(root)],
      at: "Z_PRIMARYKEY")
    return rows.first?[0].flatMap { Int64($0) } ?? 0
  }

  mutating func advanceLargestKey(root: Int, to key: Int64) throws(StoreError) {
    try connection.run(
      "UPDATE \(qualified("Z_PRIMARYKEY")) SET \"Z_MAX\" = $1 WHERE \"Z_ENT\" = $2 "
        + "AND (\"Z_MAX\" IS NULL OR \"Z_MAX\" < $1)", [String(key), String(root)],
      at: "Z_PRIMARYKEY")
  }

  mutating func rowExists(table: String, key: Int64) throws(StoreError) -> Bool {
    try !connection.query(
      "SELECT 1 FROM \(qualified(table)) WHERE \"Z_PK\" = $1", [String(key)], at: table
    ).isEmpty
  }

  mutating func insertRow(table: String, key: Int64, entity: Int, columns: [RowColumn])
    throws(StoreError)
  {
    let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columns.map(\.column)
    try connection.run(
      "INSERT INTO \(qualified(table)) (" + names.map(q).joined(separator: ", ")
        + ") VALUES (" + names.indices.map { "$\($0 + 1)" }.joined(separator: ", ") + ")",
      [String(key), String(entity), "1"] + parameters(columns),
      at: "\(table) row Z_PK \(key)")
  }

  mutating func updateRow(table: String, key: Int64, version: UInt32, columns: [RowColumn])
    throws(StoreError) -> Bool
  {
    let sets =
      columns.enumerated().map { "\(q($0.element.column)) = $\($0.offset + 1)" }
      + ["\"Z_OPT\" = \(Self.version) + 1"]
    let changed = try connection.run(
      "UPDATE \(qualified(table)) SET " + sets.joined(separator: ", ")
        + " WHERE \"Z_PK\" = $\(columns.count + 1) AND \(Self.version) = $\(columns.count + 2)",
      try parameters(columns) + [String(key), String(version)], at: "\(table) row Z_PK \(key)")
    return changed == 1
  }

  mutating func deleteRow(table: String, key: Int64, version: UInt32) throws(StoreError) -> Bool {
    try connection.run(
      "DELETE FROM \(qualified(table)) WHERE \"Z_PK\" = $1 AND \(Self.version) = $2",
      [String(key), String(version)], at: "\(table) row Z_PK \(key)") != 0
  }

  mutating func deleteJoinRows(join: String, column: String, owner: Int64) throws(StoreError) {
    try connection.run(
      "DELETE FROM \(qualified(join)) WHERE \(q(column)) = $1", [String(owner)], at: join)
  }

  mutating func addJoinRow(join: String, owner: (String, Int64), member: (String, Int64))
    throws(StoreError)
  {
    try connection.run(
      "INSERT INTO \(qualified(join)) (\(q(owner.0)), \(q(member.0))) VALUES ($1, $2) "
        + "ON CONFLICT DO NOTHING", [String(owner.1), String(member.1)], at: join)
  }

  mutating func removeJoinRow(join: String, owner: (String, Int64), member: (String, Int64))
    throws(StoreError)
  {
    try connection.run(
      "DELETE FROM \(qualified(join)) WHERE \(q(owner.0)) = $1 AND \(q(member.0)) = $2",
      [String(owner.1), String(member.1)], at: join)
  }

  mutating func setOrder(table: String, column: String, key: Int64, to position: Int64)
    throws(StoreError)
  {
    try connection.run(
      "UPDATE \(qualified(table)) SET \(q(column)) = $1 WHERE \"Z_PK\" = $2",
      [String(position), String(key)], at: table)
  }

  mutating func setJoinOrder(
    join: String, column: String, owner: (String, Int64), member: (String, Int64),
    to position: Int64
  ) throws(StoreError) {
    try connection.run(
      "UPDATE \(qualified(join)) SET \(q(column)) = $1 WHERE \(q(owner.0)) = $2 "
        + "AND \(q(member.0)) = $3", [String(position), String(owner.1), String(member.1)],
      at: join)
  }
}
