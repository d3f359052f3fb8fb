import Foundation

// Evaluation follows Core Data's in-memory rules:
//
// - `==` and `!=` compare any two values: numbers by value across Int, Double, Float and
//   Decimal (and Bool as 0 or 1), strings by Unicode canonical equivalence, objects by
//   identity, collections element by element. `nil == nil` holds; nil equals nothing else.
//   A NaN follows IEEE 754: equal to nothing, itself included, and ordering with it is false.
// - `<`, `<=`, `>`, `>=` and `BETWEEN` order numbers, strings and dates; with nil on either
//   side they are false, and with values that have no order between them they throw, rather
//   than answer false, so a typo in a predicate cannot pass for "no results".
// - String operators fold both sides with `[c]` and `[d]` (Unicode case folding, diacritic
//   removal) before comparing, and need strings; nil on either side is false.
// - `ANY`/`SOME` and `ALL` apply the comparison to each element of the left collection; `ALL`
//   holds for an empty one. `NONE` was parsed as `NOT ANY`, and errors under it say `NONE`.
// - Reading a key the object does not have throws `.unknownKey`, wrapping the object's error.

extension QueryPredicate {
  /// Whether `object` satisfies the predicate.
  ///
  /// ```swift
  /// let predicate = try QueryPredicate(format: "ANY spendings.amount > $limit")
  /// try predicate.evaluate(with: person, variables: ["limit": 100])
  /// ```
  ///
  /// - Parameters:
  ///   - object: The object key paths start from, and `SELF`.
  ///   - variables: Values for `$VARIABLE`s still in the predicate.
  /// - Throws: `QueryError.unknownKey` for a key `object` (or an object reached from it) does
  ///   not have; `.invalidKeyPath`, `.invalidOperand`, `.invalidRegularExpression`, and
  ///   `.unboundVariable` for a variable missing from `variables`.
  /// - Complexity: O(*n*) in the values the key paths reach.
  public func evaluate(with object: some KeyValueReadable, variables: [String: Any?] = [:])
    throws(QueryError) -> Bool
  {
    var evaluator = PredicateEvaluator(variables: variables)
    return try evaluator.evaluate(self, on: object)
  }
}

extension QueryExpression {
  /// The value of the expression for `object`: a key path's value, a constant, a list.
  ///
  /// - Throws: as ``QueryPredicate/evaluate(with:variables:)``.
  public func value(with object: some KeyValueReadable, variables: [String: Any?] = [:])
    throws(QueryError) -> Any?
  {
    var evaluator = PredicateEvaluator(variables: variables)
    return try evaluator.value(of: self, on: object)
  }
}

struct PredicateEvaluator {
  var variables: [String: Any?]

  mutating func evaluate(_ predicate: QueryPredicate, on object: Any?) throws(QueryError) -> Bool {
    switch predicate {
    case .constant(let value): return value
    case .and(let parts):
      for part in parts where !(try evaluate(part, on: object)) { return false }
      return true
    case .or(let parts):
      for part in parts where try evaluate(part, on: object) { return true }
      return false
    case .not(.comparison(let comparison)) where comparison.modifier == .any:
      // `NONE x op y` was parsed as this `NOT ANY x op y`, so its errors name NONE.
      return !(try evaluate(comparison, on: object, modifierName: "NONE"))
    case .not(let inner): return !(try evaluate(inner, on: object))
    case .comparison(let comparison): return try evaluate(comparison, on: object)
    }
  }

  /// - Parameter modifierName: How errors name the modifier; `ANY` or `ALL` by default.
  mutating func evaluate(
    _ comparison: QueryComparison, on object: Any?, modifierName: String? = nil
  ) throws(QueryError) -> Bool {
    // The list that IN or CONTAINS searches keeps its nil elements: `nil IN {nil}` holds, as
    // NSPredicate finds a nil in an array holding NSNull. Everywhere else a list drops them.
    let isSearchedOnLeft = comparison.operator == .contains && comparison.modifier == .direct
    let left = try value(of: comparison.left, on: object, keepingNils: isSearchedOnLeft)
    let right = try value(
      of: comparison.right, on: object, keepingNils: comparison.operator == .in)
    switch comparison.modifier {
    case .direct:
      return try compare(left, comparison.operator, right, options: comparison.options)
    case .any, .all:
      let name = modifierName ?? (comparison.modifier == .any ? "ANY" : "ALL")
      let elements: [Any]
      if left == nil {
        elements = []
      } else if let collection = KeyPathWalker.elements(of: left) {
        elements = collection
      } else {
        throw QueryError.notACollection(left, for: name)
      }
      for element in elements {
        let holds = try compare(element, comparison.operator, right, options: comparison.options)
        if comparison.modifier == .any, holds { return true }
        if comparison.modifier == .all, !holds { return false }
      }
      return comparison.modifier == .all
    }
  }

