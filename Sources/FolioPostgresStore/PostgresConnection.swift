import CLibPQ
import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

/// One connection to a PostgreSQL server through libpq, used from one thread at a time.
///
/// Statements are sent as text with text parameters; bulk rows travel by `COPY` in
/// PostgreSQL's text format (``PostgresCopyWriter``, ``PostgresCopyRow``). Every failure is a
/// `StoreError` naming the document's URL and what was being done, with the server's message
/// and its SQLSTATE.
final class PostgresConnection {
  let location: PostgresLocation
  private let handle: OpaquePointer
  /// Whether the connection goes back to the pool when it is done with (``PostgresPool``):
  /// not one that listens for notifications, which it would keep listening for.
  var returnsToPool = true
  /// Whether the connection has run nothing yet: the server may have closed it since it was
  /// made or pooled (a restart), without its end having reached this side.
  private var mayBeStale = true

  /// Runs `send`; when it is the connection's first statement and finds the connection closed,
  /// once more on a new one, waiting a while for a server that is restarting. Nothing ran
  /// before on the connection, so nothing is lost with it.
  private func sending(_ send: () -> OpaquePointer?) -> OpaquePointer? {
    let result = send()
    guard mayBeStale else { return result }
    mayBeStale = false
    guard PQstatus(handle) != CONNECTION_OK else { return result }
    try? revive(patience: Self.patience)
    guard isConnected else { return result }
    PQclear(result)
    return send()
  }

  /// How long a connection waits for a server that went away (a restart) to take connections
  /// again, as a save waits for another writer's lock.
  static let patience = 10.0

  /// A connection to the server `location` names: an idle one from the pool when there is one,
  /// else a new one.
  ///
  /// - Throws: `StoreError.unreadable` when the server cannot be reached or refuses the
  ///   connection (libpq's message: no such host, no such database, password required).
  init(_ location: PostgresLocation) throws(StoreError) {
    self.location = location
    if let pooled = PostgresPool.shared.take(location.connectionString) {
      handle = pooled
      return
    }
    guard let handle = PQconnectdb(location.connectionString) else {
      throw StoreError(
        .unreadable, "cannot connect to the server: out of memory", at: location.inputLocation)
    }
    // A server this process was connected to, refusing now, is waited for as a restart is; so
    // is any server that answers it is starting up or shutting down (SQLSTATE 57P03, which
    // libpq gives only as the server's message): it is there, and will take connections.
    let deadline = Date().addingTimeInterval(Self.patience)
    while PQstatus(handle) != CONNECTION_OK,
      PostgresPool.shared.isKnown(location.connectionString)
        || Self.isRestarting(Self.trimmed(PQerrorMessage(handle))),
      Date() < deadline
    {
      usleep(100_000)
      PQreset(handle)
    }
    guard PQstatus(handle) == CONNECTION_OK else {
      let message = Self.trimmed(PQerrorMessage(handle))
      PQfinish(handle)
      throw StoreError(
        .unreadable, "cannot connect to the server: \(message)", at: location.inputLocation)
    }
    PostgresPool.shared.noteConnected(location.connectionString)
    self.handle = handle
    // The server's notices ("schema … does not exist, skipping") are not the user's business;
    // libpq would print them on standard error.
    PQsetNoticeProcessor(handle, { _, _ in }, nil)
  }

  /// Whether a failed connection's message says the server is starting up, shutting down or
  /// recovering: a restart under way.
  static func isRestarting(_ message: String) -> Bool {
    [
      "the database system is starting up", "the database system is shutting down",
      "the database system is in recovery mode",
      "the database system is not yet accepting connections",
    ]
    .contains { message.contains($0) }
  }

  deinit {
    // A connection in a transaction, or broken, is closed; the server rolls back what it had.
    if returnsToPool, isConnected, PQtransactionStatus(handle) == PQTRANS_IDLE {
      PostgresPool.shared.give(handle, for: location.connectionString)
    } else {
      PQfinish(handle)
    }
  }

  /// `table` in the document's schema, quoted: `"folio"."ZAUTHOR"`.
  func qualified(_ table: String) -> String {
    Quoting.sqlIdentifier(location.schema) + "." + Quoting.sqlIdentifier(table)
  }

