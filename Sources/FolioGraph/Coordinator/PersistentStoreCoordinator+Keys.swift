import FolioModel
import FolioStores
import Foundation

/// Keys given before a save, for permanent IDs of objects not saved yet
/// (``ManagedObjectContext/obtainPermanentIDs(for:)``).
extension PersistentStoreCoordinator {
  /// Gives `rows`, objects of the entities `entityNames` not saved yet, their primary keys
  /// now, and reserves the keys in the store so that no writer, in this process or another,
  /// gives them again: a SQLite store raises its `Z_MAX`es in a write transaction, as Core
  /// Data does; an atomic store records them beside its file (``FolioStores/StoreKeyReservation``),
  /// under its lock. Other writers' saves are taken in first, as a save takes them in, so the
  /// keys come after every key given.
  ///
  /// - Throws: `StoreError.busy` when another writer held the store's lock too long;
  ///   `.writeFailed` when the reservation cannot be written (a store that cannot be saved
  ///   cannot reserve either); `.modifiedOnDisk` when the file was replaced. The keys are then
  ///   as they were.
  package func reservePrimaryKeys(forRows rows: [Int32], entityNames: [String])
    throws(StoreError)
  {
    // A reservation a server restart interrupted, whose keys another writer gave meanwhile,
    // is made once more with keys given after theirs.
    do {
      try reserve(rows, entityNames)
    } catch  where error.code == .modifiedOnDisk {
      try reserve(rows, entityNames)
    }
  }

  private func reserve(_ rows: [Int32], _ entityNames: [String]) throws(StoreError) {
    let lock = try lockForSaving()
    defer { lock?.release() }
    try takeInChangesOnDisk()
    let keys = cache.keyState
    cache.assignPrimaryKeys(toRows: rows)
    do throws(StoreError) {
      if let store = persistentStores.first, let url = store.url, let format = store.format,
        !store.needsWrite
      {
        let given = zip(rows, entityNames).map { row, name in
          (entityName: name, key: cache.primaryKey(ofRow: row))
        }
        if format is any IncrementalStoreFormat {
          guard let connection = store.connection, store.isWritingThroughConnection else {
            throw StoreError(
              .writeFailed,
              "cannot reserve keys for new objects: the store cannot be written",
              at: InputLocation(file: url.storePlace))
          }
          try connection.reserveKeys(given, model: managedObjectModel)
          try connection.commitWriting()
          store.isWritingThroughConnection = false
          noteOwnCommit(store)
        } else if let largest = given.map({ StoreKeySpace.key(of: $0.key) }).max() {
          try StoreKeyReservation.reserve(below: largest + 1, for: url)
        }
      }
    } catch {
      cache.keyState = keys
      throw error
    }
    cache.reservedRows.formUnion(rows)
  }

  /// Makes the keys other writers of an atomic store reserved (``FolioStores/StoreKeyReservation``)
  /// ones this coordinator never gives.
  ///
  /// - Throws: `StoreError.malformedStore` when the reservation file is not one.
  func adoptKeyReservation() throws(StoreError) {
    guard let store = persistentStores.first, let url = store.url, let format = store.format,
      !(format is any IncrementalStoreFormat), !store.needsWrite,
      let next = try StoreKeyReservation.nextKey(for: url)
    else { return }
    cache.raiseNextKey(to: next)
  }
}
