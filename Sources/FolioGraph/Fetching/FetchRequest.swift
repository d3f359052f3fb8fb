import FolioModel
import FolioQuery
import Foundation

/// A description of objects to fetch from a context: an entity, a predicate, an order, a
/// window, and the shape of the results.
///
/// The counterpart of Core Data's `NSFetchRequest`. The graph is in memory, so a fetch reads
/// the context's objects directly; pending changes are included by default (new objects are
/// found, deleted ones are not), as Core Data does.
///
/// ```swift
/// var request = FetchRequest(entityName: "Spending")
/// request.predicate = try QueryPredicate(format: "amount > %@ AND person.name BEGINSWITH[c] %@", 10, "a")
/// request.sortDescriptors = [QuerySortDescriptor(keyPath: "amount", ascending: false)]
/// request.fetchLimit = 20
/// let spendings = try context.fetch(request)
/// ```
///
/// A request typed with an entity class returns instances of it (subentities' objects as their
/// own classes), as Core Data's `NSFetchRequest<ResultType>` does:
///
/// ```swift
/// let books: [Book] = try context.fetch(Book.fetchRequest())
/// ```
public struct FetchRequest<Result: FetchRequestResult> {
  /// What a fetch returns.
  public typealias ResultType = FetchRequestResultType

  /// The entity whose objects are fetched.
  public var entityName: String
  /// Which objects match; `nil` matches every object. The default is `nil`.
  public var predicate: QueryPredicate?
  /// The order, most significant first. The default is none: insertion order.
  public var sortDescriptors: [QuerySortDescriptor] = []
  /// The most objects to return; 0 means no limit. The default is 0.
  public var fetchLimit = 0
  /// How many matching objects to skip first. The default is 0.
  public var fetchOffset = 0
  /// Whether objects of the entity's subentities are fetched too. The default is `true`.
  public var includesSubentities = true
  /// Whether unsaved changes count: new objects found, deleted ones left out. Without it,
  /// objects inserted since the save are left out and deleted ones found. The default is
  /// `true`.
  public var includesPendingChanges = true
  /// The shape of the results: the one `Result` holds (objects for an entity class,
  /// ``ResultType/dictionaries`` for `[String: Any]`, ``ResultType/objectIDs`` for
  /// ``ManagedObjectID``, ``ResultType/count`` for `Int`), which ``ManagedObjectContext/fetch(_:)-(FetchRequest<Result>)``
  /// checks.
  public var resultType: ResultType = Result.fetchResultType
  /// For dictionary results, the values each dictionary holds: key paths, or named
  /// expressions such as `sum:(amount)`; `nil` means every attribute. The default is `nil`.
  public var propertiesToFetch: [FetchProperty]?
  /// For dictionary results, the values whose equal combinations make one group, and one
  /// dictionary: each of ``propertiesToFetch`` must be one of them or an aggregate. `nil`
  /// groups nothing. The default is `nil`.
  public var propertiesToGroupBy: [FetchProperty]?
  /// For grouped dictionary results, which groups are kept, tested on each group's
  /// dictionary: its keys are the names of ``propertiesToFetch`` (`total > 100`). The default
  /// is `nil`, every group.
  public var havingPredicate: QueryPredicate?
  /// For dictionary results, whether equal dictionaries are returned once. The default is
  /// `false`.
  public var returnsDistinctResults = false

  /// Creates a request for objects of `entityName`, as instances of `Result` (the entity's
  /// class, or an ancestor of it).
  public init(
    entityName: String, predicate: QueryPredicate? = nil,
    sortDescriptors: [QuerySortDescriptor] = []
  ) {
    self.entityName = entityName
    self.predicate = predicate
    self.sortDescriptors = sortDescriptors
  }
}

/// What a fetch request's results are: managed objects (an entity class), object IDs
/// (``ManagedObjectID``), dictionaries (`[String: Any]`) or a count (`Int`), as Core Data's
/// `NSFetchRequestResult` types are.
public protocol FetchRequestResult {
  /// The result type a request for this type has.
  static var fetchResultType: FetchRequestResultType { get }
}

extension ManagedObject: FetchRequestResult {
  /// ``FetchRequestResultType/managedObjects``.
  public static var fetchResultType: FetchRequestResultType { .managedObjects }
}

extension ManagedObjectID: FetchRequestResult {
  /// ``FetchRequestResultType/objectIDs``.
  public static var fetchResultType: FetchRequestResultType { .objectIDs }
}

extension Dictionary: FetchRequestResult where Key == String, Value == Any {
  /// ``FetchRequestResultType/dictionaries``.
  public static var fetchResultType: FetchRequestResultType { .dictionaries }
}

extension Int: FetchRequestResult {
  /// ``FetchRequestResultType/count``.
  public static var fetchResultType: FetchRequestResultType { .count }
}

