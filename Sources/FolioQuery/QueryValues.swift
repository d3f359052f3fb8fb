import Foundation

/// Equality, order and arithmetic over the mixed values key paths return.
enum QueryValues {
  enum Number {
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

    var decimal: Decimal {
      switch self {
      case .integer(let value): return Decimal(value)
      case .double(let value): return Decimal(value)
      case .decimal(let value): return value
      }
    }
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

  static func compare(_ left: Number, _ right: Number) -> ComparisonResult {
    switch (left, right) {
    case (.integer(let a), .integer(let b)):
      return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
    case (.decimal, .decimal), (.decimal, .integer), (.integer, .decimal):
      let a = left.decimal
      let b = right.decimal
      return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
    default:
      let a = left.double
      let b = right.double
      return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
    }
  }

  /// `text` without case (Unicode case folding) and/or diacritics, as `options` ask.
  static func fold(_ text: String, _ options: QueryComparison.Options) -> String {
    guard !options.isEmpty else { return text }
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

  static func isObject(_ value: Any) -> Bool {
    value is any KeyValueReadable && type(of: value) is AnyClass
  }

  /// Whether two values are equal under Core Data's rules (see the evaluator's notes).
  static func equal(_ left: Any?, _ right: Any?, options: QueryComparison.Options) -> Bool {
    guard let left, let right else { return left == nil && right == nil }
    if let a = number(left), let b = number(right) { return compare(a, b) == .orderedSame }
    if let a = left as? String, let b = right as? String {
      return fold(a, options) == fold(b, options)
    }
    if isObject(left) || isObject(right) {
      return isObject(left) && isObject(right) && (left as AnyObject) === (right as AnyObject)
    }
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

  /// The order of two values, `nil` when either is nil.
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
      case (.decimal, _), (_, .decimal): total = .decimal(total.decimal + number.decimal)
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
    if let decimal = total as? Decimal { return decimal / Decimal(values.count) }
    return (number(total)?.double ?? 0) / Double(values.count)
  }

  static func extreme(_ values: [Any], keepLess: Bool) throws(QueryError) -> Any? {
    var best: Any?
    for value in values {
      guard let current = best else {
        best = value
        continue
      }
      let order = try order(value, current, options: [], operator: keepLess ? "@min" : "@max")
      if order == (keepLess ? .orderedAscending : .orderedDescending) { best = value }
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
