import Foundation

/// One sort key for every element, read ahead of sorting. A column whose values are all strings
/// (compared with the default comparison), all `Double`s or all `Int`s, with or without
/// `nil`s, is kept typed and compared without casting; any other column goes through
/// ``QuerySortDescriptor/compareValues(_:_:)``. Both give the same order.
package enum QuerySortKeys {
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
