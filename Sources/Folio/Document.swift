import FolioGraph
import FolioMigration
import FolioModel
import FolioStores
import FolioUndo
import Foundation

/// A document for an editor: one store file, its whole graph in a context, its undo stack, and
/// whether it has been edited since it was saved.
///
/// ```swift
/// let document = try Document.open(url, model: model, formats: [XMLStore(), BinaryStore()])
/// let ada = try document.context.insertNewObject(forEntityName: "Person")
/// document.isEdited                     // true
/// try document.save()
/// try document.save(to: copyURL, format: BinaryStore())   // save as, in another format
/// ```
///
/// ``isEdited`` follows the undo stack's *save point*: the document is clean exactly at the
/// state it was last saved in. Undoing back to it makes the document clean again and redoing
/// away makes it edited; once a new change discards the redo branch that held the save point,
/// the document stays edited until it is saved.
public final class Document {
  /// The document's file; `nil` until an untitled document is saved.
  public private(set) var fileURL: URL?
  /// The file's format; `nil` for an untitled document.
  public private(set) var format: (any StoreFormat)?
  /// The model.
  public let model: ManagedObjectModel
  /// The coordinator holding the document's store: the context's (``revert()`` makes both
  /// anew).
  public private(set) var coordinator: PersistentStoreCoordinator
  /// The document's graph.
  public private(set) var context: ManagedObjectContext
  /// The undo manager's ``UndoManager/stateIdentifier`` when the document was last saved,
  /// opened, created or reverted: the state in which it is not edited.
  ///
  /// ``isEdited`` compares it with the current state identifier;
  /// ``UndoHistory/steps(toState:)`` finds it on the undo or redo stack, for an Undo History
  /// list that marks the saved state.
  public internal(set) var savePoint: Int?
  /// Whether each save also writes the undo and redo stacks beside the file, for
  /// ``keepUndoHistory()`` to set up again when the document is next opened. Off by default.
  public var keepsUndoHistory = false
  /// Why the last save could not write the undo history beside the file; `nil` when it did
  /// (or history is not kept). The document itself was saved.
  public internal(set) var undoHistoryProblem: UndoHistoryError?
  private let eventLoop: UndoEventLoop
  /// What ``watchForChangesFromOtherWriters(every:on:onMerge:)`` set up.
  var watch: DocumentWatch?
  /// Why the last merge the watch tried failed (the file was removed, damaged or replaced
  /// by another store); `nil` after one that did not.
  public internal(set) var otherWritersProblem: StoreError?

  /// A new, untitled document on `model`, its undo grouped by `eventLoop`'s turns.
  public init(model: ManagedObjectModel, eventLoop: UndoEventLoop = ManualEventLoop()) throws {
    self.model = model
    self.eventLoop = eventLoop
    coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addInMemoryStore()
    context = try ManagedObjectContext(
      coordinator: coordinator, undoManager: UndoManager(eventLoop: eventLoop))
  }

  private init(
    url: URL, format: any StoreFormat, model: ManagedObjectModel, eventLoop: UndoEventLoop
  ) throws {
    self.model = model
    self.eventLoop = eventLoop
    fileURL = url
    self.format = format
    coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(at: url, format: format)
    context = try ManagedObjectContext(
      coordinator: coordinator, undoManager: UndoManager(eventLoop: eventLoop))
  }

  /// Opens the document in the file at `url`, whose format is recognised by its content among
  /// `formats`, or on the server its URL names (`postgresql://…`).
  ///
  /// - Throws: `StoreError` (`.notFound` for a missing file or a server's document that is
  ///   not there, `.unknownFormat`, `.modelMismatch`, …) or `GraphError` when the store's
  ///   objects do not fit the model.
  public static func open(
    _ url: URL, model: ManagedObjectModel, formats: [any StoreFormat],
    eventLoop: UndoEventLoop = ManualEventLoop()
  ) throws -> Document {
    let format = try PersistentStoreCoordinator.format(of: url, among: formats)
    // A coordinator takes a server's document that is not there for a new one; opening
    // needs it there, as it needs a file.
    if format is any ServerStoreFormat { _ = try format.readMetadata(from: url) }
    return try Document(url: url, format: format, model: model, eventLoop: eventLoop)
  }