/// What a fetch returns (Core Data's `NSFetchRequestResultType`).
public enum FetchRequestResultType: Sendable, Hashable {
  /// The objects.
  case managedObjects
  /// Their IDs.
  case objectIDs
  /// For each object, a dictionary of ``FetchRequest/propertiesToFetch`` (every attribute
  /// when `nil`).
  case dictionaries
  /// Only how many objects match.
  case count
}

extension FetchRequestResultType {
  /// What the results are, in a message: `dictionaries`.
  var noun: String {
    switch self {
    case .managedObjects: "objects"
    case .objectIDs: "object IDs"
    case .dictionaries: "dictionaries"
    case .count: "a count"
    }
  }

  /// A request for these results, in a message.
  var request: String {
    switch self {
    case .managedObjects: "a FetchRequest<ManagedObject> or of an entity class"
    case .objectIDs: "a FetchRequest<ManagedObjectID>"
    case .dictionaries: "a FetchRequest<[String: Any]>"
    case .count: "a FetchRequest<Int>"
    }
  }
}

extension FetchRequest where Result == ManagedObject {
  /// Creates a request for objects of `entityName`.
  public init(
    entityName: String, predicate: QueryPredicate? = nil,
    sortDescriptors: [QuerySortDescriptor] = []
  ) {
    self.entityName = entityName
    self.predicate = predicate
    self.sortDescriptors = sortDescriptors
  }
}

/// What every entity class has, so that its static members can name the class itself
/// (`Book.fetchRequest()` is a `FetchRequest<Book>`, in a subclass too).
public protocol EntityClass: ManagedObject {}

extension ManagedObject: EntityClass {}

extension EntityClass {
  /// A request for objects of this class's entity (and its subentities), returned as
  /// instances of this class.
  ///
  /// One method serves every class, unlike the `fetchRequest()` Xcode writes into each class,
  /// so a subclass's call is never ambiguous.
  public static func fetchRequest() -> FetchRequest<Self> {
    FetchRequest<Self>(entityName: declaredEntityName)
  }
}

extension ManagedObject: KeyValueReadable {}

extension ManagedObjectContext {
  /// The objects `request` describes, in its order and window.
  ///
  /// - Throws: `GraphError.unknownEntity`; `.unknownKey` for a key path the entity does not
  ///   have (never a silent non-match); `.invalidPredicate` for values the predicate cannot
  ///   compare.
  /// - Complexity: O(*n*) in the entity's objects, plus O(*m* log *m*) to sort *m* matches.
  public func fetch(_ request: FetchRequest<ManagedObject>) throws(GraphError) -> [ManagedObject] {
    try Self.check(request)
    return try fetchObjects(request)
  }

  /// The objects `request` describes, in its order and window, as instances of `Result`.
  ///
  /// - Throws: as ``fetch(_:)-(FetchRequest<ManagedObject>)``; `.typeMismatch` when the
  ///   entity's objects are not instances of `Result` (its registered class is not `Result`
  ///   or a subclass of it).
  public func fetch<Result: ManagedObject>(_ request: FetchRequest<Result>) throws(GraphError)
    -> [Result]
  {
    try Self.check(request)
    if let layout = layoutByName[request.entityName], !(layout.objectClass is Result.Type) {
      throw GraphError(
        .typeMismatch,
        "objects of \(request.entityName) are \(layout.objectClass) instances, not \(Result.self): register \(Result.self) for the entity",
        at: InputLocation(entity: request.entityName))
    }
    return try fetchObjects(request).map { unsafeDowncast($0, to: Result.self) }
  }

  /// The IDs of the objects `request` describes: a request for ``ManagedObjectID``s.
  ///
  /// - Throws: as ``fetch(_:)-(FetchRequest<ManagedObject>)``.
  public func fetch(_ request: FetchRequest<ManagedObjectID>) throws(GraphError)
    -> [ManagedObjectID]
  {
    try Self.check(request)
    return try fetchObjectIDs(request)
  }

  /// The dictionaries `request` describes: each object's values, or each group's, as
  /// ``fetchDictionaries(_:)`` computes them.
  ///
  /// - Throws: as ``fetchDictionaries(_:)``.
  public func fetch(_ request: FetchRequest<[String: Any]>) throws(GraphError) -> [[String: Any]] {
    try Self.check(request)
    return try fetchDictionaries(request)
  }

  /// How many objects (or groups) `request` describes, as the one element of the array, as
  /// Core Data's count result type returns it.
  ///
  /// - Throws: as ``count(for:)``.
  public func fetch(_ request: FetchRequest<Int>) throws(GraphError) -> [Int] {
    try Self.check(request)
    return [try count(for: request)]
  }

