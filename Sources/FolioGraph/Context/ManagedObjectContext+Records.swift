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
  public func persistentRecords() -> [StoreRecord] {
    // Objects not saved yet get the keys a save would give them.
    let keys = (primaryKeys, rowByPrimaryKey, nextPrimaryKey)
    if primaryKeys != nil {
      assignPrimaryKeys(
        toRows: insertedRows.filter { table[Int($0)]?.flags.contains(.permanent) == false })
    }
    defer { (primaryKeys, rowByPrimaryKey, nextPrimaryKey) = keys }
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
            table[Int(row)]?.flags.isDisjoint(with: [.removed, .deleted]) ?? false
          }
          if !targets.isEmpty {
            record.relationships[relationship.name] = targets.compactMap { row in
              table[Int(row)].map { primaryKey(of: $0) }
            }
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
  /// Fills an empty context with a store's objects, as saved objects: nothing is inserted,
  /// nothing is undoable, no notification is posted.
  ///
  /// Each record becomes an object with the record's ID as its primary key, so permanent IDs
  /// (and the URIs apps keep) stay stable from one session to the next. A relationship whose
  /// inverse the store left out is completed from the side it has.
  ///
  /// Undo: loading registers nothing.
  ///
  /// - Throws: `GraphError.unknownEntity`, `.unknownKey`, `.typeMismatch` for records that do
  ///   not fit the model; `.objectNotFound` for a relationship naming an ID no record has;
  ///   `.notRegistered` when the context already holds objects. On error the context stays
  ///   empty.
  /// - Complexity: O(*n*) in the records and their relationships.
  public func load(_ contents: StoreContents) throws(GraphError) {
    guard table.isEmpty else {
      throw GraphError(.notRegistered, "a context loads a store only while it is empty")
    }
    do {
      try loadRecords(contents)
    } catch {
      table.removeAll()
      primaryKeys = nil
      rowByPrimaryKey = nil
      throw error
    }
  }

  private func loadRecords(_ contents: StoreContents) throws(GraphError) {
    let records = contents.records
    // When the IDs are 1...n in any order (a store with no deleted objects in its past), each
    // object sits at row ID − 1 and the context keeps no key maps: a key is its row plus one.
    let dense =
      contents.nextObjectID <= Int64(records.count) + 1 && idsAreOneThroughCount(records)
    var rows: [Int64: Int32] = [:]
    if !dense { rows.reserveCapacity(records.count) }
    table = [ManagedObject?](repeating: nil, count: records.count)
    for (index, record) in records.enumerated() {
      guard let layout = layoutByName[record.entityName] else {
        throw GraphError.unknownEntity(record.entityName, known: layouts.map(\.name))
      }
      let row: Int32
      if dense {
        row = Int32(record.id - 1)
      } else {
        guard record.id >= 1, rows.updateValue(Int32(index), forKey: record.id) == nil else {
          throw GraphError(
            .typeMismatch, "object ID \(record.id) is not positive, or appears twice",
            at: InputLocation(entity: record.entityName))
        }
        row = Int32(index)
      }
      let object = ManagedObject(context: self, layout: layout, row: row)
      object.flags = [.permanent]
      for (key, value) in record.attributes {
        guard let slot = layout.slotByName[key], let attribute = layout.properties[slot].attribute
        else {
          throw GraphError.unknownKey(
            key, entity: layout.name, known: layout.properties.map(\.name))
        }
        guard ModelValueCheck.fits(value, attribute.attributeType) else {
          throw GraphError.typeMismatch(
            "\(value.modelText) is not of type \(attribute.attributeType.xcodeName)",
            entity: layout.name, key: key)
        }
        object.slots[slot] = Slot(value)
      }
      table[Int(row)] = object
    }
    if !dense {
      primaryKeys = records.map(\.id)
      rowByPrimaryKey = rows
    }
    nextPrimaryKey = max(contents.nextObjectID, (records.map(\.id).max() ?? 0) + 1)
    storeIdentifier = contents.metadata.identifier
    let count = Int64(records.count)
    for record in records where !record.relationships.isEmpty {
      guard let row = dense ? Int32(record.id - 1) : rows[record.id], let object = table[Int(row)]
      else { continue }
      for (key, targets) in record.relationships {
        guard let slot = object.layout.slotByName[key],
          let relationship = object.layout.properties[slot].relationship
        else {
          throw GraphError.unknownKey(
            key, entity: object.entityName, known: object.layout.properties.map(\.name))
        }
        var targetRows: [Int32] = []
        targetRows.reserveCapacity(targets.count)
        for id in targets {
          let targetRow = dense ? (id >= 1 && id <= count ? Int32(id - 1) : nil) : rows[id]
          guard let targetRow, let target = table[Int(targetRow)],
            target.layout.isKind(of: relationship.destination)
          else {
            throw GraphError(
              .objectNotFound,
              "\(object.entityName).\(key) names object \(id), which is not a \(relationship.description.destinationEntityName) in the store",
              at: InputLocation(entity: object.entityName, property: key))
          }
          targetRows.append(targetRow)
        }
        if relationship.isToMany {
          object.slots[slot] = .objects(RowSet(targetRows, ordered: relationship.isOrdered))
        } else if let first = targetRows.first {
          object.slots[slot] = .object(first)
        }
      }
    }
    completeInverses()
  }

  /// Whether the records' IDs are exactly 1 through their count, each once.
  private func idsAreOneThroughCount(_ records: [StoreRecord]) -> Bool {
    var seen = [Bool](repeating: false, count: records.count + 1)
    for record in records {
      guard record.id >= 1, record.id <= Int64(records.count), !seen[Int(record.id)] else {
        return false
      }
      seen[Int(record.id)] = true
    }
    return true
  }

  /// Adds the side of each relationship pair a store left out.
  private func completeInverses() {
    for case let object? in table {
      for (slot, property) in object.layout.properties.enumerated() {
        guard let relationship = property.relationship, let inverseSlot = relationship.inverseSlot
        else { continue }
        for row in primitiveTargets(of: object, slot: slot) {
          guard let target = table[Int(row)] else { continue }
          if relationship.inverseIsToMany {
            let set = rowSet(of: target, slot: inverseSlot)
            if !set.contains(object.row) { set.insert(object.row) }
          } else if case .null = target.slots[inverseSlot] {
            target.slots[inverseSlot] = .object(object.row)
          }
        }
      }
    }
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
    let next = max(nextPrimaryKey, (records.map(\.id).max() ?? 0) + 1)
    do {
      try coordinator.write(
        StoreContents(metadata: metadata, records: records, nextObjectID: next), to: url,
        format: format)
    } catch {
      throw GraphError(.store, error.description, at: error.location, underlying: error)
    }
  }

  /// Attaches the context to `coordinator` (a context made for a new, untitled document that is
  /// now saved somewhere): its objects stay, and the next save writes them all to the store.
  public func attach(to coordinator: PersistentStoreCoordinator) {
    persistentStoreCoordinator = coordinator
    if let store = coordinator.persistentStores.first {
      store.metadata.identifier = storeIdentifier
    }
  }
}
