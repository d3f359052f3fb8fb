import CLibPQ
import CSQLite
import FolioModel
import FolioSQLiteStore
import FolioStores
import Foundation

/// A document's connection as the SQLite store's record reader queries it: each query's rows
/// streamed by `COPY (…) TO STDOUT`, in the document's schema (`search_path`), inside the
/// caller's read transaction.
struct PostgresRecordDatabase: RecordDatabase {
  let connection: PostgresConnection

  var path: String { connection.location.url.absoluteString }
  var listedKeysTable: String { "pg_temp.folio_keys" }

  func rows(_ sql: String, at place: String?) throws(StoreError) -> PostgresRows {
    try PostgresRows(connection, sql: sql, at: place ?? "query")
  }
}

/// The rows of one query, read a row at a time from `COPY (…) TO STDOUT` in text format, each
/// value with the SQLite storage class of its PostgreSQL type (`bigint` an integer, `double
/// precision` a real, `bytea` a blob, `numeric` and `text` text), so that the SQLite store's
/// reader reads them as it reads its own.
final class PostgresRows: RecordRows {
  private let connection: PostgresConnection
  private let place: String
  private let kinds: [Int32]
  // Read for every value of every row. The rows are read on one thread, a step at a time,
  // and no access to these overlaps another: the checks of exclusive access, made at each
  // read otherwise, are left out.
  @exclusivity(unchecked) private var row: UnsafeMutablePointer<CChar>?
  /// Where each field of the row starts and ends: `bounds[2 * column]` and the next.
  private let bounds: UnsafeMutableBufferPointer<Int>
  private var isDone = false

  init(_ connection: PostgresConnection, sql: String, at place: String) throws(StoreError) {
    self.connection = connection
    self.place = place
    kinds = try connection.columnTypes(of: sql, at: place).map { type in
      switch type {
      case 20, 21, 23: SQLITE_INTEGER  // bigint, smallint, integer
      case 700, 701: SQLITE_FLOAT  // real, double precision
      case 17: SQLITE_BLOB  // bytea
      default: SQLITE_TEXT
      }
    }
    bounds = .allocate(capacity: max(kinds.count * 2, 1))
    bounds.initialize(repeating: 0)
    try connection.startCopyOut("COPY (\(sql)) TO STDOUT", at: place)
  }

  deinit {
    bounds.deallocate()
    if let row { PQfreemem(row) }
    // A reader that stopped early leaves the rest of the rows: they are read and dropped, so
    // the connection can run its next statement.
    if !isDone { try? connection.finishCopyOut(at: place) }
  }

  func nextRow() throws(StoreError) -> Bool {
    if let row { PQfreemem(row) }
    row = nil
    guard !isDone else { return false }
    guard let (bytes, length) = try connection.nextCopyRow(at: place) else {
      isDone = true
      return false
    }
    row = bytes
    var end = length
    if end > 0, bytes[end - 1] == 10 { end -= 1 }
    var column = 0
    var start = 0
    var index = 0
    while index <= end {
      if index == end || bytes[index] == 9 {
        guard column < kinds.count else { break }
        bounds[2 * column] = start
        bounds[2 * column + 1] = index
        column += 1
        start = index + 1
      }
      index += 1
    }
    guard column == kinds.count else {
      throw StoreError(
        .malformedStore, "\(place): a row of \(column) values for \(kinds.count) columns",
        at: connection.location.inputLocation)
    }
    return true
  }

  private func field(_ index: Int) -> UnsafeBufferPointer<UInt8> {
    guard let row else { return UnsafeBufferPointer(start: nil, count: 0) }
    let base = UnsafeRawPointer(row).assumingMemoryBound(to: UInt8.self)
    let start = bounds[2 * index]
    return UnsafeBufferPointer(start: base + start, count: bounds[2 * index + 1] - start)
  }

  func type(_ index: Int) -> Int32 {
    let bytes = field(index)
    return bytes.count == 2 && bytes[0] == 92 && bytes[1] == 78 ? SQLITE_NULL : kinds[index]
  }

  func int64(_ index: Int) -> Int64 {
    let bytes = field(index)
    guard kinds[index] == SQLITE_INTEGER else { return Int64(double(index)) }
    var value: Int64 = 0
    var negative = false
    for (position, byte) in bytes.enumerated() {
      if position == 0, byte == 45 {
        negative = true
        continue
      }
      value = value &* 10 &+ Int64(byte &- 48)
    }
    return negative ? 0 &- value : value
  }

  func double(_ index: Int) -> Double {
    let bytes = field(index)
    if kinds[index] == SQLITE_INTEGER { return Double(int64(index)) }
    var text = Array(bytes)
    text.append(0)
    return text.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { chars in
        chars.baseAddress.map { strtod($0, nil) } ?? 0
      }
    }
  }

  private func unescaped(_ index: Int) -> [UInt8]? {
    guard type(index) != SQLITE_NULL else { return nil }
    return PostgresCopyRow.unescaped(ArraySlice(field(index)))
  }

  /// Whether field `index` holds no escape, and reads as its bytes.
  private func isPlain(_ index: Int) -> Bool { !field(index).contains(92) }

  func text(_ index: Int) -> String? {
    guard type(index) != SQLITE_NULL else { return nil }
    if isPlain(index) { return String(decoding: field(index), as: UTF8.self) }
    return unescaped(index).map { String(decoding: $0, as: UTF8.self) }
  }

  func validatedText(_ index: Int) -> String? {
    guard type(index) != SQLITE_NULL else { return nil }
    if isPlain(index) { return String(validating: field(index), as: UTF8.self) }
    return unescaped(index).flatMap { String(validating: $0, as: UTF8.self) }
  }

  func blob(_ index: Int) -> Data? {
    guard let bytes = unescaped(index) else { return nil }
    return kinds[index] == SQLITE_BLOB ? PostgresCopyRow.bytea(bytes) : Data(bytes)
  }
}
