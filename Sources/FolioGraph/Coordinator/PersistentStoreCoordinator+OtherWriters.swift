import FolioModel
import FolioStores
import Foundation

/// Other writers: processes that save the same store file while this coordinator has it open.
///
/// A save takes the store's lock (``FolioStores/StoreLock``, for stores written whole), then
/// reads the file again if it changed since the coordinator read or wrote it, and takes what
/// the other writer saved into the committed state as if another context had saved it: the
/// saving context's conflict check and merge policy then make the three-way merge — the rows
/// it read are the base, the file's are theirs, its changes are its own. What it took in waits
/// for the coordinator's contexts to merge it (``ManagedObjectContext/mergeChanges(fromContextDidSave:)``).
extension PersistentStoreCoordinator {
  /// Takes the lock a save holds: for a store written whole, the lock every Folio writer of
  /// its file takes (``FolioStores/StoreLock``); for a store saved in place through a
  /// connection (SQLite), the store's own write lock, taken on that connection, which the save
  /// then writes through. `nil` for a store in memory.
  ///
  /// - Throws: `StoreError.busy` when another writer held it too long; `.writeFailed` when
  ///   the lock file cannot be made.
  package func lockForSaving() throws(StoreError) -> SaveLock? {
    guard let store = persistentStores.first, let url = store.url, let format = store.format
    else { return nil }
    guard format is any IncrementalStoreFormat else {
      return SaveLock(file: try StoreLock.acquire(for: url))
    }
    guard let connection = store.connection, !store.needsWrite else { return nil }
    try connection.beginWriting()
    store.isWritingThroughConnection = true
    return SaveLock(store: store)
  }

  /// Reads the store's file again when it changed on disk since the coordinator last read or
  /// wrote it, and takes what another writer saved there into the committed state. Returns
  /// whether the file had changed.
  ///
  /// - Throws: `StoreError.modifiedOnDisk` when the file was removed, no longer reads as a
  ///   store of the model, or is another store (its identifier differs): saving over it would
  ///   lose what is there. The committed state is then as it was.
  ///
  /// With `wholeStore`, the whole store is read and compared whatever the file or its change
  /// counter says: a save in place found rows whose versions another writer moved without
  /// the coordinator learning of it (a writer that kept no history).
  @discardableResult
  package func takeInChangesOnDisk(wholeStore: Bool = false) throws(StoreError) -> Bool {
    guard let store = persistentStores.first, let url = store.url, let format = store.format,
      let known = store.stamp, !store.needsWrite
    else { return false }
    try adoptKeyReservation()
    let location = InputLocation(file: url.storePlace)
    // A store saved in place through a connection says when another connection committed to
    // it; its file's stamp does not (a write-ahead log changes beside it).
    var counter: Int64?
    if let connection = store.connection {
      // The connection writes to the file it opened: one put in its place is another file.
      guard let now = FileStamp(of: url), now.inode == known.inode || !url.isFileURL else {
        throw StoreError(
          .modifiedOnDisk,
          "the file was removed or replaced since it was opened; saving would write to a file nobody reads: open it again",
          at: location)
      }
      counter = try connection.changeCounter()
      guard counter != store.seenChangeCounter || wholeStore else { return false }
    }
    guard let stamp = FileStamp(of: url) else {
      throw StoreError(
        .modifiedOnDisk, "the file was removed since it was opened; saving would recreate it",
        at: location)
    }
    guard stamp != known || counter != nil || wholeStore else { return false }
    // A store whose history says what changed is read for those objects alone.
    if !wholeStore, let counter, let reading = format as? any HistoryChangesReading,
      let token = store.historyToken,
      let since = try? reading.changes(after: token, from: url, model: managedObjectModel),
      takeIn(since)
    {
      takeInsFromHistory += 1
      store.historyToken = since.token
      store.seenChangeCounter = counter
      store.noteFileOnDisk(stamp: stamp, pin: nil)
      return true
    }
    // A store whose commit log holds every commit since is read for the objects they changed;
    // one whose history is not the one the coordinator knows is read whole.
    let fromLog = wholeStore || counter == nil ? nil : takeInFromLog(store, at: url)
    if fromLog == true {
      store.seenChangeCounter = counter
      store.noteFileOnDisk(stamp: stamp, pin: nil)
      return true
    }
    let logPosition = try? (format as? any CommitLogReading)?.commitLogPosition(of: url)
    // A store written whole whose journal leads from the file known to this one is read for
    // the objects its saves changed alone; the file is held open first, so the stamp is its.
    let pin = format is any IncrementalStoreFormat ? nil : FilePin(url)
    if !wholeStore, pin != nil, FileStamp(of: url) == stamp,
      let since = ChangeJournal.changes(
        for: url, from: known, to: stamp, identifier: cache.identifier, model: managedObjectModel),
      takeIn(since)
    {
      takeInsFromJournal += 1
      store.metadata = since.metadata ?? store.metadata
      store.noteFileOnDisk(stamp: stamp, pin: pin)
      return true
    }
    let historyToken = try? (format as? any HistoryChangesReading)?.historyPosition(of: url)
    // Any other store saved in place is compared with the committed rows by row versions
    // (whose committed versions are the store's: read, taken in, or moved on by saves).
    if !wholeStore, fromLog != false, let counter,
      let scanning = format as? any RowVersionScanning,
      takeInByVersions(scanning, at: url, store: store)
    {
      takeInsByVersions += 1
      store.seenChangeCounter = counter
      store.noteFileOnDisk(stamp: stamp, pin: nil)
      if let historyToken { store.historyToken = historyToken }
      store.commitLogPosition = logPosition ?? nil
      return true
    }
    // The file is held open from before it is read, so the stamp names it for as long as
    // the store knows it.
    try takeInWholeStore(store, at: url, format: format)
    store.noteFileOnDisk(stamp: stamp, pin: pin)
    if let counter { store.seenChangeCounter = counter }
    if let historyToken { store.historyToken = historyToken }
    store.commitLogPosition = logPosition ?? nil
    return true
  }

