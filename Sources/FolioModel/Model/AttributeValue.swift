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

  /// Whether `self` and `other` hold the same bits: as `==`, except that a NaN is identical
  /// to a NaN of the same bit pattern (`==` says no NaN equals anything) and `0.0` is not
  /// identical to `-0.0` (`==` says they are equal); Double, Float and Date alike, and a
  /// Decimal NaN is identical to a Decimal NaN. This is what "read back unchanged" means for a
  /// store, whose files keep a value's bits.
  package func isIdentical(to other: AttributeValue) -> Bool {
    switch (self, other) {
    case (.double(let x), .double(let y)): x.bitPattern == y.bitPattern
    case (.float(let x), .float(let y)): x.bitPattern == y.bitPattern
    case (.date(let x), .date(let y)):
      x.timeIntervalSinceReferenceDate.bitPattern == y.timeIntervalSinceReferenceDate.bitPattern
    case (.decimal(let x), .decimal(let y)): x.isNaN ? y.isNaN : x == y
    case (.composite(let x), .composite(let y)):
      x.count == y.count
        && x.allSatisfy { name, value in y[name].map { value.isIdentical(to: $0) } ?? false }
    default: self == other
    }
  }

  private static func text(of value: Double, shortest: String? = nil) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return shortest ?? value.description
  }
}

extension AttributeValue {
  /// Whether the value is of the family `type` stores, and in range for an integer width. An
  /// attribute of type `.undefined` (a transient attribute that Core Data leaves untyped)
  /// takes any value.
  package func fits(_ type: AttributeType) -> Bool {
    switch (self, type) {
    case (.integer(let number), _) where type.isInteger:
      return type.integerRange?.contains(number) ?? false
    case (.decimal, .decimal), (.double, .double), (.float, .float), (.string, .string),
      (.boolean, .boolean), (.date, .date), (.binaryData, .binaryData), (.uuid, .uuid),
      (.uri, .uri), (.transformable, .transformable), (.objectID, .objectID),
      (.composite, .composite), (_, .undefined):
      return true
    default:
      return false
    }
  }

  /// The order of two values of one ordered family (integers, decimals, doubles, floats,
  /// dates): -1, 0 or 1, or `nil` when they are not both of one such family.
  package func order(against other: AttributeValue) -> Int? {
    func order<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
    switch (self, other) {
    case (.integer(let x), .integer(let y)): return order(x, y)
    case (.decimal(let x), .decimal(let y)): return order(x, y)
    case (.double(let x), .double(let y)): return order(x, y)
    case (.float(let x), .float(let y)): return order(x, y)
    case (.date(let x), .date(let y)): return order(x, y)
    default: return nil
    }
  }
}

extension AttributeValue {
  /// The value as a reader of the attribute gets it from an object: `Int` for the integer
  /// types, `Decimal`, `Double`, `Float`, `String`, `Bool`, `Date`, `Data` (binary and
  /// transformable), `UUID`, `URL`, the text of an object ID, and a composite's members by name.
  package var readerValue: Any {
    switch self {
    case .integer(let number): return Int(number)
    case .decimal(let number): return number
    case .double(let number): return number
    case .float(let number): return number
    case .string(let text): return text
    case .boolean(let flag): return flag
    case .date(let date): return date
    case .binaryData(let data), .transformable(let data): return data
    case .uuid(let uuid): return uuid
    case .uri(let url): return url
    case .objectID(let text): return text
    case .composite(let members): return members.mapValues(\.readerValue)
    }
  }
}
