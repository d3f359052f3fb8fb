import FolioModel
import FolioQuery
import FolioStores
import FolioUndo
import Foundation
import Observation

/// The in-memory object graph of a document: every object, every change since the last save,
/// and the rules that keep relationships consistent.
///
/// The counterpart of Core Data's `NSManagedObjectContext`. The whole graph lives here; a
/// context belongs to one isolation domain (an editor's main actor, a CLI's thread) and is not
/// `Sendable`.
///
/// ## Change tracking
/// A setter records the value it replaces the moment it runs, twice over: once per *save*
/// (the first change to a key since the last save keeps the committed value, for
/// ``ManagedObject/changedValues()`` and ``ManagedObject/committedValues(forKeys:)``), and once
/// per *turn* (the first change to a key since the last ``processPendingChanges()`` keeps the
/// value from before the turn, for the change notification and the undo manager). Objects
/// inserted since the save, or in the turn, need neither record. Deleting marks an object;
/// ``processPendingChanges()`` then applies the delete rules of its relationships — Nullify,
/// Cascade, Deny (checked at save), No Action — and posts one notification for the turn.
public final class ManagedObjectContext {
  /// The model the context's objects are instances of.
  public let model: ManagedObjectModel
  /// The identifier permanent object IDs carry: the store's UUID once the context has one.
  public var storeIdentifier: String {
    get { cache.identifier }
    set { cache.identifier = newValue }
  }
  /// App-registered validation rules, checked with the model's at save.
  public var validationRules = ValidationRules()
  /// How a save resolves conflicts with changes another context committed since this one
  /// read the objects; ``MergePolicy/error`` (the default) refuses the save.
  public var mergePolicy = MergePolicy.error
  /// The context's name, recorded with each of its saves in a store that keeps persistent
  /// history (Core Data's `name`). The default is `nil`.
  public var name: String?
  /// Who the context's saves are by, recorded with each of them in a store that keeps
  /// persistent history (Core Data's `transactionAuthor`). The default is `nil`.
  public var transactionAuthor: String?
  /// Whether reading an entity class's properties is tracked by Swift Observation
  /// (`withObservationTracking`, SwiftUI), so that every change to them notifies. The default
  /// is `false`: tracking makes a registrar for each object read (about 160 bytes) and slows
  /// each typed read; an app's UI context turns it on. Turning it off stops new tracking;
  /// what is already tracked keeps notifying.
  public var tracksObservation = false

  let layouts: [EntityLayout]
  let layoutByName: [String: EntityLayout]
  /// The layout of the entity each registered class is registered for.
  let layoutByClass: [ObjectIdentifier: EntityLayout]
  /// The committed state the context reads from and saves into: its coordinator's, or its
  /// own when it has none.
  var cache: RowCache
  // No access to a property marked `@exclusivity(unchecked)` overlaps another access to it: none is
  // passed inout to code that can reach it again, and no closure run while one is being changed
  // touches it. Debug builds, where the tests run, check that at every access; release builds leave
  // the check out (an insert takes 1.1 times as long with it). Each property keeps its own mark:
  // gathered in one struct, reading one field while changing another would overlap on the struct.
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// The objects the context has registered, by row (the cache's rows); `nil` for a row the
  /// context has not read (or forgot at `reset()`): ``object(atRow:)`` reads it on demand.
  var table: [ManagedObject?] = []
  /// The cache generation at which every committed row was last registered; `nil` when some
  /// row may be missing.
  var registeredGeneration: Int?
  /// Rows of registered objects with a snapshot whose committed row another context deleted,
  /// as of `registeredGeneration`: the objects a fetch may have to leave out.
  var vanishingRows: [Int32] = []

  // The change-tracking state below is written on every change. Debug and sanitizer builds
  // check exclusive access to it; release builds leave the check out (it costs a change a
  // fifth of its time), as a context is confined to one isolation domain (it is not Sendable).

