import FolioModel
import FolioStores
import Foundation

/// Connects a model to the store its documents are saved in.
///
/// The counterpart of Core Data's `NSPersistentStoreCoordinator`, for atomic stores: a store's
/// whole content is read when it is added, kept as the committed state every context on the
/// coordinator works against (Core Data's row cache), and written whole at each save that
/// commits something. A coordinator holds one store (configurations across several stores are
/// not supported yet).
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(at: url, format: XMLStore())
/// let context = try ManagedObjectContext(coordinator: coordinator)   // the whole graph, loaded
/// ```
public final class PersistentStoreCoordinator {
  /// The model every store is read and written with.
  public let managedObjectModel: ManagedObjectModel
  /// The stores added, in order.
  public private(set) var persistentStores: [PersistentStore] = []
  /// How objects of each entity store their values, shared by the coordinator's contexts.
  private(set) lazy var layouts = EntityLayout.layouts(of: managedObjectModel)
  /// The committed state of the store: the rows every context reads and commits into.
  lazy var cache = RowCache(layouts: layouts)
  /// What other writers saved to the store that the committed state took in and the
  /// coordinator's contexts have not merged yet.
  var unmergedChanges = ObjectIDChanges(inserted: [], updated: [], deleted: [])
  /// How many times other writers' changes were taken in from the store's history alone,
  /// rather than by reading the whole store: for tests of that fast path.
  package internal(set) var takeInsFromHistory = 0
  /// How many times they were taken in by comparing the rows' versions with the committed
  /// ones: for tests of that fast path.
  package internal(set) var takeInsByVersions = 0
  /// How many times from the change journal of a store written whole (``FolioStores/ChangeJournal``).
  package internal(set) var takeInsFromJournal = 0
  /// How many take-ins followed a SQLite store's commit log (``FolioStores/CommitLogReading``).
  package internal(set) var takeInsFromLog = 0
  /// How many times other writers' changes were taken in by reading the whole store.
  package internal(set) var takeInsOfWholeStore = 0
  /// Whether saves record the entity version hashes and model version identifiers the store
  /// holds rather than the model's: for a model the store carries or one inferred from it,
  /// which need not be the app's, so the file still opens with the app's model and migrates
  /// from its version. `false` by default: a save records the model it was made with.
  public var keepsStoreVersionHashes = false
  /// The contexts made on the coordinator, held weakly: what a batch request changed in the
  /// store is merged into each.
  private var contextReferences: [() -> ManagedObjectContext?] = []

  /// The contexts made on the coordinator that are still in use.
  package var contexts: [ManagedObjectContext] { contextReferences.compactMap { $0() } }

  func register(_ context: ManagedObjectContext) {
    contextReferences.removeAll { $0() == nil }
    contextReferences.append { [weak context] in context }
  }

  /// Creates a coordinator with no store.
  public init(managedObjectModel: ManagedObjectModel) {
    self.managedObjectModel = managedObjectModel
  }

  /// Adds the store in the file at `url`, read with `format`; a missing file is a new, empty
  /// store that the first save creates.
  ///
  /// - Throws: `StoreError` from reading the file (`.modelMismatch` when it does not fit the
  ///   model), or `.malformedStore` when the coordinator already has a store.
  @discardableResult
  public func addPersistentStore(at url: URL, format: any StoreFormat) throws(StoreError)
    -> PersistentStore
  {
    try checkNoStore()
    if !cache.rows.isEmpty { cache = RowCache(layouts: layouts) }
    let store: PersistentStore
    // Temporary files that killed saves of this document left beside it go first.
    if url.isFileURL { _ = AtomicFile.removeStaleTemporaries(for: url) }
    // What the file is like is noted before it is read: another process that saves between
    // the two leaves a stamp that differs, and its save is taken in later.
    let pin = format is any IncrementalStoreFormat ? nil : FilePin(url)
    let stamp = FileStamp(of: url)
    var connection: (any IncrementalStoreConnection)?
    var counter: Int64?
    let exists = try storeExists(at: url, format: format)
    if let incremental = format as? any IncrementalStoreFormat, exists {
      // A store that cannot be opened for writing is still read; its saves fail as they would.
      connection = try? incremental.connect(to: url)
      counter = try connection?.changeCounter()
    }
    let historyToken = try? (format as? any HistoryChangesReading)?.historyPosition(of: url)
    let logPosition = try? (format as? any CommitLogReading)?.commitLogPosition(of: url)
    if exists {
      // The whole store is read now, so a file that does not open fails here; its records
      // become the committed rows as they are read.
      let metadata = try cache.load(from: url, format: format, model: managedObjectModel)
      store = PersistentStore(url: url, format: format, metadata: metadata)
    } else {
      store = PersistentStore(
        url: url, format: format, metadata: StoreMetadata(storeType: format.typeName))
    }
    store.noteFileOnDisk(stamp: stamp, pin: pin)
    store.connection = connection
    store.seenChangeCounter = counter
    store.historyToken = historyToken ?? nil
    store.commitLogPosition = logPosition ?? nil
    persistentStores.append(store)
    return store
  }

