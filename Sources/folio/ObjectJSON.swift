import Folio
import FolioScript
import Foundation

/// Objects as JSON a program can trust (`Formats/dump.schema.json`): attribute values as JSON
/// types, every attribute of the entity present (`null` where it has no value), to-one
/// relationships as one reference or `null`, to-many as an array, and every object named one
/// way, by its URI (`x-coredata://STORE-UUID/Entity/pKEY`), beside its entity and key.
struct ObjectJSON {
  /// An entity's stored properties, in name order, their keys already written as JSON.
  private struct Shape {
    var attributes: [(name: String, key: [UInt8])] = []
    var relationships: [(name: String, key: [UInt8], isToMany: Bool, isOrdered: Bool)] = []
  }

  /// `x-coredata://STORE-UUID/`, the start of every URI.
  private let prefix: [UInt8]
  private var shapes: [String: Shape] = [:]

  init(storeIdentifier: String, model: ManagedObjectModel) {
    prefix = Array("x-coredata://\(storeIdentifier)/".utf8)
    func key(_ name: String) -> [UInt8] {
      var out = OutputBytes()
      out.append(jsonString: name)
      out.append(byte: UInt8(ascii: ":"))
      return out.bytes
    }
    for entity in model.entities {
      var shape = Shape()
      for attribute in entity.allAttributes where !attribute.isTransient {
        shape.attributes.append((attribute.name, key(attribute.name)))
      }
      for relationship in entity.allRelationships where !relationship.isTransient {
        shape.relationships.append(
          (
            relationship.name, key(relationship.name), relationship.isToMany,
            relationship.isOrdered
          ))
      }
      shape.attributes.sort { $0.name < $1.name }
      shape.relationships.sort { $0.name < $1.name }
      shapes[entity.name] = shape
    }
  }

  /// `record` on one line, its keys in a fixed order; `entityOf` names the entity of each
  /// object a relationship refers to.
  func write(
    _ record: StoreRecord, entityOf: (_ target: Int64, _ relationship: String) -> String,
    to out: inout OutputBytes
  ) {
    let shape = shapes[record.entityName] ?? Shape()
    out.append("{\"uri\":")
    uri(record.entityName, record.id, to: &out)
    out.append(",\"entity\":")
    out.append(jsonString: record.entityName)
    out.append(",\"primaryKey\":")
    out.append(integer: StoreKeySpace.key(of: record.id))
    out.append(",\"attributes\":{")
    var first = true
    var shown = 0
    for (name, key) in shape.attributes {
      if !first { out.append(byte: UInt8(ascii: ",")) }
      first = false
      out.append(key)
      if let value = record.attribute(name) {
        out.append(jsonValue: value)
        shown += 1
      } else {
        out.append("null")
      }
    }
    // Attributes the store holds that the model does not name are shown too, not dropped.
    if record.attributeCount > shown {
      for (name, value) in record.attributes.sorted(by: { $0.key < $1.key })
      where !shape.attributes.contains(where: { $0.name == name }) {
        if !first { out.append(byte: UInt8(ascii: ",")) }
        first = false
        out.append(jsonString: name)
        out.append(byte: UInt8(ascii: ":"))
        out.append(jsonValue: value)
      }
    }
    out.append("},\"relationships\":{")
    first = true
    for (name, key, isToMany, isOrdered) in shape.relationships {
      if !first { out.append(byte: UInt8(ascii: ",")) }
      first = false
      out.append(key)
      var targets = record.targets(of: name) ?? []
      // An unordered to-many has no order of its own: its members go in ID order.
      if isToMany, !isOrdered { targets.sort() }
      if isToMany {
        out.append(byte: UInt8(ascii: "["))
        for (index, target) in targets.enumerated() {
          if index > 0 { out.append(byte: UInt8(ascii: ",")) }
          uri(entityOf(target, name), target, to: &out)
        }
        out.append(byte: UInt8(ascii: "]"))
      } else if let target = targets.first {
        uri(entityOf(target, name), target, to: &out)
      } else {
        out.append("null")
      }
    }
    out.append("}}")
  }

  /// The URI of the object `id` of `entity`, as a JSON string.
  private func uri(_ entity: String, _ id: Int64, to out: inout OutputBytes) {
    out.append(byte: UInt8(ascii: "\""))
    out.append(prefix)
    out.append(text: entity)
    out.append("/p")
    out.append(integer: StoreKeySpace.key(of: id))
    out.append(byte: UInt8(ascii: "\""))
  }

  /// A value as JSON, as ``OutputBytes/append(jsonValue:)`` writes it.
  static func value(_ value: AttributeValue) -> String {
    var out = OutputBytes()
    out.append(jsonValue: value)
    return String(decoding: out.bytes, as: UTF8.self)
  }

  /// `date` in UTC, `2024-03-08T20:26:40Z`, with the fraction of a second to the microsecond
  /// where there is one: the undo-script language's date literal without its `@`.
  static func iso8601(_ date: Date) -> String { String(Literal.text(of: date).dropFirst()) }

  /// `text` as a JSON string: quotes, backslashes and control characters escaped.
  static func string(_ text: String) -> String {
    var out = OutputBytes()
    out.append(jsonString: text)
    return String(decoding: out.bytes, as: UTF8.self)
  }
}
