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
}
