import FolioModel
import FolioStores
import Foundation

/// Turns the NSManagedObjectModel of a keyed archive into a ``ManagedObjectModel``.
///
/// The archived model keeps its entities in `NSEntities` (an NSKnownKeysDictionary1 whose
/// `values` are the entities, or an NSDictionary). Each NSEntityDescription names its
/// superentity and lists in `NSProperties` every property it has, inherited ones included:
/// as full copies in newer caches, as `_NSPropertyDescriptionProxy` objects in old ones. A
/// property belongs to the entity that declares it, so one whose name the superentity also
/// lists is left to the superentity, as FolioModel's entities hold only what they declare.
///
/// Properties of classes Folio does not model (NSDerivedAttributeDescription,
/// NSCompositeAttributeDescription, NSFetchedPropertyDescription) are skipped, and so is a
/// uniqueness constraint or index that names one of them. FolioModel then resolves the model
/// as it does one read from Xcode's files, and its first complaint becomes the error.
struct ModelCacheReader {
  let archive: ModelCacheArchive
  let file: String?

  /// An archived entity, as the first pass reads it.
  private struct ArchivedEntity {
    var name: String
    var instance: ModelCacheArchive.Instance
    var parentName: String?
    /// `NSProperties`: each property's name and its unresolved value.
    var properties: [(name: String, value: PropertyListNode)]
  }

  /// The model the archive holds.
  ///
  /// - Throws: `StoreError.malformedStore` naming what is missing or of the wrong kind, or the
  ///   first inconsistency FolioModel finds in the model.
  func readModel() throws(StoreError) -> ManagedObjectModel {
    guard let root = try archive.instance(archive.rootReference) else {
      throw SQLiteModelCache.malformed("has \"$null\" as its root object", file: file)
    }
    guard root.className == "NSManagedObjectModel" else {
      throw SQLiteModelCache.malformed(
        "has a root object of class \"\(root.className)\", not NSManagedObjectModel", file: file)
    }
    let archived = try entities(of: root)
    var propertyNames: [String: Set<String>] = [:]
    for entity in archived {
      propertyNames[entity.name, default: []].formUnion(entity.properties.map(\.name))
    }
    var entities: [EntityDescription] = []
    for entity in archived {
      let inherited = entity.parentName.flatMap { propertyNames[$0] } ?? []
      entities.append(try build(entity, inherited: inherited))
    }
    Self.dropReferencesToSkippedProperties(in: &entities)
    let identifiers = try archive.elements(
      root["NSVersionIdentifiers"], for: "version identifiers"
    ).map { element throws(StoreError) in
      try archive.string(element, for: "a version identifier") ?? ""
    }
    do {
      return try ManagedObjectModel(
        entities: entities,
        versionIdentifier: identifiers.sorted().first { !$0.isEmpty })
    } catch {
      let description = (error as? ModelError)?.description ?? "\(error)"
      throw StoreError(
        .malformedStore, "the model cache describes a model Folio cannot build: \(description)",
        at: InputLocation(file: file), underlying: error as? ModelError)
    }
  }

  // MARK: Entities

  private func entities(of model: ModelCacheArchive.Instance) throws(StoreError) -> [ArchivedEntity]
  {
    guard let container = try archive.instance(model["NSEntities"]) else { return [] }
    // NSKnownKeysDictionary1 keeps its values in `values`, NSDictionary in `NS.objects`.
    let values =
      container["values"] != nil
      ? try archive.elements(container["values"], for: "the entities")
      : try archive.elements(model["NSEntities"], for: "the entities")
    var entities: [ArchivedEntity] = []
    for value in values {
      // NSKnownKeysDictionary1 fills an empty slot with its `emptyToken` string.
      guard case .dictionary? = try archive.resolve(value),
        let instance = try archive.instance(value), instance.className == "NSEntityDescription"
      else { continue }
      guard let name = try archive.string(instance["NSEntityName"], for: "an entity name") else {
        throw SQLiteModelCache.malformed("has an entity with no name", file: file)
      }
      try checkName(name, of: "an entity")
      let parent = try archive.instance(
        instance["NSSuperentity"], of: "NSEntityDescription", for: "the superentity of \"\(name)\"")
      let parentName = try parent.flatMap { parent throws(StoreError) in
        try archive.string(parent["NSEntityName"], for: "an entity name")
      }
      var properties: [(name: String, value: PropertyListNode)] = []
      for entry in try archive.entries(
        instance["NSProperties"], for: "the properties of \"\(name)\"")
      {
        guard let key = try archive.string(entry.key, for: "a property name of \"\(name)\"") else {
          continue
        }
        properties.append((key, entry.value))
      }
      entities.append(
        ArchivedEntity(
          name: name, instance: instance, parentName: parentName, properties: properties))
    }
    return entities
  }