  /// Reads the whole store and takes what differs from the committed state in.
  ///
  /// - Throws: `StoreError.modifiedOnDisk` when the store no longer reads as a store of the
  ///   model, or is another store.
  private func takeInWholeStore(_ store: PersistentStore, at url: URL, format: any StoreFormat)
    throws(StoreError)
  {
    takeInsOfWholeStore += 1
    let location = InputLocation(file: url.storePlace)
    let fresh = RowCache(layouts: layouts)
    let metadata: StoreMetadata
    let (kind, changed) = url.isFileURL ? ("file", "on disk") : ("document", "on its server")
    do {
      metadata = try fresh.load(from: url, format: format, model: managedObjectModel)
    } catch {
      throw StoreError(
        .modifiedOnDisk,
        "the \(kind) changed \(changed) and no longer reads as this store (\(error.description)); saving would overwrite it",
        at: location, underlying: error)
    }
    guard metadata.identifier == cache.identifier else {
      throw StoreError(
        .modifiedOnDisk,
        "the \(kind) was replaced by another store (identifier \(metadata.identifier), not \(cache.identifier)); saving would overwrite it",
        at: location)
    }
    let before = cache.rows
    let changes = try cache.absorb(fresh)
    record(changes) { before[Int($0)] }
    var kept = metadata
    kept.identifier = store.metadata.identifier
    store.metadata = kept
  }

  /// Takes in what the store's commit log says the commits since the coordinator's place
  /// changed, when the store is still the one it knows (its identifier and version hashes).
  /// Returns `true` when it did; `false`, the committed state as it was, when the store's
  /// history is not the one the place is in (only a whole read tells then); `nil` when the log
  /// cannot tell, or the changes cannot be placed.
  private func takeInFromLog(_ store: PersistentStore, at url: URL) -> Bool? {
    guard let reading = store.format as? any CommitLogReading,
      let position = store.commitLogPosition
    else { return nil }
    switch try? reading.changes(since: position, from: url, model: managedObjectModel) {
    case .changes(let since)?:
      guard var metadata = since.metadata, metadata.identifier == cache.identifier,
        metadata.modelVersionHashes == store.metadata.modelVersionHashes, takeIn(since)
      else { return nil }
      metadata.identifier = store.metadata.identifier
      store.metadata = metadata
      store.commitLogPosition = since.logPosition
      takeInsFromLog += 1
      return true
    case .otherHistory?: return false
    case .cannotTell?, nil: return nil
    }
  }

  /// Notes the store's place in its commit log after a commit of the coordinator's own, made
  /// under the write lock after taking in every other writer's commit: the committed state is
  /// the store's as of that commit.
  func noteOwnCommit(_ store: PersistentStore) {
    store.commitLogPosition = (store.connection as? any CommitLoggingConnection)?.commitLogPosition
  }

