import FolioModel
import FolioStores

/// The graph as records: what a save hands its store.
extension ManagedObjectContext {
  /// Every object a save would write, as records: objects in the graph and not deleted, with
  /// their persistent attributes and relationships. Transient properties are left out — they
  /// live only in memory — and so are empty values.
  ///
  /// A record's ID is its object's primary key, the number in its permanent ID (`pN`), which
  /// a save gives new objects.
  ///
  /// - Complexity: O(*n*) in the objects and their relationships.
  public func persistentRecords() -> [StoreRecord] {
    var records: [StoreRecord] = []
    for case let object? in table where object.flags.isDisjoint(with: [.removed, .deleted]) {
      var record = StoreRecord(entityName: object.entityName, id: Int64(object.row) + 1)
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
            record.relationships[relationship.name] = targets.map { Int64($0) + 1 }
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
