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

  /// A link from one object to another, by their ID numbers (``number(ofID:)``).
  private struct Link: Hashable, Comparable {
    let source: Int64
    let target: Int64

    static func < (lhs: Link, rhs: Link) -> Bool {
      (lhs.source, lhs.target) < (rhs.source, rhs.target)
    }

    var reversed: Link { Link(source: target, target: source) }
  }

  /// An attribute of an entity as written, with its type word: once seen, a repeat changes
  /// nothing.
  private struct AttributeSighting: Hashable {
    let entity: String
    let name: String
    let word: String
  }

  /// A relationship of an entity as written, with its destination.
  private struct RelationshipSighting: Hashable {
    let entity: String
    let name: String
    let destination: String?
  }

  private var entities: [String: Entity] = [:]
  private var order: [String] = []
  /// Entity keys by the type objects are written with.
  private var typeKeys: [String: String] = [:]
  /// The entity of the objects with each ID (by ``number(ofID:)``), and the further entities
  /// of an ID several hierarchies share.
  private var objectEntities: [Int64: String] = [:]
  private var moreObjectEntities: [Int64: [String]] = [:]
  /// IDs that are not `z` and a number without leading zeros, numbered from -1 down.
  private var otherIDs: [String: Int64] = [:]
  /// Each relationship's links, by "ENTITY.name" in `linkKeys` at the same index.
  private var linkKeys: [String] = []
  private var links: [[Link]] = []
  private var attributesSeen: Set<AttributeSighting> = []
  /// Each relationship seen: the entity's key, its index there, and its links' index.
  private var relationshipsSeen: [RelationshipSighting: (key: String, index: Int, links: Int)] =
    [:]

  /// Infers the model of the store at `url`. With `checksFile` false, from a scan of the file's
  /// tags (``XMLTagScan``) when the scan reads the file, which checks only what the tags show;
  /// otherwise, and when the scan gives up, through libxml2, which checks the whole file.
  static func infer(from url: URL, checksFile: Bool = true) throws(StoreError)
    -> ManagedObjectModel
  {
    let parser = try XMLStoreParser(url: url)
    // Sorted: entities the hashes name without objects come in the same order every time.
    let spellings = parser.metadata.modelVersionHashes.keys.sorted()
    if !checksFile, var scanned = scan(url) {
      return try scanned.model(spellings: spellings, path: url.path)
    }
    var inference = XMLModelInference()
    try inference.collect(parser)
    return try inference.model(spellings: spellings, path: url.path)
  }

  /// What a scan of the file's tags shows, or `nil` when the scan gives up or the tags show
  /// something wrong (a parse then says what, and where).
  static func scan(_ url: URL) -> XMLModelInference? {
    guard var scan = XMLTagScan(path: url.path) else { return nil }
    defer { scan.close() }
    var inference = XMLModelInference()
    var key = ""
    var source: Int64 = 0
    do {
      while let tag = try scan.next() {
        switch tag {
        case .object(let type, let id):
          (key, source) = inference.object(type: type, id: id)
        case .attribute(let name, let word):
          guard !key.isEmpty else { return nil }
          func location() -> InputLocation { InputLocation(file: url.path) }
          if let type = try inference.attributeType(name, word: word, of: key, location: location) {
            try inference.addAttribute(name, type, word: word, to: key, location: location)
          }
        case .relationship(let name, let type, let destination, let idrefs):
          guard !key.isEmpty, XMLObjectIDs.isRelationshipType(type) else { return nil }
          var targets: [Int64] = []
          for text in idrefs.split(separator: 32) {
            targets.append(text.withUnsafeBufferPointer { inference.number(ofID: $0) })
          }
          inference.relationship(
            name, type: type, destination: destination, of: key, from: source, to: targets)
        }
      }
    } catch {
      return nil
    }
    return inference
  }

  private mutating func entity(_ diskName: String) -> String {
    if let key = typeKeys[diskName] { return key }
    let key = diskName.uppercased()
    if entities[key] == nil {
      entities[key] = Entity(diskName: key)
      order.append(key)
    }
    typeKeys[diskName] = key
    return key
  }

  /// The number an object ID is known by: a Core Data ID's own (`z102` is 102), another text
  /// one of its own below zero. Two IDs have the same number exactly when their texts match.
  private mutating func number(ofID id: UnsafeBufferPointer<UInt8>) -> Int64 {
    if id.count >= 2, id.count <= 19, id[0] == UInt8(ascii: "z"),
      id.count == 2 || id[1] != UInt8(ascii: "0")
    {
      var value: Int64 = 0
      var digits = true
      for byte in id[1...] {
        guard byte &- 48 < 10 else {
          digits = false
          break
        }
        value = value * 10 + Int64(byte &- 48)
      }
      if digits { return value }
    }
    let text = String(decoding: id, as: UTF8.self)
    if let number = otherIDs[text] { return number }
    let number = -Int64(otherIDs.count) - 1
    otherIDs[text] = number
    return number
  }

  private mutating func number(ofID id: String) -> Int64 {
    var id = id
    return id.withUTF8 { number(ofID: $0) }
  }

  /// An object of type `type` with ID `id`: its entity's key and its ID's number.
  private mutating func object(type: String, id: String) -> (String, Int64) {
    let key = entity(type)
    let number = number(ofID: id)
    if objectEntities[number] == nil {
      objectEntities[number] = key
    } else {
      moreObjectEntities[number, default: []].append(key)
    }
    return (key, number)
  }

  /// The entities of the objects with ID number `number`, in the order they were read.
  private func entities(ofObject number: Int64) -> [String] {
    guard let first = objectEntities[number] else { return [] }
    return [first] + (moreObjectEntities[number] ?? [])
  }

  /// The type of an attribute `name` written with type word `word` on an object of `key`;
  /// `nil` when such an attribute was seen before and adds nothing.
  private func attributeType(
    _ name: String, word: String, of key: String, location: () -> InputLocation
  ) throws(StoreError) -> AttributeType? {
    if attributesSeen.contains(AttributeSighting(entity: key, name: name, word: word)) {
      return nil
    }
    guard let type = XMLValueCoding.attributeType(forWord: word) else {
      throw StoreError.unknownTypeWord(word, at: location())
    }
    guard type != .composite else { throw StoreError.compositeNotInferable(at: location()) }
    return type
  }

  /// A relationship `name` of an object of `key` (ID number `source`) to `targets`.
  private mutating func relationship(
    _ name: String, type: String, destination: String?, of key: String, from source: Int64,
    to targets: [Int64]
  ) {
    let sighting = RelationshipSighting(entity: key, name: name, destination: destination)
    let seen: (key: String, index: Int, links: Int)
    if let found = relationshipsSeen[sighting] {
      seen = found
    } else {
      let destinationKey = entity(destination ?? key)
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
      entities[key]?.relationships = relationships
      let linkKey = key + "." + relationships[index].name
      let list = linkKeys.firstIndex(of: linkKey) ?? linkKeys.count
      if list == linkKeys.count {
        linkKeys.append(linkKey)
        links.append([])
      }
      seen = (key, index, list)
      relationshipsSeen[sighting] = seen
    }
    if type == "0/0" || targets.count > 1,
      entities[seen.key]?.relationships[seen.index].isToMany == false
    {
      entities[seen.key]?.relationships[seen.index].isToMany = true
    }
    for target in targets { links[seen.links].append(Link(source: source, target: target)) }
  }

  private mutating func collect(_ parser: XMLStoreParser) throws(StoreError) {
    while let object = try parser.nextObject() {
      let (key, source) = self.object(type: object.type, id: object.id)
      while let header = try parser.nextProperty() {
        switch header {
        case .attribute(let name, let word, let line):
          // Found only for an error: finding a column reads the file up to the line.
          func location() -> InputLocation {
            parser.location(tag: "attribute", named: name, line: line)
          }
          let type = try attributeType(name, word: word, of: key, location: location)
          try parser.skipAttribute()
          if let type { try addAttribute(name, type, word: word, to: key, location: location) }
        case .relationship(let name, let type, let destination, let idrefs, let line):
          guard XMLObjectIDs.isRelationshipType(type) else {
            throw StoreError.badRelationshipType(
              type, at: parser.location(tag: "relationship", named: name, line: line))
          }
          let targets = idrefs.split(separator: " ").map { number(ofID: String($0)) }
          relationship(
            name, type: type, destination: destination, of: key, from: source, to: targets)
        }
      }
    }
  }

  /// Adds an attribute `name` of `type` (written `word`) to the entity `key`, or widens the
  /// type of the one it has.
  private mutating func addAttribute(
    _ name: String, _ type: AttributeType, word: String, to key: String,
    location: () -> InputLocation
  ) throws(StoreError) {
    defer { attributesSeen.insert(AttributeSighting(entity: key, name: name, word: word)) }
    guard var entity = entities[key] else { return }
    if let index = entity.attributes.firstIndex(where: { $0.name.lowercased() == name.lowercased() }
    ) {
      let old = entity.attributes[index].type
      guard let wider = Self.wider(old, type) else {
        throw StoreError(
          .malformedStore,
          "attribute \"\(name)\" is written both as \(XMLValueCoding.typeWord(for: old)) and "
            + "as \(XMLValueCoding.typeWord(for: type))",
          at: location())
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
        guard let list = linkKeys.firstIndex(of: key + "." + relationship.name) else { continue }
        for link in links[list] {
          // The entities of the target, in the order they were read: almost always one.
          guard let actual = objectEntities[link.target], actual != relationship.destination,
            moreObjectEntities[link.target]?.contains(relationship.destination) != true,
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

  /// Each relationship's inverse, by "ENTITY.name": the one relationship whose links are
  /// exactly its links reversed (as sets, and not empty).
  private func inverses() -> [String: String] {
    var byDeclaration: [String: [Link]] = [:]
    for (index, key) in linkKeys.enumerated() where !links[index].isEmpty {
      guard let dot = key.firstIndex(of: ".") else { continue }
      let name = String(key[key.index(after: dot)...])
      let owner = declaringEntity(of: name, from: String(key[..<dot]))
      byDeclaration[owner + "." + name, default: []] += links[index]
    }
    func sortedSet(_ links: [Link]) -> [Link] {
      var sorted = links.sorted()
      var kept = 0
      for index in sorted.indices where index == 0 || sorted[index] != sorted[kept - 1] {
        sorted[kept] = sorted[index]
        kept += 1
      }
      sorted.removeLast(sorted.count - kept)
      return sorted
    }
    let forward = byDeclaration.mapValues(sortedSet)
    var partners: [String: [String]] = [:]
    let keys = forward.keys.sorted()
    for first in keys {
      guard let links = forward[first] else { continue }
      let reversed = sortedSet(links.map(\.reversed))
      for second in keys where forward[second] == reversed {
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

  /// Infers a model from the XML store at `url` as ``inferModel(from:)`` does, for a caller that
  /// reads the store with it next: from a scan of the file's tags, many times faster than a
  /// parse, when the scan can read the file (UTF-8, the markup Core Data writes), else as
  /// ``inferModel(from:)``. The scan checks only what the tags show, so a file that is not well
  /// formed may give a model; reading the store with it then fails, naming the place.
  ///
  /// - Throws: what ``inferModel(from:)`` throws.
  /// - Complexity: O(*n*) in the size of the file, plus O(*l* log *l*) for its *l* links.
  public static func inferModelForReading(from url: URL) throws(StoreError)
    -> ManagedObjectModel
  {
    try XMLModelInference.infer(from: url, checksFile: false)
  }
}
