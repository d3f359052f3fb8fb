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
    if let a = QueryValues.number(first), let b = QueryValues.number(second) {
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
  public func sorted(by descriptors: [QuerySortDescriptor], keys: [QuerySortKeys])
    throws(QueryError) -> [Element]
  {
    let elements = Array(self)
    return try QuerySortKeys.order(count: elements.count, by: descriptors, keys: keys).map {
      elements[$0]
    }
  }
}

extension QuerySortKeys {
  /// The positions `0..<count` in the order of `descriptors`, with the keys for descriptor *i*
  /// in `keys[i]`, one per position: `result[k]` is the position of the *k*-th element in
  /// order. Positions that tie on every descriptor keep their order (the sort is stable).
  ///
  /// This is ``Swift/Sequence/sorted(by:keys:)`` without the elements, for callers that hold
  /// their elements elsewhere (a fetch sorts rows and makes objects of the window alone).
  ///
  /// - Throws: as ``QuerySortDescriptor/compare(_:_:)``.
  /// - Precondition: one key column per descriptor, `count` keys in each.
  public static func order(
    count: Int, by descriptors: [QuerySortDescriptor], keys: [QuerySortKeys]
  ) throws(QueryError) -> [Int] {
    precondition(keys.count == descriptors.count, "one key column per sort descriptor")
    let columns = zip(keys, descriptors).map { SortColumn($0, descriptor: $1) }
    let ranks = columns.compactMap { $0.ranks() }
    if ranks.count == columns.count {
      // Every key typed: each column is ranked once, then the sort orders ranks — integers,
      // with no casts, boxing or string comparisons in the final sort.
      return order(count: count, byRanks: ranks)
    }
    var failure: QueryError?
    let order = (0..<count).sorted { left, right in
      guard failure == nil else { return left < right }
      for column in columns {
        do throws(QueryError) {
          switch try column.compare(left, right) {
          case .orderedAscending: return true
          case .orderedDescending: return false
          case .orderedSame: continue
          }
        } catch {
          failure = error
          return left < right
        }
      }
      return left < right
    }
    if let failure { throw failure }
    return order
  }

  /// Positions ordered by `ranks` (one column per sort level, one rank per position), ties
  /// kept in their order. When the levels' ranks fit one 64-bit key together, the keys are
  /// sorted by a stable radix sort (linear in the count); otherwise rank tuples are compared.
  private static func order(count: Int, byRanks ranks: [RankColumn]) -> [Int] {
    func bits(_ value: Int) -> Int { value <= 0 ? 0 : Int.bitWidth - value.leadingZeroBitCount }
    let rankBits = ranks.map { bits(Int($0.largest)) }
    if rankBits.reduce(0, +) <= 64 {
      var keys = [UInt64](repeating: 0, count: count)
      keys.withUnsafeMutableBufferPointer { keys in
        var shift = 0
        for (column, width) in zip(ranks, rankBits).reversed() {
          column.ranks.withUnsafeBufferPointer { ranks in
            for index in 0..<count { keys[index] |= UInt64(ranks[index]) << UInt64(shift) }
          }
          shift += width
        }
      }
      return RadixSort.stableOrder(of: keys, bits: rankBits.reduce(0, +))
    }
    return (0..<count).sorted { left, right in
      for column in ranks where column.ranks[left] != column.ranks[right] {
        return column.ranks[left] < column.ranks[right]
      }
      return left < right
    }
  }
}

/// A least-significant-digit radix sort of positions by unsigned keys: stable, so positions
/// with equal keys keep their order, and linear — one counting pass and one scatter pass per
/// 11-bit digit of the keys' `bits` low bits, skipping digits every key shares.
enum RadixSort {
  static let digitBits = 11

