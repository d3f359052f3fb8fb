import FolioModel
import Foundation

/// `folio model info`'s output: a model as text for people and as JSON for machines.
enum ModelDescription {
  // MARK: Text

  static func text(of model: ManagedObjectModel) -> String {
    let count = model.entities.count
    var out =
      "Model: \(count) \(count == 1 ? "entity" : "entities"), version hash \(model.versionHashString)\n"
    if let identifier = model.versionIdentifier { out += "Version identifier: \(identifier)\n" }
    for entity in model.entities {
      out += "\n\(entity.name)"
      var traits: [String] = []
      if entity.isAbstract { traits.append("abstract") }
      if let parent = entity.parentEntityName { traits.append("parent \(parent)") }
      if !entity.subentityNames.isEmpty {
        traits.append("subentities \(entity.subentityNames.joined(separator: ", "))")
      }
      if !traits.isEmpty { out += " (\(traits.joined(separator: "; ")))" }
      out += "\n  version hash: \(hex(entity.versionHash))\n"
      let inherited = Set(entity.properties.map(\.name)).subtracting(
        entity.attributes.map(\.name) + entity.relationships.map(\.name)
          + entity.fetchedProperties.map(\.name))
      let attributes = entity.allAttributes
      if !attributes.isEmpty {
        out += "  attributes:\n"
        for attribute in attributes {
          let from = inherited.contains(attribute.name) ? " (inherited)" : ""
          out += "    \(attribute.name): \(describe(attribute).joined(separator: ", "))\(from)\n"
        }
      }
      let relationships = entity.allRelationships
      if !relationships.isEmpty {
        out += "  relationships:\n"
        for relationship in relationships {
          let from = inherited.contains(relationship.name) ? " (inherited)" : ""
          out +=
            "    \(relationship.name): \(describe(relationship).joined(separator: ", "))\(from)\n"
        }
      }
      for property in entity.properties {
        guard case .fetchedProperty(let fetched) = property else { continue }
        out += "  fetched property \(fetched.name): \(fetched.entityName)"
        out += fetched.predicateString.map { " where \($0)" } ?? ""
        out += "\n"
      }
      for constraint in entity.uniquenessConstraints {
        out += "  unique: \(constraint.joined(separator: ", "))\n"
      }
      for index in entity.fetchIndexes {
        let parts = index.elements.map {
          ($0.propertyName ?? $0.expression ?? "?") + ($0.isAscending ? "" : " descending")
        }
        out += "  index \(index.name): \(parts.joined(separator: ", "))\n"
      }
    }
    if !model.configurations.isEmpty {
      out += "\n"
      for configuration in model.configurations {
        out +=
          "Configuration \(configuration.name): \(configuration.entityNames.joined(separator: ", "))\n"
      }
    }
    if !model.fetchRequestTemplates.isEmpty {
      out += "\n"
      for template in model.fetchRequestTemplates {
        out += "Fetch request \(template.name): \(template.entityName)"
        out += template.predicateString.map { " where \($0)" } ?? ""
        out += "\n"
      }
    }
    return out
  }

  static func describe(_ attribute: AttributeDescription) -> [String] {
    var parts = [typeName(of: attribute)]
    parts.append(attribute.isOptional ? "optional" : "required")
    if attribute.isTransient { parts.append("transient") }
    if let value = attribute.defaultValue { parts.append("default \(quoted(value))") }
    if let low = attribute.minimumValue { parts.append("min \(low.modelText)") }
    if let high = attribute.maximumValue { parts.append("max \(high.modelText)") }
    if let low = attribute.minimumLength { parts.append("min length \(low)") }
    if let high = attribute.maximumLength { parts.append("max length \(high)") }
    if let pattern = attribute.regularExpression { parts.append("matches /\(pattern)/") }
    if let expression = attribute.derivationExpression {
      parts.append("derived from \(expression)")
    }
    if let transformer = attribute.valueTransformerName {
      parts.append("transformer \(transformer)")
    }
    if attribute.isIndexed { parts.append("indexed") }
    return parts
  }

  static func describe(_ relationship: RelationshipDescription) -> [String] {
    var parts: [String] = []
    let kind =
      relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one"
    parts.append("\(kind) \(relationship.destinationEntityName)")
    parts.append("cardinality \(cardinality(of: relationship))")
    if let inverse = relationship.inverseName {
      parts.append("inverse \(inverse)")
    } else {
      parts.append("no inverse")
    }
    parts.append("delete rule \(relationship.deleteRule.xcodeName)")
    if relationship.isTransient { parts.append("transient") }
    return parts
  }

  /// `0..1`, `1`, `0..*`, `3..10`: how many objects the relationship holds when saved.
  static func cardinality(of relationship: RelationshipDescription) -> String {
    let low = relationship.isOptional ? 0 : (relationship.isToMany ? relationship.minCount : 1)
    guard relationship.isToMany else { return low == 0 ? "0..1" : "1" }
    let high = relationship.maxCount.map(String.init) ?? "*"
    return "\(max(low, relationship.minCount))..\(high)"
  }

  static func typeName(of attribute: AttributeDescription) -> String {
    switch attribute.attributeType {
    case .composite: "Composite \(attribute.compositeName ?? "?")"
    case .binaryData: "Binary Data"
    case .objectID: "Object ID"
    default: attribute.attributeType.xcodeName
    }
  }

