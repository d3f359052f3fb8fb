import Foundation

/// Equality, order and arithmetic over the mixed values key paths return.
///
/// Numbers compare by value across types, and exactly: an integer and a double are compared
/// as the numbers they are, not through a double that may round the integer (2⁵³ + 1 is
/// greater than the double 2⁵³). A NaN has two orders. Predicates follow IEEE 754: a NaN is
/// equal to nothing, itself included, and neither less nor greater than anything
/// (`compare` answers `nil`). Sorting, `@min` and `@max` need a total order, and use
/// NSNumber's `compare:` placement (`sortOrder`): every NaN equal to
/// every other, after every number below zero and before zero and every number above it.
package enum QueryValues {
  package enum Number {
    case integer(Int)
    case double(Double)
    case decimal(Decimal)

    var double: Double {
      switch self {
      case .integer(let value): return Double(value)
      case .double(let value): return value
      case .decimal(let value): return NSDecimalNumber(decimal: value).doubleValue
      }
    }

    /// The number as a decimal; `nil` for a double a decimal cannot hold (an infinity, NaN,
    /// or a magnitude beyond 10³⁸ or below 10⁻³⁸, where Foundation's conversion traps or loses
    /// the value).
    package var decimal: Decimal? {
      switch self {
      case .integer(let value): return Decimal(value)
      case .double(let value):
        guard value.isFinite, value == 0 || (1e-38...1e38).contains(value.magnitude) else {
          return nil
        }
        return Decimal(value)
      case .decimal(let value): return value
      }
    }

    var isDecimal: Bool {
      if case .decimal = self { return true }
      return false
    }

    var isNaN: Bool {
      switch self {
      case .integer: return false
      case .double(let value): return value.isNaN
      case .decimal(let value): return value.isNaN
      }
    }

    /// Whether the number is below zero; -0.0 is not.
    var isBelowZero: Bool {
      switch self {
      case .integer(let value): return value < 0
      case .double(let value): return value < 0
      case .decimal(let value): return value < 0
      }
    }
  }

  enum DecimalOperation { case add, subtract, multiply, divide }

  /// `a` and `b` combined in decimal arithmetic, or `nil` when the result does not fit a
  /// decimal (Foundation's operators trap on overflow; its functions report it) or `b` is a
  /// zero divisor.
  static func decimal(_ operation: DecimalOperation, _ a: Decimal, _ b: Decimal) -> Decimal? {
    var (x, y, result) = (a, b, Decimal())
    let error: NSDecimalNumber.CalculationError =
      switch operation {
      case .add: NSDecimalAdd(&result, &x, &y, .plain)
      case .subtract: NSDecimalSubtract(&result, &x, &y, .plain)
      case .multiply: NSDecimalMultiply(&result, &x, &y, .plain)
      case .divide: NSDecimalDivide(&result, &x, &y, .plain)
      }
    return error == .noError || error == .lossOfPrecision ? result : nil
  }

  /// `value` as a number: any integer type, `Double`, `Float`, `Decimal`, and `Bool` as 0 or 1.
  static func number(_ value: Any) -> Number? {
    switch value {
    case let value as Int: return .integer(value)
    case let value as Double: return .double(value)
    case let value as Float: return .double(Double(value))
    case let value as Decimal: return .decimal(value)
    case let value as Bool: return .integer(value ? 1 : 0)
    case let value as any BinaryInteger:
      return Int(exactly: value).map { .integer($0) } ?? .double(Double(value))
    default: return nil
    }
  }

  /// The order of two numbers by value, as predicates compare them, or `nil` when either is a
  /// NaN, which IEEE 754 leaves unordered. Integers compare exactly with integers and doubles,
  /// decimals with decimals and integers; any other pair through doubles.
  static func compare(_ left: Number, _ right: Number) -> ComparisonResult? {
    switch (left, right) {
    case (.integer(let a), .integer(let b)):
      return order3(a, b)
    case (.integer(let a), .double(let b)):
      return compare(a, b)
    case (.double(let a), .integer(let b)):
      return compare(b, a).map(reversed)
    case (.decimal, .decimal), (.decimal, .integer), (.integer, .decimal):
      guard !left.isNaN, !right.isNaN, let a = left.decimal, let b = right.decimal else {
        return nil
      }
      return order3(a, b)
    default:
      return compare(left.double, right.double)
    }
  }

  /// The order of two doubles, or `nil` when either is a NaN.
  package static func compare(_ left: Double, _ right: Double) -> ComparisonResult? {
    left < right
      ? .orderedAscending : left > right ? .orderedDescending : left == right ? .orderedSame : nil
  }

  /// The order of an integer and a double by their exact values, or `nil` when the double is
  /// a NaN.
  package static func compare(_ integer: Int, _ double: Double) -> ComparisonResult? {
    guard !double.isNaN else { return nil }
    // A double at or beyond ±2⁶³ is beyond every Int; any other has an Int integral part.
    if double >= 0x1p63 { return .orderedAscending }
    if double < -0x1p63 { return .orderedDescending }
    let whole = double.rounded(.towardZero)
    let wholeInteger = Int(whole)
    guard integer == wholeInteger else { return order3(integer, wholeInteger) }
    return order3(whole, double)
  }

  /// The order in which sorting, `@min` and `@max` put two numbers: as `compare`, and
  /// a NaN the same as another NaN, after every number below zero and before zero and every
  /// number above it — where NSNumber's `compare:` puts it.
  static func sortOrder(_ left: Number, _ right: Number) -> ComparisonResult {
    if let order = compare(left, right) { return order }
    switch (left.isNaN, right.isNaN) {
    case (true, true): return .orderedSame
    case (true, false): return right.isBelowZero ? .orderedDescending : .orderedAscending
    default: return left.isBelowZero ? .orderedAscending : .orderedDescending
    }
  }

  /// `sortOrder` for two doubles.
  static func sortOrder(_ left: Double, _ right: Double) -> ComparisonResult {
    if left < right { return .orderedAscending }
    if left > right { return .orderedDescending }
    if left == right { return .orderedSame }
    return sortOrder(.double(left), .double(right))
  }

  package static func reversed(_ order: ComparisonResult) -> ComparisonResult {
    switch order {
    case .orderedAscending: return .orderedDescending
    case .orderedDescending: return .orderedAscending
    case .orderedSame: return .orderedSame
    }
  }

  /// `text` without case (Unicode case folding) and/or diacritics, as `options` ask; as it is
  /// under `[n]`, whose strings are folded already.
  static func fold(_ text: String, _ options: QueryComparison.Options) -> String {
    guard !options.isEmpty, !options.contains(.normalized) else { return text }
    if text.utf8.allSatisfy({ $0 < 0x80 }) {
      // ASCII has no diacritics, and its case folding is A–Z to a–z: no Foundation call.
      guard options.contains(.caseInsensitive),
        text.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A })
      else { return text }
      return String(
        decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
    var folding: String.CompareOptions = []
    if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
    if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
    return text.folding(options: folding, locale: nil)
  }

  /// The identity of an object of the graph, or of a ``QueryObject`` wrapping one; `nil` for
  /// any other value.
  static func objectIdentity(_ value: Any) -> ObjectIdentifier? {
    if let wrapped = value as? QueryObject { return wrapped.identity }
    guard value is any KeyValueReadable, type(of: value) is AnyClass else { return nil }
    return ObjectIdentifier(value as AnyObject)
  }

  /// Whether two values are equal under Core Data's rules (see the evaluator's notes).
  static func equal(_ left: Any?, _ right: Any?, options: QueryComparison.Options) -> Bool {
    guard let left, let right else { return left == nil && right == nil }
    if let a = number(left), let b = number(right) { return compare(a, b) == .orderedSame }
    if let a = left as? String, let b = right as? String {
      return fold(a, options) == fold(b, options)
    }
    let leftObject = objectIdentity(left)
    let rightObject = objectIdentity(right)
    if leftObject != nil || rightObject != nil { return leftObject == rightObject }
    if let a = KeyPathWalker.elements(of: left), let b = KeyPathWalker.elements(of: right) {
      guard a.count == b.count else { return false }
      if left is Set<AnyHashable> || right is Set<AnyHashable> {
        return b.allSatisfy { element in a.contains { equal($0, element, options: options) } }
      }
      return zip(a, b).allSatisfy { equal($0, $1, options: options) }
    }
    if let a = left as? AnyHashable, let b = right as? AnyHashable { return a == b }
    return false
  }

  /// The order of two values, `nil` when either is nil or a NaN (every comparison is then
  /// false).
  ///
  /// - Throws: `.invalidOperand` when the values have no order between them.
  static func order(
    _ left: Any?, _ right: Any?, options: QueryComparison.Options, operator name: String
  ) throws(QueryError) -> ComparisonResult? {
    guard let left, let right else { return nil }
    if let a = number(left), let b = number(right) { return compare(a, b) }
    if let a = left as? String, let b = right as? String {
      let x = fold(a, options)
      let y = fold(b, options)
      return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
    }
    if let a = left as? Date, let b = right as? Date {
      return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
    }
    throw QueryError.notOrderable(left, right, operator: name)
  }

  /// `LIKE`: `*` matches any run of characters, `?` exactly one; the whole string must match.
  static func like(_ text: String, pattern: String) -> Bool {
    let text = Array(text)
    let pattern = Array(pattern)
    var t = 0
    var p = 0
    var star: Int?
    var resume = 0
    while t < text.count {
      if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
        t += 1
        p += 1
      } else if p < pattern.count, pattern[p] == "*" {
        star = p
        resume = t
        p += 1
      } else if let star {
        p = star + 1
        resume += 1
        t = resume
      } else {
        return false
      }
    }
    while p < pattern.count, pattern[p] == "*" { p += 1 }
    return p == pattern.count
  }

  static func sum(_ values: [Any], step: String, path: String) throws(QueryError) -> Any {
    var total = Number.integer(0)
    for value in values {
      guard let number = number(value) else {
        throw QueryError.notANumber(step, in: path, found: value)
      }
      switch (total, number) {
      case (.integer(let a), .integer(let b)):
        let (result, overflow) = a.addingReportingOverflow(b)
        total = overflow ? .double(Double(a) + Double(b)) : .integer(result)
      case (.decimal, _), (_, .decimal):
        // A sum a decimal cannot hold goes on in doubles, as an integer sum that overflows does.
        if let a = total.decimal, let b = number.decimal, let sum = decimal(.add, a, b) {
          total = .decimal(sum)
        } else {
          total = .double(total.double + number.double)
        }
      default: total = .double(total.double + number.double)
      }
    }
    switch total {
    case .integer(let value): return value
    case .double(let value): return value
    case .decimal(let value): return value
    }
  }

  static func average(_ values: [Any], step: String, path: String) throws(QueryError) -> Any? {
    guard !values.isEmpty else { return nil }
    let total = try sum(values, step: step, path: path)
    if let total = total as? Decimal, let mean = decimal(.divide, total, Decimal(values.count)) {
      return mean
    }
    return (number(total)?.double ?? 0) / Double(values.count)
  }

  static func extreme(_ values: [Any], keepLess: Bool) throws(QueryError) -> Any? {
    var best: Any?
    for value in values {
      guard let current = best else {
        best = value
        continue
      }
      // Numbers as sorting orders them, so that a NaN has a place.
      let result: ComparisonResult?
      if let a = number(value), let b = number(current) {
        result = sortOrder(a, b)
      } else {
        result = try order(value, current, options: [], operator: keepLess ? "@min" : "@max")
      }
      if result == (keepLess ? .orderedAscending : .orderedDescending) { best = value }
    }
    return best
  }

  static func distinct(_ values: [Any]) -> [Any] {
    var kept: [Any] = []
    for value in values where !kept.contains(where: { equal($0, value, options: []) }) {
      kept.append(value)
    }
    return kept
  }
}

extension QueryComparison.Options {
  /// `text` as a comparison with these options sees it: case-folded for `[c]`, without
  /// diacritics for `[d]`, unchanged when there are no options.
  public func fold(_ text: String) -> String { QueryValues.fold(text, self) }
}

extension QueryComparison.Operator {
  /// Whether this string operator finds `needle` in `haystack`, both already folded:
  /// `BEGINSWITH` at the start, `ENDSWITH` at the end, `CONTAINS` (and `IN`, its mirror)
  /// anywhere.
  ///
  /// An empty needle is found nowhere, not even in an empty haystack, as NSString's
  /// `hasPrefix:`, `hasSuffix:` and `range(of:)` answer. Evaluation and the fetch plan's
  /// compiled string tests both call this, so they cannot disagree.
  package func finds(_ needle: String, in haystack: String) -> Bool {
    guard !needle.isEmpty else { return false }
    switch self {
    case .beginsWith: return haystack.hasPrefix(needle)
    case .endsWith: return haystack.hasSuffix(needle)
    default: return haystack.contains(needle)
    }
  }
}
