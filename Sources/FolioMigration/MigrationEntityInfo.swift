import FolioModel

/// What a migration asks of an entity, looked up once per migration rather than once per
/// object: its stored properties by name, its default values, the entities it is a kind of,
/// and its relationships' inverses.
final class MigrationEntityInfo {
  let name: String
  let isAbstract: Bool
  let storedAttributes: [AttributeDescription]
  let storedRelationships: [RelationshipDescription]
  let attributes: [String: AttributeDescription]
  let relationships: [String: RelationshipDescription]
  /// The default value of each stored attribute that has one.
  let defaults: [String: AttributeValue]
  /// The entity's name and its ancestors' names.
  let kinds: Set<String>
  /// Each stored relationship with a stored inverse: its name, the inverse's name, whether
  /// the inverse is a to-many.
  let inverses: [(name: String, inverse: String, inverseIsToMany: Bool)]

  init(_ entity: EntityDescription, in model: ManagedObjectModel) {
    name = entity.name
    isAbstract = entity.isAbstract
    storedAttributes = MappingModel.storedAttributes(of: entity)
    storedRelationships = MappingModel.storedRelationships(of: entity)
    attributes = Dictionary(
      storedAttributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    relationships = Dictionary(
      storedRelationships.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    var defaults: [String: AttributeValue] = [:]
    for attribute in storedAttributes {
      if let value = attribute.defaultValue { defaults[attribute.name] = value }
    }
    self.defaults = defaults
    kinds = Set([entity.name] + model.ancestorNames(of: entity))
    inverses = storedRelationships.compactMap { relationship in
      guard let inverse = model.inverse(of: relationship), !inverse.isTransient else { return nil }
      return (relationship.name, inverse.name, inverse.isToMany)
    }
  }

  /// Every entity of `model`, by name.
  static func all(of model: ManagedObjectModel) -> [String: MigrationEntityInfo] {
    Dictionary(
      model.entities.map { ($0.name, MigrationEntityInfo($0, in: model)) },
      uniquingKeysWith: { first, _ in first })
  }
}