  /// Takes `since`, what other writers changed, into the committed state, for the contexts to
  /// merge. Returns `false`, the committed state as it was, when the changes cannot be placed
  /// (the caller reads the whole store instead).
  func takeIn(_ since: StoreChangesSince) -> Bool {
    // The rows the deletions take, for the IDs of the objects that leave.
    var gone: [Int32: CommittedRow] = [:]
    for id in since.deleted {
      for key in [id, StoreKeySpace.key(of: id)] {
        if let row = cache.row(forPrimaryKey: key), let committed = cache.row(row) {
          gone[row] = committed
        }
      }
    }
    guard let changes = try? cache.absorb(since) else { return false }
    record(changes) { gone[$0] }
    return true
  }

  /// Takes in what the rows' versions say changed (``FolioStores/RowVersionScanning``); `false`,
  /// the committed state as it was, when the store cannot be read so or the changes not placed.
  func takeInByVersions(
    _ scanning: any RowVersionScanning, at url: URL, store: PersistentStore
  ) -> Bool {
    let model = managedObjectModel
    let roots = cache.layouts.map { model.ancestorNames(of: $0.entity).last ?? $0.entity.name }
    var seen = [Bool](repeating: false, count: cache.rows.count)
    let cache = self.cache
    // Another store put in its place, or one written with another model, is for the whole read
    // to refuse.
    func read() -> StoreChangesSince? {
      let lookup =
        cache.committedRowLookup() ?? { key in
          cache.row(forPrimaryKey: key).flatMap { row in
            cache.row(row).map { (row, $0.version, Int($0.entity)) }
          }
        }
      // The committed row of a store ID, in the ID's form or, for a key this cache gave, the key.
      func version(_ id: Int64, _ root: String) -> UInt32? {
        var key = id
        while true {
          if let (row, version, entity) = lookup(key), roots[entity] == root {
            seen[Int(row)] = true
            return version
          }
          guard key == id, StoreKeySpace.key(of: id) != id else { return nil }
          key = StoreKeySpace.key(of: id)
        }
      }
      return try? scanning.changes(comparedWith: version, from: url, model: model)
    }
    guard var since = read(), var metadata = since.metadata,
      metadata.identifier == cache.identifier,
      metadata.modelVersionHashes == store.metadata.modelVersionHashes
    else { return false }
    for row in cache.committedRowNumbers() where !seen[Int(row)] {
      since.deleted.append(cache.primaryKey(ofRow: row))
    }
    guard takeIn(since) else { return false }
    metadata.identifier = store.metadata.identifier
    store.metadata = metadata
    return true
  }

  /// Executes `batch` on the store and takes what it changed into the committed state as
  /// another writer's save, for the contexts to merge (``takeUnmergedChanges()``): a SQLite
  /// store runs it through the coordinator's connection, under the write lock a save takes and
  /// after taking other writers' saves in; an atomic store's batch writes the file under the
  /// store's lock, and the coordinator then takes the file in. A refused batch writes nothing.
  ///
  /// - Throws: `StoreError.writeFailed` for a store in memory, not written yet, or that cannot
  ///   be written; what the store throws. Nothing is written then.
  /// Returns the IDs, as contexts know them, of the objects the batch changed.
  package func executeBatch(_ batch: StoreBatch) throws(StoreError) -> (
    outcome: StoreBatchOutcome, objectIDs: [ManagedObjectID]
  ) {
    guard let store = persistentStores.first, let url = store.url, let format = store.format,
      !store.needsWrite, try storeExists(at: url, format: format)
    else {
      throw StoreError(
        .writeFailed, "a batch request changes a store's file, and this store has none yet")
    }
    // The IDs of objects that exist before the batch, found while they still do.
    var ids: [ManagedObjectID] = []
    let isInsert = if case .insert = batch.operation { true } else { false }
    guard format is any IncrementalStoreFormat else {
      let outcome = try format.executeBatch(batch, at: url, model: managedObjectModel)
      if !isInsert { ids = objectIDs(of: outcome.objects) }
      try takeInChangesOnDisk()
      return (outcome, isInsert ? objectIDs(of: outcome.objects) : ids)
    }
    let lock = try lockForSaving()
    defer { lock?.release() }
    guard let connection = store.connection as? any BatchExecutingConnection else {
      throw StoreError(
        .writeFailed, "cannot run a batch request: the store cannot be written",
        at: InputLocation(file: url.storePlace))
    }
    try takeInChangesOnDisk()
    var collecting = batch
    collecting.collectsChanges = true
    let outcome = try connection.executeBatch(collecting, model: managedObjectModel)
    guard outcome.refusal == nil else { return (outcome, []) }
    if !isInsert { ids = objectIDs(of: outcome.objects) }
    try connection.commitWriting()
    store.isWritingThroughConnection = false
    noteOwnCommit(store)
    if let changes = outcome.changes, !takeIn(changes) { try takeInChangesOnDisk(wholeStore: true) }
    return (outcome, isInsert ? objectIDs(of: outcome.objects) : ids)
  }

