import FolioTestSupport
import Testing

@testable import FolioGraph

@Suite("To-many row sets")
struct RowSetTests {
  /// Random appends, inserts at a place, removals and searches, on sets small and past the
  /// size that indexes them, checked after each step against a plain array.
  @Test("a set agrees with a plain array through random changes", arguments: [UInt64(1), 2, 3])
  func randomChanges(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    for ordered in [false, true] {
      let set = RowSet(Array(0..<Int32(20)), ordered: ordered)
      var plain = Array(0..<Int32(20))
      for step in 0..<3_000 {
        let row = Int32.random(in: 0..<80, using: &random)
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
          // What a store's loader appends is known not to be there.
          if !plain.contains(row) {
            set.append(new: row)
            plain.append(row)
          }
        case 1:
          let place = Int.random(in: 0...plain.count, using: &random)
          let added = set.insert(row, at: place)
          #expect(added == !plain.contains(row), "seed \(seed), step \(step)")
          if added { plain.insert(row, at: min(place, plain.count)) }
        case 2, 3:
          let removed = set.remove(row)
          #expect(removed == plain.contains(row), "seed \(seed), step \(step)")
          if let index = plain.firstIndex(of: row) {
            if ordered || index == plain.count - 1 {
              plain.remove(at: index)
            } else {
              plain[index] = plain.removeLast()
            }
          }
        default:
          #expect(set.contains(row) == plain.contains(row), "seed \(seed), step \(step)")
        }
        if ordered {
          #expect(set.rows == plain, "seed \(seed), step \(step)")
        } else {
          #expect(Set(set.rows) == Set(plain), "seed \(seed), step \(step)")
          #expect(set.rows.count == plain.count, "seed \(seed), step \(step)")
        }
      }
      for row in Int32(0)..<80 { #expect(set.contains(row) == plain.contains(row)) }
    }
  }
}
