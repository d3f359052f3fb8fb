import FolioModel
import FolioQuery
import Foundation

/// A change made to a store directly, without a context: Core Data's batch requests
/// (`NSBatchDeleteRequest`, `NSBatchUpdateRequest`, `NSBatchInsertRequest`) as a store
/// executes them.
///
/// A batch deletes or updates the objects of one entity (its subentities' too, unless told
/// otherwise) that a predicate selects, or those a list of IDs names, or inserts new objects
/// from their attribute values. It is checked against the model before it reaches a store (the
/// entity exists, every key is a stored attribute, every value fits its type): the store trusts
/// it. Validation rules are not run, undo is not registered, and a context's unsaved changes are
/// not seen, as in Core Data. A deletion applies the delete rules of what it deletes, as a
/// context's deletion does: Cascade deletes the targets, Nullify takes the deleted object out of
/// each target's inverse, and Deny refuses the whole batch while a target outside it remains.
///
/// Formats execute it as a whole: a SQLite store in SQL, in one write transaction
/// (``BatchExecutingStoreFormat``); the atomic stores in a pass over their records, under the
/// store's lock, written atomically (``StoreFormat/executeBatch(_:at:model:)``).
package struct StoreBatch: Sendable {
  /// Which objects a deletion or update takes.
  package enum Selection: Sendable, Hashable {
    /// The objects the predicate holds for; every object with `nil`.
    case predicate(QueryPredicate?)
    /// The objects with these IDs that the store holds; the others are passed over.
    case ids([Int64])
  }

  /// A value an update gives an attribute.
  package enum Value: Sendable, Hashable {
    /// A constant, or nil.
    case constant(AttributeValue?)
    /// An expression evaluated on each object before the update (`amount * 2`).
    case expression(QueryExpression)
  }

  /// What the batch does.
  package enum Operation: Sendable, Hashable {
    /// Deletes the selected objects, applying their delete rules.
    case delete
    /// Sets attributes of the selected objects, by name.
    case update([String: Value])
    /// Inserts objects of the entity, one per dictionary of attribute values (defaults already
    /// applied).
    case insert([[String: AttributeValue]])
  }

  /// The entity the batch works on.
  package var entityName: String
  /// Whether objects of the entity's subentities are selected too. The default is `true`.
  package var includesSubentities = true
  /// Which objects a deletion or update takes. The default is every object of the entity.
  package var selection = Selection.predicate(nil)
  /// What the batch does.
  package var operation: Operation
  /// Who made the change, for a store that keeps persistent history. The defaults are `nil`.
  package var author: String?
  package var contextName: String?
  /// Whether the outcome carries the changed objects as a coordinator takes them in
  /// (``StoreBatchOutcome/changes``): a store that is not held open needs none. The default is
  /// `false`.
  package var collectsChanges = false

  package init(entityName: String, operation: Operation, selection: Selection = .predicate(nil)) {
    self.entityName = entityName
    self.operation = operation
    self.selection = selection
  }

  /// The names of the entities whose objects the batch selects: the entity, and with
  /// ``includesSubentities`` every entity below it.
  package func selectedEntities(in model: ManagedObjectModel) -> Set<String> {
    guard let entity = model.entity(named: entityName) else { return [] }
    guard includesSubentities else { return [entity.name] }
    return Set(model.entities.filter { model.entity($0, isKindOf: entity) }.map(\.name))
  }

  /// The attribute values the update gives, as constants; `nil` when one is an expression,
  /// to be evaluated object by object.
  package var constantValues: [String: AttributeValue?]? {
    guard case .update(let values) = operation else { return nil }
    var constants: [String: AttributeValue?] = [:]
    for (key, value) in values {
      guard case .constant(let constant) = value else { return nil }
      constants[key] = constant
    }
    return constants
  }
}

/// What a batch did, or why it did nothing.
package struct StoreBatchOutcome: Sendable {
  /// An object the batch changed.
  package struct Object: Sendable, Hashable {
    package var entityName: String
    package var id: Int64

    package init(entityName: String, id: Int64) {
      self.entityName = entityName
      self.id = id
    }
  }

  /// The objects the batch deleted (the selected ones and those their delete rules cascaded
  /// to), updated or inserted, in ID order.
  package var objects: [Object] = []
  /// How many of ``objects`` the selection took; the rest were cascaded to.
  package var selectedCount = 0
  /// Objects left in the store whose relationships lost a deleted object.
  package var touched: [Object] = []
  /// Why nothing was written; `nil` when the batch was.
  package var refusal: BatchRefusal?
  /// The changes as a coordinator takes them in: the records of the objects updated, inserted
  /// and touched as the store now holds them, and the IDs of those deleted. Only with
  /// ``StoreBatch/collectsChanges``.
  package var changes: StoreChangesSince?

  package init() {}
}

/// Why a batch wrote nothing, found as it ran.
package enum BatchRefusal: Error {
  /// A Deny delete rule: the object keeps `count` objects in `relationship` that the batch
  /// does not delete.
  case denied(entityName: String, id: Int64, relationship: String, count: Int)
  /// The predicate, or an update's expression, could not be evaluated on an object of
  /// `entityName`.
  case evaluation(QueryError, entityName: String)
  /// An update's expression gave `key` a value its type cannot hold.
  case typeMismatch(entityName: String, key: String, message: String)
  /// Two objects of `entityName` would hold the same values of a uniqueness constraint's
  /// `properties`.
  case uniqueness(entityName: String, properties: [String])
}

/// A format that executes batches itself (in SQL) rather than over its records.
package protocol BatchExecutingStoreFormat: StoreFormat {
  /// Executes `batch` on the store at `url`, whose objects fit `model`, all or nothing, under
  /// the store's write lock (`Formats/shared-writers.md`).
  ///
  /// - Throws: `StoreError` when the store cannot be read or written (`.busy` when another
  ///   writer keeps it locked); nothing is written then, nor when the outcome has a refusal.
  func executeBatch(_ batch: StoreBatch, at url: URL, model: ManagedObjectModel)
    throws(StoreError) -> StoreBatchOutcome
}

/// A connection a coordinator keeps that executes batches inside the write it has begun
/// (``IncrementalStoreConnection/beginWriting()``), for the coordinator to commit.
package protocol BatchExecutingConnection: IncrementalStoreConnection {
  /// Executes `batch` inside the write begun; with a refusal, nothing is written.
  func executeBatch(_ batch: StoreBatch, model: ManagedObjectModel) throws(StoreError)
    -> StoreBatchOutcome
}

extension StoreFormat {
  /// Executes `batch` on the store at `url`: in the format's own way when it has one
  /// (``BatchExecutingStoreFormat``), otherwise as a pass over the records under the store's
  /// lock, the file written anew atomically (``AtomicStoreBatch``).
  ///
  /// - Throws: `StoreError` from reading or writing; the file is then as it was.
  package func executeBatch(_ batch: StoreBatch, at url: URL, model: ManagedObjectModel)
    throws(StoreError) -> StoreBatchOutcome
  {
    if let executing = self as? any BatchExecutingStoreFormat {
      return try executing.executeBatch(batch, at: url, model: model)
    }
    return try AtomicStoreBatch.execute(batch, format: self, at: url, model: model)
  }
}
