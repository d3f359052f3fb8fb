import Folio
import FolioScript
import Foundation

/// Objects as JSON a program can trust (`Formats/dump.schema.json`): attribute values as JSON
/// types, every attribute of the entity present (`null` where it has no value), to-one
/// relationships as one reference or `null`, to-many as an array, and every object named one
/// way, by its URI (`x-coredata://STORE-UUID/Entity/pKEY`), beside its entity and key.
struct ObjectJSON {
  /// The store's identifier, in every URI.
  let storeIdentifier: String
  /// Each entity's stored attributes and relationships, by name, in name order.
  private var shapes: [String: (attributes: [String], relationships: [(String, Bool)])] = [:]
  /// Each object's entity, for the URIs of its references.
  private let entityOf: [Int64: String]

  init(storeIdentifier: String, model: ManagedObjectModel, records: [StoreRecord]) {
    self.storeIdentifier = storeIdentifier
    for entity in model.entities {
      shapes[entity.name] = (
        entity.allAttributes.filter { !$0.isTransient }.map(\.name).sorted(),
        entity.allRelationships.filter { !$0.isTransient }.map { ($0.name, $0.isToMany) }
          .sorted { $0.0 < $1.0 }
      )
    }
    var entityOf: [Int64: String] = [:]
    entityOf.reserveCapacity(records.count)
    for record in records { entityOf[record.id] = record.entityName }
    self.entityOf = entityOf
  }

  /// The URI of the object `id` of `entity`.
  func uri(_ entity: String, _ id: Int64) -> String {
    "x-coredata://\(storeIdentifier)/\(entity)/p\(StoreKeySpace.key(of: id))"
  }

  /// One object, on one line, its keys in a fixed order.
  func object(_ record: StoreRecord) -> String {
    let shape = shapes[record.entityName] ?? ([], [])
    var attributes: [String] = []
    for name in shape.attributes {
      attributes.append(
        Self.string(name) + ":" + (record.attribute(name).map(Self.value) ?? "null"))
    }
    // Attributes the store holds that the model does not name are shown too, not dropped.
    for (name, value) in record.attributes.sorted(by: { $0.key < $1.key })
    where !shape.attributes.contains(name) {
      attributes.append(Self.string(name) + ":" + Self.value(value))
    }
    var relationships: [String] = []
    for (name, isToMany) in shape.relationships {
      let targets = record.relationships[name] ?? []
      let text: String
      if isToMany {
        text = "[" + targets.map { Self.string(reference($0)) }.joined(separator: ",") + "]"
      } else {
        text = targets.first.map { Self.string(reference($0)) } ?? "null"
      }
      relationships.append(Self.string(name) + ":" + text)
    }
    return "{\"uri\":" + Self.string(uri(record.entityName, record.id)) + ",\"entity\":"
      + Self.string(record.entityName) + ",\"primaryKey\":\(StoreKeySpace.key(of: record.id))"
      + ",\"attributes\":{" + attributes.joined(separator: ",") + "},\"relationships\":{"
      + relationships.joined(separator: ",") + "}}"
  }

  private func reference(_ id: Int64) -> String { uri(entityOf[id] ?? "Unknown", id) }

  /// A value as JSON: numbers and booleans as themselves; a Decimal as a string keeping every
  /// digit; a date as ISO 8601 in UTC; binary and transformable data as base64; a Double that
  /// JSON cannot hold (NaN, infinities) as the string "NaN", "Infinity" or "-Infinity".
  static func value(_ value: AttributeValue) -> String {
    switch value {
    case .integer(let number): return "\(number)"
    case .boolean(let flag): return flag ? "true" : "false"
    case .double(let number): return real(number)
    case .float(let number): return real(Double(number))
    case .decimal(let number): return string("\(number)")
    case .date(let date): return string(iso8601(date))
    case .string(let text): return string(text)
    case .uri(let url): return string(url.absoluteString)
    case .uuid(let uuid): return string(uuid.uuidString)
    case .binaryData(let data), .transformable(let data):
      return string(data.base64EncodedString())
    default: return string(value.modelText)
    }
  }

  private static func real(_ number: Double) -> String {
    if number.isNaN { return "\"NaN\"" }
    if number.isInfinite { return number < 0 ? "\"-Infinity\"" : "\"Infinity\"" }
    return "\(number)"
  }

  /// `date` in UTC, `2024-03-08T20:26:40Z`, with the fraction of a second to the microsecond
  /// where there is one: the undo-script language's date literal without its `@`.
  static func iso8601(_ date: Date) -> String { String(Literal.text(of: date).dropFirst()) }

  /// `text` as a JSON string: quotes, backslashes and control characters escaped.
  static func string(_ text: String) -> String { Literal.quoted(text) }
}