  /// Adds a store that lives in memory only, for tests and scratch documents.
  ///
  /// - Throws: `StoreError.malformedStore` when the coordinator already has a store.
  @discardableResult
  public func addInMemoryStore(metadata: StoreMetadata = StoreMetadata(storeType: "InMemory"))
    throws(StoreError) -> PersistentStore
  {
    try checkNoStore()
    if !cache.rows.isEmpty { cache = RowCache(layouts: layouts) }
    let store = PersistentStore(url: nil, format: nil, metadata: metadata)
    cache.identifier = metadata.identifier
    persistentStores.append(store)
    return store
  }

  /// Points the store at the file `url`, in `format`, replacing whatever is there at the next
  /// save ("save as"); an in-memory store becomes a file store.
  ///
  /// - Throws: `StoreError.malformedStore` when the coordinator has no store.
  package func relocateStore(to url: URL, format: any StoreFormat) throws(StoreError) {
    guard let old = persistentStores.first else {
      throw StoreError(.malformedStore, "the coordinator has no store to move")
    }
    var metadata = old.metadata
    metadata.storeType = format.typeName
    let store = PersistentStore(url: url, format: format, metadata: metadata)
    store.noteFileOnDisk()
    store.needsWrite = true
    persistentStores = [store]
  }

  /// Writes `contents` to `url` in `format` without touching the store: an autosave or export.
  func write(_ contents: StoreContents, to url: URL, format: any StoreFormat) throws(StoreError) {
    var contents = contents
    contents.metadata.modelVersionHashes = managedObjectModel.entityVersionHashesByName
    contents.metadata.storeType = format.typeName
    try format.write(contents, model: managedObjectModel, to: url)
  }

  /// Makes `store` the coordinator's only store again: a failed "save as" goes back to the
  /// store it moved from.
  package func restoreStore(_ store: PersistentStore) { persistentStores = [store] }

  /// Removes `store`; contexts keep the objects they loaded from it.
  public func removePersistentStore(_ store: PersistentStore) {
    persistentStores.removeAll { $0 === store }
  }

  private func checkNoStore() throws(StoreError) {
    guard persistentStores.isEmpty else {
      throw StoreError(
        .malformedStore, "a coordinator holds one store; remove the current one first")
    }
  }

