import FolioModel

extension MappingModel {
  /// The mapping with Xcode's default expression in every row marked
  /// ``PropertyMapping/usesDefaultExpression``, decided by the source model.
  ///
  /// Xcode stores an expression only for the rows a user edited, and fills in the others from
  /// the names: a destination attribute whose source entity has a non-transient attribute of
  /// the same name takes `$source.<name>`; a destination relationship whose source entity has
  /// a non-transient relationship of the same name takes
  /// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
  /// "<name>", $source.<name>)`, the objects that the migration made of the source objects
  /// at that relationship. Any other row, and every row of a mapping without a source entity,
  /// has no expression: the destination property keeps its default value, or stays empty.
  /// Rows that state an expression are left as they are; resolving again, with the same
  /// model, changes nothing.
  ///
  /// - Parameter sourceModel: The model version the mapping migrates from.
  /// - Returns: The mapping, with the marked rows' expressions decided.
  /// - Throws: `MappingModelError.modelMismatch` when `sourceModel` has no entity of a
  ///   mapping's source entity name.
  /// - Complexity: O(*p*) in the property mappings.
  public func resolvingDefaultExpressions(sourceModel: ManagedObjectModel)
    throws(MappingModelError) -> MappingModel
  {
    var resolved = self
    for index in resolved.entityMappings.indices {
      let mapping = resolved.entityMappings[index]
      let hasDefaults = (mapping.attributeMappings + mapping.relationshipMappings).contains {
        $0.usesDefaultExpression
      }
      guard hasDefaults else { continue }
      var source: EntityDescription?
      if let name = mapping.sourceEntityName {
        guard let entity = sourceModel.entity(named: name) else {
          throw MappingModelError.missingSourceEntity(name, mapping: mapping.name)
        }
        source = entity
      }
      for row in mapping.attributeMappings.indices
      where mapping.attributeMappings[row].usesDefaultExpression {
        let name = mapping.attributeMappings[row].name
        let attribute = source?.attribute(named: name).flatMap { $0.isTransient ? nil : $0 }
        resolved.entityMappings[index].attributeMappings[row].valueExpression =
          attribute.map { _ in .keyPath(.variable("source"), name) }
      }
      for row in mapping.relationshipMappings.indices
      where mapping.relationshipMappings[row].usesDefaultExpression {
        let name = mapping.relationshipMappings[row].name
        let relationship = source?.relationship(named: name).flatMap {
          $0.isTransient ? nil : $0
        }
        resolved.entityMappings[index].relationshipMappings[row].valueExpression =
          relationship.map { _ in Self.defaultRelationshipExpression(name) }
      }
    }
    return resolved
  }

  /// The destination objects made of the source objects at the source relationship `name`.
  static func defaultRelationshipExpression(_ name: String) -> MappingExpression {
    .function(
      receiver: .variable("manager"),
      selector: "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
      arguments: [.constant(.string(name)), .keyPath(.variable("source"), name)])
  }
}
