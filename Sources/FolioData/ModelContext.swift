import FolioGraph
import FolioModel
import FolioQuery
import FolioUndo
import Foundation

/// Inserts, fetches, changes, deletes and saves `@Model` objects: SwiftData's `ModelContext`,
/// over a ``FolioGraph/ManagedObjectContext`` of the container's coordinator.
///
/// A context is confined to one isolation domain, as a managed object context is.
public final class ModelContext {
  /// The container the context's store belongs to.
  public let container: ModelContainer
  /// The managed object context beneath, for Folio's own API (key-value access, format
  /// predicates, batch requests).
  public let managedObjectContext: ManagedObjectContext
  let translator: PredicateTranslator

  /// Whether the context works on a coordinator of its own (a model actor's, on a store file)
  /// rather than on the container's.
  let hasOwnCoordinator: Bool
  private var saveObservation: ObservationToken?

  /// A new context on the container's coordinator, for the thread that uses the container's
  /// other such contexts (the main actor's, as ``ModelContainer/mainContext``). Its objects
  /// and those of the container's other contexts merge each other's saves, and the saves of
  /// its model actors.
  public convenience init(_ container: ModelContainer) {
    self.init(container, coordinator: container.coordinator)
    container.register(self)
  }

  /// Has the context's saves merged into the container's other contexts on its coordinator,
  /// from the moment there are others: a context alone pays nothing for it.
  func shareSaves() {
    guard saveObservation == nil else { return }
    saveObservation = managedObjectContext.addEventObserver { [weak self] event in
      guard case .didSave(let changes) = event, let self else { return }
      self.container.merge(changes, savedBy: self)
    }
  }

  /// A context for a model actor (`@ModelActor` makes it): on a coordinator of its own, on the
  /// same store, so that it can work on another thread; for a container kept in memory only,
  /// on the container's, and the actor runs on the main actor.
  public convenience init(_actorOf container: ModelContainer) {
    guard let configuration = container.configurations.first,
      !configuration.isStoredInMemoryOnly
    else {
      self.init(container)
      return
    }
    let coordinator = PersistentStoreCoordinator(managedObjectModel: container.managedObjectModel)
    do {
      try coordinator.addPersistentStore(at: configuration.url, format: configuration.format())
    } catch {
      fatalError("a model actor's context cannot open the store: \(error)")
    }
    self.init(container, coordinator: coordinator)
  }

  private init(_ container: ModelContainer, coordinator: PersistentStoreCoordinator) {
    self.container = container
    hasOwnCoordinator = coordinator !== container.coordinator
    do {
      managedObjectContext = try ManagedObjectContext(coordinator: coordinator, undoManager: nil)
    } catch {
      fatalError("a context cannot be made on the container: \(error)")
    }
    // A unique attribute's value inserted again updates the object saved with it (an upsert),
    // as SwiftData does: the inserted object's values win.
    managedObjectContext.mergePolicy = .mergeByPropertyObjectTrump
    let names = container.schema.names
    translator = PredicateTranslator { names.names[$0] }
    ModelContextRegistry.shared.register(self)
  }

  deinit {
    ModelContextRegistry.shared.unregister(managedObjectContext)
    // Each managed object keeps its model instance, and each instance its managed object:
    // the pairs are let go of here.
    managedObjectContext.forEachRegisteredObject { object in
      (object as? _ModelObject)?.model = nil
    }
  }

  /// The undo manager that records the context's changes; `nil` (the default) records none.
  public var undoManager: ModelUndoManager? {
    didSet { managedObjectContext.undoManager = undoManager.map(Self.folioUndoManager) }
  }

  #if canImport(Darwin)
    static func folioUndoManager(_ manager: ModelUndoManager) -> FolioUndo.UndoManager { manager }
  #else
    static func folioUndoManager(_ manager: ModelUndoManager) -> FolioUndo.UndoManager {
      manager.base
    }
  #endif

  /// Whether reading the properties of the context's objects is tracked by Swift Observation
  /// (`withObservationTracking`, SwiftUI), so that every change to them notifies. On for the
  /// container's ``ModelContainer/mainContext``, off for other contexts by default: tracking
  /// gives each object read a registrar (about 160 bytes) and slows each read.
  public var tracksObservation: Bool {
    get { managedObjectContext.tracksObservation }
    set { managedObjectContext.tracksObservation = newValue }
  }

