import FolioModel
import Foundation

/// Infers a model from an XML store, for stores that come without the model that wrote them.
///
/// One pass over the objects collects, per entity, each attribute's type word and each
/// relationship's destination, type (`1/1` or `0/0`) and largest number of targets, plus every
/// link between objects. Then:
/// - Entity names take the spelling of the metadata's `NSStoreModelVersionHashes` keys when one
///   matches case-insensitively (`STRUCTUREATOM` → `StructureAtom`), else the disk name with
///   only its first letter upper-case. Entities the hashes list without objects are kept.
/// - Property names keep the file's spelling. An attribute written with two types of one family
///   takes the wider (`int16` and `int32` → Integer 32; `float` and `double` → Double).
/// - A relationship is to-many when written `0/0` or when an object has several targets.
/// - When a relationship's targets are of an entity other than its destination, that entity
///   inherits from the destination, and properties both declare stay on the destination only.
/// - Two relationships are inverses when the links of one are exactly the links of the other
///   reversed (and there are some); a relationship with no such single partner has none.
/// - Everything is optional; delete rules are Nullify; nothing is ordered.
struct XMLModelInference {
  private struct Relationship {
    var name: String
    var destination: String
    var isToMany = false
  }

  private struct Entity {
    var diskName: String
    var attributes: [(name: String, type: AttributeType)] = []
    var relationships: [Relationship] = []
    var parent: String?
  }

  private struct Link: Hashable {
    let source: Int64
    let target: Int64
  }

  private var entities: [String: Entity] = [:]
  private var order: [String] = []
  /// The entities of the objects with each ID text (several when hierarchies share a number).
  private var objectEntities: [String: [String]] = [:]
  /// Links by (entity disk name, relationship name), as object ID texts.
  private var links: [String: [(String, String)]] = [:]

  static func infer(from url: URL) throws(StoreError) -> ManagedObjectModel {
    let parser = try XMLStoreParser(url: url)
    var inference = XMLModelInference()
    try inference.collect(parser)
    return try inference.model(
      spellings: Array(parser.metadata.modelVersionHashes.keys), path: url.path)
  }

  private mutating func entity(_ diskName: String) -> String {
    let key = diskName.uppercased()
    if entities[key] == nil {
      entities[key] = Entity(diskName: key)
      order.append(key)
    }
    return key
  }

  private mutating func collect(_ parser: XMLStoreParser) throws(StoreError) {
    while let object = try parser.nextObject() {
      let key = entity(object.type)
      objectEntities[object.id, default: []].append(key)
      while let header = try parser.nextProperty() {
        switch header {
        case .attribute(let name, let word, let line):
          // Found only for an error: finding a column reads the file up to the line.
          func location() -> InputLocation {
            parser.location(tag: "attribute", named: name, line: line)
          }
          guard let type = XMLValueCoding.attributeType(forWord: word) else {
            throw StoreError.unknownTypeWord(word, at: location())
          }
          guard type != .composite else { throw StoreError.compositeNotInferable(at: location()) }
          try parser.skipAttribute()
          try addAttribute(name, type, to: key, line: line, parser: parser)
        case .relationship(let name, let type, let destination, let idrefs, let line):
          guard XMLObjectIDs.isRelationshipType(type) else {
            throw StoreError.badRelationshipType(
              type, at: parser.location(tag: "relationship", named: name, line: line))
          }
          let targets = idrefs.split(separator: " ").map(String.init)
          let destinationKey = entity(destination ?? object.type)
          var relationships = entities[key]?.relationships ?? []
          let index: Int
          if let found = relationships.firstIndex(where: {
            $0.name.lowercased() == name.lowercased()
          }) {
            index = found
          } else {
            relationships.append(Relationship(name: name, destination: destinationKey))
            index = relationships.count - 1
          }
          if type == "0/0" || targets.count > 1 { relationships[index].isToMany = true }
          entities[key]?.relationships = relationships
          let linkKey = key + "." + relationships[index].name
          for target in targets { links[linkKey, default: []].append((object.id, target)) }
        }
      }
    }
  }

  private mutating func addAttribute(
    _ name: String, _ type: AttributeType, to key: String, line: Int, parser: XMLStoreParser
  ) throws(StoreError) {
    guard var entity = entities[key] else { return }
    if let index = entity.attributes.firstIndex(where: { $0.name.lowercased() == name.lowercased() }
    ) {
      let old = entity.attributes[index].type
      guard let wider = Self.wider(old, type) else {
        throw StoreError(
          .malformedStore,
          "attribute \"\(name)\" is written both as \(XMLValueCoding.typeWord(for: old)) and "
            + "as \(XMLValueCoding.typeWord(for: type))",
          at: parser.location(tag: "attribute", named: name, line: line))
      }
      entity.attributes[index].type = wider
    } else {
      entity.attributes.append((name, type))
    }
    entities[key] = entity
  }

  private static func wider(_ first: AttributeType, _ second: AttributeType) -> AttributeType? {
    if first == second { return first }
    let integers: [AttributeType] = [.integer16, .integer32, .integer64]
    if let a = integers.firstIndex(of: first), let b = integers.firstIndex(of: second) {
      return integers[max(a, b)]
    }
    let reals: [AttributeType] = [.float, .double, .decimal]
    if reals.contains(first), reals.contains(second) { return .double }
    if [.binaryData, .transformable].contains(first),
      [.binaryData, .transformable].contains(second)
    {
      return .binaryData
    }
    return nil
  }

  private func ancestors(of key: String) -> [String] {
    var result: [String] = []
    var next = entities[key]?.parent
    while let current = next, !result.contains(current), result.count < entities.count {
      result.append(current)
      next = entities[current]?.parent
    }
    return result
  }

