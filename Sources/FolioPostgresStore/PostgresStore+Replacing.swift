import FolioModel
import FolioSQLiteStore
import FolioStores
import Foundation

// A migration replaces a document with a transform of itself. Between its read and its write
// no other client may save: that save would be read by no one and dropped by the replace. So
// the read, the transform and the write are one transaction that takes the document's lock
// first, the lock every save takes (`Formats/postgres-store.md` §4, §6).
//
// The transaction is READ COMMITTED, PostgreSQL's default, on purpose: each statement sees what
// committed before it began, so the read, after the lock, sees every save that held the lock
// before. A REPEATABLE READ transaction would take its snapshot at its first statement, the
// lock's, which may wait: a save committed during that wait would be missing from the read.
//
// The save history stays, numbered on, with one row marking the replacement (`*`): a client
// still open on the document sees its change counter move, and reads the document whole. Its next save is refused all the
// same, under the lock, by the version hashes (``PostgresStore/checkModel(_:in:)``).

extension PostgresStore: TransactionalStoreFormat {
  /// Reads the document at `url` with `model`, and writes what `transform` makes of it in its
  /// place, in one transaction holding the document's lock from before the read until the
  /// commit; when `transform` gives `nil`, nothing is written.
  ///
  /// - Throws: `StoreError` from the read (`.notFound`, `.modelMismatch` for a document of
  ///   another model) or the write; what `transform` throws, as it is. The transaction is then
  ///   rolled back, and the document is as it was.
  package func replace(
    at url: URL, readingWith model: ManagedObjectModel,
    by transform: (StoreContents) throws -> (contents: StoreContents, model: ManagedObjectModel)?
  ) throws {
    let location = try PostgresLocation(url)
    let connection = try PostgresConnection(location)
    try connection.execute("BEGIN", at: "BEGIN")
    do {
      try Self.lock(connection)
      var collector = StoreContentsCollector()
      try read(in: connection, model: model, into: &collector)
      var contents = collector.contents
      contents.records = SQLiteStore.completingInverses(of: contents.records, model: model)
      guard let (replacement, replacementModel) = try transform(contents) else {
        try connection.execute("ROLLBACK", at: "ROLLBACK")
        return
      }
      try Self.withScratchFolder { folder throws(StoreError) in
        let (staged, metadata) = try stage(
          replacement, model: replacementModel, in: folder,
          reportingAs: location.url.absoluteString)
        // Core Data's tables go; the save history stays.
        for table in try PostgresTables.tables(in: connection).map(\.name)
        where table.hasPrefix("Z") && table != PostgresHistory.table {
          try connection.execute(
            "DROP TABLE \(connection.qualified(table)) CASCADE", at: "dropping \(table)")
        }
        try Self.writeTables(of: staged, metadata: metadata, in: connection)
        try PostgresHistory.recordReplacement(in: connection)
      }
      try connection.execute("COMMIT", at: "COMMIT")
    } catch {
      try? connection.execute("ROLLBACK")
      throw error
    }
  }

  /// Checks, inside a write that holds the document's lock, that the document is still of
  /// `model`: a client opened before a migration to another version must not write rows of
  /// its layout into the new one.
  ///
  /// - Throws: `StoreError.modelMismatch` naming the entities whose version hashes differ.
  static func checkModel(
    _ model: ManagedObjectModel, of metadata: StoreMetadata, in connection: PostgresConnection
  ) throws(StoreError) {
    guard metadata.hasFolioVersionHashes else { return }
    let differing = metadata.entitiesWithChangedVersionHashes(comparedWith: model)
    guard differing.isEmpty else {
      throw StoreError.documentModelChanged(differing, at: connection.location)
    }
  }
}

extension StoreError {
  /// A save or key reservation refused because the document was migrated since it was read.
  static func documentModelChanged(_ entities: [String], at location: PostgresLocation)
    -> StoreError
  {
    let names = entities.map { "\"\($0)\"" }.joined(separator: ", ")
    return StoreError(
      .modelMismatch,
      "the document was written with another version of the model since it was read "
        + "(\(entities.count == 1 ? "entity" : "entities") \(names)); "
        + "open it again with its current model (nothing was saved)",
      at: location.inputLocation)
  }
}