  private static func quoted(_ value: AttributeValue) -> String {
    if case .string(let text) = value { return "\"\(text)\"" }
    return value.modelText
  }

  static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

  // MARK: JSON

  struct ModelJSON: Encodable {
    var versionHash: String
    var versionIdentifier: String?
    var entities: [EntityJSON]
    var configurations: [String: [String]]
    var fetchRequests: [String: FetchJSON]
    var warnings: [WarningJSON]
  }

  /// A warning about the model: what it is about, where, and the line `model info` prints to
  /// standard error. Every key is present, `null` where the warning has no such part.
  struct WarningJSON: Encodable {
    var kind: String
    var message: String
    var entity: String?
    var property: String?
    var file: String?
    var line: Int?
    var column: Int?
    var description: String

    init(_ diagnostic: ModelDiagnostic) {
      switch diagnostic.kind {
      case .coercedDefaultValue: kind = "coercedDefaultValue"
      case .coercedBound: kind = "coercedBound"
      case .ignoredDefaultValue: kind = "ignoredDefaultValue"
      case .missingInverse: kind = "missingInverse"
      }
      message = diagnostic.message
      entity = diagnostic.location?.entity
      property = diagnostic.location?.property
      file = diagnostic.location?.file
      line = diagnostic.location?.line
      column = diagnostic.location?.column
      description = diagnostic.description
    }

    private enum CodingKeys: String, CodingKey {
      case kind, message, entity, property, file, line, column, description
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(kind, forKey: .kind)
      try container.encode(message, forKey: .message)
      try container.encode(entity, forKey: .entity)
      try container.encode(property, forKey: .property)
      try container.encode(file, forKey: .file)
      try container.encode(line, forKey: .line)
      try container.encode(column, forKey: .column)
      try container.encode(description, forKey: .description)
    }
  }

  struct EntityJSON: Encodable {
    var name: String
    var parent: String?
    var isAbstract: Bool
    var subentities: [String]
    var versionHash: String
    var attributes: [AttributeJSON]
    var relationships: [RelationshipJSON]
    var uniquenessConstraints: [[String]]
  }

  struct AttributeJSON: Encodable {
    var name: String
    var type: String
    var isOptional: Bool
    var isTransient: Bool
    var isInherited: Bool
    var defaultValue: String?
    var minimum: String?
    var maximum: String?
    var minimumLength: Int?
    var maximumLength: Int?
    var regularExpression: String?
    var derivationExpression: String?
    var versionHash: String
  }

  struct RelationshipJSON: Encodable {
    var name: String
    var destination: String
    var inverse: String?
    var isToMany: Bool
    var isOrdered: Bool
    var isOptional: Bool
    var isInherited: Bool
    var minCount: Int
    var maxCount: Int?
    var deleteRule: String
    var versionHash: String
  }

  struct FetchJSON: Encodable {
    var entity: String
    var predicate: String?
  }

  static func json(of model: ManagedObjectModel) throws -> String {
    let entities = model.entities.map { entity in
      let declared = Set(
        entity.attributes.map(\.name) + entity.relationships.map(\.name))
      return EntityJSON(
        name: entity.name, parent: entity.parentEntityName, isAbstract: entity.isAbstract,
        subentities: entity.subentityNames, versionHash: hex(entity.versionHash),
        attributes: entity.allAttributes.map { attribute in
          AttributeJSON(
            name: attribute.name, type: attribute.attributeType.xcodeName,
            isOptional: attribute.isOptional, isTransient: attribute.isTransient,
            isInherited: !declared.contains(attribute.name),
            defaultValue: attribute.defaultValue?.modelText,
            minimum: attribute.minimumValue?.modelText, maximum: attribute.maximumValue?.modelText,
            minimumLength: attribute.minimumLength, maximumLength: attribute.maximumLength,
            regularExpression: attribute.regularExpression,
            derivationExpression: attribute.derivationExpression,
            versionHash: hex(attribute.versionHash))
        },
        relationships: entity.allRelationships.map { relationship in
          RelationshipJSON(
            name: relationship.name, destination: relationship.destinationEntityName,
            inverse: relationship.inverseName, isToMany: relationship.isToMany,
            isOrdered: relationship.isOrdered, isOptional: relationship.isOptional,
            isInherited: !declared.contains(relationship.name), minCount: relationship.minCount,
            maxCount: relationship.maxCount, deleteRule: relationship.deleteRule.xcodeName,
            versionHash: hex(relationship.versionHash))
        },
        uniquenessConstraints: entity.uniquenessConstraints)
    }
    let document = ModelJSON(
      versionHash: model.versionHashString, versionIdentifier: model.versionIdentifier,
      entities: entities,
      configurations: Dictionary(
        uniqueKeysWithValues: model.configurations.map { ($0.name, $0.entityNames) }),
      fetchRequests: Dictionary(
        uniqueKeysWithValues: model.fetchRequestTemplates.map {
          ($0.name, FetchJSON(entity: $0.entityName, predicate: $0.predicateString))
        }),
      warnings: model.diagnostics.map(WarningJSON.init))
    let encoder = JSONEncoder()
    // Compact, as every command's JSON: one document, one line.
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(document), as: UTF8.self)
  }
}