  // Since the last save.
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  var insertedRows: Set<Int32> = []
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  var deletedRows: Set<Int32> = []
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// Objects with saved-value records (`records?.saved`), some of them updated.
  var savedRows: [Int32] = []
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// How many objects are updated (have the `updated` flag).
  var updatedCount = 0
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// Objects inserted and then deleted since the last save: gone from the graph, but their Deny
  /// rules still hold at save.
  var discardedRows: Set<Int32> = []

  // Since the last processPendingChanges().
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// Objects inserted (or brought back) in the turn: those with the `turnInserted` flag.
  var turnInsertedRows: [Int32] = []
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  var turnDeleted: [Int32] = []
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  var pendingDeletes: [Int32] = []
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// Objects with before-the-turn records (`records?.turn`).
  var turnRows: [Int32] = []

  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  var isProcessingChanges = false
  /// While set, a turn's change is kept in ``capturedTurnChanges`` rather than registered for
  /// undo: what a save changes on its own, undone if the save fails.
  var capturesTurnChanges = false
  var capturedTurnChanges: [TurnChange] = []
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// Bumped by every change that can change an attribute index: an insert, a delete, a revival,
  /// a write to an indexed attribute. An index built at another version is rebuilt.
  var indexVersion = 0
  /// The Observation registrars of the objects read through entity classes, by row.
  var observationRegistrars: [Int32: ObservationRegistrar] = [:]
  /// The fetched properties' results, by object row and slot, until the object is
  /// refreshed.
  var fetchedPropertyResults: [Int32: [Int: [ManagedObject]]] = [:]
  /// For a context of key path recorders, what they were asked for.
  var keyPathRecording: KeyPathRecording?
  /// Objects read from committed rows whose ``ManagedObject/awakeFromFetch()`` is due.
  var awakenings: [ManagedObject] = []
  /// Whether ``ManagedObject/awakeFromFetch()`` is running: changes are not tracked.
  var isAwakeningFromFetch = false
  /// Whether a save is calling an entity class's validation methods, whose defaults then
  /// check nothing (the save checks the model's rules itself).
  var isValidatingForSave = false
  /// Attribute indexes by entity and slot, built on first use.
  var attributeIndexes: [Int: AttributeIndex] = [:]
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// Bumped by every write to a slot: a column built at another version is rebuilt.
  var valueVersion = 0
  /// Attribute columns by entity, slot and whether subentities count, built on first use.
  var attributeColumns: [Int: AttributeColumn] = [:]
  /// Why the last processed turn could not be registered with the undo manager: with
  /// `groupsByEvent` off and no group open, there is nowhere to register (Cocoa raises an
  /// exception). The turn's changes stay in the graph but cannot be undone. `nil` once a turn
  /// registers again.
  public internal(set) var undoRegistrationError: UndoError?
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  var isTurnScheduled = false
  /// The queue ``perform(_:)`` runs blocks on; `nil` for a confined context, which runs them
  /// where they are given.
  package internal(set) var queue: DispatchQueue?
  /// Called at the first change after ``isChangeNoticed`` was cleared, which it sets: for a
  /// library on top that acts once on a run of changes (an autosave).
  package var changeHook: (() -> Void)?
  /// Whether ``changeHook`` was called since its owner last cleared this.
  package var isChangeNoticed = false
  var undoObserver: ObservationToken?

  private var observers: [Int: (ObjectsDidChangeNotification) -> Void] = [:]
  private(set) var eventObservers: [Int: (ContextEvent) -> Void] = [:]
  private var nextObserver = 0

  /// The coordinator whose store the context loads from and saves to (a child context's is
  /// its parent's); `nil` for a context whose saves commit in memory only.
  public internal(set) var persistentStoreCoordinator: PersistentStoreCoordinator?
  /// The context a child context reads through and saves into; `nil` for a root context.
  public internal(set) var parent: ManagedObjectContext?

