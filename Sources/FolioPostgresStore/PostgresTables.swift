import FolioModel
import FolioSQLiteStore
import FolioStores
internal import FolioSupport
import Foundation

/// Core Data's tables moved between a SQLite database and a document's PostgreSQL schema,
/// with each SQLite declared type translated to a PostgreSQL type and back
/// (`Formats/postgres-store.md` §2).
enum PostgresTables {
  /// The PostgreSQL type of a column SQLite declares `declared`.
  static func postgresType(ofDeclared declared: String, at place: String) throws(StoreError)
    -> String
  {
    let upper = declared.uppercased()
    if upper.hasPrefix("INTEGER") { return "bigint" }
    if upper.hasPrefix("FLOAT") || upper.hasPrefix("REAL") || upper.hasPrefix("DOUBLE")
      || upper.hasPrefix("TIMESTAMP")
    {
      return "double precision"
    }
    if upper.hasPrefix("DECIMAL") { return "numeric" }
    if upper.hasPrefix("VARCHAR") || upper.hasPrefix("TEXT") { return "text" }
    if upper.hasPrefix("BLOB") { return "bytea" }
    throw StoreError(
      .malformedStore,
      "\(place) has a column of type \"\(declared)\", which has no PostgreSQL type",
      at: InputLocation(file: place))
  }

  /// The SQLite type a column of PostgreSQL's `type` is copied into.
  static func sqliteType(ofPostgres type: String) -> String {
    switch type {
    case "bigint", "integer", "smallint": "INTEGER"
    case "double precision", "real": "FLOAT"
    case "numeric": "DECIMAL"
    case "bytea": "BLOB"
    default: "VARCHAR"
    }
  }

  // MARK: SQLite to PostgreSQL

  /// Creates every table of `source` in the connection's schema and copies its rows, then
  /// its indexes.
  static func copy(_ source: SQLiteTableCopy, into connection: PostgresConnection)
    throws(StoreError)
  {
    let q = Quoting.sqlIdentifier
    for table in try source.tables() {
      var types: [String] = []
      for column in table.columns {
        types.append(try postgresType(ofDeclared: column.declaredType, at: table.name))
      }
      var columns = zip(table.columns, types).map { q($0.0.name) + " " + $0.1 }
      if !table.primaryKey.isEmpty {
        columns.append("PRIMARY KEY (" + table.primaryKey.map(q).joined(separator: ", ") + ")")
      }
      try connection.execute(
        "CREATE TABLE \(connection.qualified(table.name)) (" + columns.joined(separator: ", ")
          + ")", at: table.name)
      try connection.copyIn(
        "COPY \(connection.qualified(table.name)) ("
          + table.columns.map { q($0.name) }.joined(separator: ", ") + ") FROM STDIN",
        at: table.name
      ) { writer throws(StoreError) in
        try source.forEachRow(of: table) { row throws(StoreError) in
          for (index, type) in types.enumerated() {
            try append(row, index, as: type, to: &writer, at: table.name)
          }
          writer.endRow()
          if writer.needsFlush { try writer.flush(into: connection, at: table.name) }
        }
      }
      for index in table.indexes {
        try connection.execute(
          "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(q(index.name)) ON "
            + connection.qualified(table.name) + " ("
            + index.columns.map(q).joined(separator: ", ") + ")", at: index.name)
      }
    }
  }

  private static func append(
    _ row: SQLiteTableCopy.Row, _ index: Int, as type: String,
    to writer: inout PostgresCopyWriter, at table: String
  ) throws(StoreError) {
    switch (row.kind(index), type) {
    case (.null, _): writer.appendNull()
    case (.integer, "bigint"), (.integer, "double precision"), (.integer, "numeric"):
      writer.append(row.int64(index))
    case (.real, "double precision"), (.real, "numeric"): writer.append(row.double(index))
    case (.text, "text"), (.text, "numeric"):
      let text = row.textBytes(index)
      guard !text.contains(0) else {
        throw StoreError(
          .typeMismatch, "\(table): PostgreSQL's text cannot hold a NUL character",
          at: InputLocation(file: table))
      }
      writer.append(text: text)
    case (.blob, "bytea"): writer.append(bytes: row.blob(index))
    case (let kind, _):
      throw StoreError(
        .typeMismatch, "\(table): a \(kind) value in a column of type \(type)",
        at: InputLocation(file: table))
    }
  }

