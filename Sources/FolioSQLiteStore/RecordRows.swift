import CSQLite
import FolioStores
import Foundation

/// Rows a record reader steps through, each value with SQLite's storage class: a SQLite
/// statement's, or another database's rows that keep Core Data's layout (PostgreSQL), their
/// types mapped to SQLite's classes.
package protocol RecordRows: AnyObject {
  /// Steps to the next row: `true` when there is one.
  func nextRow() throws(StoreError) -> Bool
  /// The storage class of column `index` of this row: `SQLITE_INTEGER`, `SQLITE_FLOAT`,
  /// `SQLITE_TEXT`, `SQLITE_BLOB` or `SQLITE_NULL`.
  func type(_ index: Int) -> Int32
  func int64(_ index: Int) -> Int64
  func double(_ index: Int) -> Double
  /// Text as read, bad UTF-8 repaired; `nil` for NULL.
  func text(_ index: Int) -> String?
  /// Text, or `nil` for NULL or bytes that are not UTF-8.
  func validatedText(_ index: Int) -> String?
  func blob(_ index: Int) -> Data?
}

extension RecordRows {
  package func isNull(_ index: Int) -> Bool { type(index) == SQLITE_NULL }
}

/// A database a record reader queries: each query's rows, in SQL both SQLite and PostgreSQL
/// read (every identifier quoted).
package protocol RecordDatabase {
  associatedtype Rows: RecordRows
  /// The store, as errors name it.
  var path: String { get }
  /// The temporary table listing the keys a read of listed keys only reads (`root`, `key`).
  var listedKeysTable: String { get }
  func rows(_ sql: String, at place: String?) throws(StoreError) -> Rows
}

extension RecordDatabase {
  /// The first column of the first row of `sql`, or `nil`.
  package func firstInteger(_ sql: String, at place: String?) throws(StoreError) -> Int64? {
    let rows = try rows(sql, at: place)
    guard try rows.nextRow(), !rows.isNull(0) else { return nil }
    return rows.int64(0)
  }
}

extension SQLiteStatement: RecordRows {
  func nextRow() throws(StoreError) -> Bool { try step() }
}

extension SQLiteDatabase: RecordDatabase {
  var listedKeysTable: String { "temp.folio_keys" }

  func rows(_ sql: String, at place: String?) throws(StoreError) -> SQLiteStatement {
    try prepare(sql, at: place)
  }
}