  /// Opens the document in the file at `url`, written with any version of `bundle`, with the
  /// bundle's current version; the format is recognised by its content among `formats`.
  ///
  /// A store written with another version of the bundle (found by the entity version hashes
  /// its metadata records) is first migrated to the current version, step by step through
  /// the versions between (``FolioMigration/StoreMigration``), as `NSPersistentContainer`
  /// does by default: the new file replaces the old one only when every step has succeeded.
  /// With `migratesAutomatically` false, such a store is refused instead. A store no version
  /// of the bundle wrote is opened with the current version, and refused if it does not fit.
  ///
  /// - Throws: `MigrationError` when the store needs a migration that cannot be made
  ///   (`.needsMapping`, `.invalidValue`, …) or is turned off (`.needsMapping`); otherwise as
  ///   ``open(_:model:formats:eventLoop:)``.
  public static func open(
    _ url: URL, bundle: ModelBundle, formats: [any StoreFormat],
    migratesAutomatically: Bool = true, eventLoop: UndoEventLoop = ManualEventLoop()
  ) throws -> Document {
    let format = try PersistentStoreCoordinator.format(of: url, among: formats)
    let metadata = try format.readMetadata(from: url)
    if let version = bundle.version(
      matchingVersionHashes: metadata.modelVersionHashes,
      identifiers: metadata.modelVersionIdentifiers),
      version.name != bundle.currentVersionName,
      version.model.entityVersionHashesByName != bundle.currentModel.entityVersionHashesByName
    {
      guard migratesAutomatically else {
        throw MigrationError(
          .needsMapping,
          "the store was written with version \(version.name) of the model, not the current \(bundle.currentVersionName), and automatic migration is off",
          at: InputLocation(file: url.storePlace))
      }
      try StoreMigration(storeAt: url, format: format, bundle: bundle).run()
    }
    return try Document(url: url, format: format, model: bundle.currentModel, eventLoop: eventLoop)
  }

  /// The undo manager.
  public var undoManager: UndoManager? { context.undoManager }

  /// Whether the document differs from what was last saved (pending changes are processed
  /// first, so they count).
  public var isEdited: Bool {
    context.processPendingChanges()
    guard let undoManager else { return context.hasChanges }
    return undoManager.stateIdentifier != savePoint
  }

  /// Saves to the document's file.
  ///
  /// - Throws: `GraphError.validation` and the like; `.store` when the file cannot be written
  ///   or changed on disk since it was opened. An untitled document has no file: use
  ///   ``save(to:format:)``.
  public func save() throws {
    guard fileURL != nil else {
      throw StoreError(.writeFailed, "the document is untitled: save it to a file first")
    }
    try context.save()
    savePoint = undoManager?.stateIdentifier
    writeUndoHistory()
  }

  /// Saves to a new file ("save as"), in `format` — by default the format among `formats`
  /// whose extension the file has, or for the URL of a document on a server
  /// (`postgresql://…`), the format of its scheme — and makes it the document's file.
  ///
  /// - Throws: `StoreError.unknownFormat` when no format has the file's extension or reads
  ///   the URL's scheme; save errors. On error the document keeps its old file.
  public func save(to url: URL, format: (any StoreFormat)? = nil, formats: [any StoreFormat] = [])
    throws
  {
    let chosen: any StoreFormat
    if let format {
      chosen = format
    } else if !url.isFileURL {
      chosen = try PersistentStoreCoordinator.format(of: url, among: formats)
    } else if let byExtension = formats.first(where: {
      !($0 is any ServerStoreFormat) && $0.fileExtension == url.pathExtension.lowercased()
    }) {
      chosen = byExtension
    } else {
      throw StoreError(
        .unknownFormat, "no store format has the extension \".\(url.pathExtension)\"",
        at: InputLocation(file: url.storePlace))
    }
    let previous = coordinator.persistentStores.first
    try coordinator.relocateStore(to: url, format: chosen)
    context.attach(to: coordinator)
    do {
      try context.save()
    } catch {
      if let previous { coordinator.restoreStore(previous) }
      throw error
    }
    fileURL = url
    self.format = chosen
    savePoint = undoManager?.stateIdentifier
    writeUndoHistory()
  }