  /// Refuses a request whose result type is not the one its `Result` holds, and grouping in a
  /// request that does not return dictionaries.
  private static func check<Result>(_ request: FetchRequest<Result>) throws(GraphError) {
    if request.resultType != Result.fetchResultType {
      throw GraphError(
        .invalidFetchRequest,
        "a FetchRequest<\(Result.self)> cannot return \(request.resultType.noun), its"
          + " resultType: use \(request.resultType.request)",
        at: InputLocation(entity: request.entityName))
    }
    if request.resultType != .dictionaries,
      request.propertiesToGroupBy?.isEmpty == false || request.havingPredicate != nil
    {
      throw GraphError(
        .invalidFetchRequest,
        "grouping (propertiesToGroupBy, havingPredicate) needs dictionary results:"
          + " a FetchRequest<[String: Any]>",
        at: InputLocation(entity: request.entityName))
    }
  }

  func fetchObjects<Result>(_ request: FetchRequest<Result>) throws(GraphError)
    -> [ManagedObject]
  {
    processPendingChanges()
    // The committed state merged with the context's changes: rows not registered yet (after a
    // reset, or saved by another context) are registered first.
    registerAllObjects()
    guard let layout = layoutByName[request.entityName] else {
      throw GraphError.unknownEntity(request.entityName, known: layouts.map(\.name))
    }
    // The matches are gathered as rows, sorted and windowed as rows, and only the window
    // becomes an array of objects: one retain per object returned, not one per match and step.
    var matches: [Int32] = []
    let test = request.predicate.flatMap { FetchPlan.compile($0, layout: layout, layouts: layouts) }
    // Which entities' objects count, by layout index: read per object, faster than a set.
    let accepted = layouts.map {
      request.includesSubentities ? $0.isKind(of: layout.index) : $0 === layout
    }
    // The saved state skips new objects and keeps those deleted since the save.
    let excluded: ManagedObject.Flags =
      request.includesPendingChanges
      ? [.removed, .deleted, .vanished] : [.removed, .inserted, .vanished]
    // One loop over an index's rows, a column's matching rows, or the whole table, without a
    // closure per object.
    var indexed = indexedRows(for: request, layout: layout)
    var isColumnMatch = false
    if indexed == nil, let (slot, op, constant) = columnComparison(request, layout: layout) {
      indexed = attributeColumn(
        layout: layout, slot: slot, includesSubentities: request.includesSubentities
      ).rows(where: op, constant)
      isColumnMatch = true
    }
    if isColumnMatch || test != nil || request.predicate == nil {
      // No call that could throw or keep an object: the loop only reads.
      matches = filteredRows(
        indexed, accepted: accepted, excluded: excluded, test: isColumnMatch ? nil : test)
    } else {
      let total = indexed?.count ?? table.count
      for position in 0..<total {
        let row = indexed.map { Int($0[position]) } ?? position
        guard let object = table[row], object.flags.isDisjoint(with: excluded),
          accepted[object.layout.index]
        else { continue }
        if let predicate = request.predicate {
          let isMatch: Bool
          do {
            isMatch = try predicate.evaluate(with: object)
          } catch {
            throw Self.fetchError(error, entity: layout.name)
          }
          guard isMatch else { continue }
        }
        matches.append(Int32(row))
      }
    }
    if !request.sortDescriptors.isEmpty {
      do {
        matches = try sorted(matches, by: request.sortDescriptors, layout: layout)
      } catch {
        throw Self.fetchError(error, entity: layout.name)
      }
    }
    let start = min(request.fetchOffset, matches.count)
    var end = matches.count
    if request.fetchLimit > 0 { end = start + min(end - start, request.fetchLimit) }
    return table.withUnsafeBufferPointer { table in
      matches[start..<end].map { table[Int($0)].unsafelyUnwrapped }
    }
  }

  /// The rows of `indexed` (or of the whole table) whose objects are of an accepted entity,
  /// carry none of the `excluded` flags, and pass `test`.
  private func filteredRows(
    _ indexed: [Int32]?, accepted: [Bool], excluded: ManagedObject.Flags,
    test: FetchPlan.Test?
  ) -> [Int32] {
    var matches: [Int32] = []
    table.withUnsafeBufferPointer { table in
      func visit(_ row: Int) {
        guard let object = table[row], object.flags.isDisjoint(with: excluded),
          accepted[object.layout.index]
        else { return }
        if let test, !test(object) { return }
        matches.append(Int32(row))
      }
      if let indexed {
        matches.reserveCapacity(indexed.count)
        for row in indexed { visit(Int(row)) }
      } else {
        for row in table.indices { visit(row) }
      }
    }
    return matches
  }

  /// The IDs of the objects `request` describes.
  ///
  /// - Throws: as ``fetch(_:)``.
  public func fetchObjectIDs<Result>(_ request: FetchRequest<Result>) throws(GraphError)
    -> [ManagedObjectID]
  {
    try fetchObjects(request).map(\.objectID)
  }