  /// Whether the context saves its changes by itself, at the main actor's turn after the
  /// first change since it last saved; on for the container's ``ModelContainer/mainContext``,
  /// off for other contexts by default. Why the last such save failed is
  /// ``autosaveProblem``; the changes stay, for the next save to try again.
  public var autosaveEnabled = false {
    didSet {
      guard autosaveEnabled != oldValue else { return }
      managedObjectContext.isChangeNoticed = false
      managedObjectContext.changeHook =
        autosaveEnabled ? { [weak self] in self?.scheduleAutosave() } : nil
      if autosaveEnabled, hasChanges { scheduleAutosave() }
    }
  }

  /// Why the last autosave failed; `nil` after one that did not.
  public private(set) var autosaveProblem: (any Error)?

  private func scheduleAutosave() {
    // A context is confined to its thread; the main context's is the main actor's.
    nonisolated(unsafe) let context = self
    Task { @MainActor in context.autosave() }
  }

  private func autosave() {
    managedObjectContext.isChangeNoticed = false
    guard autosaveEnabled, hasChanges else { return }
    do {
      try save()
      autosaveProblem = nil
    } catch {
      autosaveProblem = error
    }
  }

  /// Whether anything was inserted, changed or deleted since the last save.
  public var hasChanges: Bool { managedObjectContext.hasChanges }

  /// The objects inserted since the last save.
  public var insertedModelsArray: [any PersistentModel] {
    models(managedObjectContext.insertedObjects)
  }

  /// The objects changed since the last save.
  public var changedModelsArray: [any PersistentModel] {
    models(managedObjectContext.updatedObjects)
  }

  /// The objects deleted since the last save.
  public var deletedModelsArray: [any PersistentModel] {
    models(managedObjectContext.deletedObjects)
  }

  // MARK: Inserting and deleting

  /// Inserts `model`, created outside any context, with the values it was given and the
  /// objects it refers to that no context holds yet. Inserting an object the context holds
  /// already changes nothing; an object of another context is a programming error.
  public func insert<T: PersistentModel>(_ model: T) {
    if let object = model._$backing.object {
      guard object.managedObjectContext === managedObjectContext else {
        fatalError("\(T.self) is already in another model context")
      }
      return
    }
    // The object's own class, which may be a subclass of T.
    let entityName = container.schema.entityName(of: type(of: model))
    model._$flushPendingValues()
    let inserted: ManagedObject
    do {
      inserted = try managedObjectContext.insertNewObject(forEntityName: entityName)
    } catch {
      fatalError("\(T.self) is not in the container's schema: \(error)")
    }
    guard let object = inserted as? _ModelObject else {
      fatalError("\(entityName)'s objects are not model objects")
    }
    object.model = model
    let detached = model._$backing.detached
    model._$backing = _ModelBacking(object: object)
    guard let detached else { return }
    defer { detached.noteInserted() }
    for (key, value) in zip(detached.keys, detached.values) {
      switch value {
      case .attribute(let value):
        object.setAttributeValue(StoredAttributeValue(attributeValue: value), forKey: key)
      case .toOne(let target):
        let targetObject = (target as? any PersistentModel).map {
          _ModelBacking.managedObject(of: $0, joining: object, key)
        }
        object.setRelatedObject(targetObject, forKey: key)
      case .toMany(let targets):
        let objects = targets.compactMap { $0 as? any PersistentModel }.map {
          _ModelBacking.managedObject(of: $0, joining: object, key)
        }
        object.setRelatedObjects(Set(objects), forKey: key)
      }
    }
  }

  /// Deletes `model`: its relationships' delete rules apply when pending changes are processed
  /// (before a save, a fetch, or at the end of the turn).
  public func delete<T: PersistentModel>(_ model: T) {
    guard let object = model._$backing.object else { return }
    do {
      try managedObjectContext.delete(object)
    } catch {
      fatalError("\(T.self) cannot be deleted: \(error)")
    }
  }

  /// Deletes every object of `model` that `predicate` accepts (every one without it).
  public func delete<T: PersistentModel>(
    model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true
  ) throws {
    var descriptor = FetchDescriptor<T>(predicate: predicate)
    descriptor.includesSubentities = includeSubclasses
    for object in try fetch(descriptor) { delete(object) }
  }

  /// Applies pending deletes' rules and closes the turn's changes, as at the end of a turn.
  public func processPendingChanges() { managedObjectContext.processPendingChanges() }

  // MARK: Saving

  /// Saves the context's changes to the store.
  ///
  /// - Throws: `GraphError` (`.validation` with every failure, `.mergeConflict`, …) or
  ///   `StoreError`; nothing is saved then.
  public func save() throws {
    let deleted = managedObjectContext.deletedObjects
    let changed = managedObjectContext.hasChanges
    try managedObjectContext.save()
    managedObjectContext.isChangeNoticed = false
    for object in deleted { (object as? _ModelObject)?.model = nil }
    if changed, hasOwnCoordinator { container.noteActorSave() }
  }

