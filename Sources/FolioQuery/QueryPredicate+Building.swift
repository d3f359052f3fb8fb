import Foundation

/// A Swift value that can stand as a constant in a predicate built in code.
public protocol QueryValueConvertible {
  /// The constant.
  var queryValue: QueryValue { get }
}

extension Int: QueryValueConvertible {
  /// `.integer(self)`.
  public var queryValue: QueryValue { .integer(self) }
}

extension Double: QueryValueConvertible {
  /// `.double(self)`.
  public var queryValue: QueryValue { .double(self) }
}

extension Decimal: QueryValueConvertible {
  /// `.decimal(self)`.
  public var queryValue: QueryValue { .decimal(self) }
}

extension String: QueryValueConvertible {
  /// `.string(self)`.
  public var queryValue: QueryValue { .string(self) }
}

extension Bool: QueryValueConvertible {
  /// `.boolean(self)`.
  public var queryValue: QueryValue { .boolean(self) }
}

extension Date: QueryValueConvertible {
  /// `.date(self)`.
  public var queryValue: QueryValue { .date(self) }
}

extension UUID: QueryValueConvertible {
  /// `.uuid(self)`.
  public var queryValue: QueryValue { .uuid(self) }
}

extension QueryValue: QueryValueConvertible {
  /// `self`.
  public var queryValue: QueryValue { self }
}

extension QueryExpression {
  private func compared(
    _ op: QueryComparison.Operator, _ right: QueryExpression,
    _ options: QueryComparison.Options = []
  ) -> QueryPredicate {
    .comparison(QueryComparison(self, op, right, options: options))
  }

  /// `self == other`, for comparing two expressions (`==` compares with constants).
  public func equals(_ other: QueryExpression) -> QueryPredicate { compared(.equalTo, other) }

  /// `self BEGINSWITH[options] prefix`.
  public func beginsWith(_ prefix: String, _ options: QueryComparison.Options = [])
    -> QueryPredicate
  {
    compared(.beginsWith, .constant(.string(prefix)), options)
  }

  /// `self ENDSWITH[options] suffix`.
  public func endsWith(_ suffix: String, _ options: QueryComparison.Options = [])
    -> QueryPredicate
  {
    compared(.endsWith, .constant(.string(suffix)), options)
  }

  /// `self CONTAINS[options] value`: a substring, or an element of a collection.
  public func contains(
    _ value: some QueryValueConvertible, _ options: QueryComparison.Options = []
  ) -> QueryPredicate {
    compared(.contains, .constant(value.queryValue), options)
  }

  /// `self LIKE[options] pattern`.
  public func like(_ pattern: String, _ options: QueryComparison.Options = []) -> QueryPredicate {
    compared(.like, .constant(.string(pattern)), options)
  }

  /// `self MATCHES[options] pattern`.
  public func matches(_ pattern: String, _ options: QueryComparison.Options = [])
    -> QueryPredicate
  {
    compared(.matches, .constant(.string(pattern)), options)
  }

  /// `self IN {values…}`.
  public func isIn(_ values: [some QueryValueConvertible]) -> QueryPredicate {
    compared(.in, .aggregate(values.map { .constant($0.queryValue) }))
  }

  /// `self BETWEEN {lower, upper}`.
  public func isBetween(_ lower: some QueryValueConvertible, and upper: some QueryValueConvertible)
    -> QueryPredicate
  {
    compared(.between, .aggregate([.constant(lower.queryValue), .constant(upper.queryValue)]))
  }

  /// `self == nil`.
  public var isNil: QueryPredicate { compared(.equalTo, .constant(.null)) }

  /// `self == value`.
  public static func == (left: QueryExpression, right: some QueryValueConvertible)
    -> QueryPredicate
  {
    left.compared(.equalTo, .constant(right.queryValue))
  }

  /// `self != value`.
  public static func != (left: QueryExpression, right: some QueryValueConvertible)
    -> QueryPredicate
  {
    left.compared(.notEqualTo, .constant(right.queryValue))
  }

  /// `self < value`.
  public static func < (left: QueryExpression, right: some QueryValueConvertible)
    -> QueryPredicate
  {
    left.compared(.lessThan, .constant(right.queryValue))
  }

  /// `self <= value`.
  public static func <= (left: QueryExpression, right: some QueryValueConvertible)
    -> QueryPredicate
  {
    left.compared(.lessThanOrEqualTo, .constant(right.queryValue))
  }

  /// `self > value`.
  public static func > (left: QueryExpression, right: some QueryValueConvertible)
    -> QueryPredicate
  {
    left.compared(.greaterThan, .constant(right.queryValue))
  }

  /// `self >= value`.
  public static func >= (left: QueryExpression, right: some QueryValueConvertible)
    -> QueryPredicate
  {
    left.compared(.greaterThanOrEqualTo, .constant(right.queryValue))
  }
}

extension QueryPredicate {
  /// The key path `path`, to start a comparison where a predicate is expected:
  /// `.key("city").contains("zur", .caseInsensitive)`.
  public static func key(_ path: String) -> QueryExpression { .keyPath(path) }

  /// `ANY comparison`: the comparison holds for some element of its left collection.
  ///
  /// ```swift
  /// let big: QueryPredicate = .any(.key("spendings.amount") > 100)
  /// ```
  public static func any(_ predicate: QueryPredicate) -> QueryPredicate {
    predicate.modified(.any)
  }

  /// `ALL comparison`: the comparison holds for every element of its left collection.
  public static func all(_ predicate: QueryPredicate) -> QueryPredicate {
    predicate.modified(.all)
  }

  /// `NOT ANY comparison`, as Core Data reads `NONE`.
  public static func none(_ predicate: QueryPredicate) -> QueryPredicate {
    .not(predicate.modified(.any))
  }

  private func modified(_ modifier: QueryComparison.Modifier) -> QueryPredicate {
    guard case .comparison(var comparison) = self else { return self }
    comparison.modifier = modifier
    return .comparison(comparison)
  }

  /// Both hold; chains of `&&` make one `AND`.
  public static func && (left: QueryPredicate, right: QueryPredicate) -> QueryPredicate {
    if case .and(let parts) = left, parts.count > 1 { return .and(parts + [right]) }
    return .and([left, right])
  }

  /// Either holds; chains of `||` make one `OR`.
  public static func || (left: QueryPredicate, right: QueryPredicate) -> QueryPredicate {
    if case .or(let parts) = left, parts.count > 1 { return .or(parts + [right]) }
    return .or([left, right])
  }

  /// The predicate does not hold.
  public static prefix func ! (predicate: QueryPredicate) -> QueryPredicate {
    .not(predicate)
  }
}
