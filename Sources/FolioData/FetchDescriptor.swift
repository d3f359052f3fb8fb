import FolioGraph
import FolioQuery
import Foundation

/// What to fetch: SwiftData's `FetchDescriptor`, with Foundation's `Predicate` and
/// `SortDescriptor`.
///
/// The predicate and sort descriptors are translated into Folio's (``PredicateTranslator``),
/// so a fetch uses the store's indexes and Folio's compiled comparisons; a predicate or sort
/// descriptor Folio cannot translate is evaluated by Foundation on each object of the entity
/// instead, with the same results.
public struct FetchDescriptor<T: PersistentModel> {
  public var predicate: Predicate<T>?
  public var sortBy: [SortDescriptor<T>]
  /// The most objects to return; `nil` for all.
  public var fetchLimit: Int?
  /// How many of the first objects to skip; `nil` for none.
  public var fetchOffset: Int?
  /// Whether unsaved changes count. The default is `true`.
  public var includePendingChanges = true
  /// Accepted for SwiftData's sake: the whole graph is in memory, so every property is fetched.
  public var propertiesToFetch: [PartialKeyPath<T>] = []
  /// Accepted for SwiftData's sake: related objects are in memory already.
  public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []
  /// Whether objects of T's `@Model` subclasses are fetched too. The default is `true`.
  var includesSubentities = true

  public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
    self.predicate = predicate
    self.sortBy = sortBy
  }
}

extension ModelContext {
  /// The objects `descriptor` selects, in its order.
  ///
  /// - Throws: `GraphError` when the predicate cannot be evaluated on an object, or an error
  ///   Foundation's evaluation throws.
  public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
    if !hasOwnCoordinator { container.mergeActorSaves() }
    let plan = self.plan(descriptor)
    let objects = try managedObjectContext.fetch(plan.request)
    var models = objects.map { object -> T in
      guard let model = model(of: object) as? T else {
        fatalError("\(object.entityName)'s objects are not \(T.self) models")
      }
      return model
    }
    if plan.isComplete { return models }
    if let predicate = descriptor.predicate, plan.request.predicate == nil {
      models = try models.filter { try predicate.evaluate($0) }
    }
    if !descriptor.sortBy.isEmpty, plan.request.sortDescriptors.isEmpty {
      models.sort(using: descriptor.sortBy)
    }
    let start = min(descriptor.fetchOffset ?? 0, models.count)
    let end = descriptor.fetchLimit.map { min(start + $0, models.count) } ?? models.count
    return Array(models[start..<end])
  }

  /// Calls `block` with each object `descriptor` selects, in its order. The whole graph is in
  /// memory, so `batchSize` only says how many objects are made ready at a time.
  public func enumerate<T: PersistentModel>(
    _ descriptor: FetchDescriptor<T>, batchSize: Int = 5_000,
    allowEscapingMutations: Bool = false, block: (T) throws -> Void
  ) throws {
    for model in try fetch(descriptor) { try block(model) }
  }

  /// How many objects `descriptor` selects.
  public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
    if !hasOwnCoordinator { container.mergeActorSaves() }
    let plan = self.plan(descriptor)
    if plan.isComplete { return try managedObjectContext.count(for: plan.request) }
    return try fetch(descriptor).count
  }

  /// The identifiers of the objects `descriptor` selects, in its order.
  public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws
    -> [PersistentIdentifier]
  {
    try fetch(descriptor).map(\.persistentModelID)
  }

  /// Whether Folio evaluates `descriptor` whole (its predicate and sort descriptors translated),
  /// rather than Foundation evaluating part of it.
  package func isTranslated<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) -> Bool {
    plan(descriptor).isComplete
  }

  /// The request for `descriptor`, and whether it does all the work: when the predicate or a
  /// sort descriptor is not translated, the request fetches every object of the entity and
  /// Foundation evaluates the rest.
  func plan<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) -> (
    request: FetchRequest<ManagedObject>, isComplete: Bool
  ) {
    var request = FetchRequest<ManagedObject>(entityName: container.schema.entityName(of: T.self))
    request.includesPendingChanges = descriptor.includePendingChanges
    request.includesSubentities = descriptor.includesSubentities
    var isComplete = true
    if let predicate = descriptor.predicate {
      do {
        request.predicate = try translator.translate(predicate)
      } catch {
        isComplete = false
      }
    }
    do {
      request.sortDescriptors = try descriptor.sortBy.map {
        descriptor throws(UntranslatablePredicate) in
        try translator.translate(descriptor)
      }
    } catch {
      isComplete = false
      request.sortDescriptors = []
    }
    if isComplete {
      request.fetchLimit = descriptor.fetchLimit ?? 0
      request.fetchOffset = descriptor.fetchOffset ?? 0
    }
    return (request, isComplete)
  }
}
