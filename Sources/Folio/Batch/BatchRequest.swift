import FolioGraph
import FolioQuery
import Foundation

/// What a batch request returns: Core Data's `NSBatchDeleteRequestResultType`,
/// `NSBatchUpdateRequestResultType` and `NSBatchInsertRequestResultType` in one.
public enum BatchResultType: Sendable, Hashable {
  /// Whether the request succeeded: ``BatchResult/status(_:)``.
  case statusOnly
  /// How many objects the request deleted, updated or inserted: ``BatchResult/count(_:)``.
  case count
  /// The IDs of those objects: ``BatchResult/objectIDs(_:)``.
  case objectIDs
}

/// The result of a batch request, of the kind its ``BatchResultType`` asks for: Core Data's
/// `NSBatchDeleteResult`, `NSBatchUpdateResult` and `NSBatchInsertResult`.
public enum BatchResult: Sendable, Hashable {
  /// The request succeeded (a request that fails throws instead).
  case status(Bool)
  /// How many objects the request deleted, updated or inserted.
  case count(Int)
  /// The IDs of the objects the request deleted, updated or inserted, in the store's order.
  case objectIDs([ManagedObjectID])

  /// The count, for a result of type ``BatchResultType/count``; `nil` otherwise.
  public var count: Int? {
    if case .count(let count) = self { return count }
    return nil
  }

  /// The IDs, for a result of type ``BatchResultType/objectIDs``; `nil` otherwise.
  public var objectIDs: [ManagedObjectID]? {
    if case .objectIDs(let ids) = self { return ids }
    return nil
  }
}

/// A request that deletes the objects of an entity that a predicate selects (or that a list
/// of IDs names) in the store itself, without loading them into a context: Core Data's
/// `NSBatchDeleteRequest`.
///
/// Executed through ``ManagedObjectContext/execute(_:)-(BatchDeleteRequest)`` or the
/// coordinator's `execute(_:)`. The deletion applies each deleted object's delete rules as a
/// context's deletion does (Cascade, Nullify; a Deny relationship that still holds an object
/// refuses the whole request), runs no validation, registers no undo, and does not see a
/// context's unsaved changes.
///
/// ```swift
/// var request = BatchDeleteRequest(
///   entityName: "Spending", predicate: try QueryPredicate(format: "amount == 0"))
/// request.resultType = .count
/// let deleted = try context.execute(request).count   // merged into the context already
/// ```
public struct BatchDeleteRequest {
  /// The entity whose objects are deleted.
  public var entityName: String
  /// Which objects are deleted; every object of the entity when `nil`. The default is `nil`.
  public var predicate: QueryPredicate?
  /// The objects to delete, when the request was made from IDs (the predicate is then
  /// ignored).
  public var objectIDs: [ManagedObjectID]?
  /// Whether objects of the entity's subentities are deleted too. The default is `true`.
  public var includesSubentities = true
  /// What the request returns. The default is ``BatchResultType/statusOnly``.
  public var resultType = BatchResultType.statusOnly

  /// A request deleting the objects of `entityName` that `predicate` holds for.
  public init(entityName: String, predicate: QueryPredicate? = nil) {
    self.entityName = entityName
    self.predicate = predicate
  }

  /// A request deleting the objects `fetchRequest` fetches from the store (its entity,
  /// predicate and `includesSubentities`; sorting and limits do not apply).
  public init<Result>(fetchRequest: FetchRequest<Result>) {
    entityName = fetchRequest.entityName
    predicate = fetchRequest.predicate
    includesSubentities = fetchRequest.includesSubentities
  }

  /// A request deleting the objects with `objectIDs`, which must all be of one entity; IDs
  /// the store no longer holds are passed over.
  public init(objectIDs: [ManagedObjectID]) {
    entityName = objectIDs.first?.entityName ?? ""
    self.objectIDs = objectIDs
  }
}

/// A request that sets attributes of the objects of an entity that a predicate selects, in the
/// store itself: Core Data's `NSBatchUpdateRequest`.
///
/// Each value of ``propertiesToUpdate`` is a constant of the attribute's type (or `NSNull()`
/// for nil), or a ``FolioQuery/QueryExpression`` evaluated on each object before it changes
/// (`amount * 2`). Validation rules are not run and undo is not registered, as in Core Data;
/// the values are checked against the attributes' types.
///
/// ```swift
/// let request = BatchUpdateRequest(
///   entityName: "Message", predicate: try QueryPredicate(format: "isRead == NO"),
///   propertiesToUpdate: ["isRead": true])
/// try context.execute(request)
/// ```
public struct BatchUpdateRequest {
  /// The entity whose objects are updated.
  public var entityName: String
  /// Which objects are updated; every object of the entity when `nil`.
  public var predicate: QueryPredicate?
  /// The new values, by attribute name.
  public var propertiesToUpdate: [String: Any]
  /// Whether objects of the entity's subentities are updated too. The default is `true`.
  public var includesSubentities = true
  /// What the request returns. The default is ``BatchResultType/statusOnly``.
  public var resultType = BatchResultType.statusOnly

  /// A request setting `propertiesToUpdate` on the objects of `entityName` that `predicate`
  /// holds for.
  public init(
    entityName: String, predicate: QueryPredicate? = nil, propertiesToUpdate: [String: Any]
  ) {
    self.entityName = entityName
    self.predicate = predicate
    self.propertiesToUpdate = propertiesToUpdate
  }
}

/// A request that inserts objects of an entity, one per dictionary of attribute values, in the
/// store itself: Core Data's `NSBatchInsertRequest`.
///
/// Attributes a dictionary leaves out get their default values; relationships cannot be set.
/// Validation rules are not run and undo is not registered, as in Core Data; the values are
/// checked against the attributes' types.
///
/// ```swift
/// let request = BatchInsertRequest(
///   entityName: "Spending", objects: [["content": "Tea", "amount": 2.5]])
/// try context.execute(request)
/// ```
public struct BatchInsertRequest {
  /// The entity of the objects inserted.
  public var entityName: String
  /// Each new object's attribute values, by name.
  public var objects: [[String: Any]]
  /// What the request returns. The default is ``BatchResultType/statusOnly``.
  public var resultType = BatchResultType.statusOnly

  /// A request inserting one object of `entityName` per dictionary of `objects`.
  public init(entityName: String, objects: [[String: Any]]) {
    self.entityName = entityName
    self.objects = objects
  }
}