  /// - Parameter keepingNils: Whether a `{…}` list keeps its nil elements, as `nil` boxed in
  ///   `Any`, rather than dropping them.
  mutating func value(
    of expression: QueryExpression, on object: Any?, keepingNils: Bool = false
  ) throws(QueryError) -> Any? {
    switch expression {
    case .constant(let value): return value.anyValue
    case .evaluatedObject: return object
    case .keyPath(let path): return try KeyPathWalker(path: path).value(from: object)
    case .variable(let name):
      guard let value = variables[name] else { throw QueryError.unboundVariable(name) }
      return value
    case .keyPathFrom(let base, let path):
      return try KeyPathWalker(path: path).value(from: try value(of: base, on: object))
    case .aggregate(let elements):
      var values: [Any] = []
      for element in elements {
        if let value = try value(of: element, on: object) {
          values.append(value)
        } else if keepingNils {
          values.append(Any?.none as Any)
        }
      }
      return values
    case .subquery(let collection, let variable, let predicate):
      let source = try value(of: collection, on: object)
      guard let elements = KeyPathWalker.elements(of: source) else {
        if source == nil { return [Any]() }
        throw QueryError.notACollection(source, for: "SUBQUERY")
      }
      let saved = variables[variable]
      defer { variables[variable] = saved }
      var matches: [Any] = []
      for element in elements {
        variables[variable] = element
        if try evaluate(predicate, on: element) { matches.append(element) }
      }
      return matches
    case .function(let name, let arguments):
      var values: [Any?] = []
      for argument in arguments { values.append(try value(of: argument, on: object)) }
      return try QueryFunctions.evaluate(name, values)
    case .conditional(let predicate, let whenTrue, let whenFalse):
      return try value(
        of: try evaluate(predicate, on: object) ? whenTrue : whenFalse, on: object)
    }
  }

  mutating func compare(
    _ left: Any?, _ op: QueryComparison.Operator, _ right: Any?,
    options: QueryComparison.Options
  ) throws(QueryError) -> Bool {
    switch op {
    case .equalTo: return QueryValues.equal(left, right, options: options)
    case .notEqualTo: return !QueryValues.equal(left, right, options: options)
    case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
      guard let order = try QueryValues.order(left, right, options: options, operator: op.symbol)
      else { return false }
      switch op {
      case .lessThan: return order == .orderedAscending
      case .lessThanOrEqualTo: return order != .orderedDescending
      case .greaterThan: return order == .orderedDescending
      default: return order != .orderedAscending
      }
    case .between:
      guard let bounds = KeyPathWalker.elements(of: right), bounds.count == 2 else {
        throw QueryError.badBounds(right)
      }
      guard let low = try QueryValues.order(left, bounds[0], options: options, operator: "BETWEEN"),
        let high = try QueryValues.order(left, bounds[1], options: options, operator: "BETWEEN")
      else { return false }
      return low != .orderedAscending && high != .orderedDescending
    case .in:
      guard let right else { return false }
      if let elements = KeyPathWalker.elements(of: right) {
        // `flatten` reads a kept nil (or an optional in a variable's array) as nil.
        return elements.contains {
          QueryValues.equal(left, KeyPathWalker.flatten($0), options: options)
        }
      }
      if let haystack = right as? String {
        guard let needle = left as? String else {
          if left == nil { return false }
          throw QueryError.notAString(left, operator: "IN")
        }
        return QueryComparison.Operator.in.finds(
          QueryValues.fold(needle, options), in: QueryValues.fold(haystack, options))
      }
      throw QueryError.notACollection(right, for: "IN")
    case .contains:
      if let elements = KeyPathWalker.elements(of: left) {
        return elements.contains {
          QueryValues.equal(KeyPathWalker.flatten($0), right, options: options)
        }
      }
      return try strings(left, right, op, fold: options) { op.finds($1, in: $0) }
    case .beginsWith, .endsWith:
      return try strings(left, right, op, fold: options) { op.finds($1, in: $0) }
    case .like:
      return try strings(left, right, op, fold: options) { QueryValues.like($0, pattern: $1) }
    case .matches:
      guard let subject = try string(left, op), let pattern = try string(right, op) else {
        return false
      }
      return try matches(subject, pattern: pattern, options: options)
    case .utiConformsTo, .utiEquals:
      // No type hierarchy on Linux: an identifier conforms to itself, without case.
      return try strings(left, right, op, fold: .caseInsensitive) { $0 == $1 }
    }
  }

