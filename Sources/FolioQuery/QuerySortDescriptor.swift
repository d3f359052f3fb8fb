import Foundation

/// An order on objects by the value at a key path, as Core Data's `NSSortDescriptor` states it.
///
/// Values compare as predicates compare them: numbers by value across types, strings, dates;
/// `nil` sorts before every value when ascending (and so after them when descending), as in
/// Core Data. Strings compare by Unicode canonical equivalence, or as ``Comparison`` says. A
/// NaN, which predicates leave unordered, sorts where NSNumber's `compare:` puts it: after
/// every number below zero, before zero and every number above it, tied with other NaNs.
///
/// ```swift
/// let byCity = QuerySortDescriptor(keyPath: "city", comparison: .localizedStandard)
/// let oldestFirst = QuerySortDescriptor(keyPath: "age", ascending: false)
/// let sorted = try people.sorted(by: [byCity, oldestFirst])
/// ```
public struct QuerySortDescriptor: Sendable, Hashable, CustomStringConvertible {
  /// How strings compare.
  public enum Comparison: Sendable, Hashable {
    /// By Unicode canonical equivalence, case and diacritics counting.
    case `default`
    /// Without case, by Unicode case folding (`compare:` with `caseInsensitiveCompare:`).
    case caseInsensitive
    /// As the Finder sorts names: without case, with digits compared as numbers
    /// (`"file 2"` before `"file 10"`), as `localizedStandardCompare(_:)` does.
    case localizedStandard
  }

  /// The key path whose values are compared, with collection operators.
  public var keyPath: String
  /// Whether smaller values come first. The default is `true`.
  public var ascending: Bool
  /// How strings compare. The default is `.default`.
  public var comparison: Comparison

  /// Creates a sort descriptor.
  public init(keyPath: String, ascending: Bool = true, comparison: Comparison = .default) {
    self.keyPath = keyPath
    self.ascending = ascending
    self.comparison = comparison
  }

  /// `keyPath ascending` or `keyPath descending`, with the comparison when not the default.
  public var description: String {
    let direction = ascending ? "ascending" : "descending"
    switch comparison {
    case .default: return "\(keyPath) \(direction)"
    case .caseInsensitive: return "\(keyPath) \(direction) case-insensitive"
    case .localizedStandard: return "\(keyPath) \(direction) localized-standard"
    }
  }

  /// The order of two objects by this descriptor.
  ///
  /// - Throws: `QueryError.unknownKey` for a key an object does not have; `.invalidOperand`
  ///   for values with no order between them.
  public func compare(_ first: some KeyValueReadable, _ second: some KeyValueReadable)
    throws(QueryError) -> ComparisonResult
  {
    let walker = KeyPathWalker(path: keyPath)
    return try compareValues(try walker.value(from: first), try walker.value(from: second))
  }

  /// The value `element` is sorted by: what ``keyPath`` reads from it.
  ///
  /// - Throws: `QueryError.unknownKey` for a key `element` does not have.
  public func key(of element: some KeyValueReadable) throws(QueryError) -> Any? {
    try KeyPathWalker(path: keyPath).value(from: element)
  }

  /// The order of two values read at ``keyPath``, with direction applied.
  func compareValues(_ first: Any?, _ second: Any?) throws(QueryError) -> ComparisonResult {
    let order = try Self.ascendingOrder(first, second, comparison: comparison)
    guard !ascending else { return order }
    switch order {
    case .orderedAscending: return .orderedDescending
    case .orderedDescending: return .orderedAscending
    case .orderedSame: return .orderedSame
    }
  }

  static func ascendingOrder(_ first: Any?, _ second: Any?, comparison: Comparison)
    throws(QueryError) -> ComparisonResult
  {
    switch (first, second) {
    case (nil, nil): return .orderedSame
    case (nil, _): return .orderedAscending
    case (_, nil): return .orderedDescending
    default: break
    }
    if let a = first as? String, let b = second as? String {
      switch comparison {
      case .default:
        return QueryValues.order3(a, b)
      case .caseInsensitive:
        return QueryValues.order3(
          QueryValues.fold(a, .caseInsensitive), QueryValues.fold(b, .caseInsensitive))
      case .localizedStandard:
        return a.localizedStandardCompare(b)
      }
    }
    if let first, let second, let a = QueryValues.number(first),
      let b = QueryValues.number(second)
    {
      return QueryValues.sortOrder(a, b)
    }
    return try QueryValues.order(first, second, options: [], operator: "with")
      ?? .orderedSame
  }
}

extension QueryValues {
  package static func order3<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
    a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
  }
}

extension Sequence where Element: KeyValueReadable {
  /// The elements ordered by `descriptors`: by the first, ties broken by the next, and so on;
  /// elements that tie on every descriptor keep their order (the sort is stable).
  ///
  /// Each key path is read once per element.
  ///
  /// - Throws: as ``QuerySortDescriptor/compare(_:_:)``.
  /// - Complexity: O(*n* log *n*) comparisons, plus reading each key path once per element.
  public func sorted(by descriptors: [QuerySortDescriptor]) throws(QueryError) -> [Element] {
    let walkers = descriptors.map { KeyPathWalker(path: $0.keyPath) }
    return try sorted(by: descriptors) { element, column throws(QueryError) in
      try walkers[column].value(from: element)
    }
  }
}

extension Sequence {
  /// The elements ordered by `descriptors`, each element's key for descriptor *i* read by
  /// `key(element, i)` — for callers that can read keys faster than through key paths. The
  /// keys must be what the descriptors' key paths would read.
  ///
  /// - Throws: what `key` throws, and as ``QuerySortDescriptor/compare(_:_:)``.
  /// - Complexity: O(*n* log *n*) comparisons, plus one `key` call per element and descriptor.
  public func sorted(
    by descriptors: [QuerySortDescriptor],
    key: (Element, Int) throws(QueryError) -> Any?
  ) throws(QueryError) -> [Element] {
    let elements = Array(self)
    var keys: [QuerySortKeys] = []
    for column in descriptors.indices {
      var values: [Any?] = []
      values.reserveCapacity(elements.count)
      for element in elements { values.append(try key(element, column)) }
      keys.append(.values(values))
    }
    return try elements.sorted(by: descriptors, keys: keys)
  }

  /// The elements ordered by `descriptors`, with the keys for descriptor *i* read ahead in
  /// `keys[i]`, one per element in order — typed, when the caller knows the type, so that no
  /// key is boxed or cast. The keys must be what the descriptors' key paths would read.
  ///
  /// - Throws: as ``QuerySortDescriptor/compare(_:_:)``.
  /// - Precondition: one key column per descriptor, one key per element in each.
  package func sorted(by descriptors: [QuerySortDescriptor], keys: [QuerySortKeys])
    throws(QueryError) -> [Element]
  {
    let elements = Array(self)
    return try QuerySortKeys.order(count: elements.count, by: descriptors, keys: keys).map {
      elements[$0]
    }
  }
}
