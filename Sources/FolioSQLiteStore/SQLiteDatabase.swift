import CFolioSQLite
import CSQLite
import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

/// A connection to one SQLite database file, through the system's libsqlite3.
///
/// Every statement is prepared from text Folio writes; names that come from a model or a file
/// (tables, columns) are quoted with `Quoting.sqlIdentifier(_:)`, and values are always bound, never spliced
/// into SQL. Errors name the file and, where the caller says, the table, column and row.
final class SQLiteDatabase {
  private(set) var handle: OpaquePointer?
  /// The database file, for error locations.
  let path: String

  /// Opens the database at `path`. Read-only connections never create the file.
  ///
  /// - Throws: `StoreError.unreadable` when the file cannot be opened.
  /// With `uri`, `ATTACH` takes `file:` URIs (``uri(readingOnly:)``).
  init(path: String, readOnly: Bool, create: Bool = false, uri: Bool = false) throws(StoreError) {
    #if FOLIO_TEST_HOOKS
      Self.installCrashPoint()
    #endif
    self.path = path
    var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
    if uri { flags |= SQLITE_OPEN_URI }
    flags |= readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
    if create { flags |= SQLITE_OPEN_CREATE }
    var db: OpaquePointer?
    let code = sqlite3_open_v2(path, &db, flags, nil)
    handle = db
    guard code == SQLITE_OK else {
      let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close_v2(db)
      handle = nil
      throw StoreError(
        .unreadable, "cannot open the SQLite database: \(message)",
        at: InputLocation(file: path))
    }
    sqlite3_extended_result_codes(db, 1)
    if !readOnly { folio_sqlite_define_core_data_functions(db) }
    // A database another process holds is waited for a little, then reported as locked.
    sqlite3_busy_timeout(db, 2_000)
  }

  deinit { close() }

  #if FOLIO_TEST_HOOKS
    /// A process started with `FOLIO_TEST_KILL_BEFORE_SQLITE_OPERATION=N` in its environment (a
    /// debug `folio` that a crash-safety test runs) kills itself just before the Nth operation that
    /// changes a file SQLite writes: a crash at a chosen point of a save. Nothing otherwise.
    private static let crashPoint: Void = {
      let name = "FOLIO_TEST_KILL_BEFORE_SQLITE_OPERATION"
      if let text = ProcessInfo.processInfo.environment[name], let point = Int64(text), point > 0 {
        _ = folio_sqlite_kill_before_operation(point)
      }
    }()

    private static func installCrashPoint() { _ = crashPoint }
  #endif

  /// Closes the connection; statements must have been finalized.
  func close() {
    if let handle { sqlite3_close_v2(handle) }
    handle = nil
  }

  /// A `file:` URI naming the database at `path` to be opened read-only: `%`, `?` and `#`
  /// escaped, so no part of the path reads as a query.
  static func uri(readingOnly path: String) -> String {
    var text = "file:"
    for character in path.unicodeScalars {
      switch character {
      case "%": text += "%25"
      case "?": text += "%3F"
      case "#": text += "%23"
      default: text.unicodeScalars.append(character)
      }
    }
    return text + "?mode=ro"
  }

  /// The last error of the connection, as a store error naming `place`.
  func error(_ what: String, code: Int32, at place: String? = nil) -> StoreError {
    let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection"
    let primary = code & 0xFF
    let errorCode: StoreError.Code
    switch primary {
    case SQLITE_CORRUPT, SQLITE_NOTADB: errorCode = .malformedStore
    case SQLITE_BUSY, SQLITE_LOCKED: errorCode = .busy
    case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH:
      errorCode = .unreadable
    case SQLITE_FULL, SQLITE_IOERR: errorCode = .writeFailed
    default: errorCode = .malformedStore
    }
    var text = "\(what): \(message)"
    if primary == SQLITE_BUSY || primary == SQLITE_LOCKED {
      text += " (another program holds the database locked)"
    }
    return StoreError(
      errorCode, text, at: InputLocation(file: place.map { "\(path) \($0)" } ?? path))
  }

  /// Runs `sql`, which may hold several statements and binds nothing.
  func execute(_ sql: String, at place: String? = nil) throws(StoreError) {
    let code = sqlite3_exec(handle, sql, nil, nil, nil)
    guard code == SQLITE_OK else { throw error("SQL failed", code: code, at: place) }
  }

  /// A prepared statement for `sql`.
  func prepare(_ sql: String, at place: String? = nil) throws(StoreError) -> SQLiteStatement {
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
    guard code == SQLITE_OK, let statement else {
      throw error("cannot prepare a statement", code: code, at: place)
    }
    return SQLiteStatement(statement, database: self, place: place)
  }

  /// The single integer `sql` yields, or `nil` when it yields no row or NULL.
  func integer(_ sql: String, at place: String? = nil) throws(StoreError) -> Int64? {
    let statement = try prepare(sql, at: place)
    guard try statement.step() else { return nil }
    return statement.isNull(0) ? nil : statement.int64(0)
  }

  /// The names of the tables in the database, as it spells them.
  func tableNames() throws(StoreError) -> [String] {
    let statement = try prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table'", at: "sqlite_master")
    var names: [String] = []
    while try statement.step() { names.append(statement.text(0) ?? "") }
    return names
  }

  /// The columns of `table` with their declared types, in order.
  func columns(of table: String) throws(StoreError) -> [(name: String, type: String)] {
    let statement = try prepare("PRAGMA table_info(\(Quoting.sqlIdentifier(table)))", at: table)
    var columns: [(String, String)] = []
    while try statement.step() {
      columns.append((statement.text(1) ?? "", statement.text(2) ?? ""))
    }
    return columns
  }

