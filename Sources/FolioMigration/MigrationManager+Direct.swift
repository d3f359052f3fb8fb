import FolioModel
import FolioSQLiteStore
import FolioStores

extension MigrationManager {
  /// How each source entity's records become destination records when every mapping is a
  /// plain copy: what Core Data's default policy would do, without a policy, a filter, or any
  /// expression but `$source.key` of a stored attribute and the destination objects of a
  /// stored source relationship (the inferred forms), each source entity taken by one mapping.
  struct DirectPlan {
    struct Entity {
      var builder: RecordBuilder
      let destination: MigrationEntityInfo
      let space: Int
      /// For each stored destination attribute, in order: the source attribute it copies, if
      /// any.
      let attributes: [(source: String?, attribute: AttributeDescription)]
      /// For each stored destination relationship, in order: the source relationship whose
      /// targets it takes, if any, and the entity its targets must be of.
      let relationships: [(source: String?, kind: String)]
    }
    var entities: [Entity]
    var index: [String: Int]
  }

  /// The mapping model as plain copies, each source entity taken by one mapping, or `nil`
  /// when a mapping needs the general way: a policy, a filter, or an expression but
  /// `$source.key` of a stored attribute and the destination objects of a stored source
  /// relationship (the forms Core Data infers).
  func copyPlan() -> SQLiteCopyPlan? {
    var entities: [SQLiteCopyPlan.Entity] = []
    var taken: Set<String> = []
    for mapping in mappingModel.entityMappings {
      if mapping.mappingType == .add || mapping.mappingType == .remove { continue }
      guard mapping.migrationPolicyClassName?.isEmpty ?? true,
        mapping.sourceFilterPredicate?.isEmpty ?? true,
        let sourceName = mapping.sourceEntityName, taken.insert(sourceName).inserted,
        let source = sourceEntities[sourceName],
        let destinationName = mapping.destinationEntityName,
        let destination = destinationEntities[destinationName], !destination.isAbstract
      else { return nil }
      var attributeSources: [String: String] = [:]
      for property in mapping.attributeMappings {
        guard let expression = property.valueExpression else { continue }
        guard case .keyPath(.variable("source"), let key) = expression,
          source.attributes[key] != nil
        else { return nil }
        attributeSources[property.name] = key
      }
      var relationshipSources: [String: String] = [:]
      for property in mapping.relationshipMappings {
        guard let expression = property.valueExpression else { continue }
        guard
          case .function(
            .variable("manager"), MappingExpression.sourceRelationshipSelector, let arguments) =
            expression, arguments.count == 2,
          case .constant(.string(let key)) = arguments[0],
          case .keyPath(.variable("source"), key) = arguments[1],
          source.relationships[key] != nil
        else { return nil }
        relationshipSources[property.name] = key
      }
      entities.append(
        SQLiteCopyPlan.Entity(
          source: sourceName, destination: destinationName, attributes: attributeSources,
          relationships: relationshipSources))
    }
    return SQLiteCopyPlan(entities: entities)
  }

  /// The direct plan of the mapping model, or `nil` when a mapping needs the general way.
  func directPlan() -> DirectPlan? {
    guard let copies = copyPlan() else { return nil }
    var entities: [DirectPlan.Entity] = []
    var index: [String: Int] = [:]
    for copy in copies.entities {
      guard let destination = destinationEntities[copy.destination],
        destination.storedAttributes.count <= RecordBuilder.maximumColumns,
        destination.storedRelationships.count <= RecordBuilder.maximumColumns
      else { return nil }
      index[copy.source] = entities.count
      entities.append(
        DirectPlan.Entity(
          builder: RecordBuilder(
            entityName: destination.name,
            attributeNames: destination.storedAttributes.map(\.name),
            relationshipNames: destination.storedRelationships.map(\.name)),
          destination: destination, space: keySpace(destination.name),
          attributes: destination.storedAttributes.map { (copy.attributes[$0.name], $0) },
          relationships: destination.storedRelationships.map {
            (copy.relationships[$0.name], $0.destinationEntityName)
          }))
    }
    return DirectPlan(entities: entities, index: index)
  }

  /// Core Data's first two stages for a direct plan, record by record. Returns `false`, with
  /// the destination half made, when two destination records would share an ID.
  func migrateDirectly(_ plan: DirectPlan) throws(MigrationError) -> Bool {
    var entities = plan.entities
    // Each source record's entity in the plan, -1 for one no mapping takes.
    var entityOf = [Int32](repeating: -1, count: sources.count)
    var lastName = ""
    var last: Int32 = -1
    for (position, record) in sources.enumerated() {
      if record.entityName != lastName {
        lastName = record.entityName
        last = Int32(plan.index[lastName] ?? -1)
      }
      entityOf[position] = last
    }
    // For each entity and relationship, whether each entity's objects may be its targets.
    let accepts: [[[Bool]]] = entities.map { entity in
      entity.relationships.map { relationship in
        entities.map { $0.destination.kinds.contains(relationship.kind) }
      }
    }
    total = sources.count
    completed = 0
    var values: [AttributeValue?] = []
    var targets: [[Int64]] = []
    for position in sources.indices {
      completed += 1
      if completed & 4095 == 0 { try report(.creatingObjects) }
      let index = Int(entityOf[position])
      guard index >= 0 else { continue }
      let record = sources[position]
      let entity = entities[index]
      values.removeAll(keepingCapacity: true)
      for (source, attribute) in entity.attributes {
        guard let source else {
          values.append(attribute.defaultValue)
          continue
        }
        guard let value = record.attribute(source) else {
          values.append(attribute.isOptional ? nil : attribute.defaultValue)
          continue
        }
        guard let converted = value.converted(to: attribute.attributeType) else {
          throw MigrationError(
            .invalidValue,
            "\(value.modelText) does not fit \(entity.destination.name).\(attribute.name), of type \(attribute.attributeType.xcodeName) (object \(record.id))",
            at: InputLocation(entity: entity.destination.name, property: attribute.name))
        }
        values.append(converted)
      }
      targets.removeAll(keepingCapacity: true)
      for (column, relationship) in entity.relationships.enumerated() {
        guard let source = relationship.source, let found = record.relationships[source] else {
          targets.append([])
          continue
        }
        var made: [Int64] = []
        made.reserveCapacity(found.count)
        for target in found {
          guard let targetPosition = sourcePosition[target] else { continue }
          let other = Int(entityOf[targetPosition])
          guard other >= 0, accepts[index][column][other] else { continue }
          made.append(
            StoreKeySpace.id(space: entities[other].space, key: StoreKeySpace.key(of: target)))
        }
        targets.append(made)
      }
      let id = StoreKeySpace.id(space: entity.space, key: StoreKeySpace.key(of: record.id))
      guard destinationPosition.updateValue(destinations.count, forKey: id) == nil else {
        return false
      }
      destinations.append(entities[index].builder.record(id: id, values: values, targets: targets))
    }
    return true
  }
}