  /// The undo manager the context registers each turn's changes with; `nil` turns undo off.
  ///
  /// A context has one by default, on a ``FolioUndo/ManualEventLoop`` — Core Data's default
  /// became none in 2016, but Folio exists for undo. Its event loop also tells the context when
  /// a turn ends, so pending changes are processed then.
  public var undoManager: UndoManager? {
    didSet {
      undoObserver?.cancel()
      undoObserver = nil
      observeUndoManager()
    }
  }

  /// Creates an empty context on `model`, with an undo manager on a manual event loop.
  public convenience init(model: ManagedObjectModel) {
    self.init(model: model, undoManager: UndoManager())
  }

  /// Creates an empty context on `model` whose changes register with `undoManager` (none when
  /// `nil`).
  public convenience init(model: ManagedObjectModel, undoManager: UndoManager?) {
    self.init(model: model, layouts: EntityLayout.layouts(of: model), undoManager: undoManager)
  }

  /// Creates an empty context whose objects store their values as `layouts`, the layouts of
  /// `model` (contexts of one coordinator share them, so one can take another's objects).
  init(model: ManagedObjectModel, layouts: [EntityLayout], undoManager: UndoManager?) {
    self.undoManager = undoManager
    self.model = model
    self.layouts = layouts
    self.layoutByName = Dictionary(uniqueKeysWithValues: layouts.map { ($0.name, $0) })
    var layoutByClass: [ObjectIdentifier: EntityLayout] = [:]
    for layout in layouts {
      if let type = model.entityClasses.byEntity[layout.name] {
        layoutByClass[ObjectIdentifier(type)] = layout
      }
    }
    self.layoutByClass = layoutByClass
    self.cache = RowCache(layouts: layouts)
    observeUndoManager()
  }

  /// Creates a context on `coordinator`'s model holding the whole graph of its store.
  ///
  /// Contexts on one coordinator work against the same committed state: each reads the
  /// objects as the store holds them, keeps its own changes and undo stack, and saves into the
  /// store what it changed, keeping what the others saved.
  ///
  /// - Throws: nothing today: the coordinator's store is already read. The signature leaves room
  ///   for a store that reads its objects as the context asks for them.
  public convenience init(
    coordinator: PersistentStoreCoordinator, undoManager: UndoManager? = UndoManager()
  ) throws(GraphError) {
    self.init(
      model: coordinator.managedObjectModel, layouts: coordinator.layouts,
      undoManager: undoManager)
    persistentStoreCoordinator = coordinator
    cache = coordinator.cache
    coordinator.register(self)
    registerAllObjects()
  }

  /// Processes pending changes at each of the undo manager's checkpoints, so a turn's changes
  /// land in the group being closed, undone or redone.
  private func observeUndoManager() {
    guard let undoManager else { return }
    undoObserver = undoManager.addObserver { [weak self] notification in
      if notification == .checkpoint { self?.processPendingChanges() }
    }
  }

  // MARK: Inserting

  /// Creates an object of `entityName`, with its attributes' default values, and inserts it.
  ///
  /// Undo: the insertion joins the current turn.
  ///
  /// - Throws: `GraphError.unknownEntity`, `.abstractEntity`.
  @discardableResult
  public func insertNewObject(forEntityName entityName: String) throws(GraphError) -> ManagedObject
  {
    guard let layout = layoutByName[entityName] else {
      throw GraphError.unknownEntity(entityName, known: layouts.map(\.name))
    }
    guard !layout.entity.isAbstract else { throw GraphError.abstractEntity(entityName) }
    let object = layout.makeObject(in: self, row: cache.reserveRow())
    completeInsertion(of: object)
    return object
  }

  /// Inserts `object`, just created at a reserved row: its attributes' default values, its
  /// place in the graph and in the turn, then its class's ``ManagedObject/awakeFromInsert()``.
  func completeInsertion(of object: ManagedObject) {
    let layout = object.layout
    for (slot, property) in layout.properties.enumerated() {
      if case .attribute(let attribute) = property.kind, let value = attribute.defaultValue {
        object.slots[slot] = Slot(value)
      }
    }
    object.flags.insert([.inserted, .turnInserted])
    noteTurnActivity()
    indexVersion &+= 1
    place(object)
    insertedRows.insert(object.row)
    turnInsertedRows.append(object.row)
    if layout.hasCustomClass { object.awakeFromInsert() }
  }

