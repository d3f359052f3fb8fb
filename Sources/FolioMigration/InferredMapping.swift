import FolioModel

extension MappingModel {
  /// The mapping a lightweight migration infers from `source` to `destination`, as Core
  /// Data's `NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)` does.
  ///
  /// Entities and properties are matched by name or by `renamingIdentifier`
  /// (``ModelDifference``). Each concrete destination entity with a source entity gets a
  /// mapping named `SourceToDestination`: a copy when nothing of it changed, a transform
  /// otherwise. Each attribute takes `$source.<its source name>`, each relationship the
  /// destination objects of `$source.<its source name>`; a property new in the destination
  /// gets no expression, so it keeps its default value or stays empty. A new entity gets an
  /// add mapping, a removed one a remove mapping.
  ///
  /// - Throws: `MigrationError.needsMapping` listing every change a lightweight migration
  ///   cannot make, each with its entity, property and reason.
  public static func inferred(from source: ManagedObjectModel, to destination: ManagedObjectModel)
    throws(MigrationError) -> MappingModel
  {
    let difference = ModelDifference(from: source, to: destination)
    let refusals = difference.refusals
    if let first = refusals.first {
      throw MigrationError(
        .needsMapping,
        "a lightweight migration cannot make "
          + (refusals.count == 1 ? "this change" : "\(refusals.count) changes") + ": "
          + refusals.map(\.description).joined(separator: "; "),
        at: InputLocation(entity: first.entity, property: first.property))
    }
    let changed = Set(difference.changes.map(\.entity))
    var mappings: [EntityMapping] = []
    for entity in destination.entities {
      guard let origin = difference.sourceEntityNames[entity.name] else {
        guard !entity.isAbstract else { continue }
        mappings.append(
          EntityMapping(
            name: "To\(entity.name)", mappingType: .add, sourceEntityName: nil,
            destinationEntityName: entity.name,
            attributeMappings: storedAttributes(of: entity).map {
              PropertyMapping(name: $0.name, valueExpression: nil)
            },
            relationshipMappings: storedRelationships(of: entity).map {
              PropertyMapping(name: $0.name, valueExpression: nil)
            }))
        continue
      }
      guard let old = source.entity(named: origin), !entity.isAbstract else { continue }
      let sourceNames = difference.sourcePropertyNames[entity.name] ?? [:]
      func sourceName(_ name: String) -> String? { sourceNames[name] }
      let attributes = storedAttributes(of: entity).map { attribute in
        PropertyMapping(
          name: attribute.name,
          valueExpression: sourceName(attribute.name).map {
            .keyPath(.variable("source"), $0)
          })
      }
      let relationships = storedRelationships(of: entity).map { relationship in
        PropertyMapping(
          name: relationship.name,
          valueExpression: sourceName(relationship.name).map { .sourceRelationship($0) })
      }
      let isCopy =
        !changed.contains(entity.name) && old.name == entity.name
        && ancestorsUnchanged(of: entity, source: source, destination: destination, changed)
      mappings.append(
        EntityMapping(
          name: "\(old.name)To\(entity.name)", mappingType: isCopy ? .copy : .transform,
          sourceEntityName: old.name, destinationEntityName: entity.name,
          attributeMappings: attributes, relationshipMappings: relationships))
    }
    let matched = Set(difference.sourceEntityNames.values)
    for entity in source.entities where !matched.contains(entity.name) && !entity.isAbstract {
      mappings.append(
        EntityMapping(
          name: "\(entity.name)To", mappingType: .remove, sourceEntityName: entity.name,
          destinationEntityName: nil))
    }
    return MappingModel(entityMappings: mappings)
  }

  /// Whether no ancestor of `entity` changed (its inherited properties are then the same).
  private static func ancestorsUnchanged(
    of entity: EntityDescription, source: ManagedObjectModel, destination: ManagedObjectModel,
    _ changed: Set<String>
  ) -> Bool {
    destination.ancestorNames(of: entity).allSatisfy { !changed.contains($0) }
  }

  static func storedAttributes(of entity: EntityDescription) -> [AttributeDescription] {
    entity.allAttributes.filter { !$0.isTransient }
  }

  static func storedRelationships(of entity: EntityDescription) -> [RelationshipDescription] {
    entity.allRelationships.filter { !$0.isTransient }
  }
}

extension MappingExpression {
  /// The selector Core Data's inferred mappings use for relationships.
  static let sourceRelationshipSelector =
    "destinationInstancesForSourceRelationshipNamed:sourceInstances:"
  /// The selector of ``MigrationManager/destinationInstances(forEntityMappingNamed:sourceInstances:)``.
  static let entityMappingSelector = "destinationInstancesForEntityMappingNamed:sourceInstances:"

  /// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
  /// "name", $source.name)`: the destination objects of the source relationship `name`'s
  /// targets, as inferred mappings write a relationship's value.
  public static func sourceRelationship(_ name: String) -> MappingExpression {
    .function(
      receiver: .variable("manager"), selector: sourceRelationshipSelector,
      arguments: [.constant(.string(name)), .keyPath(.variable("source"), name)])
  }
}
