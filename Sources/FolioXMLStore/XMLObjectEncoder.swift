import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

/// Lays out `<object>` elements as Core Data writes them, checking each record against the
/// model on the way.
///
/// Each entity's fixed text — `    <object type="SPENDING" id="z`, each attribute's
/// `        <attribute name="amount" type="double">` and each relationship's opening — is
/// built once; a record then costs its values' text and a dictionary lookup per property.
/// Attributes come in the model's order, nil ones left out; every relationship is written,
/// with `idrefs` in order and omitted when empty, `type="1/1"` for to-one and `"0/0"` for
/// to-many.
struct XMLObjectEncoder {
  private struct EntityText {
    let entity: XMLNameMap.Entity
    let objectStart: [UInt8]
    let attributeStarts: [[UInt8]]
    let relationshipStarts: [[UInt8]]
  }

  private let names: XMLNameMap
  private var texts: [EntityText]
  private let knownIDs: Set<Int64>
  private let limits = StoreLimits.current

  init(names: XMLNameMap, records: [StoreRecord]) throws(StoreError) {
    try limits.checkObjectCount(records.count)
    self.names = names
    texts = names.entities.map { entity in
      var objectStart = Array("    <object type=\"".utf8)
      Quoting.appendXML(entity.diskName, to: &objectStart)
      objectStart += Array("\" id=\"z".utf8)
      let attributeStarts = entity.attributes.map { Self.attributeStart($0, indent: 8) }
      let relationshipStarts = entity.relationships.map { relationship in
        var text = Array("        <relationship name=\"".utf8)
        Quoting.appendXML(relationship.diskName, to: &text)
        text += Array("\" type=\"\(relationship.isToMany ? "0/0" : "1/1")\" destination=\"".utf8)
        Quoting.appendXML(relationship.destinationDiskName, to: &text)
        text.append(UInt8(ascii: "\""))
        return text
      }
      return EntityText(
        entity: entity, objectStart: objectStart, attributeStarts: attributeStarts,
        relationshipStarts: relationshipStarts)
    }
    var known = Set<Int64>(minimumCapacity: records.count)
    for record in records {
      guard record.id >= 1 else {
        throw StoreError(
          .malformedStore, "object ID \(record.id) is not at least 1",
          at: InputLocation(entity: record.entityName))
      }
      guard known.insert(record.id).inserted else {
        throw StoreError(
          .malformedStore, "object ID \(record.id) is used twice",
          at: InputLocation(entity: record.entityName))
      }
    }
    knownIDs = known
  }

  private static func attributeStart(_ attribute: XMLNameMap.Attribute, indent: Int) -> [UInt8] {
    var text = Array((String(repeating: " ", count: indent) + "<attribute name=\"").utf8)
    Quoting.appendXML(attribute.diskName, to: &text)
    text += Array("\" type=\"\(attribute.typeWord)\">".utf8)
    return text
  }

  /// Appends `record`'s `<object>` element to `output`.
  ///
  /// - Throws: `.modelMismatch` for an entity or property the model does not have,
  ///   `.typeMismatch` for a value of another type or a to-one with several targets,
  ///   `.danglingReference` for a target that is not among the records.
  func encode(_ record: StoreRecord, into output: inout [UInt8]) throws(StoreError) {
    guard let index = names.indexByName[record.entityName] else {
      throw StoreError.unknownEntity(
        record.entityName, known: names.entities.map(\.name),
        at: InputLocation(entity: record.entityName))
    }
    let text = texts[index]
    let entity = text.entity
    output += text.objectStart
    output += String(record.id).utf8
    output += "\">\n".utf8
    var written = 0
    for (position, attribute) in entity.attributes.enumerated() {
      guard let value = record.attribute(attribute.name) else { continue }
      written += 1
      output += text.attributeStarts[position]
      try encode(
        value, of: attribute, entity: entity.name, key: attribute.name, indent: 8, into: &output)
      output += "</attribute>\n".utf8
    }
    var linked = 0
    for (position, relationship) in entity.relationships.enumerated() {
      output += text.relationshipStarts[position]
      if let targets = record.relationships[relationship.name], !targets.isEmpty {
        linked += 1
        guard relationship.isToMany || targets.count == 1 else {
          throw StoreError.tooManyTargets(
            targets.count, at: InputLocation(entity: entity.name, property: relationship.name))
        }
        output += " idrefs=\"".utf8
        for (offset, target) in targets.enumerated() {
          guard knownIDs.contains(target) else {
            throw StoreError.danglingReference(
              "z\(target)", at: InputLocation(entity: entity.name, property: relationship.name))
          }
          if offset > 0 { output.append(0x20) }
          output.append(UInt8(ascii: "z"))
          output += String(target).utf8
        }
        output.append(UInt8(ascii: "\""))
      } else if record.relationships[relationship.name] != nil {
        linked += 1
      }
      output += "></relationship>\n".utf8
    }
    output += "    </object>\n".utf8
    if written != record.attributeCount || linked != record.relationships.count {
      try reportUnknownKey(of: record, entity: entity)
    }
  }

  /// Appends `value` of `attribute`, whose key path from the object is `key` (the
  /// attribute's name, or `composite.member` for a member).
  private func encode(
    _ value: AttributeValue, of attribute: XMLNameMap.Attribute, entity: String, key: String,
    indent: Int, into output: inout [UInt8]
  ) throws(StoreError) {
    guard XMLValueCoding.fits(value, attribute.type) else {
      throw StoreError(
        .typeMismatch,
        "value \"\(value.modelText)\" does not fit the model's type \(attribute.type.xcodeName)",
        at: InputLocation(entity: entity, property: key))
    }
    guard case .composite(let members) = value else {
      try limits.check(value, entity: entity, key: key)
      XMLValueCoding.encode(value, into: &output)
      return
    }
    output.append(0x0A)
    var written = 0
    for member in attribute.members {
      guard let memberValue = members[member.name] else { continue }
      written += 1
      output += Self.attributeStart(member, indent: indent + 4)
      try encode(
        memberValue, of: member, entity: entity, key: "\(key).\(member.name)",
        indent: indent + 4, into: &output)
      output += "</attribute>\n".utf8
    }
    if written != members.count,
      let unknown = members.keys.sorted().first(where: { key in
        !attribute.members.contains { $0.name == key }
      })
    {
      throw StoreError.unknownProperty(
        unknown, entity: "\(entity).\(attribute.name)", known: attribute.members.map(\.name),
        at: InputLocation(entity: entity, property: attribute.name))
    }
    output += String(repeating: " ", count: indent).utf8
  }

  private func reportUnknownKey(of record: StoreRecord, entity: XMLNameMap.Entity)
    throws(StoreError)
  {
    let known = entity.attributes.map(\.name) + entity.relationships.map(\.name)
    let keys = Array(record.attributes.keys) + Array(record.relationships.keys)
    for key in keys.sorted() where !known.contains(key) {
      throw StoreError.unknownProperty(
        key, entity: entity.name, known: known,
        at: InputLocation(entity: entity.name, property: key))
    }
    for key in record.attributes.keys where entity.relationships.contains(where: { $0.name == key })
    {
      throw StoreError.wrongKind(
        key, entity: entity.name, isAttribute: false,
        at: InputLocation(entity: entity.name, property: key))
    }
  }
}
