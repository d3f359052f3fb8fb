import Foundation

/// A constant in a predicate: a number, string, date, `nil`, or an object compared by identity.
///
/// Constants come from literals in a format string (`30`, `"Ann"`, `YES`, `nil`,
/// `CAST(726868800, "NSDate")`), from `%@`, `%d` and `%f` arguments, from `$VARIABLE`
/// substitutions, and from Swift values in predicates built in code.
///
/// Two constants are equal when they are the same constant, as a predicate's text tells them
/// apart: the same case and the same value, with doubles (and dates' seconds) compared as
/// they print, so `-0.0` differs from `0.0` and every NaN equals every other NaN. Evaluation
/// compares values by other rules: there `-0.0 == 0` holds and a NaN equals nothing.
public enum QueryValue: Sendable, Hashable {
  /// `nil` or `NULL`.
  case null
  /// `YES`, `NO`, `TRUE`, `FALSE`.
  case boolean(Bool)
  /// A whole number.
  case integer(Int)
  /// A floating-point number.
  case double(Double)
  /// A decimal number, written `CAST("12.50", "NSDecimalNumber")`.
  case decimal(Decimal)
  /// A string.
  case string(String)
  /// A date, written `CAST(seconds since 2001-01-01, "NSDate")` as Core Data does.
  case date(Date)
  /// Bytes, written `CAST("base64", "NSData")` (a Folio extension).
  case binaryData(Data)
  /// A UUID, written `CAST("…", "NSUUID")` (a Folio extension).
  case uuid(UUID)
  /// A URL, written `CAST("…", "NSURL")` (a Folio extension).
  case uri(URL)
  /// An object given as a `%@` argument, equal only to itself.
  case object(QueryObject)

  /// The value as key paths return it: `nil`, `Int`, `String`, `Date`… (an object stays a
  /// ``QueryObject``, which compares equal to the object it wraps).
  public var anyValue: Any? {
    switch self {
    case .null: return nil
    case .boolean(let value): return value
    case .integer(let value): return value
    case .double(let value): return value
    case .decimal(let value): return value
    case .string(let value): return value
    case .date(let value): return value
    case .binaryData(let value): return value
    case .uuid(let value): return value
    case .uri(let value): return value
    case .object(let value): return value
    }
  }

  /// The constant for a Swift value, or `nil` when the value is not one a predicate can hold
  /// (arrays and sets are aggregates, not constants).
  public init?(_ value: Any?) {
    guard let value = value else {
      self = .null
      return
    }
    switch value {
    case let value as QueryValue: self = value
    case let value as QueryObject: self = .object(value)
    case let value as Bool: self = .boolean(value)
    case let value as Int: self = .integer(value)
    case let value as Double: self = .double(value)
    case let value as Float: self = .double(Double(value))
    case let value as Decimal: self = .decimal(value)
    case let value as String: self = .string(value)
    case let value as Substring: self = .string(String(value))
    case let value as Date: self = .date(value)
    case let value as Data: self = .binaryData(value)
    case let value as UUID: self = .uuid(value)
    case let value as URL: self = .uri(value)
    case let value as any BinaryInteger:
      guard let integer = Int(exactly: value) else { return nil }
      self = .integer(integer)
    case let value as any KeyValueReadable & AnyObject: self = .object(QueryObject(value))
    default:
      guard let optional = value as? any OptionalValue else { return nil }
      self.init(optional.wrappedValue)
    }
  }

  /// A short description of any value for error messages: `"Ann"`, `30`, `nil`, `an array`.
  static func describe(_ value: Any?) -> String {
    guard let value else { return "nil" }
    switch value {
    case let string as String: return "\"\(string)\""
    case is [Any]: return "a collection"
    case is Set<AnyHashable>: return "a collection"
    case let value as Date: return "the date \(value)"
    case is any KeyValueReadable: return "an object"
    default: return "\(value)"
    }
  }
}

extension QueryValue {
  /// Whether both are the same constant; see ``QueryValue``.
  public static func == (lhs: QueryValue, rhs: QueryValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): return true
    case (.boolean(let a), .boolean(let b)): return a == b
    case (.integer(let a), .integer(let b)): return a == b
    case (.double(let a), .double(let b)): return isSame(a, b)
    case (.decimal(let a), .decimal(let b)): return a == b
    case (.string(let a), .string(let b)): return a == b
    case (.date(let a), .date(let b)):
      return isSame(a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
    case (.binaryData(let a), .binaryData(let b)): return a == b
    case (.uuid(let a), .uuid(let b)): return a == b
    case (.uri(let a), .uri(let b)): return a == b
    case (.object(let a), .object(let b)): return a == b
    default: return false
    }
  }

  /// Hashes the constant consistently with ``==(_:_:)``.
  public func hash(into hasher: inout Hasher) {
    switch self {
    case .null: hasher.combine(0)
    case .boolean(let value): hasher.combine(value)
    case .integer(let value): hasher.combine(value)
    case .double(let value): hasher.combine(Self.identity(of: value))
    case .decimal(let value): hasher.combine(value)
    case .string(let value): hasher.combine(value)
    case .date(let value): hasher.combine(Self.identity(of: value.timeIntervalSinceReferenceDate))
    case .binaryData(let value): hasher.combine(value)
    case .uuid(let value): hasher.combine(value)
    case .uri(let value): hasher.combine(value)
    case .object(let value): hasher.combine(value)
    }
  }

  /// Whether two doubles print the same: both NaN, or equal with the same sign.
  private static func isSame(_ a: Double, _ b: Double) -> Bool {
    a.isNaN ? b.isNaN : a == b && a.sign == b.sign
  }

  /// The bits of a double, the same for every NaN.
  private static func identity(of value: Double) -> UInt64 {
    value.isNaN ? Double.nan.bitPattern : value.bitPattern
  }
}
