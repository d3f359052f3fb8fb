import CSQLite
import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

/// A SQLite database's tables as they are, row by row, for copying them into or out of
/// another database that keeps Core Data's layout (PostgreSQL): the tables, their columns and
/// declared types, primary keys and indexes, and each value with its storage class.
package final class SQLiteTableCopy {
  /// A table: its columns in order, with their declared types, its primary key and indexes.
  package struct Table: Sendable {
    package var name: String
    package var columns: [(name: String, declaredType: String)]
    package var primaryKey: [String]
    package var indexes: [(name: String, isUnique: Bool, columns: [String])]

    package init(
      name: String, columns: [(name: String, declaredType: String)], primaryKey: [String] = [],
      indexes: [(name: String, isUnique: Bool, columns: [String])] = []
    ) {
      (self.name, self.columns, self.primaryKey, self.indexes) = (
        name, columns, primaryKey, indexes
      )
    }
  }

  /// A value's storage class.
  package enum Kind { case null, integer, real, text, blob }

  /// The row a read is on; valid only inside the closure it is given to.
  package struct Row {
    fileprivate let statement: SQLiteStatement
    package func kind(_ index: Int) -> Kind {
      switch statement.type(index) {
      case SQLITE_NULL: .null
      case SQLITE_INTEGER: .integer
      case SQLITE_FLOAT: .real
      case SQLITE_TEXT: .text
      default: .blob
      }
    }
    package func int64(_ index: Int) -> Int64 { statement.int64(index) }
    package func double(_ index: Int) -> Double { statement.double(index) }
    /// A text value's UTF-8 bytes, all of them (a NUL included).
    package func textBytes(_ index: Int) -> Data { statement.blob(index) ?? Data() }
    package func blob(_ index: Int) -> Data { statement.blob(index) ?? Data() }
  }

  /// Inserts rows into one table: bind every column of a row by its position from 0, then
  /// ``run()``.
  package final class Inserter {
    fileprivate let statement: SQLiteStatement
    fileprivate let table: String
    fileprivate init(_ statement: SQLiteStatement, table: String) {
      (self.statement, self.table) = (statement, table)
    }
    package func run() throws(StoreError) {
      try statement.run(at: table)
      statement.reset()
    }
    package func bind(_ value: Int64, at index: Int) { statement.bind(value, at: index + 1) }
    package func bind(_ value: Double, at index: Int) { statement.bind(value, at: index + 1) }
    package func bind(_ value: String, at index: Int) { statement.bind(value, at: index + 1) }
    package func bind(_ value: Data, at index: Int) { statement.bind(value, at: index + 1) }
    package func bindNull(at index: Int) { statement.bindNull(at: index + 1) }
  }

  private let database: SQLiteDatabase

  /// Opens the database at `url` for reading its tables.
  package init(reading url: URL) throws(StoreError) {
    database = try SQLiteDatabase(path: url.path, readOnly: true)
  }

  /// Creates a new, empty database at `url` to copy tables into, in one transaction that
  /// ``commit()`` ends. It keeps no journal: it is thrown away if anything fails.
  package init(creating url: URL) throws(StoreError) {
    database = try SQLiteDatabase(path: url.path, readOnly: false, create: true)
    try database.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN")
  }

  package func commit() throws(StoreError) {
    try database.execute("COMMIT")
    database.close()
  }

  /// Every table but SQLite's own, by name.
  package func tables() throws(StoreError) -> [Table] {
    var tables: [Table] = []
    for name in try database.tableNames().sorted() where !name.hasPrefix("sqlite_") {
      let q = Quoting.sqlIdentifier(name)
      let info = try database.prepare("PRAGMA table_info(\(q))", at: name)
      var columns: [(String, String)] = []
      var keyed: [(position: Int64, name: String)] = []
      while try info.step() {
        columns.append((info.text(1) ?? "", info.text(2) ?? ""))
        if info.int64(5) > 0 { keyed.append((info.int64(5), info.text(1) ?? "")) }
      }
      var indexes: [(String, Bool, [String])] = []
      let list = try database.prepare("PRAGMA index_list(\(q))", at: name)
      while try list.step() {
        // Indexes SQLite made for a primary key or UNIQUE clause come with the table.
        guard list.text(3) == "c", let index = list.text(1) else { continue }
        let members = try database.prepare(
          "PRAGMA index_info(\(Quoting.sqlIdentifier(index)))", at: index)
        var names: [String] = []
        while try members.step() { names.append(members.text(2) ?? "") }
        indexes.append((index, list.int64(2) != 0, names))
      }
      tables.append(
        Table(
          name: name, columns: columns,
          primaryKey: keyed.sorted { $0.position < $1.position }.map(\.name), indexes: indexes))
    }
    return tables
  }

  /// Hands each row of `table`, its columns in the table's order, to `body`.
  package func forEachRow(of table: Table, _ body: (Row) throws(StoreError) -> Void)
    throws(StoreError)
  {
    let statement = try database.prepare(
      "SELECT " + table.columns.map { Quoting.sqlIdentifier($0.name) }.joined(separator: ", ")
        + " FROM " + Quoting.sqlIdentifier(table.name), at: table.name)
    let row = Row(statement: statement)
    while try statement.step() { try body(row) }
  }

  /// Creates `table` with its columns' declared types and its primary key.
  package func create(_ table: Table) throws(StoreError) {
    let q = Quoting.sqlIdentifier
    var columns = table.columns.map { column in
      let single = table.primaryKey == [column.name]
      return q(column.name) + " " + column.declaredType + (single ? " PRIMARY KEY" : "")
    }
    if table.primaryKey.count > 1 {
      columns.append("PRIMARY KEY (" + table.primaryKey.map(q).joined(separator: ", ") + ")")
    }
    try database.execute(
      "CREATE TABLE \(q(table.name)) (" + columns.joined(separator: ", ") + ")", at: table.name)
  }

  /// An inserter of rows into `table`.
  package func inserter(into table: Table) throws(StoreError) -> Inserter {
    let q = Quoting.sqlIdentifier
    let statement = try database.prepare(
      "INSERT INTO \(q(table.name)) (" + table.columns.map { q($0.name) }.joined(separator: ", ")
        + ") VALUES (" + Array(repeating: "?", count: table.columns.count).joined(separator: ", ")
        + ")", at: table.name)
    return Inserter(statement, table: table.name)
  }
}
