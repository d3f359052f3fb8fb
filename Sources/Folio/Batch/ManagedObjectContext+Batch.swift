import FolioGraph
import FolioModel
import FolioStores
import Foundation

// Executing batch requests. The store does the work (SQL in one write transaction for a SQLite
// store, a pass over the records under the store's lock for the atomic ones), and the
// coordinator then takes what it changed into its committed state as it takes another
// process's save, and merges it into every context made on it: objects the batch updated are
// refreshed keeping each context's unsaved changes, deleted ones leave, inserted ones come in.
// Nothing is registered for undo, as in Core Data (where the app merges the result itself).

extension PersistentStoreCoordinator {
  /// Deletes, in the store, the objects `request` selects, and merges the deletion into every
  /// context made on the coordinator.
  ///
  /// Undo: none; the deletion is not undoable, and each context's undo stack is kept.
  ///
  /// - Returns: what `request.resultType` asks for; the count and IDs include the objects the
  ///   delete rules cascaded to.
  /// - Throws: `GraphError.unknownEntity`, `.unknownKey`, `.invalidFetchRequest` (see
  ///   ``BatchDeleteRequest``); `.deny` when a Deny rule refuses; `.invalidPredicate` when the
  ///   predicate cannot be evaluated on an object; `.store` when the store cannot be written
  ///   (an in-memory store, one not saved yet). Nothing is deleted then.
  @discardableResult
  public func execute(_ request: BatchDeleteRequest) throws(GraphError) -> BatchResult {
    try execute(request.storeBatch(model: managedObjectModel), resultType: request.resultType)
  }

  /// Sets, in the store, the attributes `request` gives on the objects it selects, and merges
  /// the change into every context made on the coordinator (their unsaved changes kept).
  ///
  /// Undo: none; the update is not undoable, and each context's undo stack is kept.
  ///
  /// - Returns: what `request.resultType` asks for.
  /// - Throws: `GraphError.unknownEntity`, `.unknownKey`, `.typeMismatch`, `.readOnly` (see
  ///   ``BatchUpdateRequest``); `.invalidPredicate` when the predicate or an expression cannot
  ///   be evaluated on an object; `.validation` when two objects would break a uniqueness
  ///   constraint; `.store` when the store cannot be written. Nothing is updated then.
  @discardableResult
  public func execute(_ request: BatchUpdateRequest) throws(GraphError) -> BatchResult {
    try execute(request.storeBatch(model: managedObjectModel), resultType: request.resultType)
  }

  /// Inserts, in the store, the objects `request` describes, and merges them into every
  /// context made on the coordinator.
  ///
  /// Undo: none; the insertion is not undoable, and each context's undo stack is kept.
  ///
  /// - Returns: what `request.resultType` asks for.
  /// - Throws: `GraphError.unknownEntity`, `.abstractEntity`, `.unknownKey`, `.typeMismatch`,
  ///   `.readOnly` (see ``BatchInsertRequest``); `.validation` when two objects would break a
  ///   uniqueness constraint; `.store` when the store cannot be written. Nothing is inserted
  ///   then.
  @discardableResult
  public func execute(_ request: BatchInsertRequest) throws(GraphError) -> BatchResult {
    try execute(request.storeBatch(model: managedObjectModel), resultType: request.resultType)
  }

  func execute(
    _ batch: StoreBatch, resultType: BatchResultType, author: String? = nil,
    contextName: String? = nil
  ) throws(GraphError) -> BatchResult {
    var batch = batch
    batch.author = author
    batch.contextName = contextName
    let executed: (outcome: StoreBatchOutcome, objectIDs: [ManagedObjectID])
    do {
      executed = try executeBatch(batch)
    } catch {
      throw GraphError(.store, error.message, at: error.location, underlying: error)
    }
    // What other writers saved, taken in first, is merged with the batch's changes.
    let changes = takeUnmergedChanges()
    if !changes.isEmpty {
      for context in contexts where context.parent == nil {
        context.mergeChanges(fromContextDidSave: changes)
      }
    }
    if let refusal = executed.outcome.refusal { throw Self.error(of: refusal) }
    switch resultType {
    case .statusOnly: return .status(true)
    case .count: return .count(executed.outcome.objects.count)
    case .objectIDs: return .objectIDs(executed.objectIDs)
    }
  }

