import Folio
import Foundation

/// A value an expression produced, from the graph or from the script, ready to compare and
/// print.
///
/// Comparison rules (the spec's §7):
/// - Numbers compare by value across integer, floating-point and decimal types. Two integers
///   compare exactly; if either side is a `Double` both become `Double`; otherwise if either is
///   a `Float` both become `Float` (an integer against a `Float` compares as `Double`); otherwise
///   both are `Decimal`. A decimal becomes floating-point through its decimal text, so the
///   literal `0.1` equals a `Float` or `Double` attribute set to `0.1`.
/// - `nil` equals only `nil`, and can be compared for equality with anything.
/// - Strings, dates, booleans, UUIDs, data and URLs compare with their own kind (a URL also
///   with a string, by its absolute text); objects by identity. Only numbers, strings and dates
///   are ordered.
/// - A list compares with a list: in order when the left side is ordered, as a multiset
///   (each element as many times, in any order) when it is not. Elements of different kinds
///   are simply unequal.
indirect enum RuntimeValue {
  case null
  case integer(Int64)
  case double(Double)
  case float(Float)
  case decimal(Decimal)
  case string(String)
  case boolean(Bool)
  case date(Date)
  case uuid(UUID)
  case data(Data)
  case url(URL)
  case object(ManagedObject)
  case list([RuntimeValue], isOrdered: Bool)
  /// A value with no script syntax (a composite), by its description.
  case other(String)

  /// The value of something the graph returned; `isOrdered` says whether a list in it is.
  init(_ value: Any?, isOrdered: Bool) {
    guard let value else {
      self = .null
      return
    }
    switch value {
    case let flag as Bool: self = .boolean(flag)
    case let number as Int: self = .integer(Int64(number))
    case let number as Int64: self = .integer(number)
    case let number as Int32: self = .integer(Int64(number))
    case let number as Int16: self = .integer(Int64(number))
    case let number as Double: self = .double(number)
    case let number as Float: self = .float(number)
    case let number as Decimal: self = .decimal(number)
    case let text as String: self = .string(text)
    case let date as Date: self = .date(date)
    case let uuid as UUID: self = .uuid(uuid)
    case let data as Data: self = .data(data)
    case let url as URL: self = .url(url)
    case let object as ManagedObject: self = .object(object)
    case let objects as [ManagedObject]:
      self = .list(objects.map { .object($0) }, isOrdered: isOrdered)
    case let objects as Set<ManagedObject>:
      self = .list(objects.map { .object($0) }, isOrdered: false)
    case let values as [Any]:
      self = .list(values.map { RuntimeValue($0, isOrdered: isOrdered) }, isOrdered: isOrdered)
    case let members as [String: Any]:
      let parts = members.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }
      self = .other("{\(parts.joined(separator: "; "))}")
    default:
      self = .other("\(value)")
    }
  }

  /// The value of an attribute as a store or a merge conflict holds it.
  init(attribute value: AttributeValue) {
    switch value {
    case .integer(let number): self = .integer(number)
    case .decimal(let number): self = .decimal(number)
    case .double(let number): self = .double(number)
    case .float(let number): self = .float(number)
    case .string(let text): self = .string(text)
    case .boolean(let flag): self = .boolean(flag)
    case .date(let date): self = .date(date)
    case .binaryData(let data), .transformable(let data): self = .data(data)
    case .uuid(let uuid): self = .uuid(uuid)
    case .uri(let url): self = .url(url)
    case .objectID(let uri): self = .string(uri)
    case .composite: self = .other(value.modelText)
    }
  }

  // MARK: Comparing

  enum Order {
    case less, equal, greater
    /// Same kind, but no order: a NaN.
    case unordered
  }

  private enum Number {
    case integer(Int64)
    case double(Double)
    case float(Float)
    case decimal(Decimal)
  }

  private var number: Number? {
    switch self {
    case .integer(let value): .integer(value)
    case .double(let value): .double(value)
    case .float(let value): .float(value)
    case .decimal(let value): .decimal(value)
    default: nil
    }
  }

  /// Whether two values are equal, or `nil` when their kinds cannot be compared.
  static func equal(_ left: RuntimeValue, _ right: RuntimeValue) -> Bool? {
    switch (left, right) {
    case (.null, .null): return true
    case (.null, _), (_, .null): return false
    case (.string(let a), .string(let b)): return a == b
    case (.url(let a), .url(let b)): return a == b
    case (.url(let a), .string(let b)), (.string(let b), .url(let a)): return a.absoluteString == b
    case (.boolean(let a), .boolean(let b)): return a == b
    case (.date(let a), .date(let b)): return a == b
    case (.uuid(let a), .uuid(let b)): return a == b
    case (.data(let a), .data(let b)): return a == b
    case (.object(let a), .object(let b)): return a === b
    case (.other(let a), .other(let b)): return a == b
    case (.list(let a, let isOrdered), .list(let b, _)):
      guard a.count == b.count else { return false }
      if isOrdered { return zip(a, b).allSatisfy { equal($0, $1) == true } }
      var unused = b
      for element in a {
        guard let match = unused.firstIndex(where: { equal(element, $0) == true }) else {
          return false
        }
        unused.remove(at: match)
      }
      return true
    default:
      guard let a = left.number, let b = right.number else { return nil }
      return compare(a, b) == .equal
    }
  }

  /// The order of two numbers, strings or dates, or `nil` for other kinds.
  static func order(_ left: RuntimeValue, _ right: RuntimeValue) -> Order? {
    switch (left, right) {
    case (.string(let a), .string(let b)): return order(a, b)
    case (.date(let a), .date(let b)): return order(a, b)
    default:
      guard let a = left.number, let b = right.number else { return nil }
      return compare(a, b)
    }
  }

  private static func order<T: Comparable>(_ a: T, _ b: T) -> Order {
    if a < b { return .less }
    if a == b { return .equal }
    if b < a { return .greater }
    return .unordered
  }

  private static func compare(_ a: Number, _ b: Number) -> Order {
    switch (a, b) {
    case (.integer(let x), .integer(let y)): return order(x, y)
    case (.double, _), (_, .double), (.float, .integer), (.integer, .float):
      return order(double(a), double(b))
    case (.float, _), (_, .float): return order(float(a), float(b))
    default: return order(decimal(a), decimal(b))
    }
  }

  private static func double(_ number: Number) -> Double {
    switch number {
    case .integer(let value): Double(value)
    case .double(let value): value
    case .float(let value): Double(value)
    case .decimal(let value):
      Double(value.description) ?? NSDecimalNumber(decimal: value).doubleValue
    }
  }

  private static func float(_ number: Number) -> Float {
    switch number {
    case .integer(let value): Float(value)
    case .double(let value): Float(value)
    case .float(let value): value
    case .decimal(let value):
      Float(value.description) ?? NSDecimalNumber(decimal: value).floatValue
    }
  }

  private static func decimal(_ number: Number) -> Decimal {
    switch number {
    case .integer(let value): Decimal(value)
    case .double(let value): Decimal(value)
    case .float(let value): Decimal(Double(value))
    case .decimal(let value): value
    }
  }

  /// Whether `left OP right` holds, or `nil` when the kinds cannot be compared with
  /// `operation` (the caller words the error).
  static func holds(_ left: RuntimeValue, _ operation: ComparisonOperator, _ right: RuntimeValue)
    -> Bool?
  {
    switch operation {
    case .equal: return equal(left, right)
    case .notEqual: return equal(left, right).map { !$0 }
    case .less, .lessOrEqual, .greater, .greaterOrEqual:
      guard let order = order(left, right) else { return nil }
      switch (operation, order) {
      case (_, .unordered): return false
      case (.less, let order): return order == .less
      case (.lessOrEqual, let order): return order != .greater
      case (.greater, let order): return order == .greater
      default: return order != .less
      }
    }
  }
}