  /// The document's schema, quoted.
  var quotedSchema: String { Quoting.sqlIdentifier(location.schema) }

  /// Whether the document's schema holds `table`: one lookup in the catalog (`to_regclass`),
  /// where a query of `information_schema` takes some milliseconds.
  func hasTable(_ table: String) throws(StoreError) -> Bool {
    try query("SELECT to_regclass($1) IS NOT NULL", [qualified(table)], at: table)
      .first?[0] == "t"
  }

  /// Runs `sql`, which may hold several statements, ignoring any rows.
  func execute(_ sql: String, at place: String? = nil) throws(StoreError) {
    let result = sending { PQexec(handle, sql) }
    defer { PQclear(result) }
    try check(result, expecting: [PGRES_COMMAND_OK, PGRES_TUPLES_OK], at: place)
  }

  /// The rows `sql` returns, each value as text (`nil` for NULL); `$1`… take `parameters`.
  func query(_ sql: String, _ parameters: [String?] = [], at place: String? = nil)
    throws(StoreError) -> [[String?]]
  {
    let result = sending {
      Self.withCStrings(parameters) { pointers in
        PQexecParams(handle, sql, Int32(parameters.count), nil, pointers, nil, nil, 0)
      }
    }
    defer { PQclear(result) }
    try check(result, expecting: [PGRES_COMMAND_OK, PGRES_TUPLES_OK], at: place)
    let rows = Int(PQntuples(result))
    let columns = Int(PQnfields(result))
    var found: [[String?]] = []
    found.reserveCapacity(rows)
    for row in 0..<rows {
      found.append(
        (0..<columns).map { column in
          PQgetisnull(result, Int32(row), Int32(column)) != 0
            ? nil : String(cString: PQgetvalue(result, Int32(row), Int32(column)))
        })
    }
    return found
  }

  /// Runs `sql` with `parameters` (`$1`…, as text); returns how many rows it changed.
  @discardableResult
  func run(_ sql: String, _ parameters: [String?] = [], at place: String? = nil)
    throws(StoreError) -> Int
  {
    let result = sending {
      Self.withCStrings(parameters) { pointers in
        PQexecParams(handle, sql, Int32(parameters.count), nil, pointers, nil, nil, 0)
      }
    }
    defer { PQclear(result) }
    try check(result, expecting: [PGRES_COMMAND_OK, PGRES_TUPLES_OK], at: place)
    return PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
  }

  // MARK: The connection itself

  /// Whether the connection to the server is up, as libpq last found it.
  var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

  /// Whether the connection is still up: what the server sent is read without waiting, so a
  /// connection the server closed (a restart) is found closed now rather than at its next
  /// statement.
  var isAlive: Bool { !isEnding && Self.isAlive(handle) }

  /// Whether the server said it ends the connection, its end perhaps still on the way.
  private var isEnding = false

  static func isAlive(_ handle: OpaquePointer) -> Bool {
    // A server that ends a connection sends why, then closes it: the first read takes the
    // message, the second finds the end.
    PQconsumeInput(handle) == 1 && PQconsumeInput(handle) == 1
      && PQstatus(handle) == CONNECTION_OK
  }

  /// Connects again when the connection is no longer up, waiting up to `patience` seconds
  /// for the server to take connections again (it may be restarting).
  ///
  /// - Throws: `StoreError.unreadable` when it does not within that time.
  func revive(patience: Double) throws(StoreError) {
    guard !isAlive else { return }
    let deadline = Date().addingTimeInterval(patience)
    while true {
      PQreset(handle)
      revivals += 1
      if isConnected {
        isEnding = false
        return
      }
      guard Date() < deadline else {
        throw StoreError(
          .unreadable,
          "the connection to the server was lost and the server took no new one for "
            + "\(Int(patience)) s: " + Self.trimmed(PQerrorMessage(handle)),
          at: location.inputLocation)
      }
      usleep(100_000)
    }
  }

  /// How many times the connection was made again (``revive(patience:)``).
  private(set) var revivals = 0

  /// The connection's socket, or -1.
  var socket: Int32 { PQsocket(handle) }

  /// This connection's server process, which names it in notifications.
  var serverProcess: Int32 { PQbackendPID(handle) }

