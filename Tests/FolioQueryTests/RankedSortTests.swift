import FolioTestSupport
import Foundation
import Testing

@testable import FolioQuery

/// A row of typed values, read by key.
private struct Row: KeyValueReadable {
  var position: Int
  var values: [String: Any?]
  func value(forKeyPath keyPath: String) throws -> Any? { values[keyPath] ?? nil }
}

/// The ranked sort (typed keys ranked by their distinct values, then one integer sort) is held
/// to the plainest possible reference: a stable sort that compares two rows with the
/// descriptors' own `compare(_:_:)`.
@Suite("Sorting by ranked keys")
struct RankedSortTests {
  fileprivate func reference(_ rows: [Row], _ descriptors: [QuerySortDescriptor]) throws -> [Int] {
    var failure: Error?
    let sorted = rows.sorted { left, right in
      for descriptor in descriptors {
        do {
          switch try descriptor.compare(left, right) {
          case .orderedAscending: return true
          case .orderedDescending: return false
          case .orderedSame: continue
          }
        } catch {
          failure = error
        }
      }
      return left.position < right.position
    }
    if let failure { throw failure }
    return sorted.map(\.position)
  }

  @Test(
    "random typed columns with duplicates, nils and NaNs, up to five levels, sort as the reference",
    arguments: 0..<8)
  func random(seed: UInt64) throws {
    var generator = SeededGenerator(seed: seed)
    let count = Int.random(in: 0...700, using: &generator)
    let words = ["", "a", "A", "b", "é", "e\u{301}", "zoë", "Zoe", "10", "9"]
    let doubles: [Double] = [.nan, -.infinity, -1, -0.0, 0, 0.5, 1, .infinity]
    let distinct = Int.random(in: 1...2_000, using: &generator)
    let rows = (0..<count).map { position -> Row in
      func maybe(_ value: Any) -> Any? {
        Int.random(in: 0..<8, using: &generator) == 0 ? nil : value
      }
      return Row(
        position: position,
        values: [
          "word": maybe(words.randomElement(using: &generator)!),
          "many": maybe("w\(Int.random(in: 0..<distinct, using: &generator))"),
          "double": maybe(doubles.randomElement(using: &generator)!),
          "wide": maybe(Double(Int.random(in: 0..<distinct, using: &generator)) / 3),
          "int": maybe(Int.random(in: -3...3, using: &generator)),
        ])
    }
    let keys = ["word", "many", "double", "wide", "int"]
    for _ in 0..<6 {
      let levels = Int.random(in: 1...5, using: &generator)
      let descriptors = (0..<levels).map { _ in
        QuerySortDescriptor(
          keyPath: keys.randomElement(using: &generator)!, ascending: Bool.random(using: &generator)
        )
      }
      let sorted = try rows.sorted(by: descriptors).map(\.position)
      #expect(sorted == (try reference(rows, descriptors)), "\(descriptors)")
    }
  }

  @Test(
    "thousands of distinct keys, in one key of several digits or too wide for one, sort as the reference",
    arguments: [(3, false), (5, true)])
  func wide(levels: Int, overflows: Bool) throws {
    var generator = SeededGenerator(seed: UInt64(levels))
    let count = 10_000
    let rows = (0..<count).map { position -> Row in
      let many = Int.random(in: 0..<100_000, using: &generator)
      let wide = Int.random(in: 0..<100_000, using: &generator)
      return Row(
        position: position,
        values: [
          "many": Int.random(in: 0..<20, using: &generator) == 0 ? nil : "w\(many)",
          "wide": Double(wide) / 3, "int": Int.random(in: 0..<100_000, using: &generator),
        ])
    }
    // Each level holds about 9,500 distinct values (14 bits of rank): three levels fit one key
    // (four 11-bit digits), five do not (the tuple comparison).
    let keys = ["many", "wide", "int"]
    let descriptors = (0..<levels).map { level in
      QuerySortDescriptor(keyPath: keys[level % keys.count], ascending: level % 2 == 0)
    }
    let ranks = try #require(
      descriptors.map { descriptor in
        SortColumn(
          .values(rows.map { $0.values[descriptor.keyPath] ?? nil }), descriptor: descriptor
        )
        .ranks()
      } as [RankColumn?])
    let bits = ranks.map { Int.bitWidth - Int($0!.largest).leadingZeroBitCount }.reduce(0, +)
    #expect((bits > 64) == overflows, "\(bits) bits of rank")
    let sorted = try rows.sorted(by: descriptors).map(\.position)
    #expect(sorted == (try reference(rows, descriptors)))
  }

  @Test("the radix sort is stable and orders by every bit asked for")
  func radix() {
    var generator = SeededGenerator(seed: 7)
    for bits in [1, 11, 12, 33, 64] {
      // Few distinct keys (so ties, whose order is the test of stability), set in the top
      // and bottom digits of the width.
      let keys = (0..<3_000).map { _ -> UInt64 in
        let low = UInt64.random(in: 0...1, using: &generator)
        guard bits >= 7 else { return low }
        return UInt64.random(in: 0..<50, using: &generator) << UInt64(bits - 6) | low
      }
      let expected = keys.indices.sorted { (keys[$0], $0) < (keys[$1], $1) }
      #expect(RadixSort.stableOrder(of: keys, bits: bits) == expected, "\(bits) bits")
    }
    #expect(RadixSort.stableOrder(of: [5, 5, 5], bits: 3) == [0, 1, 2])
    #expect(RadixSort.stableOrder(of: [], bits: 8) == [])
  }

  @Test("keys whose hashes collide still get their own IDs, through the table's growth")
  func collisions() {
    struct Colliding: RankKey {
      var value: Int
      var rankHash: UInt64 { UInt64(value % 3) << 60 }
    }
    var table = RankTable<Colliding>()
    for value in 0..<2_000 {
      #expect(table.id(of: Colliding(value: value)) == (UInt32(value), true))
    }
    for value in [1_999, 0, 1_000, 3] {
      #expect(table.id(of: Colliding(value: value)) == (UInt32(value), false))
    }
  }
}