  /// The layout of the entity `type` is registered for; traps when it has none, or when that
  /// entity is abstract: creating such an object is a programming error.
  func layout(ofClass type: ManagedObject.Type) -> EntityLayout {
    guard let layout = layoutByClass[ObjectIdentifier(type)] else {
      fatalError(
        "\(type) is not registered for an entity of the context's model: call model.register([\(type).self]) before creating the context"
      )
    }
    guard !layout.entity.isAbstract else {
      fatalError(
        "\(type) is the class of \(layout.name), an abstract entity: it cannot have objects of its own"
      )
    }
    return layout
  }

  // MARK: Reading the graph

  /// Objects inserted since the last save.
  public var insertedObjects: Set<ManagedObject> { objects(at: insertedRows) }
  /// Objects changed since the last save (not inserted or deleted ones).
  public var updatedObjects: Set<ManagedObject> { objects(at: Set(updatedRows)) }

  /// The rows of updated objects.
  var updatedRows: [Int32] {
    savedRows.filter { table[Int($0)]?.flags.contains(.updated) == true }
  }
  /// Objects deleted since the last save (not ones inserted since it).
  public var deletedObjects: Set<ManagedObject> { objects(at: deletedRows) }

  /// Whether anything was inserted, updated or deleted since the last save.
  public var hasChanges: Bool {
    !insertedRows.isEmpty || updatedCount > 0 || !deletedRows.isEmpty
  }

  /// Every object in the graph, deleted-but-unsaved ones included.
  public var registeredObjects: Set<ManagedObject> {
    Set(table.lazy.compactMap { $0 }.filter { !$0.flags.contains(.removed) })
  }

  /// Calls `body` with each object ``registeredObjects`` holds, without making the set.
  package func forEachRegisteredObject(_ body: (ManagedObject) -> Void) {
    for object in table {
      guard let object, !object.flags.contains(.removed) else { continue }
      body(object)
    }
  }

  /// How many objects ``registeredObjects`` holds, counted without making the set.
  package var registeredObjectCount: Int {
    table.reduce(0) { count, object in
      guard let object, !object.flags.contains(.removed) else { return count }
      return count + 1
    }
  }

  /// The objects of `entityName` now in the graph — pending changes included, deleted objects
  /// not — in insertion order; with `includingSubentities`, those of its subentities too.
  ///
  /// - Throws: `GraphError.unknownEntity`.
  /// - Complexity: O(*n*) in the objects the context holds.
  public func objects(ofEntity entityName: String, includingSubentities: Bool = true)
    throws(GraphError) -> [ManagedObject]
  {
    guard let layout = layoutByName[entityName] else {
      throw GraphError.unknownEntity(entityName, known: layouts.map(\.name))
    }
    registerAllObjects()
    return table.compactMap { object in
      guard let object, object.flags.isDisjoint(with: [.removed, .deleted, .vanished]) else {
        return nil
      }
      let matches =
        includingSubentities ? object.layout.isKind(of: layout.index) : object.layout === layout
      return matches ? object : nil
    }
  }

  func objects(at rows: Set<Int32>) -> Set<ManagedObject> {
    Set(rows.compactMap { object(atRow: $0) })
  }

  /// The object at `row`: the one registered, or else one read from the committed row now.
  @inline(__always)
  package func object(atRow row: Int32) -> ManagedObject? {
    let index = Int(row)
    if index < table.count, let object = table[index] { return object }
    return register(row)
  }

  /// Registers the object of committed row `row`, if there is one.
  func register(_ row: Int32) -> ManagedObject? {
    guard let committed = cache.row(row) else { return nil }
    let object = layouts[committed.entity].makeObject(in: self, row: row, committed: committed)
    if let source = cache.source, !source.isPermanent(row) { object.flags.remove(.permanent) }
    place(object)
    dropDeadReferences(of: object)
    indexVersion &+= 1
    if object.layout.hasCustomClass {
      awakenings.append(object)
      awakenFetched()
    }
    return object
  }

