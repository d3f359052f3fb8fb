import FolioModel
import FolioStores
import Foundation

extension SQLiteStore: BatchExecutingStoreFormat {
  /// Executes `batch` in SQL on the store at `url`, in one write transaction of a connection
  /// of its own (``SQLiteBatch``): `BEGIN IMMEDIATE` waits for another writer's transaction
  /// as a save does (`Formats/shared-writers.md` §2a), and a refusal or an error rolls it
  /// back, leaving the store as it was.
  package func executeBatch(_ batch: StoreBatch, at url: URL, model: ManagedObjectModel)
    throws(StoreError) -> StoreBatchOutcome
  {
    let connection = try SQLiteStoreConnection(url: url)
    connection.missingExternalData = missingExternalData
    try connection.beginWriting()
    let outcome: StoreBatchOutcome
    do {
      outcome = try connection.executeBatch(batch, model: model)
    } catch {
      connection.rollBackWriting()
      throw error
    }
    guard outcome.refusal == nil else {
      connection.rollBackWriting()
      return outcome
    }
    try connection.commitWriting()
    return outcome
  }
}

extension SQLiteStoreConnection: BatchExecutingConnection {
  package func executeBatch(_ batch: StoreBatch, model: ManagedObjectModel) throws(StoreError)
    -> StoreBatchOutcome
  {
    // Within a savepoint, so a refusal or a failure leaves the write lock held and nothing
    // written.
    try database.execute("SAVEPOINT folio_batch")
    let outcome: StoreBatchOutcome
    let schema: SQLiteSchema
    do {
      let executor = try SQLiteBatch(
        database: database, model: model, batch: batch,
        externalData: ExternalDataFolder(
          store: URL(fileURLWithPath: database.path), missing: missingExternalData))
      schema = executor.schema
      outcome = try executor.run()
    } catch {
      try? database.execute("ROLLBACK TO folio_batch")
      try? database.execute("RELEASE folio_batch")
      throw error
    }
    if outcome.refusal != nil { try database.execute("ROLLBACK TO folio_batch") }
    try database.execute("RELEASE folio_batch")
    if outcome.refusal == nil { listBatchChanges(outcome.changes, schema: schema) }
    return outcome
  }
}
