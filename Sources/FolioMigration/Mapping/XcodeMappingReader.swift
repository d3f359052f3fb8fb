import FolioModel
import FolioStores
import Foundation

/// Builds a mapping model from the records of an `xcmapping.xml` store.
///
/// Only what is reachable from the one `XDDevMappingModel` object counts: editing in Xcode
/// leaves entity and property mappings behind whose owner relationship is empty, and those
/// are not part of the mapping. Xcode stores neither the mapping type nor (unless the user set
/// it) the entity mapping's name, nor any order of property mappings, so these are derived
/// here; `XcodeMappingModel` documents the rules.
struct XcodeMappingReader {
  private let file: String
  private let roots: [StoreRecord]
  private var entityMappings: [Int64: StoreRecord] = [:]
  private var propertyMappings: [Int64: StoreRecord] = [:]

  init(records: [StoreRecord], file: String) {
    self.file = file
    var roots: [StoreRecord] = []
    for record in records {
      switch record.entityName {
      case XcodeMappingSchema.mappingModel: roots.append(record)
      case XcodeMappingSchema.entityMapping: entityMappings[record.id] = record
      default: propertyMappings[record.id] = record
      }
    }
    self.roots = roots
  }

  func read() throws(MappingModelError) -> XcodeMappingModel {
    guard roots.count == 1, let root = roots.first else {
      throw MappingModelError.rootCount(roots.count, file: file)
    }
    var mappings: [(number: Int64, mapping: EntityMapping)] = []
    var names: Set<String> = []
    for id in root.relationships["entityMappings"] ?? [] {
      guard let record = entityMappings[id] else { continue }
      let mapping = try entityMapping(record)
      guard names.insert(mapping.name).inserted else {
        throw MappingModelError.duplicateEntityMapping(
          mapping.name,
          at: MappingPlace(file: file, entityMapping: mapping.name, objectID: Self.objectID(record))
        )
      }
      mappings.append((Self.integer(record, "mappingNumber") ?? .max, mapping))
    }
    // The idrefs are in no meaningful order; the mapping numbers give it.
    mappings.sort { ($0.number, $0.mapping.name) < ($1.number, $1.mapping.name) }
    return XcodeMappingModel(
      mappingModel: MappingModel(entityMappings: mappings.map(\.mapping)),
      sourceModelPath: Self.text(root, "sourceModelPath") ?? "",
      destinationModelPath: Self.text(root, "destinationModelPath") ?? "")
  }

  // MARK: Values

  /// The string attribute `key` of `record`; `nil` when absent or empty, which Xcode writes
  /// alike for "none".
  private static func text(_ record: StoreRecord, _ key: String) -> String? {
    guard case .string(let text)? = record.attribute(key), !text.isEmpty else { return nil }
    return text
  }

  private static func integer(_ record: StoreRecord, _ key: String) -> Int64? {
    guard case .integer(let value)? = record.attribute(key) else { return nil }
    return value
  }

  private static func flag(_ record: StoreRecord, _ key: String) -> Bool? {
    guard case .boolean(let value)? = record.attribute(key) else { return nil }
    return value
  }

  private static func data(_ record: StoreRecord, _ key: String) -> Data? {
    guard case .binaryData(let data)? = record.attribute(key) else { return nil }
    return data
  }

  /// How the file writes the ID of `record`: Core Data's `z` and the number.
  private static func objectID(_ record: StoreRecord) -> String { "z\(record.id)" }

  // MARK: Entity mappings

