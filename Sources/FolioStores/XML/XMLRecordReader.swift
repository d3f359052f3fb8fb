import FolioModel
import Foundation

/// Reads a store's objects as records typed by a model.
///
/// Each `<object>`'s entity and each property are found case-insensitively (``XMLNameMap``),
/// each value is parsed by the model's attribute type (a value written as another type of the
/// same family, such as `int32` for an Integer 64 attribute, is accepted), and each
/// relationship's idrefs become IDs. When every object is read, each target is checked: it
/// exists, and its entity is the relationship's destination or inherits from it. Any mismatch is
/// an error naming the file, line, column and `Entity.key`; nothing is coerced.
///
/// IDs are Core Data's `z` and a number. A store that uses other IDs (some third-party writers
/// do) is read too: each other ID gets the next number above both the largest `z` ID and the
/// store's `nextObjectID`, in the order the IDs first appear.
struct XMLRecordReader {
  let parser: XMLStoreParser
  let names: XMLNameMap
  let modelEntityNames: [String]
  private var ids = XMLObjectIDs()
  private var records: [StoreRecord] = []
  private var entityCache: [String: Int] = [:]
  /// Whether a target that is not in the store is left out instead of refused.
  let dropsDanglingReferences: Bool

  init(parser: XMLStoreParser, model: ManagedObjectModel, dropsDanglingReferences: Bool = false)
    throws(StoreError)
  {
    self.parser = parser
    self.dropsDanglingReferences = dropsDanglingReferences
    self.names = try XMLNameMap(model: model)
    self.modelEntityNames = model.entities.map(\.name)
  }

  /// Reads every object, then checks the relationships' targets.
  mutating func read() throws(StoreError) -> [StoreRecord] {
    while let object = try parser.nextObject() {
      try readObject(object)
    }
    ids.renumber(&records, after: parser.nextObjectID ?? 0)
    try resolveTargets()
    return records
  }

  private mutating func readObject(_ object: (type: String, id: String, line: Int))
    throws(StoreError)
  {
    let entityIndex: Int
    if let cached = entityCache[object.type] {
      entityIndex = cached
    } else {
      guard let found = names.entityIndex(forDiskName: object.type) else {
        throw StoreError.unknownEntity(
          object.type, known: modelEntityNames,
          at: parser.location(tag: "object", named: nil, line: object.line))
      }
      guard !names.entities[found].isAbstract else {
        throw StoreError.abstractEntity(
          names.entities[found].name,
          at: parser.location(tag: "object", named: nil, line: object.line))
      }
      entityCache[object.type] = found
      entityIndex = found
    }
    let entity = names.entities[entityIndex]
    let (id, _) = try ids.define(
      object.id, root: entity.root, line: object.line, record: records.count
    ) { firstLine in
      StoreError.duplicateID(
        object.id, firstLine: firstLine,
        at: parser.location(tag: "object", named: nil, line: object.line))
    }
    var attributes: [String: AttributeValue] = [:]
    attributes.reserveCapacity(entity.attributes.count)
    var relationships: [String: [Int64]] = [:]
    while let header = try parser.nextProperty() {
      switch header {
      case .attribute(let name, let type, let line):
        guard
          case .attribute(let index) = try property(name, of: entity, line: line, tag: "attribute")
        else {
          throw StoreError.wrongKind(
            name, entity: entity.name, isAttribute: false,
            at: parser.location(
              tag: "attribute", named: name, line: line, entity: entity.name, property: name))
        }
        let attribute = entity.attributes[index]
        if let value = try readValue(attribute, typeWord: type, line: line, entity: entity.name) {
          attributes[attribute.name] = value
        }
      case .relationship(let name, let type, _, let idrefs, let line):
        guard
          case .relationship(let index) = try property(
            name, of: entity, line: line, tag: "relationship")
        else {
          throw StoreError.wrongKind(
            name, entity: entity.name, isAttribute: true,
            at: parser.location(
              tag: "relationship", named: name, line: line, entity: entity.name, property: name))
        }
        let relationship = entity.relationships[index]
        guard XMLObjectIDs.isRelationshipType(type) else {
          throw StoreError.badRelationshipType(
            type,
            at: parser.location(
              tag: "relationship", named: name, line: line, entity: entity.name,
              property: relationship.name))
        }
        let targets = ids.references(idrefs, root: relationship.destinationRoot)
        if !relationship.isToMany, targets.count > 1 {
          throw StoreError.tooManyTargets(
            targets.count,
            at: parser.location(
              tag: "relationship", named: name, line: line, entity: entity.name,
              property: relationship.name))
        }
        if !targets.isEmpty { relationships[relationship.name] = targets }
      }
    }
    records.append(
      StoreRecord(
        entityName: entity.name, id: id, attributes: attributes, relationships: relationships))
  }