  private func build(_ archived: ArchivedEntity, inherited: Set<String>) throws(StoreError)
    -> EntityDescription
  {
    let instance = archived.instance
    let name = archived.name
    var entity = EntityDescription(
      name, parent: archived.parentName,
      isAbstract: try archive.flag(instance["NSIsAbstract"], for: "NSIsAbstract of \"\(name)\""))
    entity.representedClassName = try archive.string(
      instance["NSClassNameForEntity"], for: "the class name of \"\(name)\"")
    entity.renamingIdentifier = try renamingIdentifier(of: instance, name: name)
    entity.versionHashModifier = try archive.string(
      instance["NSVersionHashModifier"], for: "the version hash modifier of \"\(name)\"")
    entity.userInfo = try userInfo(instance["NSUserInfo"], of: name)
    for (propertyName, value) in archived.properties where !inherited.contains(propertyName) {
      guard let property = try archive.instance(value) else { continue }
      switch property.className {
      case "NSAttributeDescription":
        if let attribute = try attribute(property, named: propertyName, in: name) {
          entity.attributes.append(attribute)
        }
      case "NSRelationshipDescription":
        entity.relationships.append(try relationship(property, named: propertyName, in: name))
      default:
        continue
      }
    }
    entity.attributes.sort { $0.name < $1.name }
    entity.relationships.sort { $0.name < $1.name }
    entity.uniquenessConstraints = try nameLists(
      instance["NSUniqueTuples"], for: "the uniqueness constraints of \"\(name)\"")
    entity.compoundIndexes = try nameLists(
      instance["NSCompoundIndexes"], for: "the compound indexes of \"\(name)\"")
    entity.fetchIndexes = try fetchIndexes(instance["NSFetchIndexDescriptions"], of: name)
    return entity
  }

  /// Lists of property names: uniqueness constraints and compound indexes, whose members are
  /// names or property descriptions.
  private func nameLists(_ value: PropertyListNode?, for what: String) throws(StoreError)
    -> [[String]]
  {
    var lists: [[String]] = []
    for list in try archive.elements(value, for: what) {
      var names: [String] = []
      for member in try archive.elements(list, for: what) {
        if let name = try propertyName(member, for: what) { names.append(name) }
      }
      if !names.isEmpty { lists.append(names) }
    }
    return lists
  }

  private func fetchIndexes(_ value: PropertyListNode?, of entity: String) throws(StoreError)
    -> [FetchIndexDescription]
  {
    let what = "a fetch index of \"\(entity)\""
    var indexes: [FetchIndexDescription] = []
    for element in try archive.elements(value, for: what) {
      guard
        let index = try archive.instance(element, of: "NSFetchIndexDescription", for: what),
        let name = try archive.string(index["NSIndexName"], for: "the name of \(what)")
      else { continue }
      var elements: [FetchIndexDescription.Element] = []
      for part in try archive.elements(index["NSIndexElements"], for: what) {
        guard
          let part = try archive.instance(part, of: "NSFetchIndexElementDescription", for: what)
        else { continue }
        // An element on an expression rather than a property is not something Folio reads.
        guard let property = try propertyName(part["NSPropertyName"], for: what) else {
          elements = []
          break
        }
        let kind =
          switch try archive.integer(part["NSFetchIndexElementType"], for: what) ?? 0 {
          case 0: "Binary"
          case 1: "R-Tree"
          case let other: "\(other)"
          }
        elements.append(
          .init(
            property: property, kind: kind,
            ascending: try archive.flag(part["NSAscending"], for: what)))
      }
      if !elements.isEmpty { indexes.append(FetchIndexDescription(name, elements: elements)) }
    }
    return indexes
  }

