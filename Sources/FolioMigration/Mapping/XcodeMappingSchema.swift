import FolioModel

/// The model of Xcode's mapping model files: the five entities whose objects an
/// `xcmapping.xml` store holds.
///
/// Xcode saves a mapping model as a Core Data XML store of its own model, which ships with no
/// repository. The entities, properties, types and flags below are the ones whose version
/// hashes equal, bit for bit, the `NSStoreModelVersionHashes` every known mapping file
/// records (a test checks it), so the store holds no property this model lacks. The XML store
/// writes entity names upper-cased and property names lower-cased; the store reader matches
/// them to these spellings.
enum XcodeMappingSchema {
  static let mappingModel = "XDDevMappingModel"
  static let entityMapping = "XDDevEntityMapping"
  static let propertyMapping = "XDDevPropertyMapping"
  static let attributeMapping = "XDDevAttributeMapping"
  static let relationshipMapping = "XDDevRelationshipMapping"

  /// The five entity names.
  static let entityNames: Set<String> = [
    mappingModel, entityMapping, propertyMapping, attributeMapping, relationshipMapping,
  ]

  /// The model.
  static let model: ManagedObjectModel = {
    do {
      return try makeModel()
    } catch {
      preconditionFailure("the model of Xcode's mapping model files does not build: \(error)")
    }
  }()

  private static func makeModel() throws -> ManagedObjectModel {
    // The to-one owner relationships are optional, yet have a minimum count of 1: the flags
    // Xcode's hashes record.
    func owner(_ name: String, to destination: String, inverse: String) -> RelationshipDescription {
      var relationship = RelationshipDescription(name, to: destination, inverse: inverse)
      relationship.minCount = 1
      return relationship
    }
    return try ManagedObjectModel {
      EntityDescription(mappingModel) {
        AttributeDescription("sourceModelPath", .string, isOptional: false)
        AttributeDescription("sourceModelData", .binaryData, isOptional: false)
        AttributeDescription("destinationModelPath", .string, isOptional: false)
        AttributeDescription("destinationModelData", .binaryData, isOptional: false)
        RelationshipDescription(
          "entityMappings", to: entityMapping, inverse: "mappingModel", toMany: true)
      }
      EntityDescription(entityMapping) {
        AttributeDescription("name", .string)
        AttributeDescription("sourceName", .string)
        AttributeDescription("destinationName", .string)
        AttributeDescription("mappingTypeName", .string)
        AttributeDescription("migrationPolicyClassName", .string)
        AttributeDescription("sourceFilterPredicateString", .string)
        AttributeDescription("mappingNumber", .integer16)
        AttributeDescription("autoGenerateExpression", .boolean)
        AttributeDescription("sourceExpressionData", .binaryData)
        AttributeDescription("userInfoData", .binaryData)
        owner("mappingModel", to: mappingModel, inverse: "entityMappings")
        RelationshipDescription(
          "attributeMappings", to: attributeMapping, inverse: "entityMapping", toMany: true)
        RelationshipDescription(
          "relationshipMappings", to: relationshipMapping, inverse: "entityMapping", toMany: true)
      }
      EntityDescription(propertyMapping) {
        AttributeDescription("name", .string)
        AttributeDescription("valueExpressionData", .binaryData)
        AttributeDescription("userInfoData", .binaryData)
      }
      EntityDescription(attributeMapping, parent: propertyMapping) {
        owner("entityMapping", to: entityMapping, inverse: "attributeMappings")
      }
      EntityDescription(relationshipMapping, parent: propertyMapping) {
        AttributeDescription("autoGenerateExpression", .boolean)
        AttributeDescription("sourceKeyPath", .string)
        AttributeDescription("sourceMappingName", .string)
        owner("entityMapping", to: entityMapping, inverse: "relationshipMappings")
      }
    }
  }
}
