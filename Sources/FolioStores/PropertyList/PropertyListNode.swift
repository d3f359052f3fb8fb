import Foundation

/// A node of a binary property list as read, including NSKeyedArchiver's UIDs.
///
/// ``PropertyListValue`` is what store metadata holds; a node is everything the `bplist00`
/// format can say, so that a reader sees a keyed archive's `CF$UID` references, sets and
/// `null` objects too. ``propertyListValue`` converts a node that holds none of those.
package indirect enum PropertyListNode: Hashable, Sendable {
  case string(String)
  case integer(Int64)
  case real(Double)
  case boolean(Bool)
  /// A moment, stored as seconds since 2001-01-01 00:00:00 UTC.
  case date(Date)
  case data(Data)
  /// A reference into an NSKeyedArchiver archive's `$objects` (marker `0x8n`).
  case uid(UInt64)
  case array([PropertyListNode])
  /// An unordered collection (marker `0xCn`), kept in the order the file lists it.
  case set([PropertyListNode])
  case dictionary([String: PropertyListNode])
  /// The `null` object (marker `0x00`), which Apple's writers do not produce.
  case null
}

extension PropertyListNode {
  /// The node as a store metadata value: a set becomes an array; `nil` when the node is, or
  /// holds, a UID or `null`, which a ``PropertyListValue`` cannot hold.
  package var propertyListValue: PropertyListValue? {
    switch self {
    case .string(let value): return .string(value)
    case .integer(let value): return .integer(value)
    case .real(let value): return .real(value)
    case .boolean(let value): return .boolean(value)
    case .date(let value): return .date(value)
    case .data(let value): return .data(value)
    case .uid, .null: return nil
    case .array(let elements), .set(let elements):
      var values: [PropertyListValue] = []
      values.reserveCapacity(elements.count)
      for element in elements {
        guard let value = element.propertyListValue else { return nil }
        values.append(value)
      }
      return .array(values)
    case .dictionary(let entries):
      var values: [String: PropertyListValue] = [:]
      values.reserveCapacity(entries.count)
      for (key, entry) in entries {
        guard let value = entry.propertyListValue else { return nil }
        values[key] = value
      }
      return .dictionary(values)
    }
  }

  /// The node that ``BinaryPropertyList/encode(_:)`` writes for `value`.
  init(_ value: PropertyListValue) {
    switch value {
    case .string(let value): self = .string(value)
    case .integer(let value): self = .integer(value)
    case .real(let value): self = .real(value)
    case .boolean(let value): self = .boolean(value)
    case .date(let value): self = .date(value)
    case .data(let value): self = .data(value)
    case .array(let values): self = .array(values.map(PropertyListNode.init))
    case .dictionary(let values): self = .dictionary(values.mapValues(PropertyListNode.init))
    }
  }
}

extension PropertyListNode {
  /// A short description of the node's type, for messages: `a string`, `a reference`.
  package var kindDescription: String {
    switch self {
    case .string: "a string"
    case .integer: "an integer"
    case .real: "a real"
    case .boolean: "a boolean"
    case .date: "a date"
    case .data: "data"
    case .uid: "a reference"
    case .array: "an array"
    case .set: "a set"
    case .dictionary: "a dictionary"
    case .null: "null"
    }
  }
}