  /// Whether another server process sent a notification this connection listens for since
  /// the last call; reads what the server sent without waiting.
  func takeNotifications() -> Bool {
    _ = PQconsumeInput(handle)
    let own = serverProcess
    var fromOthers = false
    while let notification = PQnotifies(handle) {
      if notification.pointee.be_pid != own { fromOthers = true }
      PQfreemem(notification)
    }
    return fromOthers
  }

  /// Runs `COPY … FROM STDIN` and sends what `body` writes: rows in PostgreSQL's text format.
  func copyIn(
    _ sql: String, at place: String,
    _ body: (inout PostgresCopyWriter) throws(StoreError) -> Void
  ) throws(StoreError) {
    let result = sending { PQexec(handle, sql) }
    defer { PQclear(result) }
    try check(result, expecting: [PGRES_COPY_IN], at: place)
    var writer = PostgresCopyWriter()
    do throws(StoreError) {
      try body(&writer)
      try writer.flush(into: self, at: place)
    } catch {
      _ = PQputCopyEnd(handle, "the client gave up")
      drainResults()
      throw error
    }
    guard PQputCopyEnd(handle, nil) == 1 else { throw connectionError(at: place) }
    try finishResults(at: place)
  }

  /// Sends `bytes` of a `COPY … FROM STDIN` under way.
  func sendCopyData(_ bytes: UnsafeRawBufferPointer, at place: String) throws(StoreError) {
    guard !bytes.isEmpty else { return }
    let sent = bytes.withMemoryRebound(to: CChar.self) { chars in
      PQputCopyData(handle, chars.baseAddress, Int32(chars.count))
    }
    guard sent == 1 else { throw connectionError(at: place) }
  }

  /// Runs `COPY … TO STDOUT` in text format and hands each row to `row`.
  func copyOut(
    _ sql: String, at place: String, _ row: (PostgresCopyRow) throws(StoreError) -> Void
  ) throws(StoreError) {
    let result = sending { PQexec(handle, sql) }
    defer { PQclear(result) }
    try check(result, expecting: [PGRES_COPY_OUT], at: place)
    var failure: StoreError?
    while true {
      var buffer: UnsafeMutablePointer<CChar>?
      let length = PQgetCopyData(handle, &buffer, 0)
      if length == -1 { break }
      guard length >= 0, let buffer else { throw connectionError(at: place) }
      defer { PQfreemem(buffer) }
      // After a failure the rest of the rows are read and dropped: the connection stays
      // usable.
      guard failure == nil else { continue }
      do throws(StoreError) {
        try row(
          PostgresCopyRow(
            UnsafeRawBufferPointer(start: UnsafeRawPointer(buffer), count: Int(length))))
      } catch {
        failure = error
      }
    }
    try finishResults(at: place)
    if let failure { throw failure }
  }

  /// The PostgreSQL type (its OID) of each column `sql` returns.
  func columnTypes(of sql: String, at place: String) throws(StoreError) -> [UInt32] {
    let result = sending { PQexec(handle, "SELECT * FROM (\(sql)) AS folio_columns LIMIT 0") }
    defer { PQclear(result) }
    try check(result, expecting: [PGRES_TUPLES_OK], at: place)
    return (0..<Int(PQnfields(result))).map { PQftype(result, Int32($0)) }
  }

  /// Starts `COPY … TO STDOUT`, whose rows ``nextCopyRow(at:)`` then reads.
  func startCopyOut(_ sql: String, at place: String) throws(StoreError) {
    let result = sending { PQexec(handle, sql) }
    defer { PQclear(result) }
    try check(result, expecting: [PGRES_COPY_OUT], at: place)
  }

  /// The next row of the `COPY … TO STDOUT` under way, which the caller frees with
  /// `PQfreemem`; `nil` when there are no more, the statement's result then checked.
  func nextCopyRow(at place: String) throws(StoreError)
    -> (UnsafeMutablePointer<CChar>, Int)?
  {
    var buffer: UnsafeMutablePointer<CChar>?
    let length = PQgetCopyData(handle, &buffer, 0)
    if length == -1 {
      try finishResults(at: place)
      return nil
    }
    guard length >= 0, let buffer else { throw connectionError(at: place) }
    return (buffer, Int(length))
  }

