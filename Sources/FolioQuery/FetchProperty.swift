import FolioModel
import Foundation

/// A column of a fetch with dictionary results: a key path, or a named expression (Core
/// Data's `NSExpressionDescription`).
///
/// A string literal is a key path, named by itself:
///
/// ```swift
/// var request = FetchRequest<[String: Any]>(entityName: "Spending")
/// request.propertiesToFetch = [
///   "category",
///   try FetchProperty(name: "total", format: "sum:(amount)", resultType: .decimal),
/// ]
/// request.propertiesToGroupBy = ["category"]
/// let totals = try context.fetch(request)  // [["category": "food", "total": 19.5], …]
/// ```
///
/// An aggregate expression (``QueryExpression/isAggregate``: `sum:`, `count:`, `min:`,
/// `max:`, `average:`, `median:`, `mode:`, `stddev:`) is computed over each group of
/// ``FetchRequest/propertiesToGroupBy``, or over every match when there is no grouping; any
/// other expression is computed for each object.
public struct FetchProperty: Sendable, Hashable, ExpressibleByStringLiteral,
  CustomStringConvertible
{
  /// The key of the value in each result dictionary.
  public var name: String
  /// What the value is.
  public var expression: QueryExpression
  /// The type the value is given (`NSExpressionDescription.expressionResultType`); `nil`
  /// keeps the value's own type. Numbers convert between the integer, floating-point and
  /// decimal types (an integer type takes only whole numbers in its range).
  public var resultType: AttributeType?

  /// The key path `keyPath`, named by itself.
  public init(_ keyPath: String) {
    name = keyPath
    expression = .keyPath(keyPath)
    resultType = nil
  }

  /// The key path `value`, named by itself.
  public init(stringLiteral value: String) {
    self.init(value)
  }

  /// `expression`, named `name`.
  public init(name: String, expression: QueryExpression, resultType: AttributeType? = nil) {
    self.name = name
    self.expression = expression
    self.resultType = resultType
  }

  /// The expression `format` (NSExpression's format syntax, with `arguments` for its
  /// placeholders), named `name`.
  ///
  /// - Throws: `QueryError` when `format` is not an expression.
  public init(
    name: String, format: String, _ arguments: Any?..., resultType: AttributeType? = nil
  ) throws(QueryError) {
    self.init(
      name: name, expression: try QueryExpression(format: format, arguments: arguments),
      resultType: resultType)
  }

  /// The properties a comma-separated list names, as `folio query --keys` and undo scripts
  /// write them: `person.name, total=sum:(amount), amount * 2`. Each is a key path or an
  /// expression, named by its text or by `NAME=` before it; commas inside parentheses, braces,
  /// brackets and quotes do not separate.
  ///
  /// - Throws: `QueryError` for an item that is not an expression, or is empty, with the
  ///   column in `list`.
  public static func list(_ list: String) throws(QueryError) -> [FetchProperty] {
    try QueryExpression.namedList(list).map { item in
      if case .keyPath(let path) = item.expression, item.name == nil || item.name == path {
        return FetchProperty(path)
      }
      return FetchProperty(name: item.name ?? item.text, expression: item.expression)
    }
  }

  /// Whether the value aggregates a group rather than describing one object.
  public var isAggregate: Bool { expression.isAggregate }

  /// `name`, or `name = expression` when the name is not the expression's text.
  public var description: String {
    let text = expression.description
    return text == name ? name : "\(name) = \(text)"
  }

  /// `value` given ``resultType``: `.some` of the value converted, or `nil` when it cannot be
  /// given that type.
  package func converting(_ value: Any?) -> Any?? {
    guard let value, let resultType else { return .some(value) }
    let number: Any = (value as? Date)?.timeIntervalSinceReferenceDate ?? value
    switch resultType {
    case .integer16, .integer32, .integer64:
      let bits = resultType == .integer16 ? 16 : resultType == .integer32 ? 32 : 64
      if let whole = Self.wholeNumber(number), bits == 64 || whole.magnitude < 1 << (bits - 1) {
        return whole
      }
    case .double, .float:
      if let double = Self.double(number) { return resultType == .float ? Float(double) : double }
    case .decimal:
      if let decimal = Self.decimal(number) { return decimal }
    case .date:
      if let date = value as? Date { return date }
      if let seconds = Self.double(value) { return Date(timeIntervalSinceReferenceDate: seconds) }
    case .string:
      if let text = value as? String { return text }
    case .boolean:
      if let flag = value as? Bool { return flag }
      if let whole = Self.wholeNumber(value), whole == 0 || whole == 1 { return whole == 1 }
    default:
      return value
    }
    return nil
  }

  private static func wholeNumber(_ value: Any?) -> Int? {
    switch value {
    case let value as Int: return value
    case let value as Int64: return Int(value)
    case let value as Int32: return Int(value)
    case let value as Int16: return Int(value)
    case let value as Bool: return value ? 1 : 0
    case let value as Double:
      return value.rounded() == value && abs(value) < 9.2e18 ? Int(value) : nil
    case let value as Float:
      return value.rounded() == value && abs(value) < 9.2e18 ? Int(value) : nil
    case let value as Decimal:
      guard value == value.rounded(0), let whole = Int(NSDecimalNumber(decimal: value).stringValue)
      else { return nil }
      return whole
    default: return nil
    }
  }

  private static func double(_ value: Any?) -> Double? {
    switch value {
    case let value as Double: return value
    case let value as Float: return Double(value)
    case let value as Decimal: return NSDecimalNumber(decimal: value).doubleValue
    default: return wholeNumber(value).map(Double.init)
    }
  }

  private static func decimal(_ value: Any?) -> Decimal? {
    switch value {
    case let value as Decimal: return value
    // Foundation's conversion traps or loses a double beyond 10³⁸ or below 10⁻³⁸.
    case let value as Double: return QueryValues.Number.double(value).decimal
    case let value as Float: return QueryValues.Number.double(Double(value)).decimal
    default: return wholeNumber(value).map { Decimal($0) }
    }
  }
}

extension Decimal {
  /// The decimal rounded to `scale` places, half away from zero.
  fileprivate func rounded(_ scale: Int) -> Decimal {
    var value = self
    var result = Decimal()
    NSDecimalRound(&result, &value, scale, .plain)
    return result
  }
}
