import FolioModel
import FolioStores
import Foundation

/// How a model's names appear in an XML store, and what a store's names mean in the model.
///
/// Core Data writes entity names upper-cased (`type="SPENDING"`) and property names
/// lower-cased (`name="amount"`), so a store is read case-insensitively and each name mapped
/// back to the model's spelling. Two entities, or two properties of one entity, whose names
/// differ only by case would be written alike, so such a model cannot use this format.
struct XMLNameMap {
  // Attributes, relationships and entities are classes: the reader takes one per value it
  // reads, and a reference costs one retain where a struct of arrays and strings costs one
  // per field.

  /// One attribute as the store writes it.
  final class Attribute {
    let name: String
    let diskName: String
    let type: AttributeType
    let typeWord: String
    /// `typeWord` as UTF-8 bytes, compared with a store's bytes as they are.
    let typeWordBytes: [UInt8]
    /// For a composite: its members.
    let members: [Attribute]
    let membersByDiskName: [String: Int]

    init(
      name: String, diskName: String, type: AttributeType, typeWord: String,
      members: [Attribute], membersByDiskName: [String: Int]
    ) {
      self.name = name
      self.diskName = diskName
      self.type = type
      self.typeWord = typeWord
      self.typeWordBytes = Array(typeWord.utf8)
      self.members = members
      self.membersByDiskName = membersByDiskName
    }
  }

  /// One relationship as the store writes it.
  final class Relationship {
    let name: String
    let diskName: String
    let isToMany: Bool
    let destination: String
    let destinationDiskName: String
    /// The index of the destination's root entity: where idrefs are looked up.
    var destinationRoot: Int32 = 0
    /// The index of the destination entity, or -1.
    var destinationIndex = -1

    init(
      name: String, diskName: String, isToMany: Bool, destination: String,
      destinationDiskName: String
    ) {
      self.name = name
      self.diskName = diskName
      self.isToMany = isToMany
      self.destination = destination
      self.destinationDiskName = destinationDiskName
    }
  }

  /// A property found by its name in the store.
  enum Property {
    case attribute(Int)
    case relationship(Int)
  }

  /// One entity as the store writes it: its persistent properties in model order.
  final class Entity {
    let name: String
    let diskName: String
    let isAbstract: Bool
    let attributes: [Attribute]
    let relationships: [Relationship]
    let propertiesByDiskName: [String: Property]
    /// The entity and its descendants' names, for checking relationship targets.
    var kinds: Set<String> = []
    /// The index of the entity's root ancestor: objects are numbered per hierarchy.
    var root: Int32 = 0
    /// Whether the entity at each index is this entity or a descendant.
    var isKind: [Bool] = []
    /// Each property's name on disk, as bytes, in the order a store writes them.
    var propertiesByBytes: [(name: [UInt8], property: Property)] = []

    init(
      name: String, diskName: String, isAbstract: Bool, attributes: [Attribute],
      relationships: [Relationship], propertiesByDiskName: [String: Property]
    ) {
      self.name = name
      self.diskName = diskName
      self.isAbstract = isAbstract
      self.attributes = attributes
      self.relationships = relationships
      self.propertiesByDiskName = propertiesByDiskName
    }

    /// The property whose disk name is exactly `bytes`, trying the one after `hint` first.
    func property(bytes: UnsafeBufferPointer<UInt8>, after hint: inout Int) -> Property? {
      let count = propertiesByBytes.count
      guard count > 0 else { return nil }
      var position = hint < count ? hint : 0
      for _ in 0..<count {
        let candidate = propertiesByBytes[position]
        if XMLNameMap.bytes(candidate.name, equal: bytes) {
          hint = position + 1
          return candidate.property
        }
        position = position + 1 == count ? 0 : position + 1
      }
      return nil
    }
  }

  /// Whether `known` and `bytes` hold the same bytes.
  @inline(__always)
  static func bytes(_ known: [UInt8], equal bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    known.count == bytes.count
      && known.withUnsafeBufferPointer { known in
        guard let left = known.baseAddress, let right = bytes.baseAddress else { return true }
        return memcmp(left, right, known.count) == 0
      }
  }

  let entities: [Entity]
  let indexByDiskName: [String: Int]
  let indexByName: [String: Int]

