import FolioModel
import Foundation

/// What a value expression evaluates to during a migration.
enum MigrationValue {
  case null
  case value(AttributeValue)
  /// Source objects, by record ID: what `$source.relationship` reaches.
  case sources([Int64])
  /// Destination objects, by record ID: what the manager's functions return.
  case destinations([Int64])
  /// Several values: what a key path through a to-many reaches.
  case values([AttributeValue])

  var isNull: Bool {
    if case .null = self { return true }
    return false
  }
}

extension AttributeValue {
  /// The value as `type` stores it: the same value, or a conversion that keeps it exactly
  /// (an integer into a wider integer or a floating-point type that holds it, a float into a
  /// double); `nil` when there is none.
  func converted(to type: AttributeType) -> AttributeValue? {
    if fits(type) { return self }
    switch (self, type) {
    case (.integer(let number), .double): return .double(Double(number))
    case (.integer(let number), .float):
      let float = Float(number)
      return Int64(exactly: float) == number ? .float(float) : nil
    case (.integer(let number), .decimal): return .decimal(Decimal(number))
    case (.float(let number), .double): return .double(Double(number))
    case (.double(let number), .integer16), (.double(let number), .integer32),
      (.double(let number), .integer64):
      guard let integer = Int64(exactly: number) else { return nil }
      return AttributeValue.integer(integer).converted(to: type)
    case (.double(let number), .float):
      let float = Float(number)
      return Double(float) == number ? .float(float) : nil
    case (.double(let number), .decimal): return .decimal(Decimal(number))
    case (.boolean(let flag), _) where type.isInteger: return .integer(flag ? 1 : 0)
    case (.integer(let number), .boolean) where number == 0 || number == 1:
      return .boolean(number == 1)
    default: return nil
    }
  }

  /// The value as a number, for arithmetic and numeric collection operators.
  var number: Double? {
    switch self {
    case .integer(let value): Double(value)
    case .double(let value): value
    case .float(let value): Double(value)
    case .decimal(let value): NSDecimalNumber(decimal: value).doubleValue
    case .boolean(let value): value ? 1 : 0
    default: nil
    }
  }
}

extension MappingConstant {
  /// The constant as an attribute value; `nil` for `nil`.
  var attributeValue: AttributeValue? {
    switch self {
    case .null: nil
    case .string(let text): .string(text)
    case .integer(let number): .integer(number)
    case .double(let number): .double(number)
    case .boolean(let flag): .boolean(flag)
    case .date(let seconds): .date(Date(timeIntervalSinceReferenceDate: seconds))
    }
  }
}