  private func property(_ name: String, of entity: XMLNameMap.Entity, line: Int, tag: String)
    throws(StoreError) -> XMLNameMap.Property
  {
    guard let property = names.property(name, of: entity) else {
      let known = entity.attributes.map(\.name) + entity.relationships.map(\.name)
      throw StoreError.unknownProperty(
        name, entity: entity.name, known: known,
        at: parser.location(tag: tag, named: name, line: line, entity: entity.name, property: name))
    }
    return property
  }

  /// The value of the `<attribute>` the parser stands in, typed as `attribute`.
  private func readValue(
    _ attribute: XMLNameMap.Attribute, typeWord: String, line: Int, entity: String
  ) throws(StoreError) -> AttributeValue? {
    func location() -> InputLocation {
      parser.location(
        tag: "attribute", named: attribute.diskName, line: line, entity: entity,
        property: attribute.name)
    }
    let written: AttributeType
    if typeWord == attribute.typeWord {
      written = attribute.type
    } else {
      guard let type = XMLValueCoding.attributeType(forWord: typeWord) else {
        throw StoreError.unknownTypeWord(typeWord, at: location())
      }
      guard XMLValueCoding.isCompatible(type, with: attribute.type) else {
        throw StoreError.incompatibleType(typeWord, expected: attribute.type, at: location())
      }
      written = type
    }
    if written == .composite {
      return .composite(try readComposite(attribute, line: line, entity: entity))
    }
    return try parser.withAttributeText { text, count throws(StoreError) -> AttributeValue in
      guard let value = XMLValueCoding.decode(text, count: count, as: attribute.type) else {
        throw StoreError.badValue(
          XMLValueCoding.string(text, count: count), type: attribute.type, at: location())
      }
      return value
    }
  }

  private func readComposite(_ attribute: XMLNameMap.Attribute, line: Int, entity: String)
    throws(StoreError) -> [String: AttributeValue]
  {
    var members: [String: AttributeValue] = [:]
    while let header = try parser.nextProperty() {
      guard case .attribute(let name, let type, let memberLine) = header,
        let index = attribute.membersByDiskName[name]
          ?? attribute.membersByDiskName[name.lowercased()]
      else {
        let name: String
        switch header {
        case .attribute(let memberName, _, _), .relationship(let memberName, _, _, _, _):
          name = memberName
        }
        throw StoreError.unknownProperty(
          name, entity: "\(entity).\(attribute.name)", known: attribute.members.map(\.name),
          at: parser.location(
            tag: "attribute", named: name, line: line, entity: entity, property: attribute.name))
      }
      let member = attribute.members[index]
      if let value = try readValue(member, typeWord: type, line: memberLine, entity: entity) {
        members[member.name] = value
      }
    }
    return members
  }

  /// Turns each target's number into its record's ID, checking that it exists and is of the
  /// relationship's destination entity.
  private mutating func resolveTargets() throws(StoreError) {
    for position in records.indices where !records[position].relationships.isEmpty {
      let record = records[position]
      guard let entityIndex = names.indexByName[record.entityName] else { continue }
      let entity = names.entities[entityIndex]
      for relationship in entity.relationships {
        guard let targets = record.relationships[relationship.name] else { continue }
        let destination = names.indexByName[relationship.destination].map { names.entities[$0] }
        var resolved: [Int64] = []
        resolved.reserveCapacity(targets.count)
        var changed = false
        for target in targets {
          func location() -> InputLocation {
            parser.location(
              tag: "relationship", named: relationship.diskName,
              line: ids.line(ofRecord: position), entity: entity.name, property: relationship.name)
          }
          guard let index = ids.index(of: target, root: relationship.destinationRoot) else {
            if dropsDanglingReferences {
              changed = true
              continue
            }
            throw StoreError.danglingReference(ids.text(of: target), at: location())
          }
          let actual = records[index].entityName
          if let destination, !destination.kinds.contains(actual) {
            throw StoreError.wrongTarget(
              ids.text(of: target), is: actual, expected: destination.name, at: location())
          }
          let id = records[index].id
          changed = changed || id != target
          resolved.append(id)
        }
        if changed {
          records[position].relationships[relationship.name] = resolved.isEmpty ? nil : resolved
        }
      }
    }
  }
}
