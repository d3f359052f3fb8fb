import CLibPQ
import CSQLite
import FolioSQLiteStore
import FolioStores
import Foundation

/// A document's connection streams its queries' rows to the SQLite store's record reader by
/// `COPY (…) TO STDOUT`, in the document's schema (`search_path`), inside the caller's read
/// transaction; each column reads with the SQLite storage class of its PostgreSQL type
/// (`bigint` an integer, `double precision` a real, `bytea` a blob, `numeric` and `text` text).
extension PostgresConnection: CopyTextSource {
  package var path: String { location.url.absoluteString }

  package func storageClasses(of sql: String, at place: String) throws(StoreError) -> [Int32] {
    try columnTypes(of: sql, at: place).map { type in
      switch type {
      case 20, 21, 23: SQLITE_INTEGER  // bigint, smallint, integer
      case 700, 701: SQLITE_FLOAT  // real, double precision
      case 17: SQLITE_BLOB  // bytea
      default: SQLITE_TEXT
      }
    }
  }

  package func startCopy(of sql: String, at place: String) throws(StoreError) {
    try startCopyOut("COPY (\(sql)) TO STDOUT", at: place)
  }

  package func freeCopyRow(_ row: UnsafeMutablePointer<CChar>) { PQfreemem(row) }

  package func finishCopy(at place: String) throws(StoreError) { try finishCopyOut(at: place) }
}

extension CopyTextDatabase {
  /// The document `connection` holds, its keys listed in `pg_temp.folio_keys`.
  init(_ connection: PostgresConnection) {
    self.init(connection, listedKeysTable: "pg_temp.folio_keys")
  }
}