  private func entityMapping(_ record: StoreRecord) throws(MappingModelError) -> EntityMapping {
    let source = Self.text(record, "sourceName")
    let destination = Self.text(record, "destinationName")
    var place = MappingPlace(file: file, objectID: Self.objectID(record))
    guard source != nil || destination != nil else {
      throw MappingModelError.noEntityNames(at: place)
    }
    let name = Self.text(record, "name") ?? "\(source ?? "")To\(destination ?? "")"
    place.entityMapping = name
    // The default source fetch (all objects of the source entity, narrowed by the filter
    // predicate) is what `autoGenerateExpression` chooses; a custom one cannot be honoured.
    if Self.data(record, "sourceExpressionData") != nil,
      Self.flag(record, "autoGenerateExpression") != true
    {
      throw MappingModelError.customSourceExpression(at: place)
    }
    let policy = Self.text(record, "migrationPolicyClassName")
    let type: EntityMapping.MappingType =
      if source == nil {
        .add
      } else if destination == nil {
        .remove
      } else if policy != nil {
        .custom
      } else {
        .transform
      }
    var names: Set<String> = []
    let attributes = try propertyMappings(
      record.relationships["attributeMappings"] ?? [], isRelationship: false, names: &names,
      place: place)
    let relationships = try propertyMappings(
      record.relationships["relationshipMappings"] ?? [], isRelationship: true, names: &names,
      place: place)
    return EntityMapping(
      name: name, mappingType: type, sourceEntityName: source, destinationEntityName: destination,
      sourceFilterPredicate: Self.text(record, "sourceFilterPredicateString"),
      attributeMappings: attributes, relationshipMappings: relationships,
      migrationPolicyClassName: policy)
  }

  // MARK: Property mappings

  private func propertyMappings(
    _ ids: [Int64], isRelationship: Bool, names: inout Set<String>, place: MappingPlace
  ) throws(MappingModelError) -> [PropertyMapping] {
    var mappings: [PropertyMapping] = []
    for id in ids {
      guard let record = propertyMappings[id] else { continue }
      var place = place
      place.objectID = Self.objectID(record)
      guard let name = Self.text(record, "name") else {
        throw MappingModelError.unnamedPropertyMapping(
          isRelationship ? "relationship" : "attribute", at: place)
      }
      place.propertyMapping = name
      guard names.insert(name).inserted else {
        throw MappingModelError.duplicatePropertyMapping(name, at: place)
      }
      mappings.append(
        try propertyMapping(record, name: name, isRelationship: isRelationship, place: place))
    }
    return mappings.sorted { $0.name < $1.name }
  }

  private func propertyMapping(
    _ record: StoreRecord, name: String, isRelationship: Bool, place: MappingPlace
  ) throws(MappingModelError) -> PropertyMapping {
    // A stored expression wins over the key path fields it was generated from.
    if let data = Self.data(record, "valueExpressionData") {
      return PropertyMapping(
        name: name, valueExpression: try Self.expression(data, at: place))
    }
    if isRelationship,
      let expression = try relationshipExpression(record, name: name, place: place)
    {
      return PropertyMapping(name: name, valueExpression: expression)
    }
    return PropertyMapping(name: name, valueExpression: nil, usesDefaultExpression: true)
  }

  /// The expression Xcode generates from a relationship mapping's Key Path and Mapping Name
  /// fields: the destination objects that mapping made of the objects at the key path.
  private func relationshipExpression(_ record: StoreRecord, name: String, place: MappingPlace)
    throws(MappingModelError) -> MappingExpression?
  {
    let keyPath = Self.text(record, "sourceKeyPath")
    guard let mappingName = Self.text(record, "sourceMappingName") else {
      if let keyPath { throw MappingModelError.keyPathWithoutMappingName(keyPath, at: place) }
      return nil
    }
    let sourceObjects: MappingExpression
    if let keyPath {
      do {
        // The FUNCTION below holds it one level deep.
        sourceObjects = try MappingExpression(format: keyPath, heldLevelsDeep: 1)
      } catch {
        throw MappingModelError.badSourceKeyPath(keyPath, at: place, underlying: error)
      }
    } else {
      sourceObjects = .keyPath(.variable("source"), name)
    }
    return .function(
      receiver: .variable("manager"),
      selector: "destinationInstancesForEntityMappingNamed:sourceInstances:",
      arguments: [.constant(.string(mappingName)), sourceObjects])
  }

  private static func expression(_ data: Data, at place: MappingPlace)
    throws(MappingModelError) -> MappingExpression
  {
    do {
      return try ExpressionArchive(data).expression()
    } catch {
      switch error {
      case .malformed(let detail, let underlying):
        throw MappingModelError.malformedExpression(detail, at: place, underlying: underlying)
      case .unsupported(let className, let what):
        throw MappingModelError.unsupportedExpression(className, detail: what, at: place)
      }
    }
  }
}
