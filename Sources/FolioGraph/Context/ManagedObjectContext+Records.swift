import FolioModel
import FolioStores
import Foundation

/// The graph as records: what a save hands its store.
extension ManagedObjectContext {
  /// Every object a save would write, as records: objects in the graph and not deleted, with
  /// their persistent attributes and relationships. Transient properties are left out — they
  /// live only in memory — and so are empty values.
  ///
  /// A record's ID is its object's primary key, the number in its permanent ID (`pN`); an
  /// object not saved yet gets the key a save would give it.
  ///
  /// - Complexity: O(*n*) in the objects and their relationships.
  package func persistentRecords() -> [StoreRecord] {
    registerAllObjects()
    // Objects not saved yet get the keys a save would give them.
    let keys = cache.keyState
    cache.assignPrimaryKeys(toRows: insertedRows.filter { !cache.hasPrimaryKey($0) })
    defer { cache.keyState = keys }
    var records: [StoreRecord] = []
    for case let object? in table where object.flags.isDisjoint(with: [.removed, .deleted]) {
      var record = StoreRecord(entityName: object.entityName, id: primaryKey(of: object))
      for (slot, property) in object.layout.properties.enumerated() {
        switch property.kind {
        case .attribute(let attribute):
          guard !attribute.isTransient,
            let value = object.slots[slot].attributeValue(as: attribute.attributeType)
          else { continue }
          record.attributes[attribute.name] = value
        case .relationship(let relationship):
          guard !relationship.description.isTransient else { continue }
          let targets = primitiveTargets(of: object, slot: slot).filter { row in
            self.object(atRow: row)?.flags.isDisjoint(with: [.removed, .deleted]) ?? false
          }
          if !targets.isEmpty {
            record.relationships[relationship.name] = targets.map { cache.primaryKey(ofRow: $0) }
          }
        case .fetched:
          continue
        }
      }
      records.append(record)
    }
    return records
  }
}

extension ManagedObjectContext {
  /// Writes the whole graph, unsaved changes included, to `url` in `format`, without saving:
  /// the context, its store and its change sets stay as they are. For autosave and export.
  ///
  /// - Throws: `GraphError.store` when the file cannot be written (it is then as it was), or
  ///   when the context has no coordinator.
  public func writeCopy(to url: URL, format: any StoreFormat) throws(GraphError) {
    processPendingChanges()
    guard let coordinator = persistentStoreCoordinator else {
      throw GraphError(.store, "the context has no coordinator to write with")
    }
    let records = persistentRecords()
    var metadata =
      coordinator.persistentStores.first?.metadata
      ?? StoreMetadata(storeType: format.typeName, identifier: storeIdentifier)
    metadata.identifier = storeIdentifier
    let next = max(cache.nextObjectID, (records.map(\.id).max() ?? 0) + 1)
    do {
      try coordinator.write(
        StoreContents(metadata: metadata, records: records, nextObjectID: next), to: url,
        format: format)
    } catch {
      throw GraphError(.store, error.message, at: error.location, underlying: error)
    }
  }

  /// Attaches the context to `coordinator` (a context made for a new, untitled document that is
  /// now saved somewhere): its objects and committed state stay, and the next save writes them
  /// all to the store.
  package func attach(to coordinator: PersistentStoreCoordinator) {
    guard coordinator !== persistentStoreCoordinator else { return }
    persistentStoreCoordinator = coordinator
    coordinator.cache = cache
    if let store = coordinator.persistentStores.first {
      store.metadata.identifier = storeIdentifier
      store.needsWrite = true
    }
  }
}