  // MARK: Shared parts

  /// Refuses `name` unless Xcode could have given it: letters, digits and underscores, not
  /// starting with a digit (a NUL in a name would end the SQL naming its column).
  func checkName(_ name: String, of what: String) throws(StoreError) {
    guard DerivationExpression.isName(name[...]) else {
      throw SQLiteModelCache.malformed(
        "names \(what) \"\(name.prefix(80).debugDescription.dropFirst().dropLast())\", "
          + "which is not a name", file: file)
    }
  }

  /// The name `value` gives a property: a string, a property description's `NSPropertyName`,
  /// or a proxy's underlying property's; `nil` for anything else (an expression).
  func propertyName(_ value: PropertyListNode?, for what: String) throws(StoreError) -> String? {
    guard let node = try archive.resolve(value) else { return nil }
    if case .string(let name) = node { return name }
    guard let instance = try archive.instance(value) else { return nil }
    switch instance.className {
    case "NSString", "NSMutableString":
      return try archive.string(value, for: what)
    case "_NSPropertyDescriptionProxy":
      guard let underlying = try archive.instance(instance["NSUnderlyingProperty"]),
        underlying.className != "_NSPropertyDescriptionProxy"
      else { return nil }
      return try archive.string(underlying["NSPropertyName"], for: "a property name in \(what)")
    default:
      guard instance["NSPropertyName"] != nil else { return nil }
      return try archive.string(instance["NSPropertyName"], for: "a property name in \(what)")
    }
  }

  /// `NSRenamingIdentifier`, which Core Data sets to the name itself when the model gives
  /// none: `nil` then, as for a model read from Xcode's files.
  func renamingIdentifier(of instance: ModelCacheArchive.Instance, name: String) throws(StoreError)
    -> String?
  {
    let identifier = try archive.string(
      instance["NSRenamingIdentifier"], for: "the renaming identifier of \"\(name)\"")
    return identifier == name ? nil : identifier
  }

  /// `NSUserInfo`: its entries whose keys and values are strings.
  func userInfo(_ value: PropertyListNode?, of owner: String) throws(StoreError)
    -> [String: String]
  {
    var info: [String: String] = [:]
    for entry in try archive.entries(value, for: "the user info of \"\(owner)\"") {
      guard case .string(let key)? = try archive.resolve(entry.key),
        case .string(let text)? = try archive.resolve(entry.value)
      else { continue }
      info[key] = text
    }
    return info
  }

  /// Drops each uniqueness constraint and index that names a property no entity along the
  /// inheritance chain declares (one of a class Folio skips), so the rest of the model loads.
  private static func dropReferencesToSkippedProperties(in entities: inout [EntityDescription]) {
    var byName: [String: Int] = [:]
    for (index, entity) in entities.enumerated() where byName[entity.name] == nil {
      byName[entity.name] = index
    }
    for index in entities.indices {
      var known: Set<String> = []
      var visited: Set<String> = []
      var next: String? = entities[index].name
      while let name = next, visited.insert(name).inserted, let position = byName[name] {
        known.formUnion(entities[position].attributes.map(\.name))
        known.formUnion(entities[position].relationships.map(\.name))
        next = entities[position].parentEntityName
      }
      func isKnown(_ name: String) -> Bool {
        known.contains(name.split(separator: ".", maxSplits: 1).first.map(String.init) ?? name)
      }
      entities[index].uniquenessConstraints.removeAll { !$0.allSatisfy(isKnown) }
      entities[index].compoundIndexes.removeAll { !$0.allSatisfy(isKnown) }
      entities[index].fetchIndexes.removeAll {
        !$0.elements.allSatisfy { $0.propertyName.map(isKnown) ?? true }
      }
    }
  }
}