  /// Whether the document's file changed on disk since the document read or wrote it: someone
  /// else saved over it, replaced or removed it. ``save()`` then fails with
  /// `StoreError.Code.modifiedOnDisk`; ``revert()`` reads their version, and
  /// ``keepOverChangesOnDisk()`` keeps this one, to be saved over theirs.
  public var isChangedOnDisk: Bool {
    coordinator.persistentStores.first?.isChangedOnDisk ?? false
  }

  /// Takes in what other processes saved to the document's file since the document read or
  /// saved it, and merges it into the context as Core Data merges another context's save
  /// (`mergeChanges(fromContextDidSave:)`): objects another process changed take its values,
  /// with this document's unsaved changes kept on top; its new objects come in, and objects
  /// it deleted leave. Nothing is registered for undo, and the edited state is unchanged; an
  /// objects-did-change notification lists what changed.
  ///
  /// ``save()`` takes in other writers' changes too, under the store's lock, before it writes:
  /// calling this between saves keeps the document up to date, it is not needed for safety.
  ///
  /// - Returns: the objects inserted, updated and deleted by others; empty when the file had
  ///   not changed.
  /// - Throws: `StoreError.modifiedOnDisk` when the file was removed, no longer reads, or was
  ///   replaced by another store; the document is then as it was.
  @discardableResult
  public func mergeChangesFromOtherWriters() throws -> ObjectIDChanges {
    let changes = try coordinator.takeInChangesFromOtherWriters()
    if !changes.isEmpty { context.mergeChanges(fromContextDidSave: changes) }
    return changes
  }

  /// The transactions other saves recorded in the store's persistent history after `token`
  /// (every one without a token), oldest first; empty for a store that keeps no history.
  ///
  /// - Throws: `StoreError` when the store cannot be read; `historyTokenExpired` when the
  ///   transactions just after `token` were deleted (read the store again, and follow the
  ///   history from its last transaction).
  public func fetchHistory(after token: PersistentHistoryToken?) throws
    -> [PersistentHistoryTransaction]
  {
    try coordinator.fetchHistory(after: token)
  }

  /// Merges into the context what the transactions recorded after `token` changed, as Core
  /// Data's `mergeChanges(fromContextDidSave:)` merges a history transaction: the store is
  /// taken in, and objects those saves changed are refreshed keeping the document's unsaved
  /// changes, their new objects come in, and their deletions leave.
  ///
  /// - Returns: the token of the last transaction, to pass next time; `token` when there was
  ///   none after it.
  /// - Throws: `StoreError` when the store cannot be read, or was replaced by another.
  @discardableResult
  public func mergeHistory(after token: PersistentHistoryToken?) throws -> PersistentHistoryToken? {
    let transactions = try fetchHistory(after: token)
    guard let last = transactions.last else { return token }
    try mergeChangesFromOtherWriters()
    return last.token
  }

  deinit { watch?.cancel() }

  /// Keeps the document as it is over a file changed on disk: the next ``save()`` writes over
  /// what someone else wrote there.
  public func keepOverChangesOnDisk() {
    coordinator.persistentStores.first?.acceptFileOnDisk()
  }

  /// Discards every unsaved change and reads the file again; the undo stack is cleared.
  ///
  /// - Throws: store errors reading the file; an untitled document is reverted to empty.
  public func revert() throws {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    if let fileURL, let format {
      try coordinator.addPersistentStore(at: fileURL, format: format)
    } else {
      try coordinator.addInMemoryStore()
    }
    let fresh = try ManagedObjectContext(
      coordinator: coordinator, undoManager: UndoManager(eventLoop: eventLoop))
    context.reset()
    context = fresh
    self.coordinator = coordinator
    savePoint = nil
  }

  /// Writes the document, unsaved changes included, to a sibling file — `Name (Autosaved).ext`
  /// beside the document — without saving it: the document stays edited.
  ///
  /// - Returns: the autosave file.
  /// - Throws: `GraphError.store` when it cannot be written; an untitled document has no
  ///   sibling to write.
  @discardableResult
  public func autosave() throws -> URL {
    guard let fileURL, let format else {
      throw StoreError(.writeFailed, "the document is untitled: there is no folder to autosave in")
    }
    let name = fileURL.deletingPathExtension().lastPathComponent
    let sibling = fileURL.deletingLastPathComponent()
      .appendingPathComponent("\(name) (Autosaved)").appendingPathExtension(format.fileExtension)
    try context.writeCopy(to: sibling, format: format)
    return sibling
  }
}