  /// The error of a batch the store refused to write.
  package static func error(of refusal: BatchRefusal) -> GraphError {
    switch refusal {
    case .denied(let entity, let id, let relationship, let count):
      return GraphError(
        .deny,
        "object \(StoreKeySpace.key(of: id)) cannot be deleted while \"\(relationship)\" holds \(count) object\(count == 1 ? "" : "s") (delete rule Deny)",
        at: InputLocation(entity: entity, property: relationship))
    case .evaluation(let error, let entity):
      return GraphError(
        .invalidPredicate, error.message, at: InputLocation(entity: entity), underlying: error)
    case .typeMismatch(let entity, let key, let message):
      return GraphError.typeMismatch(message, entity: entity, key: key)
    case .uniqueness(let entity, let properties):
      return GraphError(
        .validation,
        "two \(entity) objects would hold the same \(properties.joined(separator: ", ")), which a uniqueness constraint forbids",
        at: InputLocation(entity: entity, property: properties.first))
    }
  }
}

extension ManagedObjectContext {
  /// Deletes, in the store, the objects `request` selects (Core Data's
  /// `execute(_:)` of an `NSBatchDeleteRequest`), and merges the deletion into this context
  /// and every other context on its coordinator, as another process's save is merged.
  ///
  /// The batch does not see this context's unsaved changes; an object it deletes leaves the
  /// context, its unsaved changes with it.
  ///
  /// Undo: none; the deletion is not undoable, and the undo stack is kept.
  ///
  /// - Returns: what `request.resultType` asks for.
  /// - Throws: as ``PersistentStoreCoordinator/execute(_:)-(BatchDeleteRequest)``, and
  ///   `GraphError.store` for a context without a coordinator.
  @discardableResult
  public func execute(_ request: BatchDeleteRequest) throws(GraphError) -> BatchResult {
    let coordinator = try batchCoordinator()
    return try coordinator.execute(
      request.storeBatch(model: coordinator.managedObjectModel), resultType: request.resultType,
      author: transactionAuthor, contextName: name)
  }

  /// Sets, in the store, the attributes `request` gives on the objects it selects, and merges
  /// the change into this context and every other context on its coordinator: an object it
  /// updated takes the new values, keeping this context's unsaved changes to its other
  /// properties.
  ///
  /// Undo: none; the update is not undoable, and the undo stack is kept.
  ///
  /// - Returns: what `request.resultType` asks for.
  /// - Throws: as ``PersistentStoreCoordinator/execute(_:)-(BatchUpdateRequest)``, and
  ///   `GraphError.store` for a context without a coordinator.
  @discardableResult
  public func execute(_ request: BatchUpdateRequest) throws(GraphError) -> BatchResult {
    let coordinator = try batchCoordinator()
    return try coordinator.execute(
      request.storeBatch(model: coordinator.managedObjectModel), resultType: request.resultType,
      author: transactionAuthor, contextName: name)
  }

  /// Inserts, in the store, the objects `request` describes, and merges them into this context
  /// and every other context on its coordinator.
  ///
  /// Undo: none; the insertion is not undoable, and the undo stack is kept.
  ///
  /// - Returns: what `request.resultType` asks for.
  /// - Throws: as ``PersistentStoreCoordinator/execute(_:)-(BatchInsertRequest)``, and
  ///   `GraphError.store` for a context without a coordinator.
  @discardableResult
  public func execute(_ request: BatchInsertRequest) throws(GraphError) -> BatchResult {
    let coordinator = try batchCoordinator()
    return try coordinator.execute(
      request.storeBatch(model: coordinator.managedObjectModel), resultType: request.resultType,
      author: transactionAuthor, contextName: name)
  }

  private func batchCoordinator() throws(GraphError) -> PersistentStoreCoordinator {
    guard let coordinator = persistentStoreCoordinator else {
      throw GraphError(
        .store, "a batch request changes a store, and this context has no store coordinator")
    }
    return coordinator
  }
}