  /// Maps `model`'s names.
  ///
  /// - Throws: `.modelMismatch` when two entities or two properties differ only by case.
  init(model: ManagedObjectModel) throws(StoreError) {
    var entities: [Entity] = []
    var byDiskName: [String: Int] = [:]
    var byName: [String: Int] = [:]
    var composites: CompositeMembers = [:]
    for entity in model.entities {
      let diskName = entity.name.uppercased()
      if let other = byDiskName[diskName] {
        throw StoreError.caseCollision(
          "entities", entities[other].name, entity.name, at: InputLocation(entity: entity.name))
      }
      var properties: [String: Property] = [:]
      var names: [String: String] = [:]
      func claim(_ name: String) throws(StoreError) -> String {
        let lowered = name.lowercased()
        if let other = names[lowered] {
          throw StoreError.caseCollision(
            "properties", other, name, at: InputLocation(entity: entity.name, property: name))
        }
        names[lowered] = name
        return lowered
      }
      var attributes: [Attribute] = []
      for attribute in entity.allAttributes where !attribute.isTransient {
        let lowered = try claim(attribute.name)
        properties[lowered] = .attribute(attributes.count)
        attributes.append(
          try Self.attribute(attribute, model: model, composites: &composites))
      }
      var relationships: [Relationship] = []
      for relationship in entity.allRelationships where !relationship.isTransient {
        let lowered = try claim(relationship.name)
        properties[lowered] = .relationship(relationships.count)
        relationships.append(
          Relationship(
            name: relationship.name, diskName: lowered, isToMany: relationship.isToMany,
            destination: relationship.destinationEntityName,
            destinationDiskName: relationship.destinationEntityName.uppercased()))
      }
      byDiskName[diskName] = entities.count
      byName[entity.name] = entities.count
      entities.append(
        Entity(
          name: entity.name, diskName: diskName, isAbstract: entity.isAbstract,
          attributes: attributes, relationships: relationships, propertiesByDiskName: properties))
    }
    for index in entities.indices {
      var kinds: Set<String> = []
      for entity in model.entities
      where model.entity(entity, isKindOf: model.entities[index]) {
        kinds.insert(entity.name)
      }
      entities[index].kinds = kinds
      entities[index].isKind = model.entities.map { kinds.contains($0.name) }
      entities[index].propertiesByBytes =
        entities[index].attributes.indices.map {
          (Array(entities[index].attributes[$0].diskName.utf8), Property.attribute($0))
        }
        + entities[index].relationships.indices.map {
          (Array(entities[index].relationships[$0].diskName.utf8), Property.relationship($0))
        }
      let ancestors = model.ancestorNames(of: model.entities[index])
      entities[index].root = Int32(ancestors.last.flatMap { byName[$0] } ?? index)
    }
    for index in entities.indices {
      for position in entities[index].relationships.indices {
        let destination = entities[index].relationships[position].destination
        entities[index].relationships[position].destinationRoot =
          byName[destination].map { entities[$0].root } ?? -1
        entities[index].relationships[position].destinationIndex = byName[destination] ?? -1
      }
    }
    self.entities = entities
    self.indexByDiskName = byDiskName
    self.indexByName = byName
  }

  /// A composite's members as the store writes them, built once per composite and shared by
  /// every attribute of its type, by composite name. (Built per path, composites whose members
  /// share a composite would take time and memory exponential in their depth.)
  private typealias CompositeMembers = [String: (members: [Attribute], byDiskName: [String: Int])]

  private static func attribute(
    _ attribute: AttributeDescription, model: ManagedObjectModel,
    composites: inout CompositeMembers
  ) throws(StoreError) -> Attribute {
    var members: [Attribute] = []
    var byDiskName: [String: Int] = [:]
    if attribute.attributeType == .composite, let name = attribute.compositeName {
      if let known = composites[name] {
        (members, byDiskName) = known
      } else if let composite = model.composite(named: name) {
        // A model's composites never contain each other (the model reader refuses a cycle);
        // the empty entry ends the recursion should one do so anyway.
        composites[name] = ([], [:])
        for member in composite.attributes {
          let lowered = member.name.lowercased()
          if let other = byDiskName[lowered] {
            throw StoreError.caseCollision(
              "properties", members[other].name, member.name,
              at: InputLocation(entity: composite.name, property: member.name))
          }
          byDiskName[lowered] = members.count
          members.append(
            try Self.attribute(member, model: model, composites: &composites))
        }
        composites[name] = (members, byDiskName)
      }
    }
    return Attribute(
      name: attribute.name, diskName: attribute.name.lowercased(), type: attribute.attributeType,
      typeWord: XMLValueCoding.typeWord(for: attribute.attributeType), members: members,
      membersByDiskName: byDiskName)
  }

  /// The entity a store's `type="…"` names, in any case.
  func entityIndex(forDiskName name: String) -> Int? {
    indexByDiskName[name] ?? indexByDiskName[name.uppercased()]
  }

  /// The property a store's `name="…"` names on `entity`, in any case.
  func property(_ name: String, of entity: Entity) -> Property? {
    entity.propertiesByDiskName[name] ?? entity.propertiesByDiskName[name.lowercased()]
  }
}