  /// Runs `body`, asking `isCancelled` every hundred thousand steps of SQLite's virtual
  /// machine; when it returns `true` the running statement stops with `SQLITE_INTERRUPT`, and
  /// `body` throws.
  func interruptible<T>(when isCancelled: (() -> Bool)?, _ body: () throws(StoreError) -> T)
    throws(StoreError) -> T
  {
    guard let isCancelled else { return try body() }
    let check = CancellationCheck(isCancelled)
    sqlite3_progress_handler(
      handle, 100_000,
      { context in
        guard let context else { return 0 }
        return Unmanaged<CancellationCheck>.fromOpaque(context).takeUnretainedValue().asks()
          ? 1 : 0
      }, Unmanaged.passUnretained(check).toOpaque())
    defer {
      sqlite3_progress_handler(handle, 0, nil, nil)
      withExtendedLifetime(check) {}
    }
    return try body()
  }

  /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
  func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
    try execute("BEGIN IMMEDIATE")
    do {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }
}

/// The question a long statement asks SQLite's progress handler.
private final class CancellationCheck {
  let asks: () -> Bool
  init(_ asks: @escaping () -> Bool) { self.asks = asks }
}

/// One prepared statement. Finalized when released.
final class SQLiteStatement {
  private let statement: OpaquePointer
  private unowned let database: SQLiteDatabase
  private let place: String?

  fileprivate init(_ statement: OpaquePointer, database: SQLiteDatabase, place: String?) {
    self.statement = statement
    self.database = database
    self.place = place
  }

  deinit { sqlite3_finalize(statement) }

  /// Steps to the next row: `true` when there is one, `false` when the statement is done.
  func step(at row: @autoclosure () -> String? = nil) throws(StoreError) -> Bool {
    let code = sqlite3_step(statement)
    switch code {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      let location = [place, row()].compactMap { $0 }.joined(separator: " ")
      throw database.error("cannot read", code: code, at: location.isEmpty ? nil : location)
    }
  }

  /// Runs a statement that yields no rows.
  func run(at row: @autoclosure () -> String? = nil) throws(StoreError) {
    while try step(at: row()) {}
  }

  /// Makes the statement ready to run again, its bindings cleared.
  func reset() {
    sqlite3_reset(statement)
    sqlite3_clear_bindings(statement)
  }

  var columnCount: Int { Int(sqlite3_column_count(statement)) }

  func columnName(_ index: Int) -> String {
    sqlite3_column_name(statement, Int32(index)).map { String(cString: $0) } ?? ""
  }

  /// The storage class of the value in `index`: `SQLITE_INTEGER`, `SQLITE_FLOAT`,
  /// `SQLITE_TEXT`, `SQLITE_BLOB` or `SQLITE_NULL`.
  func type(_ index: Int) -> Int32 { sqlite3_column_type(statement, Int32(index)) }

  func isNull(_ index: Int) -> Bool { type(index) == SQLITE_NULL }

  func int64(_ index: Int) -> Int64 { sqlite3_column_int64(statement, Int32(index)) }

  func double(_ index: Int) -> Double { sqlite3_column_double(statement, Int32(index)) }

  /// The text in `index` as UTF-8, or `nil` for NULL; bytes that are not UTF-8 are repaired
  /// by the caller's check, so they are returned as read.
  func text(_ index: Int) -> String? {
    guard let pointer = sqlite3_column_text(statement, Int32(index)) else { return nil }
    let count = Int(sqlite3_column_bytes(statement, Int32(index)))
    return String(
      decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
  }

  /// The text in `index`, or `nil` for NULL or bytes that are not UTF-8.
  func validatedText(_ index: Int) -> String? {
    guard let pointer = sqlite3_column_text(statement, Int32(index)) else { return nil }
    let count = Int(sqlite3_column_bytes(statement, Int32(index)))
    let bytes = UnsafeBufferPointer(start: pointer, count: count)
    // Decoding repairs bad bytes, so the text is valid exactly when it reads back as given;
    // this spares the unspecialized validating initializer, which dominates reading text.
    var text = String(decoding: bytes, as: UTF8.self)
    let isSame = text.withUTF8 { decoded in
      guard decoded.count == count, let base = decoded.baseAddress else { return count == 0 }
      return memcmp(base, pointer, count) == 0
    }
    return isSame ? text : nil
  }

  func blob(_ index: Int) -> Data? {
    guard type(index) != SQLITE_NULL else { return nil }
    let count = Int(sqlite3_column_bytes(statement, Int32(index)))
    guard count > 0, let pointer = sqlite3_column_blob(statement, Int32(index)) else {
      return Data()
    }
    return Data(bytes: pointer, count: count)
  }

  // MARK: Binding (1-based, as SQLite counts)

  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  func bind(_ value: Int64, at index: Int) { sqlite3_bind_int64(statement, Int32(index), value) }

  func bind(_ value: Double, at index: Int) { sqlite3_bind_double(statement, Int32(index), value) }

  /// Binds every byte of `value`, a NUL character included: SQLite takes text by length.
  func bind(_ value: String, at index: Int) {
    var value = value
    value.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { chars in
        // An empty string is bound as empty text, not NULL: any valid pointer will do.
        let start = chars.baseAddress ?? UnsafePointer(bitPattern: 1)
        _ = sqlite3_bind_text64(
          statement, Int32(index), start, sqlite3_uint64(chars.count), Self.transient,
          UInt8(SQLITE_UTF8))
      }
    }
  }

  func bind(_ value: Data, at index: Int) {
    value.withUnsafeBytes { raw in
      // An empty blob is bound as a zero-length blob, not NULL.
      _ = sqlite3_bind_blob64(
        statement, Int32(index), raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
        sqlite3_uint64(raw.count), Self.transient)
    }
  }

  func bindNull(at index: Int) { sqlite3_bind_null(statement, Int32(index)) }
}