  /// Reads and drops the rest of a `COPY … TO STDOUT` under way.
  func finishCopyOut(at place: String) throws(StoreError) {
    while let (row, _) = try nextCopyRow(at: place) { PQfreemem(row) }
  }

  // MARK: Results and errors

  private func finishResults(at place: String) throws(StoreError) {
    var failure: StoreError?
    while let next = PQgetResult(handle) {
      defer { PQclear(next) }
      if failure == nil {
        do throws(StoreError) {
          try check(next, expecting: [PGRES_COMMAND_OK], at: place)
        } catch {
          failure = error
        }
      }
    }
    if let failure { throw failure }
  }

  private func drainResults() {
    while let next = PQgetResult(handle) { PQclear(next) }
  }

  private func check(_ result: OpaquePointer?, expecting: [ExecStatusType], at place: String?)
    throws(StoreError)
  {
    guard let result else { throw connectionError(at: place) }
    let status = PQresultStatus(result)
    guard !expecting.contains(status) else { return }
    let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
    // The server ending the connection (a shutdown, an administrator) or the connection
    // failing: it is lost, whether or not its end has reached this side yet.
    if let state, state.hasPrefix("57P") || state.hasPrefix("08") { isEnding = true }
    let message = Self.trimmed(PQresultErrorMessage(result))
    throw StoreError(
      Self.code(ofState: state),
      (place.map { "\($0): " } ?? "") + message + (state.map { " (SQLSTATE \($0))" } ?? ""),
      at: location.inputLocation)
  }

  private func connectionError(at place: String?) -> StoreError {
    StoreError(
      .unreadable,
      (place.map { "\($0): " } ?? "") + "the connection failed: "
        + Self.trimmed(PQerrorMessage(handle)),
      at: location.inputLocation)
  }

  /// A store error code for a SQLSTATE: lost connections and refused logins cannot read,
  /// serialization failures and lock timeouts are busy, a full disk or an exhausted server
  /// cannot write, missing schemas and tables are not found, bad data does not fit its type.
  static func code(ofState state: String?) -> StoreError.Code {
    guard let state else { return .unreadable }
    switch state {
    case "40001", "40P01", "55P03", "57014": return .busy
    case "3F000", "42P01", "3D000": return .notFound
    default: break
    }
    switch state.prefix(2) {
    case "08", "28", "57": return .unreadable
    case "53", "58": return .writeFailed
    case "22", "23": return .typeMismatch
    default: return .writeFailed
    }
  }

  private static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
    guard let text else { return "no message" }
    let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    // libpq's messages start "ERROR:  " and may run over several lines.
    return
      message
      .replacingOccurrences(of: "ERROR:  ", with: "")
      .split(separator: "\n").first.map(String.init) ?? message
  }

  private static func withCStrings<T>(
    _ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> T
  ) -> T {
    let storage: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
    defer { for pointer in storage { free(pointer) } }
    return body(storage.indices.map { UnsafePointer(storage[$0]) })
  }
}

/// Idle connections kept for the next one to the same server and database, so that each read
/// or save does not start a server process of its own: a few per server, closed when the
/// process ends.
final class PostgresPool: @unchecked Sendable {
  static let shared = PostgresPool()
  /// The most idle connections kept for one server and database.
  static let kept = 4
  private let lock = NSLock()
  private var idle: [String: [OpaquePointer]] = [:]
  /// The servers this process has been connected to: one that refuses a connection now is
  /// restarting, more likely than not, and is waited for.
  private var known: Set<String> = []

  func isKnown(_ key: String) -> Bool { lock.withLock { known.contains(key) } }
  func noteConnected(_ key: String) { _ = lock.withLock { known.insert(key) } }

  /// An idle connection to `key`'s server that is still up; those the server closed since
  /// (a restart) are dropped.
  func take(_ key: String) -> OpaquePointer? {
    while let handle = lock.withLock({ idle[key]?.popLast() }) {
      if PostgresConnection.isAlive(handle) { return handle }
      PQfinish(handle)
    }
    return nil
  }

  func give(_ handle: OpaquePointer, for key: String) {
    let kept = lock.withLock { () -> Bool in
      guard idle[key, default: []].count < Self.kept else { return false }
      idle[key, default: []].append(handle)
      return true
    }
    if !kept { PQfinish(handle) }
  }
}