  /// The positions of `keys` ordered by key, ties in position order.
  static func stableOrder(of keys: [UInt64], bits: Int) -> [Int] {
    let count = keys.count
    guard count > 1, bits > 0 else { return Array(0..<count) }
    precondition(count <= Int(UInt32.max), "at most 2^32 - 1 keys")
    let radix = 1 << digitBits
    let mask = UInt64(radix - 1)
    var order = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
      for index in 0..<count { buffer[index] = UInt32(index) }
      initialized = count
    }
    var scratch = [UInt32](repeating: 0, count: count)
    var counts = [Int](repeating: 0, count: radix)
    keys.withUnsafeBufferPointer { keys in
      var shift = 0
      while shift < bits {
        let digitShift = UInt64(shift)
        shift += digitBits
        counts.withUnsafeMutableBufferPointer { counts in
          counts.update(repeating: 0)
          for key in keys { counts[Int((key >> digitShift) & mask)] += 1 }
          // A digit every key shares moves nothing.
          guard !counts.contains(count) else { return }
          var total = 0
          for digit in 0..<radix {
            let here = counts[digit]
            counts[digit] = total
            total += here
          }
          order.withUnsafeBufferPointer { order in
            scratch.withUnsafeMutableBufferPointer { scratch in
              for position in order {
                let digit = Int((keys[Int(position)] >> digitShift) & mask)
                scratch[counts[digit]] = position
                counts[digit] += 1
              }
            }
          }
          swap(&order, &scratch)
        }
      }
    }
    return order.map { Int($0) }
  }
}

/// A sort key as the ranking tells values apart: equality, and a 64-bit hash that equal keys
/// share — a multiply or a pass over a few bytes, where `Hasher` (SipHash, seeded per process)
/// costs several times as much per key. Collisions cost a comparison, never a wrong rank.
protocol RankKey: Equatable {
  var rankHash: UInt64 { get }
}

/// Spreads `bits` over all 64 bits (Fibonacci hashing: the top bits pick the bucket).
@inline(__always)
private func spread(_ bits: UInt64) -> UInt64 { bits &* 0x9E37_79B9_7F4A_7C15 }

extension Int: RankKey {
  var rankHash: UInt64 { spread(UInt64(bitPattern: Int64(self))) }
}

/// A string told apart from others by its UTF-8 bytes: equal bytes are equal strings, and
/// hashing bytes skips the canonical normalization that hashing a `String` does.
struct UTF8Key: RankKey {
  let string: String

  static func == (lhs: UTF8Key, rhs: UTF8Key) -> Bool {
    lhs.string.utf8.elementsEqual(rhs.string.utf8)
  }

  /// FNV-1a over the bytes, spread.
  var rankHash: UInt64 {
    var string = string
    return string.withUTF8 { bytes in
      var hash: UInt64 = 0xCBF2_9CE4_8422_2325
      for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
      return spread(hash ^ UInt64(bytes.count))
    }
  }
}

/// The distinct keys of one ranking, each given an ID in order of first appearance: open
/// addressing with linear probing over a power-of-two table kept at most half full.
struct RankTable<Key: RankKey> {
  /// Per bucket: 0 when empty, else the key's ID + 1.
  private var buckets = [UInt32](repeating: 0, count: 1 << 10)
  private var shift: UInt64 = 64 - 10
  private var keys: [Key] = []
  private var hashes: [UInt64] = []

  /// The ID of `key`, and whether it is new (then the next ID, in order of first appearance).
  mutating func id(of key: Key) -> (id: UInt32, isNew: Bool) {
    let hash = key.rankHash
    let mask = buckets.count - 1
    var bucket = Int(truncatingIfNeeded: hash >> shift)
    while true {
      let entry = buckets[bucket]
      if entry == 0 { break }
      let id = Int(entry - 1)
      if hashes[id] == hash, keys[id] == key { return (UInt32(id), false) }
      bucket = (bucket + 1) & mask
    }
    let id = UInt32(keys.count)
    keys.append(key)
    hashes.append(hash)
    buckets[bucket] = id + 1
    if keys.count * 2 > buckets.count { grow() }
    return (id, true)
  }

