import FolioModel
import FolioStores
import Foundation

// Properties and values of an `<object>`: each found by name in the model, each value parsed by
// its attribute's type (see XMLRecordReader.swift).
extension XMLRecordReader {
  func property(_ name: String, of entity: XMLNameMap.Entity, line: Int, tag: String)
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

  /// The type a value written with `typeWord` has, when it fits `attribute`.
  func writtenType(
    _ attribute: XMLNameMap.Attribute, typeWord: String, line: Int, entity: String
  ) throws(StoreError) -> AttributeType {
    func location() -> InputLocation {
      parser.location(
        tag: "attribute", named: attribute.diskName, line: line, entity: entity,
        property: attribute.name)
    }
    if typeWord == attribute.typeWord { return attribute.type }
    guard let type = XMLValueCoding.attributeType(forWord: typeWord) else {
      throw StoreError.unknownTypeWord(typeWord, at: location())
    }
    guard XMLValueCoding.isCompatible(type, with: attribute.type) else {
      throw StoreError.incompatibleType(typeWord, expected: attribute.type, at: location())
    }
    return type
  }

  /// The value of the `<attribute>` the parser stands in, typed as `attribute`.
  func readValue(
    _ attribute: XMLNameMap.Attribute, typeWord: String, line: Int, entity: String
  ) throws(StoreError) -> AttributeValue? {
    let written = try writtenType(attribute, typeWord: typeWord, line: line, entity: entity)
    return try readValue(attribute, written: written, line: line, entity: entity)
  }

  /// The value of the `<attribute>` the parser stands in, written as `written`, typed as
  /// `attribute`.
  func readValue(
    _ attribute: XMLNameMap.Attribute, written: AttributeType, line: Int, entity: String
  ) throws(StoreError) -> AttributeValue? {
    func location() -> InputLocation {
      parser.location(
        tag: "attribute", named: attribute.diskName, line: line, entity: entity,
        property: attribute.name)
    }
    if written == .composite {
      return .composite(try readComposite(attribute, line: line, entity: entity))
    }
    return try parser.withAttributeText { text, count throws(StoreError) -> AttributeValue in
      guard let value = XMLValueCoding.decode(text, count: count, as: attribute.type) else {
        throw StoreError.badValue(
          XMLValueCoding.string(text, count: count), type: attribute.type, at: location())
      }
      if let size = limits.excess(of: value) {
        throw StoreError(.limitExceeded, limits.valueTooLarge(size), at: location())
      }
      return value
    }
  }

  func readComposite(_ attribute: XMLNameMap.Attribute, line: Int, entity: String)
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
      guard members[member.name] == nil else {
        throw StoreError.duplicateProperty(
          "\(attribute.name).\(member.name)", entity: entity, isAttribute: true,
          at: parser.location(
            tag: "attribute", named: member.diskName, line: memberLine, entity: entity,
            property: attribute.name))
      }
      if let value = try readValue(member, typeWord: type, line: memberLine, entity: entity) {
        members[member.name] = value
      }
    }
    return members
  }
}
