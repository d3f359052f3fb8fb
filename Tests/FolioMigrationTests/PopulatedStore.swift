import FolioModel
import FolioStores
import Foundation

/// Records of every concrete entity of `model`, `count` objects each, every stored attribute
/// holding a value of its type and every relationship linked, both sides agreeing: a store in
/// which every entity and property is populated. A many-to-many links each object to one
/// target, as data a later version makes to-one would.
func populatedRecords(of model: ManagedObjectModel, count: Int = 2) -> [StoreRecord] {
  var records: [StoreRecord] = []
  var kinds: [String: [Int]] = [:]
  var id: Int64 = 1
  for entity in model.entities where !entity.isAbstract {
    for index in 0..<count {
      var attributes: [String: AttributeValue] = [:]
      for attribute in entity.allAttributes where !attribute.isTransient && !attribute.isDerived {
        if let value = sampleValue(attribute, index: index, serial: id, entity: entity.name) {
          attributes[attribute.name] = value
        }
      }
      let position = records.count
      records.append(StoreRecord(entityName: entity.name, id: id, attributes: attributes))
      id += 1
      kinds[entity.name, default: []].append(position)
      for ancestor in model.ancestorNames(of: entity) {
        kinds[ancestor, default: []].append(position)
      }
    }
  }
  // Each relationship once, from the side whose declaring entity and name sort first.
  for entity in model.entities {
    for relationship in entity.relationships where !relationship.isTransient {
      let inverse = model.inverse(of: relationship)
      let inverseOwner = relationship.inverseEntityName ?? relationship.destinationEntityName
      if let inverse, (inverseOwner, inverse.name) < (entity.name, relationship.name) {
        continue
      }
      let sources = kinds[entity.name] ?? []
      let targets = kinds[relationship.destinationEntityName] ?? []
      guard !sources.isEmpty, !targets.isEmpty else { continue }
      var edges: [(Int, Int)] = []
      switch (relationship.isToMany, inverse?.isToMany) {
      case (false, false?):
        edges = zip(sources, targets).map { ($0, $1) }
      case (false, _):
        edges = sources.enumerated().map { ($1, targets[$0 % targets.count]) }
      case (true, false?):
        edges = targets.enumerated().map { (sources[$0 % sources.count], $1) }
      case (true, nil):
        edges = sources.flatMap { source in targets.map { (source, $0) } }
      case (true, true?):
        // One target each: a relationship some later version makes to-one keeps one.
        edges = sources.enumerated().map { ($1, targets[$0 % targets.count]) }
      }
      for (source, target) in edges where source != target || inverse == nil {
        records[source].relationships[relationship.name, default: []].append(records[target].id)
        if let inverse {
          records[target].relationships[inverse.name, default: []].append(records[source].id)
        }
      }
    }
  }
  return records
}

/// A value of `attribute`'s type, different for each object of the entity; integers are the
/// object's serial number, different across the store (uniqueness constraints hold).
private func sampleValue(
  _ attribute: AttributeDescription, index: Int, serial: Int64, entity: String
) -> AttributeValue? {
  let number = Int64(index + 1)
  switch attribute.attributeType {
  case .integer16, .integer32, .integer64: return .integer(serial)
  case .decimal: return .decimal(Decimal(number) / 4)
  case .double: return .double(Double(number) + 0.5)
  case .float: return .float(Float(number) + 0.25)
  case .string: return .string("\(entity).\(attribute.name) \(index + 1)")
  case .boolean: return .boolean(index % 2 == 0)
  case .date: return .date(Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index)))
  case .binaryData: return .binaryData(Data([UInt8(index % 256), 1, 2, 3]))
  case .transformable: return .transformable(Data([UInt8(index % 256), 4, 5]))
  case .uuid:
    return UUID(uuidString: "00000000-0000-0000-0000-0000000000\(10 + index % 90)").map {
      .uuid($0)
    }
  case .uri: return URL(string: "https://example.com/\(index)").map { .uri($0) }
  case .objectID, .composite, .undefined: return nil
  }
}