  /// The IDs contexts know `objects` by: the committed row's key where the store's ID (or its
  /// key within its space) names a row of that entity.
  private func objectIDs(of objects: [StoreBatchOutcome.Object]) -> [ManagedObjectID] {
    objects.map { object in
      let key =
        [object.id, StoreKeySpace.key(of: object.id)].lazy.compactMap { candidate -> Int64? in
          guard let row = self.cache.row(forPrimaryKey: candidate),
            let committed = self.cache.row(row),
            self.cache.layouts[committed.entity].name == object.entityName
          else { return nil }
          return self.cache.primaryKey(ofRow: row)
        }.first ?? object.id
      return ManagedObjectID(
        entityName: object.entityName, store: cache.identifier, primaryKey: key,
        uriNumber: cache.uriNumber(forKey: key))
    }
  }

  /// The error of a save that found rows another writer moved even after taking the whole
  /// store in: `ids` name the objects.
  package func staleSaveError(_ ids: [Int64]) -> StoreError {
    let others = ids.count > 1 ? " (and \(ids.count - 1) more)" : ""
    let entity = ids.first.flatMap { id in
      cache.row(forPrimaryKey: id).flatMap { cache.row($0) }.map { cache.layouts[$0.entity].name }
    }
    return StoreError(
      .modifiedOnDisk,
      "another writer changed object \(ids.first.map { StoreKeySpace.key(of: $0) } ?? 0)\(others) while this save held the store's lock; saving would overwrite that change",
      at: InputLocation(file: persistentStores.first?.url?.path, entity: entity))
  }

  /// Adds `changes` to those the contexts have not merged yet, as object IDs.
  private func record(_ changes: ExternalChanges, deletedRow: (Int32) -> CommittedRow?) {
    let cache = self.cache
    func id(_ row: Int32, _ committed: CommittedRow?) -> ManagedObjectID? {
      guard let committed else { return nil }
      let key = cache.primaryKey(ofRow: row)
      return ManagedObjectID(
        entityName: cache.layouts[committed.entity].name, store: cache.identifier,
        primaryKey: key, uriNumber: cache.uriNumber(forKey: key))
    }
    for row in changes.deleted {
      guard let gone = id(row, deletedRow(row)) else { continue }
      if unmergedChanges.inserted.remove(gone) == nil { unmergedChanges.deleted.insert(gone) }
      unmergedChanges.updated.remove(gone)
    }
    for row in changes.inserted {
      if let new = id(row, cache.row(row)) { unmergedChanges.inserted.insert(new) }
    }
    for row in changes.updated {
      guard let changed = id(row, cache.row(row)),
        !unmergedChanges.inserted.contains(changed)
      else { continue }
      unmergedChanges.updated.insert(changed)
    }
  }

  /// The changes other writers saved that the coordinator took in and its contexts have not
  /// merged yet; they are forgotten here, for the caller to merge.
  package func takeUnmergedChanges() -> ObjectIDChanges {
    defer { unmergedChanges = ObjectIDChanges(inserted: [], updated: [], deleted: []) }
    return unmergedChanges
  }
}

/// What a save holds while it takes in other writers' changes and writes: a store's lock file,
/// or its connection's write lock (rolled back unless the save committed).
package final class SaveLock {
  private var file: StoreLock?
  private weak var store: PersistentStore?

  init(file: StoreLock) { self.file = file }
  init(store: PersistentStore) { self.store = store }

  /// Lets go of the lock; what a connection wrote and did not commit is rolled back.
  package func release() {
    file?.release()
    file = nil
    if let store, store.isWritingThroughConnection {
      store.connection?.rollBackWriting()
      store.isWritingThroughConnection = false
    }
    store = nil
  }

  deinit { release() }
}