  /// Calls ``ManagedObject/awakeFromFetch()`` on the objects read from committed rows since
  /// the last call, with change tracking off (see ``ManagedObject/awakeFromFetch()``). Objects
  /// the hooks read for the first time wait their turn in the same loop.
  func awakenFetched() {
    guard !isAwakeningFromFetch, !awakenings.isEmpty else { return }
    isAwakeningFromFetch = true
    defer { isAwakeningFromFetch = false }
    var next = 0
    while next < awakenings.count {
      awakenings[next].awakeFromFetch()
      next += 1
    }
    awakenings.removeAll()
  }

  /// Lets `object`, just read from its committed row, drop the references that row keeps to
  /// objects a deletion took out of the committed state and that the context does not hold:
  /// they read as nothing, so they are nothing, and a change counts from there.
  ///
  /// A child reads its parent's objects as they are: the parent decides what they name.
  func dropDeadReferences(of object: ManagedObject) {
    let holders = cache.deadReferenceHolders
    guard !holders.isEmpty, cache.source == nil, holders.contains(object.row) else { return }
    func isReachable(_ row: Int32) -> Bool {
      let index = Int(row)
      return (index < table.count && table[index] != nil) || cache.row(row) != nil
    }
    for (slot, property) in object.layout.properties.enumerated() where property.relationship != nil
    {
      let targets = object.slots[slot].targets
      guard !targets.allSatisfy(isReachable) else { continue }
      object.ownSlots()
      switch object.slots[slot] {
      case .objects(let set):
        for target in targets where !isReachable(target) { set.remove(target) }
      default:
        object.slots[slot] = .null
      }
    }
  }

  /// Puts `object` in the table at its row.
  func place(_ object: ManagedObject) {
    let index = Int(object.row)
    if index >= table.count {
      table.append(contentsOf: repeatElement(nil, count: index + 1 - table.count))
    }
    table[index] = object
  }

  /// Registers every committed row the context has not registered yet, so that the table
  /// holds the whole graph: fetches, counts and validation see every object.
  ///
  /// - Complexity: O(*n*) in the rows when some may be missing; O(1) otherwise.
  func registerAllObjects() {
    if cache.source != nil {
      // A child reads through its parent, which may hold new objects at any time.
      for row in cache.committedRowNumbers() where object(atRow: row) == nil { continue }
      return
    }
    if registeredGeneration != cache.generation {
      let rows = cache.rows
      if table.count < rows.count {
        table.append(contentsOf: repeatElement(nil, count: rows.count - table.count))
      }
      var added = false
      vanishingRows.removeAll()
      for index in rows.indices {
        guard let object = table[index] else {
          guard let committed = rows[index] else { continue }
          let object = layouts[committed.entity].makeObject(
            in: self, row: Int32(index), committed: committed)
          table[index] = object
          dropDeadReferences(of: object)
          if object.layout.hasCustomClass { awakenings.append(object) }
          added = true
          continue
        }
        if rows[index] == nil, object.snapshot != nil { vanishingRows.append(Int32(index)) }
      }
      if added { indexVersion &+= 1 }
    }
    // Whether such an object is found depends on its changes as they are now, which a set,
    // rollback or undo changes without a commit: the flags are decided at every fetch.
    for row in vanishingRows {
      guard Int(row) < table.count, let object = table[Int(row)] else { continue }
      // An unchanged saved object whose row another context deleted is no longer found.
      let isGone =
        cache.row(row) == nil && object.snapshot != nil
        && object.flags.isDisjoint(with: [.inserted, .deleted, .removed, .updated])
      if isGone != object.flags.contains(.vanished) {
        if isGone { object.flags.insert(.vanished) } else { object.flags.remove(.vanished) }
        indexVersion &+= 1
      }
    }
    registeredGeneration = cache.generation
    awakenFetched()
  }

  // MARK: Observing