  /// Throws away the changes since the last save.
  public func rollback() {
    let inserted = managedObjectContext.insertedObjects
    managedObjectContext.rollback()
    for object in inserted where object.managedObjectContext == nil {
      (object as? _ModelObject)?.model = nil
    }
  }

  /// Runs `block`, then saves what it changed.
  public func transaction(block: () throws -> Void) throws {
    try block()
    try save()
  }

  // MARK: Identity

  /// The object `id` identifies, as an instance of its class: the one the context holds, or
  /// the saved one read from the store.
  public func model(for id: PersistentIdentifier) -> any PersistentModel {
    guard let objectID = self.objectID(id),
      let object = managedObjectContext.object(with: objectID)
    else { fatalError("\(id) names no object of the context") }
    guard let model = model(of: object) else { fatalError("\(id) is not a model object") }
    return model
  }

  /// The object `id` identifies, as a `T`, from the context or the store; `nil` when there is
  /// none (another context's unsaved object) or it is not a `T`.
  public func existingModel<T: PersistentModel>(for id: PersistentIdentifier) -> T? {
    guard let objectID = self.objectID(id),
      let object = try? managedObjectContext.existingObject(with: objectID)
    else { return nil }
    return model(of: object) as? T
  }

  /// The ID `id` carries, as this context knows it. A saved object's ID from another context
  /// of the store — a model actor's, on a coordinator of its own, numbers the store's keys
  /// its own way — is found through its URI, which names the object in the store.
  func objectID(_ id: PersistentIdentifier) -> ManagedObjectID? {
    if case .uri(let uri) = id.kind {
      return managedObjectContext.managedObjectID(forURIRepresentation: uri)
    }
    guard let objectID = id.objectID else { return nil }
    if objectID.isTemporaryID || managedObjectContext.object(with: objectID) != nil {
      return objectID
    }
    return managedObjectContext.managedObjectID(forURIRepresentation: objectID.uriRepresentation)
  }

  /// The object `id` identifies, if the context holds it already.
  public func registeredModel<T: PersistentModel>(for id: PersistentIdentifier) -> T? {
    guard let objectID = self.objectID(id),
      let object = managedObjectContext.object(with: objectID)
    else { return nil }
    return model(of: object) as? T
  }

  /// The model instance of `object`, made when first asked for.
  func model(of object: ManagedObject) -> (any PersistentModel)? {
    guard let object = object as? _ModelObject else { return nil }
    if let model = object.model { return model }
    guard let type = container.schema.typesByEntity[object.entityName] else { return nil }
    let model = type.init(backing: _ModelBacking(object: object))
    object.model = model
    return model
  }

  private func models(_ objects: Set<ManagedObject>) -> [any PersistentModel] {
    objects.compactMap(model(of:))
  }

  /// The instance of `T` for `object`, a related object reached through a relationship: of
  /// the class of `object`'s entity, which may be a subclass of T.
  static func model<T: PersistentModel>(for object: _ModelObject, as type: T.Type) -> T {
    if object.model == nil, let context = object.managedObjectContext,
      let modelContext = ModelContextRegistry.shared.context(for: context)
    {
      _ = modelContext.model(of: object)
    }
    if let model = object.model {
      guard let typed = model as? T else {
        fatalError("\(object.entityName) is a \(Swift.type(of: model)), not a \(T.self)")
      }
      return typed
    }
    let model = T(backing: _ModelBacking(object: object))
    object.model = model
    return model
  }
}

/// An attribute value passed through as it is stored.
struct StoredAttributeValue: AttributeValueConvertible {
  let attributeValue: AttributeValue?
  init(attributeValue: AttributeValue?) { self.attributeValue = attributeValue }
}

/// The model context of each managed object context, for the accessors of objects that know
/// only their managed object.
final class ModelContextRegistry: @unchecked Sendable {
  static let shared = ModelContextRegistry()
  private let lock = NSLock()
  private var contexts: [ObjectIdentifier: Weak] = [:]

  private struct Weak {
    weak var context: ModelContext?
  }

  func register(_ context: ModelContext) {
    lock.withLock {
      contexts[ObjectIdentifier(context.managedObjectContext)] = Weak(context: context)
    }
  }

  func unregister(_ managedObjectContext: ManagedObjectContext) {
    _ = lock.withLock { contexts.removeValue(forKey: ObjectIdentifier(managedObjectContext)) }
  }

  func context(for managedObjectContext: ManagedObjectContext) -> ModelContext? {
    lock.withLock { contexts[ObjectIdentifier(managedObjectContext)]?.context }
  }
}