  /// How many objects `request` would fetch (its window applied).
  ///
  /// - Throws: as ``fetch(_:)``.
  public func count<Result>(for request: FetchRequest<Result>) throws(GraphError) -> Int {
    if request.propertiesToGroupBy?.isEmpty == false {
      return try fetchDictionaries(request).count
    }
    return try fetchObjects(request).count
  }

  /// `rows` in the order of `descriptors`. A stored attribute's keys come straight from the
  /// objects' slots, typed — no boxing, no key paths — when every object is of `layout` itself
  /// (a subentity's slots may sit elsewhere); other keys are read through key paths.
  private func sorted(
    _ rows: [Int32], by descriptors: [QuerySortDescriptor], layout: EntityLayout
  ) throws(QueryError) -> [Int32] {
    let uniform = rows.allSatisfy { table[Int($0)]?.layout === layout }
    var keys: [QuerySortKeys] = []
    for descriptor in descriptors {
      if uniform, let slot = layout.slotByName[descriptor.keyPath],
        let attribute = layout.properties[slot].attribute, !attribute.isTransient,
        let column = typedKeys(rows, slot: slot, type: attribute.attributeType)
      {
        keys.append(column)
      } else {
        var values: [Any?] = []
        values.reserveCapacity(rows.count)
        for row in rows {
          guard let object = table[Int(row)] else { preconditionFailure("a match has no object") }
          values.append(try descriptor.key(of: object))
        }
        keys.append(.values(values))
      }
    }
    let order = try QuerySortKeys.order(count: rows.count, by: descriptors, keys: keys)
    return order.map { rows[$0] }
  }

  /// The values of `slot` of the objects at `rows` as typed sort keys, or `nil` when the type
  /// has no typed column or a slot holds something unexpected (the caller then reads keys the
  /// general way).
  private func typedKeys(_ rows: [Int32], slot: Int, type: AttributeType) -> QuerySortKeys? {
    func column<T>(_ read: (Slot) -> T??) -> [T?]? {
      var values: [T?] = []
      values.reserveCapacity(rows.count)
      let complete = table.withUnsafeBufferPointer { table in
        for row in rows {
          guard let object = table[Int(row)], let value = read(object.slots[slot]) else {
            return false
          }
          values.append(value)
        }
        return true
      }
      return complete ? values : nil
    }
    switch type {
    case .string:
      return column { slot -> String?? in
        switch slot {
        case .null: return .some(nil)
        case .string(let text): return text
        default: return nil
        }
      }.map { .strings($0) }
    case .double, .float, .date:
      return column { slot -> Double?? in
        switch slot {
        case .null: return .some(nil)
        case .real(let number): return number
        default: return nil
        }
      }.map { .doubles($0) }
    case _ where type.isInteger:
      return column { slot -> Int?? in
        switch slot {
        case .null: return .some(nil)
        case .integer(let number): return Int(number)
        default: return nil
        }
      }.map { .integers($0) }
    default:
      return nil
    }
  }

  /// The rows of the objects an index says may match `request`, in insertion order — for an
  /// equality on an indexed attribute — or `nil` when every object must be looked at.
  private func indexedRows<Result>(for request: FetchRequest<Result>, layout: EntityLayout)
    -> [Int32]?
  {
    guard request.includesPendingChanges, case .comparison(let comparison)? = request.predicate,
      comparison.operator == .equalTo,
      let (slot, _, constant) = FetchPlan.simple(comparison, layout: layout),
      layout.indexedSlots[slot], let key = IndexKey(constant)
    else { return nil }
    return attributeIndex(layout: layout, slot: slot).rows[key] ?? []
  }

  /// The index of `slot` over objects of `layout` and its subentities, rebuilt when stale.
  private func attributeIndex(layout: EntityLayout, slot: Int) -> AttributeIndex {
    let key = layout.index << 24 | slot
    if let index = attributeIndexes[key], index.version == indexVersion { return index }
    var rows: [IndexKey: [Int32]] = [:]
    for case let object? in table
    where object.layout.isKind(of: layout.index)
      && object.flags.isDisjoint(with: [.removed, .deleted])
    {
      if let value = IndexKey(object.slots[slot]) { rows[value, default: []].append(object.row) }
    }
    let index = AttributeIndex(version: indexVersion, rows: rows)
    attributeIndexes[key] = index
    return index
  }

  /// The graph error for a query error met fetching objects of `entity`.
  package static func fetchError(_ error: QueryError, entity: String) -> GraphError {
    if error.code == .unknownKey {
      return GraphError(
        .unknownKey, error.message, at: InputLocation(entity: entity), underlying: error)
    }
    return GraphError(
      .invalidPredicate, error.message, at: InputLocation(entity: entity), underlying: error)
  }
}
