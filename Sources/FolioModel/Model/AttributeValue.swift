import Foundation

/// A value of an attribute: a default, a bound, or (later) a stored value.
///
/// One case per family of ``AttributeType``: the three integer widths share ``integer(_:)``,
/// checked against the width when the value is parsed.
public enum AttributeValue: Sendable, Hashable {
  case integer(Int64)
  case decimal(Decimal)
  case double(Double)
  case float(Float)
  case string(String)
  case boolean(Bool)
  /// A moment in time.
  case date(Date)
  case binaryData(Data)
  case uuid(UUID)
  case uri(URL)
  /// A transformable value, kept as the bytes its transformer produced.
  case transformable(Data)
  /// A reference to another object, by its URI representation.
  case objectID(String)
  /// A composite value: its member attributes by name.
  case composite([String: AttributeValue])

  /// The text Xcode would write for this value in a model file (numbers in their shortest
  /// exact decimal form, booleans as `YES`/`NO`, dates as seconds since 2001-01-01).
  public var modelText: String {
    switch self {
    case .integer(let value): String(value)
    case .decimal(let value): value.description
    case .double(let value): Self.text(of: value)
    case .float(let value): Self.text(of: Double(value), shortest: value.description)
    case .string(let value): value
    case .boolean(let value): value ? "YES" : "NO"
    case .date(let value): Self.text(of: value.timeIntervalSinceReferenceDate)
    case .binaryData(let data), .transformable(let data): data.base64EncodedString()
    case .uuid(let value): value.uuidString
    case .uri(let value): value.absoluteString
    case .objectID(let value): value
    case .composite(let members):
      "{"
        + members.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value.modelText)" }
        .joined(separator: "; ") + "}"
    }
  }

  private static func text(of value: Double, shortest: String? = nil) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return shortest ?? value.description
  }
}