  /// Writes the committed state to the store's file, with metadata carrying the model's
  /// version hashes; an in-memory store holds the committed state already.
  ///
  /// - Throws: `StoreError.modifiedOnDisk` when someone else changed the file since it was
  ///   read or written; `.writeFailed` and format errors from writing. The file is then as it
  ///   was.
  ///
  /// A save in place through the store's connection returns `.stale` when another writer
  /// moved rows the save changes (see ``IncrementalSaveResult``): nothing is written, and the
  /// store's write lock is still held, for the caller to take the whole store in and try again.
  @discardableResult
  func persist(_ commit: Commit? = nil, author: String? = nil, contextName: String? = nil)
    throws(StoreError) -> IncrementalSaveResult
  {
    guard let store = persistentStores.first else { return .written }
    var metadata = store.metadata
    metadata.identifier = cache.identifier
    let keepsHashes = keepsStoreVersionHashes && !store.metadata.modelVersionHashes.isEmpty
    if !keepsHashes {
      metadata.modelVersionHashes = managedObjectModel.entityVersionHashesByName
      metadata.modelVersionIdentifiers = managedObjectModel.versionIdentifier.map { [$0] } ?? []
    }
    if let url = store.url, let format = store.format {
      // A store with a connection knows other writers by its change counter, checked when the
      // save took the store's write lock.
      if store.connection == nil, let stamp = store.stamp, FileStamp(of: url) != stamp {
        throw StoreError(
          .modifiedOnDisk,
          "the file changed on disk since it was opened; saving would overwrite those changes",
          at: InputLocation(file: url.storePlace))
      }
      if let incremental = format as? any IncrementalStoreFormat, let commit, !store.needsWrite,
        try storeExists(at: url, format: format)
      {
        // What the save changed, written in place; the store keeps its own version hashes.
        var kept = metadata
        kept.modelVersionHashes = store.metadata.modelVersionHashes
        var changes = changes(in: commit)
        changes.author = author
        changes.contextName = contextName
        if let connection = store.connection, store.isWritingThroughConnection {
          let result = try connection.save(changes, metadata: kept, model: managedObjectModel)
          guard result == .written else { return result }
          // A commit that wrote the save again on a new connection (the server restarted) may
          // find other writers' changes meanwhile, as the save itself does.
          if let resuming = connection as? any ResumingStoreConnection {
            let committed = try resuming.commitSave()
            guard committed == .written else { return committed }
          } else {
            try connection.commitWriting()
          }
          store.isWritingThroughConnection = false
          noteOwnCommit(store)
        } else {
          try incremental.save(changes, metadata: kept, model: managedObjectModel, to: url)
        }
        store.noteFileOnDisk()
        store.metadata = kept
        return .written
      }
      var contents = StoreContents(
        metadata: metadata, records: cache.records(), nextObjectID: cache.nextObjectID)
      contents.keepsVersionHashes = keepsHashes
      let base = store.needsWrite ? nil : store.journalBase
      try format.write(contents, model: managedObjectModel, to: url)
      if !(format is any IncrementalStoreFormat), url.isFileURL {
        StoreKeyReservation.release(below: contents.nextObjectID, for: url)
      }
      store.noteFileOnDisk()
      if let commit, let base, let written = store.stamp, !(format is any IncrementalStoreFormat),
        ChangeJournal.recordsSave(changing: commit.originals.count, of: contents.records.count)
      {
        ChangeJournal.record(
          changes(in: commit), metadata: metadata, objectCount: contents.records.count,
          from: base, to: written, for: url)
      }
      store.needsWrite = false
      if let incremental = format as? any IncrementalStoreFormat {
        // A store written whole in a format saved in place is saved in place from now on.
        store.connection = try? incremental.connect(to: url)
        store.seenChangeCounter = try? store.connection?.changeCounter()
        store.commitLogPosition =
          try? (format as? any CommitLogReading)?.commitLogPosition(of: url) ?? nil
      }
    }
    store.metadata = metadata
    return .written
  }

  /// The rows `commit` inserted, updated and deleted, as records.
  private func changes(in commit: Commit) -> StoreChanges {
    let cache = self.cache
    var changes = StoreChanges(nextObjectID: cache.nextObjectID) { id in
      guard let row = cache.row(forPrimaryKey: id), let committed = cache.row(row) else {
        return nil
      }
      return cache.record(of: committed, at: row)
    }
    for (row, original) in commit.originals {
      let now = cache.row(row)
      switch (original, now) {
      case (nil, let new?):
        changes.inserted.append(cache.record(of: new, at: row))
      case (let old?, let new?):
        changes.updated.append(
          (cache.record(of: old, at: row, allTargets: true), cache.record(of: new, at: row)))
      case (let old?, nil):
        changes.deleted.append(cache.record(of: old, at: row, allTargets: true))
      case (nil, nil):
        continue
      }
    }
    rewriteRevivedReferences(of: commit, into: &changes)
    return changes
  }

  /// Makes the save write again each reference that names a row the commit brought back.
  ///
  /// While the row was gone, the reference named nothing, and a file written whole then left
  /// it out; a save in place must not take the file to hold it. So the holder's update is
  /// given as if its file row lacked the reference, and the store writes it.
  private func rewriteRevivedReferences(of commit: Commit, into changes: inout StoreChanges) {
    guard !commit.revivedReferences.isEmpty else { return }
    let cache = self.cache
    var updateIndex: [Int64: Int] = [:]
    for (index, update) in changes.updated.enumerated() { updateIndex[update.new.id] = index }
    for (row, holders) in commit.revivedReferences {
      guard cache.row(row) != nil else { continue }
      let revivedID = cache.primaryKey(ofRow: row)
      for (holder, slot) in holders {
        guard let committed = cache.row(holder) else { continue }
        let name = cache.layouts[committed.entity].properties[slot].name
        let new = cache.record(of: committed, at: holder)
        guard new.relationships[name]?.contains(revivedID) == true else { continue }
        let index: Int
        if let known = updateIndex[new.id] {
          index = known
        } else {
          changes.updated.append((cache.record(of: committed, at: holder, allTargets: true), new))
          index = changes.updated.count - 1
          updateIndex[new.id] = index
        }
        let targets = changes.updated[index].old.relationships[name] ?? []
        let kept = targets.filter { $0 != revivedID }
        changes.updated[index].old.relationships[name] = kept.isEmpty ? nil : kept
      }
    }
  }

