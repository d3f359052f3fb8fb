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
    if object.flags.contains(.permanent) {
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
    if !id.isTemporaryID, !object.flags.contains(.permanent), cache.keys.row(row) == nil {
      return nil
    }
    return object
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
