import Folio
import Foundation

/// Attribute values to and from the table's cells.
///
/// A cell shows a value as JSON: numbers as numbers, dates as ISO 8601 text, data as its byte
/// count. An edit sends what the user typed, as text or as a JSON number or boolean, and is
/// parsed by the attribute's type here, so a bad value is refused with the attribute's place
/// before it reaches the graph. Empty text clears an attribute that is not a string.
enum CellValue {
  /// The cell of `value`, an attribute's value as `ManagedObject.value(forKey:)` returns it.
  static func json(_ value: Any?) -> JSONValue {
    switch value {
    case nil: .null
    case let flag as Bool: .bool(flag)
    case let integer as any BinaryInteger: Int64(exactly: integer).map(JSONValue.integer) ?? .null
    case let number as Double: number.isFinite ? .number(number) : .string(String(number))
    case let number as Float: number.isFinite ? .number(Double(number)) : .string(String(number))
    case let number as Decimal: .string(number.description)
    case let text as String: .string(text)
    case let date as Date: .string(date.formatted(.iso8601))
    case let data as Data: .string("\(data.count) bytes")
    case let uuid as UUID: .string(uuid.uuidString)
    case let url as URL: .string(url.absoluteString)
    case let some?: .string(String(describing: some))
    }
  }

  /// The value `cell` gives `attribute` of `entity`, in the type `setValue(_:forKey:)` takes.
  ///
  /// - Throws: `EditorError` (`typeMismatch`) naming `Entity.key` when `cell` is not a value
  ///   of the attribute's type; (`readOnly`) for a type the editor does not edit.
  static func value(_ cell: JSONValue, for attribute: AttributeDescription, entity: String)
    throws(EditorError) -> Any?
  {
    let type = attribute.attributeType
    let fail = EditorError.badValue(cell.text, type: type, entity: entity, key: attribute.name)
    if case .null = cell { return nil }
    if type != .string, case .string(let text) = cell,
      text.trimmingCharacters(in: .whitespaces).isEmpty
    {
      return nil
    }
    switch type {
    case .integer16, .integer32, .integer64:
      let number: Int64?
      switch cell {
      case .integer(let integer): number = integer
      case .string(let text): number = Int64(text.trimmingCharacters(in: .whitespaces))
      case .number(let real): number = Int64(exactly: real)
      default: number = nil
      }
      guard let number, let range = type.integerRange, range.contains(number) else { throw fail }
      return number
    case .double, .float:
      switch cell {
      case .integer(let integer): return Double(integer)
      case .number(let real): return real
      case .string(let text):
        guard let real = Double(text.trimmingCharacters(in: .whitespaces)), real.isFinite else {
          throw fail
        }
        return real
      default: throw fail
      }
    case .decimal:
      switch cell {
      case .integer(let integer): return Decimal(integer)
      case .number(let real): return Decimal(real)
      case .string(let text):
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard Double(trimmed) != nil, let decimal = Decimal(string: trimmed) else { throw fail }
        return decimal
      default: throw fail
      }
    case .string:
      guard case .string(let text) = cell else { throw fail }
      return text
    case .boolean:
      switch cell {
      case .bool(let flag): return flag
      case .string(let text):
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default: throw fail
        }
      default: throw fail
      }
    case .date:
      guard case .string(let text) = cell, let date = date(from: text) else { throw fail }
      return date
    case .uuid:
      guard case .string(let text) = cell, let uuid = UUID(uuidString: text) else { throw fail }
      return uuid
    case .uri:
      guard case .string(let text) = cell, let url = URL(string: text), url.scheme != nil else {
        throw fail
      }
      return url
    default:
      throw EditorError.notEditable(type: type, entity: entity, key: attribute.name)
    }
  }

  /// A date in ISO 8601: a moment (`2024-05-01T12:00:00Z`) or a day (`2024-05-01`, midnight
  /// UTC).
  static func date(from text: String) -> Date? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if let moment = try? Date(trimmed, strategy: .iso8601) { return moment }
    return try? Date(trimmed, strategy: Date.ISO8601FormatStyle().year().month().day())
  }
}
