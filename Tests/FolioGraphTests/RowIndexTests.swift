import FolioStores
import FolioTestSupport
import Testing

@testable import FolioGraph

/// Rows by primary key: arrays per key space within reach, a dictionary beyond, one answer.
@Suite("Row index")
struct RowIndexTests {
  @Test("keys in several spaces, near and far, read back what was set, like a dictionary")
  func likeADictionary() {
    var index = RowIndex(directLimit: 100)
    var expected: [Int64: Int32] = [:]
    var generator = SeededGenerator(seed: 7)
    // Keys within reach, past it, in spaces 0 to 3, a huge space, and negative IDs.
    let spaces = [0, 1, 2, 3, 1 << 17]
    for step in 0..<2_000 {
      let space = spaces[Int.random(in: 0..<spaces.count, using: &generator)]
      let key = Int64.random(in: -5...250, using: &generator)
      let id = key < 1 ? key : StoreKeySpace.id(space: space, key: key)
      if step % 7 == 3 {
        index[id] = nil
        expected[id] = nil
      } else {
        index[id] = Int32(step)
        expected[id] = Int32(step)
      }
    }
    for space in spaces {
      for key in Int64(-5)...260 {
        let id = key < 1 ? key : StoreKeySpace.id(space: space, key: key)
        #expect(index[id] == expected[id], "space \(space) key \(key)")
      }
    }
  }

  @Test("the arrays stop at twice the reach; keys past that still read back")
  func boundedArrays() {
    var index = RowIndex(directLimit: 10)
    // Each space's key 10 would take ten slots: the budget of 20 holds two spaces' worth.
    for space in 0..<6 { index[StoreKeySpace.id(space: space, key: 10)] = Int32(space) }
    for space in 0..<6 {
      #expect(index[StoreKeySpace.id(space: space, key: 10)] == Int32(space))
      #expect(index[StoreKeySpace.id(space: space, key: 9)] == nil)
    }
    // Removing works on both sides: a key in an array and one in the dictionary.
    index[StoreKeySpace.id(space: 0, key: 10)] = nil
    index[StoreKeySpace.id(space: 5, key: 10)] = nil
    #expect(index[StoreKeySpace.id(space: 0, key: 10)] == nil)
    #expect(index[StoreKeySpace.id(space: 5, key: 10)] == nil)
    #expect(index[StoreKeySpace.id(space: 4, key: 10)] == 4)
  }
}
