import FolioGraph
import FolioStores

/// Other writers' saves for a coordinator with several contexts, such as a server's one per
/// client: the coordinator takes in what other processes (or other coordinators) saved to its
/// store once, and the app merges it into each of its contexts. ``Document`` does the same for
/// its one context (``Document/mergeChangesFromOtherWriters()``).
extension PersistentStoreCoordinator {
  /// Takes in what other writers saved to the store since the coordinator last read, wrote or
  /// took it in, and returns the objects it changed, for each of the coordinator's contexts to
  /// merge with `mergeChanges(fromContextDidSave:)`.
  ///
  /// The coordinator's committed state takes the other writers' values; its contexts still show
  /// what they had until they merge. Whether there is anything to take in is cheap to ask
  /// first: ``PersistentStore/isChangedOnDisk`` compares the file's stamp, or asks a store saved
  /// through a connection (SQLite, PostgreSQL) for its change counter, one statement.
  ///
  /// ```swift
  /// if coordinator.persistentStores.first?.isChangedOnDisk == true {
  ///   let changes = try coordinator.takeInChangesFromOtherWriters()
  ///   for context in contexts { context.mergeChanges(fromContextDidSave: changes) }
  /// }
  /// ```
  ///
  /// Undo: registers nothing; merging the changes registers nothing either.
  ///
  /// - Returns: the objects other writers inserted, updated and deleted, with those a save of
  ///   one of the coordinator's contexts took in that were not merged yet; empty when the store
  ///   had not changed. They are the caller's to merge: a second call does not return them.
  /// - Throws: `StoreError.modifiedOnDisk` when the file was removed, no longer reads as the
  ///   store, or was replaced by another store; what a server store throws when it cannot be
  ///   read. The committed state is then as it was.
  public func takeInChangesFromOtherWriters() throws(StoreError) -> ObjectIDChanges {
    try takeInChangesOnDisk()
    return takeUnmergedChanges()
  }
}

// Persistent history, Core Data's `NSPersistentHistoryChangeRequest` on a coordinator.
extension PersistentStoreCoordinator {
  /// The transactions the store recorded in its persistent history after `token` (every one
  /// without a token), oldest first: Core Data's `NSPersistentHistoryChangeRequest
  /// .fetchHistory(after:)`. Empty for a store that keeps no history, or in memory.
  ///
  /// - Throws: `StoreError` when the store cannot be read; `historyTokenExpired` when the
  ///   transactions just after `token` were deleted (read the store again, and follow the
  ///   history from its last transaction).
  public func fetchHistory(after token: PersistentHistoryToken?) throws(StoreError)
    -> [PersistentHistoryTransaction]
  {
    guard let store = persistentStores.first, let url = store.url,
      let format = store.format as? any HistoryTrackingStoreFormat,
      try storeExists(at: url, format: format)
    else { return [] }
    return try format.fetchHistory(after: token, from: url, model: managedObjectModel)
  }

  /// Deletes the history the store recorded up to and including the transaction at `token`
  /// (Core Data's `deleteHistory(before:)`); the objects are not touched.
  ///
  /// - Throws: `StoreError` when the store cannot be written.
  public func deleteHistory(before token: PersistentHistoryToken) throws(StoreError) {
    guard let store = persistentStores.first, let url = store.url,
      let format = store.format as? any HistoryTrackingStoreFormat
    else { return }
    try format.deleteHistory(before: token, at: url)
  }
}
