import FolioModel
import Foundation

/// Object IDs and the way back from them.
///
/// A temporary ID's UUID is the cache's `temporaryIDBase` with the object's row in its last
/// eight bytes, so an object has the same temporary ID in every context of its coordinator and
/// an ID never names another object. A permanent ID's primary key is the cache's key of the
/// row (see ``RowCache``): an ID leads straight to its row.
extension ManagedObjectContext {
  /// The primary key of an object that has one (saved, or loaded from a store).
  func primaryKey(of object: ManagedObject) -> Int64 { cache.primaryKey(ofRow: object.row) }

  /// The row of the object with primary key `key`, if any.
  func row(forPrimaryKey key: Int64) -> Int32? { cache.row(forPrimaryKey: key) }

  func objectID(of object: ManagedObject) -> ManagedObjectID {
    if object.flags.contains(.permanent) || cache.keys.reservedRows.contains(object.row) {
      let key = primaryKey(of: object)
      return ManagedObjectID(
        entityName: object.entityName, store: storeIdentifier, primaryKey: key,
        uriNumber: cache.keys.uriNumber(forKey: key))
    }
    return ManagedObjectID(entityName: object.entityName, temporary: temporaryUUID(row: object.row))
  }

  private func temporaryUUID(row: Int32) -> UUID {
    var bytes = cache.temporaryIDBase.uuid
    let value = UInt64(UInt32(bitPattern: row))
    withUnsafeMutableBytes(of: &bytes) { raw in
      for index in 0..<8 { raw[8 + index] = UInt8(truncatingIfNeeded: value >> (56 - 8 * index)) }
    }
    return UUID(uuid: bytes)
  }

  func row(of id: ManagedObjectID) -> Int32? {
    switch id.key {
    case .permanent(let number):
      guard id.storeIdentifier == storeIdentifier else { return nil }
      return row(forPrimaryKey: number)
    case .temporary(let uuid):
      var base = cache.temporaryIDBase.uuid
      var given = uuid.uuid
      let matches = withUnsafeBytes(of: &base) { baseBytes in
        withUnsafeBytes(of: &given) { givenBytes in
          Array(baseBytes[0..<8]) == Array(givenBytes[0..<8])
        }
      }
      guard matches else { return nil }
      let value = withUnsafeBytes(of: &given) { raw in
        (0..<8).reduce(UInt64(0)) { ($0 << 8) | UInt64(raw[8 + $1]) }
      }
      guard value <= UInt64(UInt32.max) else { return nil }
      return Int32(bitPattern: UInt32(value))
    }
  }

  /// The object `id` names, if the context has it and it is still in the graph.
  ///
  /// A temporary ID keeps naming its object after a save, as in Core Data.
  public func object(with id: ManagedObjectID) -> ManagedObject? {
    guard let row = row(of: id), row >= 0, let object = object(atRow: row),
      object.entityName == id.entityName, !object.flags.contains(.removed)
    else { return nil }
    // A child's object saved by the root since the child read it is found by its new ID too.
    if !id.isTemporaryID, !object.flags.contains(.permanent), cache.keys.row(row) == nil,
      !cache.keys.reservedRows.contains(row)
    {
      return nil
    }
    return object
  }

  /// Gives `objects` their permanent IDs now, before they are saved: the IDs, and their URIs,
  /// that the save to come keeps. Objects that have one already are left as they are.
  ///
  /// As Core Data's `obtainPermanentIDs(for:)`, for an object whose ID must last before it is
  /// saved: put on a pasteboard, kept as a selection, linked to. The store reserves the keys
  /// (a SQLite store raises its `Z_MAX`es in a short write transaction, an atomic store records
  /// them beside its file, under its lock), so no other writer of the store, in this process
  /// or another, gives them; a key reserved for an object never saved stays unused. An object's
  /// temporary ID keeps naming it. A context without a store gives the keys in memory.
  ///
  /// - Throws: `GraphError.objectNotFound` when an object is not in this context's graph;
  ///   `.store` when the store cannot reserve the keys (busy, not writable, replaced on disk).
  ///   The IDs are then as they were.
  public func obtainPermanentIDs(for objects: [ManagedObject]) throws(GraphError) {
    var rows: [Int32] = []
    var names: [String] = []
    var seen: Set<Int32> = []
    for object in objects {
      guard object.owner === self, !object.flags.contains(.removed) else {
        throw GraphError(
          .objectNotFound,
          "cannot give a permanent ID to a \(object.entityName) object of another context, or one no longer in the graph",
          at: InputLocation(entity: object.entityName))
      }
      guard objectID(of: object).isTemporaryID, seen.insert(object.row).inserted else {
        continue
      }
      rows.append(object.row)
      names.append(object.entityName)
    }
    guard !rows.isEmpty else { return }
    guard let coordinator = persistentStoreCoordinator else {
      cache.keys.assignPrimaryKeys(toRows: rows)
      cache.keys.reservedRows.formUnion(rows)
      return
    }
    do {
      try coordinator.reservePrimaryKeys(forRows: rows, entityNames: names)
    } catch {
      throw GraphError(.store, error.message, at: error.location, underlying: error)
    }
    if parent == nil { mergeChangesOfOtherWriters() }
  }

  /// The object `id` names, or an error when it is not (or no longer) in the graph.
  ///
  /// - Throws: `GraphError.objectNotFound`.
  public func existingObject(with id: ManagedObjectID) throws(GraphError) -> ManagedObject {
    guard let object = object(with: id), !object.isDeleted else {
      throw GraphError(
        .objectNotFound, "no object with ID \(id) in the graph",
        at: InputLocation(entity: id.entityName))
    }
    return object
  }

  /// The ID a URI from ``ManagedObjectID/uriRepresentation`` names, or `nil` when the URI is
  /// not an object URI of this context's model and store.
  public func managedObjectID(forURIRepresentation uri: URL) -> ManagedObjectID? {
    guard let parts = ManagedObjectID.parse(uri), layoutByName[parts.entity] != nil else {
      return nil
    }
    switch parts.key {
    case .temporary(let uuid):
      return ManagedObjectID(entityName: parts.entity, temporary: uuid)
    case .permanent(let number):
      guard parts.store == storeIdentifier else { return nil }
      let key = cache.keys.primaryKey(forURINumber: number, entity: parts.entity) { row in
        self.object(atRow: row)?.entityName
      }
      return ManagedObjectID(
        entityName: parts.entity, store: storeIdentifier, primaryKey: key, uriNumber: number)
    }
  }
}