  private func string(_ value: Any?, _ op: QueryComparison.Operator) throws(QueryError)
    -> String?
  {
    guard let value else { return nil }
    guard let string = value as? String else {
      throw QueryError.notAString(value, operator: op.symbol)
    }
    return string
  }

  private func strings(
    _ left: Any?, _ right: Any?, _ op: QueryComparison.Operator,
    fold options: QueryComparison.Options, _ test: (String, String) -> Bool
  ) throws(QueryError) -> Bool {
    guard let left = try string(left, op), let right = try string(right, op) else { return false }
    return test(QueryValues.fold(left, options), QueryValues.fold(right, options))
  }

  mutating func matches(_ subject: String, pattern: String, options: QueryComparison.Options)
    throws(QueryError) -> Bool
  {
    // `[n]` supersedes `[c]` and `[d]`: the strings are folded already.
    let options: QueryComparison.Options = options.contains(.normalized) ? [] : options
    let expression = try RegularExpressionCache.shared.expression(pattern, options: options)
    let text =
      options.contains(.diacriticInsensitive)
      ? QueryValues.fold(subject, .diacriticInsensitive) : subject
    let range = NSRange(text.startIndex..<text.endIndex, in: text)
    return expression.firstMatch(in: text, options: [], range: range) != nil
  }
}

/// The compiled regular expressions of `MATCHES`, shared by every evaluation in the process.
///
/// A fetch evaluates its predicate once per object, so without it each object compiled the
/// pattern anew; and swift-corelibs-foundation's `NSRegularExpression` loses its UTF-16 copy
/// of every pattern longer than 256 units it compiles (about 2 bytes per unit, each time),
/// which a fetch over many objects multiplied. Compiled once here,
/// a pattern costs that once while it stays among the last ``capacity`` used. An
/// `NSRegularExpression` is immutable and safe to match from any thread.
final class RegularExpressionCache: @unchecked Sendable {
  static let shared = RegularExpressionCache()
  /// How many compiled patterns are kept; past it, the cache starts again empty.
  static let capacity = 256

  private let lock = NSLock()
  private var expressions: [String: NSRegularExpression] = [:]

  /// `pattern`, compiled to match a whole string with `options`' case rule, its diacritics
  /// folded first when `options` says so.
  ///
  /// - Throws: `QueryError.invalidPattern` when the pattern does not compile.
  func expression(_ pattern: String, options: QueryComparison.Options) throws(QueryError)
    -> NSRegularExpression
  {
    let key = Self.key(pattern, options)
    if let cached = lock.withLock({ expressions[key] }) { return cached }
    let source =
      options.contains(.diacriticInsensitive)
      ? QueryValues.fold(pattern, .diacriticInsensitive) : pattern
    let expression: NSRegularExpression
    do {
      expression = try NSRegularExpression(
        pattern: "\\A(?:" + source + ")\\z",
        options: options.contains(.caseInsensitive) ? [.caseInsensitive] : [])
    } catch {
      throw QueryError.invalidPattern(pattern, underlying: error)
    }
    lock.withLock {
      if expressions.count >= Self.capacity { expressions.removeAll(keepingCapacity: true) }
      expressions[key] = expression
      compilations += 1
    }
    return expression
  }

  /// Whether `pattern` with `options` is compiled and kept.
  func contains(_ pattern: String, options: QueryComparison.Options) -> Bool {
    lock.withLock { expressions[Self.key(pattern, options)] != nil }
  }

  private static func key(_ pattern: String, _ options: QueryComparison.Options) -> String {
    options.symbol + "\u{0}" + pattern
  }

  /// How many compiled patterns are kept now.
  var count: Int { lock.withLock { expressions.count } }
  /// How many patterns have been compiled since the process started.
  var compilationCount: Int { lock.withLock { compilations } }
  private var compilations = 0
}