  /// The metadata of the store in the file at `url`, read with the first of `formats` that
  /// recognises the file, without loading its objects.
  ///
  /// - Throws: `StoreError.notFound`, `.unknownFormat`, and format errors.
  public static func metadataForPersistentStore(at url: URL, formats: [any StoreFormat])
    throws(StoreError) -> StoreMetadata
  {
    try format(of: url, among: formats).readMetadata(from: url)
  }

  /// Replaces the metadata of the store in the file at `url`, read with the first of `formats`
  /// that recognises it, without loading its objects; the file is replaced atomically. What
  /// describes the objects (entity version hashes, next object ID) stays the file's.
  ///
  /// The counterpart of Core Data's `setMetadata(_:forPersistentStoreOfType:at:options:)`. A
  /// document open on the file takes the new metadata in at its next save or merge.
  ///
  /// - Throws: `StoreError.notFound`, `.unknownFormat`, format errors, `.writeFailed`.
  public static func setMetadata(
    _ metadata: StoreMetadata, forPersistentStoreAt url: URL, formats: [any StoreFormat]
  ) throws(StoreError) {
    let format = try format(of: url, among: formats)
    // A store written whole is rewritten here: under its lock, as a save would.
    let lock = format is any IncrementalStoreFormat ? nil : try StoreLock.acquire(for: url)
    defer { lock?.release() }
    try format.writeMetadata(metadata, to: url)
  }

  /// Sets the metadata `store` writes at the next save. The store's identifier stays (its
  /// objects' IDs carry it), and the model's version hashes are written as always.
  ///
  /// The counterpart of Core Data's `setMetadata(_:for:)`.
  public func setMetadata(_ metadata: StoreMetadata, for store: PersistentStore) {
    var metadata = metadata
    metadata.identifier = store.metadata.identifier
    metadata.storeType = store.metadata.storeType
    store.metadata = metadata
  }

  /// The first of `formats` that recognises the file at `url` by its content (never by its
  /// name); for a URL of a server's scheme (`postgresql://…`), the format of that scheme.
  ///
  /// - Throws: `StoreError.notFound`, `.unreadable`, `.unknownFormat`.
  public static func format(of url: URL, among formats: [any StoreFormat]) throws(StoreError)
    -> any StoreFormat
  {
    if !url.isFileURL, let scheme = url.scheme?.lowercased() {
      let found = formats.first { format in
        (format as? any ServerStoreFormat)?.urlSchemes.contains(scheme) ?? false
      }
      guard let found else {
        throw StoreError(
          .unknownFormat, "no store format of this build reads \(scheme):// URLs",
          at: InputLocation(file: url.absoluteString))
      }
      return found
    }
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
      throw StoreError(.notFound, "no such file", at: InputLocation(file: url.relativePath))
    }
    guard !isFolder.boolValue else {
      let what =
        ["xcdatamodeld", "xcdatamodel"].contains(url.pathExtension.lowercased())
        ? "a Core Data model (.\(url.pathExtension)), not a store" : "a folder, not a store file"
      throw StoreError(.unknownFormat, "is \(what)", at: InputLocation(file: url.relativePath))
    }
    guard let handle = FileHandle(forReadingAtPath: url.path) else {
      throw StoreError(
        .unreadable, "cannot open the file", at: InputLocation(file: url.relativePath))
    }
    defer { try? handle.close() }
    let prefix = (try? handle.read(upToCount: 64)).flatMap { $0 } ?? Data()
    guard let format = formats.first(where: { $0.recognizes(prefix) }) else {
      let names = formats.compactMap { $0 is any ServerStoreFormat ? nil : $0.typeName }
      throw StoreError(
        .unknownFormat, "not a store of any known format (\(names.joined(separator: ", ")))",
        at: InputLocation(file: url.relativePath))
    }
    return format
  }
}
