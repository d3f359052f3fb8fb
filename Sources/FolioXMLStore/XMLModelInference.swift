import FolioModel
import FolioStores
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
  struct Relationship {
    var name: String
    var destination: String
    var isToMany = false
  }

  struct Entity {
    var diskName: String
    var attributes: [(name: String, type: AttributeType)] = []
    var relationships: [Relationship] = []
    var parent: String?
  }

  /// A link from one object to another, by their ID numbers (``number(ofID:)``).
  struct Link: Hashable, Comparable {
    let source: Int64
    let target: Int64

    static func < (lhs: Link, rhs: Link) -> Bool {
      (lhs.source, lhs.target) < (rhs.source, rhs.target)
    }

    var reversed: Link { Link(source: target, target: source) }
  }

  /// A relationship of an entity as written, by the numbers of the entity, its name and its
  /// destination's type (-1 for none).
  private struct RelationshipSighting {
    let entity: Int32
    let name: Int32
    let destination: Int32
  }

  /// A relationship seen: its entity's key, its index there, its links' index, and whether it
  /// is known to be to-many.
  private struct RelationshipSeen {
    let key: String
    let index: Int
    let links: Int
    var isToMany: Bool
  }

  var entities: [String: Entity] = [:]
  /// Entity keys, numbered in the order they were first seen.
  var order: [String] = []
  private var orderNumbers: [String: Int] = [:]
  /// Types objects are written with, property names and type words, by number.
  private var types = ByteInterner()
  private var names = ByteInterner()
  private var words = ByteInterner()
  /// The entity number of each type's number.
  private var typeEntities: [Int] = []
  /// The entities of the objects, by their IDs' numbers.
  var objects = ObjectEntityTable()
  /// IDs that are not `z` and a number without leading zeros; their numbers are -1 - theirs.
  var otherIDs = ByteInterner()
  /// Each relationship's links, by "ENTITY.name" in `linkKeys` at the same index.
  var linkKeys: [String] = []
  var links: [[Link]] = []
  // The tables below key an entity and a name by their numbers side by side in 64 bits: a
  // store would need over four billion names for two keys to meet.
  /// Attributes seen, by entity and name, and type word: a repeat changes nothing.
  private var attributesSeen = PairTable()
  /// Relationships seen, by entity and name, and destination + 1: their index in
  /// `relationships`.
  private var relationshipsSeen = PairTable()
  private var relationships: [RelationshipSeen] = []
  /// The entity of the object being read, and its ID's number.
  private var current = -1
  private var source: Int64 = 0

  /// Infers the model of the store at `url`. With `checksFile` false, from a scan of the file's
  /// tags (``XMLTagScan``) when the scan reads the file, which checks only what the tags show;
  /// otherwise, and when the scan gives up, through libxml2, which checks the whole file.
  static func infer(from url: URL, checksFile: Bool = true) throws(StoreError)
    -> ManagedObjectModel
  {
    let parser = try XMLStoreParser(url: url)
    // Sorted: entities the hashes name without objects come in the same order every time.
    let spellings = parser.metadata.modelVersionHashes.keys.sorted()
    var inference: XMLModelInference
    if !checksFile, let scanned = scanInHalves(url) {
      inference = scanned
    } else {
      inference = try collecting(parser)
    }
    return try inference.model(spellings: spellings, path: url.path)
  }

  /// The model ``infer(from:checksFile:)`` infers with `checksFile` false (in one scan: the
  /// caller's other thread is busy), and the same model with no inverses.
  static func inferWithAndWithoutInverses(from url: URL, spellings: [String]) throws(StoreError)
    -> (ManagedObjectModel, ManagedObjectModel)
  {
    var inference: XMLModelInference
    if let scanned = scan(url) {
      inference = scanned
    } else {
      inference = try collecting(try XMLStoreParser(url: url))
    }
    var bare = inference
    return (
      try inference.model(spellings: spellings, path: url.path),
      try bare.model(spellings: spellings, path: url.path, withInverses: false)
    )
  }

  /// What a parse by `parser`, which checks the whole file, collects.
  private static func collecting(_ parser: XMLStoreParser) throws(StoreError)
    -> XMLModelInference
  {
    var inference = XMLModelInference()
    try inference.collect(parser)
    return inference
  }

  /// What a scan of the file's tags shows, or `nil` when the scan gives up or the tags show
  /// something wrong (a parse then says what, and where).
  static func scan(_ url: URL) -> XMLModelInference? {
    scan(url, upTo: nil)?.inference
  }

  /// What a scan of the file's tags up to the byte offset `limit` shows (the whole file without
  /// one), and whether that was the whole file; `nil` as ``scan(_:)``.
  static func scan(_ url: URL, upTo limit: Int?) -> (
    inference: XMLModelInference, isWholeFile: Bool
  )? {
    guard var scan = XMLTagScan(path: url.path) else { return nil }
    defer { scan.close() }
    var inference = XMLModelInference()
    let path = url.path
    do {
      let isWholeFile = try scan.scan(upTo: limit) { inference.take($0, file: path) }
      return (inference, isWholeFile)
    } catch {
      return nil
    }
  }

  /// Takes in a tag of a scan of the file at `file`; false when the scan should give up.
  mutating func take(_ tag: XMLTagScan.Tag, file: String) -> Bool {
    switch tag {
    case .object(let type, let id):
      object(type: type, id: id)
      return true
    case .attribute(let name, let word):
      do {
        try attribute(name: name, word: word, location: { InputLocation(file: file) })
        return true
      } catch {
        return false
      }
    case .relationship(let name, let type, let destination, let idrefs):
      guard XMLObjectIDs.isRelationshipType(type) else { return false }
      return relationship(name: name, type: type, destination: destination, idrefs: idrefs)
    }
  }

  /// The number of the entity `diskName` names (upper-cased, its key), new if it is new.
  mutating func entity(_ diskName: String) -> Int {
    let key = diskName.uppercased()
    if let number = orderNumbers[key] { return number }
    entities[key] = Entity(diskName: key)
    order.append(key)
    orderNumbers[key] = order.count - 1
    return order.count - 1
  }

  /// The number of the entity objects of `type` are of.
  private mutating func entity(ofType type: UnsafeBufferPointer<UInt8>) -> Int {
    let number = types.number(of: type)
    if number == typeEntities.count {
      typeEntities.append(entity(String(decoding: type, as: UTF8.self)))
    }
    return typeEntities[number]
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
    return -1 - Int64(otherIDs.number(of: id))
  }

  /// An object of type `type` with ID `id`, whose properties come next.
  private mutating func object(type: UnsafeBufferPointer<UInt8>, id: UnsafeBufferPointer<UInt8>) {
    current = entity(ofType: type)
    source = number(ofID: id)
    objects.add(source, entity: current)
  }

  /// An attribute `name` written with type word `word` on the current object.
  private mutating func attribute(
    name: UnsafeBufferPointer<UInt8>, word: UnsafeBufferPointer<UInt8>,
    location: () -> InputLocation
  ) throws(StoreError) {
    guard current >= 0 else {
      throw StoreError(.malformedStore, "an attribute outside an object", at: location())
    }
    let nameNumber = names.number(of: name)
    let wordNumber = words.number(of: word)
    let key = UInt64(current) << 32 | UInt64(nameNumber)
    guard attributesSeen.value(key, UInt64(wordNumber)) == nil else { return }
    let name = names.string(nameNumber)
    let word = words.string(wordNumber)
    guard let type = XMLValueCoding.attributeType(forWord: word) else {
      throw StoreError.unknownTypeWord(word, at: location())
    }
    guard type != .composite else { throw StoreError.compositeNotInferable(at: location()) }
    try addAttribute(name, type, word: word, to: order[current], location: location)
    attributesSeen.insert(0, key, UInt64(wordNumber))
  }

  /// A relationship `name` of type `type` of the current object to the objects `idrefs` names
  /// (IDs apart by spaces, tabs or line breaks); false when there is no current object.
  private mutating func relationship(
    name: UnsafeBufferPointer<UInt8>, type: UnsafeBufferPointer<UInt8>,
    destination: UnsafeBufferPointer<UInt8>?, idrefs: UnsafeBufferPointer<UInt8>
  ) -> Bool {
    guard current >= 0 else { return false }
    let sighting = RelationshipSighting(
      entity: Int32(truncatingIfNeeded: current),
      name: Int32(truncatingIfNeeded: names.number(of: name)),
      destination: destination.map { Int32(truncatingIfNeeded: entity(ofType: $0)) } ?? -1)
    let key = UInt64(current) << 32 | UInt64(UInt32(bitPattern: sighting.name))
    let seen =
      relationshipsSeen.value(key, UInt64(Int64(sighting.destination) + 1)).map(Int.init)
      ?? firstSight(sighting)
    var targets = 0
    var start = 0
    for index in 0...idrefs.count {
      guard index == idrefs.count || Self.isSpace(idrefs[index]) else { continue }
      if index > start {
        let target = number(ofID: UnsafeBufferPointer(rebasing: idrefs[start..<index]))
        links[relationships[seen].links].append(Link(source: source, target: target))
        targets += 1
      }
      start = index + 1
    }
    let toMany =
      type.count == 3 && type[0] == UInt8(ascii: "0") && type[1] == UInt8(ascii: "/")
      && type[2] == UInt8(ascii: "0")
    if toMany || targets > 1, !relationships[seen].isToMany {
      relationships[seen].isToMany = true
      let found = relationships[seen]
      entities[found.key]?.relationships[found.index].isToMany = true
    }
    return true
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 32 || byte == 9 || byte == 10 || byte == 13
  }

  /// Adds the relationship `sighting` names to its entity, unless it has one of that name
  /// already; the number of its record in `relationships`.
  private mutating func firstSight(_ sighting: RelationshipSighting) -> Int {
    let key = order[Int(sighting.entity)]
    let name = names.string(Int(sighting.name))
    let destinationKey = sighting.destination < 0 ? key : order[Int(sighting.destination)]
    var list = entities[key]?.relationships ?? []
    let index: Int
    if let found = list.firstIndex(where: { $0.name.lowercased() == name.lowercased() }) {
      index = found
    } else {
      list.append(Relationship(name: name, destination: destinationKey))
      index = list.count - 1
    }
    entities[key]?.relationships = list
    let linkKey = key + "." + list[index].name
    let linksIndex = linkKeys.firstIndex(of: linkKey) ?? linkKeys.count
    if linksIndex == linkKeys.count {
      linkKeys.append(linkKey)
      links.append([])
    }
    relationships.append(
      RelationshipSeen(key: key, index: index, links: linksIndex, isToMany: list[index].isToMany))
    relationshipsSeen.insert(
      Int32(truncatingIfNeeded: relationships.count - 1),
      UInt64(sighting.entity) << 32 | UInt64(UInt32(bitPattern: sighting.name)),
      UInt64(Int64(sighting.destination) + 1))
    return relationships.count - 1
  }

  private mutating func collect(_ parser: XMLStoreParser) throws(StoreError) {
    while let object = try parser.nextObject() {
      var type = object.type
      var id = object.id
      type.withUTF8 { type in id.withUTF8 { id in self.object(type: type, id: id) } }
      while let header = try parser.nextProperty() {
        switch header {
        case .attribute(let label, var word, let line):
          // Found only for an error: finding a column reads the file up to the line.
          func location() -> InputLocation {
            parser.location(tag: "attribute", named: label, line: line)
          }
          var name = label
          let added = name.withUTF8 { name in
            word.withUTF8 { word in
              Result { () throws(StoreError) in
                try attribute(name: name, word: word, location: location)
              }
            }
          }
          try added.get()
          try parser.skipAttribute()
        case .relationship(var name, var type, let destination, var idrefs, let line):
          guard XMLObjectIDs.isRelationshipType(type) else {
            throw StoreError.badRelationshipType(
              type, at: parser.location(tag: "relationship", named: name, line: line))
          }
          var destinationText = destination ?? ""
          name.withUTF8 { name in
            type.withUTF8 { type in
              idrefs.withUTF8 { idrefs in
                destinationText.withUTF8 { destinationText in
                  _ = relationship(
                    name: name, type: type, destination: destination == nil ? nil : destinationText,
                    idrefs: idrefs)
                }
              }
            }
          }
        }
      }
    }
  }

  /// Adds an attribute `name` of `type` (written `word`) to the entity `key`, or widens the
  /// type of the one it has.
  mutating func addAttribute(
    _ name: String, _ type: AttributeType, word: String, to key: String,
    location: () -> InputLocation
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
          guard let actualNumber = objects.first(link.target),
            case let actual = order[actualNumber], actual != relationship.destination,
            orderNumbers[relationship.destination].map({
              objects.hasMore(link.target, of: $0)
            }) != true,
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

  /// The model the objects seen show, its entity names spelled as in `spellings` (the
  /// metadata's version hash keys); with `withInverses` false, no relationship has an inverse.
  mutating func model(spellings: [String], path: String, withInverses: Bool = true)
    throws(StoreError) -> ManagedObjectModel
  {
    for spelling in spellings { _ = entity(spelling) }
    inferInheritance()
    var names: [String: String] = [:]
    for key in order {
      names[key] =
        spellings.first { $0.uppercased() == key } ?? (key.prefix(1) + key.dropFirst().lowercased())
    }
    let inverse = withInverses ? inverses() : [:]
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