  /// Calls `handler` with each change notification, after the turn's changes are processed,
  /// until the returned token is cancelled or released.
  public func addObserver(_ handler: @escaping (ObjectsDidChangeNotification) -> Void)
    -> ObservationToken
  {
    nextObserver += 1
    let key = nextObserver
    observers[key] = handler
    return ObservationToken { [weak self] in self?.observers[key] = nil }
  }

  var hasObservers: Bool { !observers.isEmpty || !eventObservers.isEmpty }

  /// Calls `handler` with every ``ContextEvent`` (objects-did-change, will-save and
  /// did-save) until the returned token is cancelled or released.
  public func addEventObserver(_ handler: @escaping (ContextEvent) -> Void) -> ObservationToken {
    nextObserver += 1
    let key = nextObserver
    eventObservers[key] = handler
    return ObservationToken { [weak self] in self?.eventObservers[key] = nil }
  }

  /// The context's events from now on, as an asynchronous sequence. The observation ends
  /// with the stream: at the first event after its consumer stopped (the task iterating it
  /// was cancelled, or the stream and its iterators are gone).
  public func events() -> AsyncStream<ContextEvent> {
    let (stream, continuation) = AsyncStream<ContextEvent>.makeStream()
    let observation = StreamObservation(continuation)
    observation.token = addEventObserver { event in
      // Cancelled here, on the context's own thread: the stream's termination handler may
      // run on any thread.
      if case .terminated = continuation.yield(event) { observation.token?.cancel() }
    }
    return stream
  }

  func post(_ event: ContextEvent) {
    for key in eventObservers.keys.sorted() { eventObservers[key]?(event) }
  }

  func post(_ notification: ObjectsDidChangeNotification) {
    if !eventObservers.isEmpty { post(.objectsDidChange(notification.objectIDs)) }
    for key in observers.keys.sorted() { observers[key]?(notification) }
  }
}

/// What changed in one processed turn: the context's `objectsDidChange` notification.
public struct ObjectsDidChangeNotification {
  /// Objects inserted in the turn (and not deleted in it); for a merge of another context's
  /// save, the objects that save inserted.
  public var insertedObjects: Set<ManagedObject>
  /// Objects whose values changed in the turn, each with the values its changed keys had
  /// before the turn (`nil` for an empty value).
  public var updatedObjects: [ManagedObject: [String: Any?]]
  /// Objects deleted in the turn, cascaded ones included.
  public var deletedObjects: Set<ManagedObject>
  /// Objects refreshed from the store (``ManagedObjectContext/refresh(_:mergeChanges:)``).
  public var refreshedObjects: Set<ManagedObject> = []

  /// The same changes by object ID: a `Sendable` value for other isolation domains.
  public var objectIDs: ObjectIDChanges {
    ObjectIDChanges(
      inserted: Set(insertedObjects.map(\.objectID)),
      updated: Set(updatedObjects.keys.map(\.objectID)),
      deleted: Set(deletedObjects.map(\.objectID)),
      refreshed: Set(refreshedObjects.map(\.objectID)))
  }
}

/// Changes named by object ID.
public struct ObjectIDChanges: Sendable, Hashable {
  /// Objects inserted.
  public var inserted: Set<ManagedObjectID>
  /// Objects updated.
  public var updated: Set<ManagedObjectID>
  /// Objects deleted.
  public var deleted: Set<ManagedObjectID>
  /// Objects refreshed.
  public var refreshed: Set<ManagedObjectID> = []

  /// Whether no object is named.
  public var isEmpty: Bool {
    inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty
  }
}

/// What a context announces, as `Sendable` values: see ``ManagedObjectContext/events()``.
public enum ContextEvent: Sendable, Hashable {
  /// A processed turn changed objects (Core Data's objects-did-change).
  case objectsDidChange(ObjectIDChanges)
  /// A save is about to validate and write (will-save).
  case willSave
  /// A save wrote these changes; new objects are named by their permanent IDs (did-save).
  case didSave(ObjectIDChanges)
}