  private mutating func inferInheritance() {
    for key in order {
      for relationship in entities[key]?.relationships ?? [] {
        for (_, target) in links[key + "." + relationship.name] ?? [] {
          let candidates = objectEntities[target] ?? []
          guard !candidates.contains(relationship.destination), let actual = candidates.first,
            !ancestors(of: actual).contains(relationship.destination),
            entities[actual]?.parent == nil,
            !ancestors(of: relationship.destination).contains(actual)
          else { continue }
          entities[actual]?.parent = relationship.destination
        }
      }
    }
    for key in order {
      let inherited = ancestors(of: key).flatMap { ancestor in
        (entities[ancestor]?.attributes.map(\.name) ?? [])
          + (entities[ancestor]?.relationships.map(\.name) ?? [])
      }.map { $0.lowercased() }
      entities[key]?.attributes.removeAll { inherited.contains($0.name.lowercased()) }
      entities[key]?.relationships.removeAll { inherited.contains($0.name.lowercased()) }
    }
  }

  /// The entity among `key` and its ancestors that declares the property `name`.
  private func declaringEntity(of name: String, from key: String) -> String {
    for candidate in [key] + ancestors(of: key)
    where entities[candidate]?.relationships.contains(where: { $0.name == name }) == true {
      return candidate
    }
    return key
  }

  private func inverses() -> [String: String] {
    var byDeclaration: [String: Set<Link>] = [:]
    var numbers: [String: Int64] = [:]
    func number(_ text: String) -> Int64 {
      if let value = numbers[text] { return value }
      let value = Int64(numbers.count)
      numbers[text] = value
      return value
    }
    for (key, pairs) in links {
      guard let dot = key.firstIndex(of: ".") else { continue }
      let name = String(key[key.index(after: dot)...])
      let owner = declaringEntity(of: name, from: String(key[..<dot]))
      for (source, target) in pairs {
        byDeclaration[owner + "." + name, default: []].insert(
          Link(source: number(source), target: number(target)))
      }
    }
    var partners: [String: [String]] = [:]
    let keys = byDeclaration.keys.sorted()
    for first in keys {
      guard let forward = byDeclaration[first] else { continue }
      let reversed = Set(forward.map { Link(source: $0.target, target: $0.source) })
      for second in keys where byDeclaration[second] == reversed {
        partners[first, default: []].append(second)
      }
    }
    return partners.compactMapValues { $0.count == 1 ? $0[0] : nil }
  }

  /// Whether `relationship` of `owner` and `name` of `partner` may be inverses in a model:
  /// each is declared on the other's destination or one of its ancestors.
  private func pairs(
    _ owner: String, _ relationship: Relationship, with partner: String, _ name: String
  ) -> Bool {
    guard let other = entities[partner]?.relationships.first(where: { $0.name == name }) else {
      return false
    }
    let ownerFits = other.destination == owner || ancestors(of: other.destination).contains(owner)
    let partnerFits =
      relationship.destination == partner
      || ancestors(of: relationship.destination).contains(partner)
    return ownerFits && partnerFits
  }

  private mutating func model(spellings: [String], path: String) throws(StoreError)
    -> ManagedObjectModel
  {
    for spelling in spellings { _ = entity(spelling) }
    inferInheritance()
    var names: [String: String] = [:]
    for key in order {
      names[key] =
        spellings.first { $0.uppercased() == key } ?? (key.prefix(1) + key.dropFirst().lowercased())
    }
    let inverse = inverses()
    var descriptions: [EntityDescription] = []
    for key in order {
      guard let entity = entities[key], let name = names[key] else { continue }
      var description = EntityDescription(name, parent: entity.parent.flatMap { names[$0] })
      description.attributes = entity.attributes.map { AttributeDescription($0.name, $0.type) }
      description.relationships = entity.relationships.map { relationship in
        let destination = names[relationship.destination] ?? relationship.destination
        var result = RelationshipDescription(
          relationship.name, to: destination, toMany: relationship.isToMany)
        if let partner = inverse[key + "." + relationship.name],
          inverse[partner] == key + "." + relationship.name,
          let dot = partner.firstIndex(of: "."),
          pairs(
            key, relationship, with: String(partner[..<dot]),
            String(partner[partner.index(after: dot)...]))
        {
          result.inverseName = String(partner[partner.index(after: dot)...])
          result.inverseEntityName = names[String(partner[..<dot])]
        }
        return result
      }
      descriptions.append(description)
    }
    do {
      return try ManagedObjectModel(entities: descriptions)
    } catch {
      throw StoreError(
        .malformedStore, "the model inferred from the store is inconsistent (\(error))",
        at: InputLocation(file: path))
    }
  }
}

extension XMLStore {
  /// Infers a model from the XML store at `url`: its entities, attribute types, relationships
  /// with their destinations, to-one or to-many, inheritance where a relationship's targets
  /// show it, and inverses where the links pair up exactly.
  ///
  /// Every property of the inferred model is optional. `Formats/xml-store.md` gives the rules.
  ///
  /// ```swift
  /// let model = try XMLStore.inferModel(from: url)
  /// let contents = try XMLStore().read(from: url, model: model)
  /// ```
  ///
  /// - Throws: `StoreError` as ``read(from:model:)`` for a file that cannot be read;
  ///   `.malformedStore` when an attribute is written with two unrelated types.
  /// - Complexity: O(*n*) in the size of the file, plus O(*l*) memory for its *l* links.
  public static func inferModel(from url: URL) throws(StoreError) -> ManagedObjectModel {
    try XMLModelInference.infer(from: url)
  }
}
