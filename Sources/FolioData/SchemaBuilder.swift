import FolioModel

/// Builds the ``FolioModel/ManagedObjectModel`` of a schema's classes.
struct SchemaBuilder {
  let types: [any PersistentModel.Type]
  let names: [AnyKeyPath: String]
  let version: Schema.Version

  /// A relationship, by entity and property name.
  struct Place: Hashable {
    let entity: String
    let property: String
  }

  func model() throws(SchemaError) -> ManagedObjectModel {
    let inverses = try self.inverses()
    var entities: [EntityDescription] = []
    for type in types {
      let entityName = Schema.entityName(of: type)
      var entity = EntityDescription(
        entityName, parent: Schema.superModel(of: type).map(Schema.entityName(of:)))
      entity.representedClassName = entityName
      for property in type.schemaMetadata {
        let place = "\(entityName).\(property.name)"
        switch property.kind {
        case .attribute(let attributeType, let isOptional, let valueType, let codable):
          guard let attributeType else {
            throw SchemaError(
              "\(place) is a \(valueType), which no attribute holds: use a value type Folio stores, an enumeration with such a raw value, or a Codable type"
            )
          }
          var attribute = AttributeDescription(
            property.name, attributeType, isOptional: isOptional,
            defaultValue: property.defaultValue)
          if codable, attributeType == .transformable {
            attribute.valueTransformerName = Schema.jsonTransformerName
            let wrapped = (valueType as? any _OptionalValue.Type)?.wrappedType ?? valueType
            attribute.valueClassName = String(describing: wrapped)
          }
          if let settings = property.attribute {
            let options = Set(settings.options.map(\.kind))
            attribute.allowsExternalBinaryDataStorage = options.contains(.externalStorage)
            attribute.preservesValueInHistoryOnDeletion = options.contains(.preserveValueOnDeletion)
            attribute.isIndexedBySpotlight = options.contains(.spotlight)
            attribute.traits.isTransient = options.contains(.ephemeral)
            attribute.traits.renamingIdentifier = settings.originalName
            attribute.traits.versionHashModifier = settings.hashModifier
            if options.contains(.unique) { entity.uniquenessConstraints.append([property.name]) }
          }
          entity.attributes.append(attribute)
        case .toOne(let target, let isOptional), .toMany(let target, let isOptional):
          let toMany: Bool
          if case .toMany = property.kind { toMany = true } else { toMany = false }
          let settings = property.relationship
          var relationship = RelationshipDescription(
            property.name, to: Schema.entityName(of: target),
            inverse: inverses[Place(entity: entityName, property: property.name)]?.property,
            toMany: toMany, isOptional: isOptional,
            deleteRule: settings?.deleteRule.folio ?? .nullify)
          if toMany, let settings {
            relationship.minCount = settings.minimumModelCount ?? 0
            relationship.maxCount = settings.maximumModelCount.flatMap { $0 == 0 ? nil : $0 }
          }
          relationship.traits.renamingIdentifier = settings?.originalName
          relationship.traits.versionHashModifier = settings?.hashModifier
          entity.relationships.append(relationship)
        }
      }
      try addConstraints(of: type, to: &entity)
      entities.append(entity)
    }
    do {
      return try ManagedObjectModel(entities: entities, versionIdentifier: "\(version)")
    } catch {
      throw SchemaError("the classes make no model: \(error)")
    }
  }

  /// The uniqueness constraints and indexes `type`'s `#Unique` and `#Index` name.
  func addConstraints(of type: any PersistentModel.Type, to entity: inout EntityDescription)
    throws(SchemaError)
  {
    let constraints = type.schemaConstraints
    func names(_ group: [AnyKeyPath], _ macro: String) throws(SchemaError) -> [String] {
      var names: [String] = []
      for keyPath in group {
        guard let name = self.names[keyPath] else {
          throw SchemaError(
            "\(entity.name)'s \(macro) names a key path that is not a persisted property: \(keyPath)"
          )
        }
        names.append(name)
      }
      return names
    }
    for group in constraints.unique {
      entity.uniquenessConstraints.append(try names(group, "#Unique"))
    }
    for group in constraints.indexes {
      let properties = try names(group, "#Index")
      entity.fetchIndexes.append(
        FetchIndexDescription(
          "\(entity.name)_\(properties.joined(separator: "_"))",
          elements: properties.map { FetchIndexDescription.Element(property: $0) }))
    }
  }

  /// Each relationship's inverse: the one `@Relationship(inverse:)` names on either side, or
  /// else, as SwiftData infers it, the destination's only relationship back to the source
  /// when the source has only this one to the destination.
  func inverses() throws(SchemaError) -> [Place: Place] {
    var relationships: [(place: Place, target: String, inverse: AnyKeyPath?)] = []
    for type in types {
      let entity = Schema.entityName(of: type)
      for property in type.schemaMetadata {
        guard let target = property.kind.target else { continue }
        relationships.append(
          (
            Place(entity: entity, property: property.name), Schema.entityName(of: target),
            property.relationship?.inverse
          ))
      }
    }
    var pairs: [Place: Place] = [:]
    func pair(_ a: Place, _ b: Place) throws(SchemaError) {
      if let existing = pairs[a], existing != b {
        throw SchemaError(
          "\(a.entity).\(a.property) is given two inverses: \(existing.entity).\(existing.property) and \(b.entity).\(b.property)"
        )
      }
      if let existing = pairs[b], existing != a {
        throw SchemaError(
          "\(b.entity).\(b.property) is given two inverses: \(existing.entity).\(existing.property) and \(a.entity).\(a.property)"
        )
      }
      pairs[a] = b
      pairs[b] = a
    }
    for relationship in relationships {
      guard let inverse = relationship.inverse else { continue }
      guard let name = names[inverse],
        let back = relationships.first(where: {
          $0.place.entity == relationship.target && $0.place.property == name
        })
      else {
        throw SchemaError(
          "\(relationship.place.entity).\(relationship.place.property)'s inverse is not a relationship of \(relationship.target)"
        )
      }
      guard back.target == relationship.place.entity else {
        throw SchemaError(
          "\(relationship.place.entity).\(relationship.place.property)'s inverse \(back.place.entity).\(back.place.property) leads to \(back.target), not back to \(relationship.place.entity)"
        )
      }
      try pair(relationship.place, back.place)
    }
    for relationship in relationships where pairs[relationship.place] == nil {
      let source = relationship.place.entity
      let fromSource = relationships.filter {
        $0.place.entity == source && $0.target == relationship.target && pairs[$0.place] == nil
      }
      let back = relationships.filter {
        $0.place.entity == relationship.target && $0.target == source && pairs[$0.place] == nil
          && $0.place != relationship.place
      }
      guard fromSource.count == 1, back.count == 1 else { continue }
      // A class's relationships to itself are paired only when named.
      guard source != relationship.target else { continue }
      try pair(relationship.place, back[0].place)
    }
    return pairs
  }
}