  // MARK: PostgreSQL to SQLite

  /// The document's tables with their columns' PostgreSQL types, by name.
  static func tables(in connection: PostgresConnection) throws(StoreError)
    -> [(name: String, columns: [(name: String, type: String)])]
  {
    let rows = try connection.query(
      "SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c "
        + "JOIN information_schema.tables t ON t.table_schema = c.table_schema "
        + "AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE' "
        + "WHERE c.table_schema = $1 ORDER BY c.table_name, c.ordinal_position",
      [connection.location.schema], at: "information_schema")
    var tables: [(name: String, columns: [(name: String, type: String)])] = []
    for row in rows {
      let (table, column, type) = (row[0] ?? "", row[1] ?? "", row[2] ?? "")
      if tables.last?.name != table { tables.append((table, [])) }
      tables[tables.count - 1].columns.append((column, type))
    }
    return tables
  }

  /// Copies every table of the connection's schema that Core Data's layout names (`Z…`) into
  /// `target`, which is then committed.
  static func copy(from connection: PostgresConnection, into target: SQLiteTableCopy)
    throws(StoreError)
  {
    let q = Quoting.sqlIdentifier
    for (name, columns) in try tables(in: connection)
    where name.hasPrefix("Z") && name != PostgresHistory.table {
      let table = SQLiteTableCopy.Table(
        name: name, columns: columns.map { ($0.name, sqliteType(ofPostgres: $0.type)) },
        primaryKey: columns.contains { $0.name == "Z_PK" } ? ["Z_PK"] : [])
      try target.create(table)
      let insert = try target.inserter(into: table)
      try connection.copyOut(
        "COPY (SELECT " + columns.map { q($0.name) }.joined(separator: ", ") + " FROM "
          + connection.qualified(name) + ") TO STDOUT", at: name
      ) { row throws(StoreError) in
        let fields = row.fields()
        guard fields.count == columns.count else {
          throw StoreError(
            .malformedStore,
            "\(name): a row of \(fields.count) values for \(columns.count) columns",
            at: connection.location.inputLocation)
        }
        for (index, field) in fields.enumerated() {
          guard let field else {
            insert.bindNull(at: index)
            continue
          }
          try bind(field, as: columns[index].type, at: index, to: insert, in: name, connection)
        }
        try insert.run()
      }
    }
    try target.commit()
  }

  private static func bind(
    _ field: ArraySlice<UInt8>, as type: String, at index: Int, to insert: SQLiteTableCopy.Inserter,
    in table: String, _ connection: PostgresConnection
  ) throws(StoreError) {
    let bytes = CopyText.unescaped(field)
    let text = String(decoding: bytes, as: UTF8.self)
    func bad() -> StoreError {
      StoreError(
        .malformedStore, "\(table): \"\(text.prefix(40))\" is not a value of type \(type)",
        at: connection.location.inputLocation)
    }
    switch type {
    case "bigint", "integer", "smallint":
      guard let value = Int64(text) else { throw bad() }
      insert.bind(value, at: index)
    case "double precision", "real":
      let value: Double? =
        switch text {
        case "Infinity": .infinity
        case "-Infinity": -.infinity
        case "NaN": .nan
        default: Double(text)
        }
      guard let value else { throw bad() }
      insert.bind(value, at: index)
    case "bytea":
      guard let data = CopyText.bytea(bytes) else { throw bad() }
      insert.bind(data, at: index)
    default:
      insert.bind(text, at: index)
    }
  }
}