  private mutating func grow() {
    buckets = [UInt32](repeating: 0, count: buckets.count * 2)
    shift -= 1
    let mask = buckets.count - 1
    for (id, hash) in hashes.enumerated() {
      var bucket = Int(truncatingIfNeeded: hash >> shift)
      while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
      buckets[bucket] = UInt32(id + 1)
    }
  }
}

/// Each element's rank in one sort level: equal keys share a rank, and comparing ranks
/// compares keys in the level's order (nil first ascending, last descending).
struct RankColumn {
  var ranks: [UInt32]
  /// The largest rank.
  var largest: UInt32
}

/// One sort key read from every element. A column whose values are all strings (compared
/// with the default comparison), all `Double`s or all `Int`s, with or without `nil`s, is kept
/// typed and compared without casting; any other column goes through
/// ``QuerySortDescriptor/compareValues(_:_:)``. Both give the same order.
/// One sort key for every element, read ahead of sorting.
public enum QuerySortKeys {
  /// Strings (or `nil`), ordered by the descriptor's comparison.
  case strings([String?])
  /// Numbers, or dates as seconds since 2001, ordered by value, with a NaN after every
  /// number below zero and before the rest, as ``QuerySortDescriptor`` orders numbers.
  case doubles([Double?])
  /// Whole numbers, ordered by value.
  case integers([Int?])
  /// Values of any type, ordered as ``QuerySortDescriptor/compare(_:_:)`` orders them.
  case values([Any?])
}

enum SortColumn {
  case strings([String?], ascending: Bool)
  case doubles([SortableDouble?], ascending: Bool)
  case integers([Int?], ascending: Bool)
  case values([Any?], QuerySortDescriptor)

  init(_ keys: QuerySortKeys, descriptor: QuerySortDescriptor) {
    let ascending = descriptor.ascending
    switch keys {
    case .strings(let strings) where descriptor.comparison == .default:
      self = .strings(strings, ascending: ascending)
    case .strings(let strings):
      self = .values(strings.map { $0 }, descriptor)
    case .doubles(let doubles):
      self = .doubles(doubles.map { $0.map(SortableDouble.init) }, ascending: ascending)
    case .integers(let integers):
      self = .integers(integers, ascending: ascending)
    case .values(let values):
      self.init(values, descriptor: descriptor)
    }
  }

  init(_ values: [Any?], descriptor: QuerySortDescriptor) {
    let ascending = descriptor.ascending
    if descriptor.comparison == .default, let strings = Self.typed(values, as: String.self) {
      self = .strings(strings, ascending: ascending)
    } else if let doubles = Self.typed(values, as: Double.self) {
      self = .doubles(doubles.map { $0.map(SortableDouble.init) }, ascending: ascending)
    } else if let integers = Self.typed(values, as: Int.self) {
      self = .integers(integers, ascending: ascending)
    } else {
      self = .values(values, descriptor)
    }
  }

  /// The values as `T?`s, or `nil` when one of them is something else.
  private static func typed<T>(_ values: [Any?], as type: T.Type) -> [T?]? {
    var result: [T?] = []
    result.reserveCapacity(values.count)
    for value in values {
      if let value {
        guard let typed = value as? T, Swift.type(of: value) == T.self else { return nil }
        result.append(typed)
      } else {
        result.append(nil)
      }
    }
    return result
  }

  func compare(_ left: Int, _ right: Int) throws(QueryError) -> ComparisonResult {
    switch self {
    case .strings(let column, let ascending):
      return Self.order(column[left], column[right], ascending: ascending)
    case .doubles(let column, let ascending):
      return Self.order(column[left], column[right], ascending: ascending)
    case .integers(let column, let ascending):
      return Self.order(column[left], column[right], ascending: ascending)
    case .values(let column, let descriptor):
      return try descriptor.compareValues(column[left], column[right])
    }
  }

