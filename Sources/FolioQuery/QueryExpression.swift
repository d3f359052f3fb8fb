/// One side of a comparison: a key path, a constant, `SELF`, a variable, a `{…}` list, a
/// `SUBQUERY`, or arithmetic over them.
///
/// Build expressions with ``key(_:)`` and the comparison operators, or parse them as part of
/// a ``QueryPredicate``.
public indirect enum QueryExpression: Sendable, Hashable {
  /// A constant: `30`, `"Ann"`, `nil`, a `%@` argument.
  case constant(QueryValue)
  /// `SELF`: the object being evaluated.
  case evaluatedObject
  /// A key path from the evaluated object, with collection operators:
  /// `friend.name`, `spendings.@sum.amount`.
  case keyPath(String)
  /// A `$VARIABLE`, given at evaluation time or by substitution.
  case variable(String)
  /// A key path from another expression: `$x.name`, `SUBQUERY(…).@count`.
  case keyPathFrom(QueryExpression, String)
  /// A list of expressions: `{1, 2, 3}`, the right side of `IN` and `BETWEEN`.
  case aggregate([QueryExpression])
  /// `SUBQUERY(collection, $variable, predicate)`: the elements of `collection` for which
  /// `predicate` holds, with `$variable` bound to each in turn.
  case subquery(QueryExpression, variable: String, QueryPredicate)
  /// One of NSExpression's functions, by its selector-style name, applied to `arguments`:
  /// `a + b` is `.function("add:to:", [a, b])`, `-x` is `.function("from:subtract:", [0, x])`
  /// and `~x` is `.function("onesComplement:", [x])`.
  ///
  /// `FUNCTION(receiver, "selector:", arguments…)` is `.function("FUNCTION", [receiver,
  /// "selector:", arguments…])`, and `CAST(value, "NSNumber")` of a value that is not a
  /// constant is `.function("castObject:toType:", [value, "NSNumber"])`.
  case function(String, [QueryExpression])
  /// `TERNARY(predicate, whenTrue, whenFalse)`: `whenTrue` where the predicate holds,
  /// `whenFalse` where it does not.
  case conditional(QueryPredicate, QueryExpression, QueryExpression)

  /// The key path `path` from the evaluated object: `.key("friend.name")`.
  public static func key(_ path: String) -> QueryExpression { .keyPath(path) }

  /// A constant: `.value(30)`.
  public static func value(_ value: some QueryValueConvertible) -> QueryExpression {
    .constant(value.queryValue)
  }

  /// The key path `path` from this expression: `.variable("x").key("age")`.
  public func key(_ path: String) -> QueryExpression {
    switch self {
    case .evaluatedObject: return .keyPath(path)
    case .keyPath(let base): return .keyPath(base + "." + path)
    case .keyPathFrom(let base, let rest): return .keyPathFrom(base, rest + "." + path)
    default: return .keyPathFrom(self, path)
    }
  }
}