  /// For a typed column, each element's rank in the column's order (equal values share a
  /// rank), so that comparing ranks compares values.
  func ranks() -> RankColumn? {
    switch self {
    case .strings(let column, let ascending):
      return Self.ranks(column, ascending: ascending, key: UTF8Key.init)
    case .doubles(let column, let ascending):
      return Self.ranks(column, ascending: ascending) { $0 }
    case .integers(let column, let ascending):
      return Self.ranks(column, ascending: ascending) { $0 }
    case .values: return nil
    }
  }

  /// The ranks of `column`: its distinct values are found by hashing (one lookup per
  /// element), only they are sorted, and each element takes its value's rank — so a column of
  /// few distinct values (most sort keys) costs a hash per element, not a comparison sort.
  ///
  /// Values are told apart by `key`, which may split values the order holds equal (strings
  /// by their bytes, cheaper to hash than canonically); such values still share a rank.
  private static func ranks<T: Comparable, Key: RankKey>(
    _ column: [T?], ascending: Bool, key: (T) -> Key
  ) -> RankColumn? {
    guard column.count < Int(UInt32.max) else { return nil }
    var table = RankTable<Key>()
    var distinct: [T] = []
    var ids = [UInt32](repeating: 0, count: column.count)
    for (index, value) in column.enumerated() {
      guard let value else {
        ids[index] = UInt32.max
        continue
      }
      let (id, isNew) = table.id(of: key(value))
      if isNew { distinct.append(value) }
      ids[index] = id
    }
    table = RankTable()
    let order = distinct.indices.sorted { distinct[$0] < distinct[$1] }
    // Ascending: nil 0, then the values from 1 up; descending: the values from the largest
    // down, then nil.
    // Values the order holds equal are neighbours in `order` and share a rank.
    var levels = [UInt32](repeating: 0, count: order.count)
    for position in order.indices.dropFirst() {
      let isAbove = distinct[order[position - 1]] < distinct[order[position]]
      levels[position] = levels[position - 1] + (isAbove ? 1 : 0)
    }
    let top = levels.last ?? 0
    var rankByID = [UInt32](repeating: 0, count: distinct.count)
    for (position, id) in order.enumerated() {
      rankByID[id] = ascending ? levels[position] + 1 : top - levels[position]
    }
    let nilRank: UInt32 = ascending ? 0 : top + 1
    var ranks = [UInt32](repeating: 0, count: column.count)
    for index in ids.indices {
      ranks[index] = ids[index] == UInt32.max ? nilRank : rankByID[Int(ids[index])]
    }
    return RankColumn(ranks: ranks, largest: top + 1)
  }

  /// `nil` first, then by `<`, the whole reversed when descending.
  private static func order<T: Comparable>(_ a: T?, _ b: T?, ascending: Bool) -> ComparisonResult {
    let order: ComparisonResult
    switch (a, b) {
    case (nil, nil): order = .orderedSame
    case (nil, _): order = .orderedAscending
    case (_, nil): order = .orderedDescending
    case (let a?, let b?): order = QueryValues.order3(a, b)
    }
    guard !ascending else { return order }
    return order == .orderedAscending
      ? .orderedDescending : order == .orderedDescending ? .orderedAscending : .orderedSame
  }
}

/// A double that orders as sort descriptors order numbers, a total order: by value, with every
/// NaN equal to every other, after every number below zero and before zero and the rest.
struct SortableDouble: Comparable, RankKey {
  var value: Double

  static func < (lhs: SortableDouble, rhs: SortableDouble) -> Bool {
    if lhs.value < rhs.value { return true }
    guard lhs.value.isNaN || rhs.value.isNaN else { return false }
    return QueryValues.sortOrder(lhs.value, rhs.value) == .orderedAscending
  }

  static func == (lhs: SortableDouble, rhs: SortableDouble) -> Bool {
    lhs.value == rhs.value || (lhs.value.isNaN && rhs.value.isNaN)
  }

  /// Equal values hash alike: every NaN as one, and -0.0 as 0.0.
  var rankHash: UInt64 {
    spread(value.isNaN ? Double.nan.bitPattern : value == 0 ? 0 : value.bitPattern)
  }
}
