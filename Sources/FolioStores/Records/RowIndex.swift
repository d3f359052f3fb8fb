/// Rows by primary key, for a cache whose keys are not simply rows plus one: a dense array of
/// rows per key space (``StoreKeySpace``) for keys up to ``directLimit`` within their space —
/// 4 bytes a key and no hashing, the common case of a store that numbers each entity
/// hierarchy from 1 — and a dictionary for the rest.
///
/// The arrays together hold at most twice ``directLimit`` slots, so a store whose keys are
/// few but far apart cannot make them large; keys past that go to the dictionary too.
package struct RowIndex {
  /// Keys within their space up to this may go in the arrays.
  package let directLimit: Int64
  // Reached from the inlinable lookups: loading a store asks for a row per relationship target.
  @usableFromInline var bySpace: [[Int32]] = []
  @usableFromInline var slots = 0
  @usableFromInline var others: [Int64: Int32] = [:]

  package init(directLimit: Int64 = 0, capacity: Int = 0) {
    self.directLimit = max(0, directLimit)
    if self.directLimit == 0 { others.reserveCapacity(capacity) }
  }

  /// The array position of `id` when its key is within reach of the arrays.
  @inlinable @inline(__always)
  func position(of id: Int64) -> (space: Int, index: Int)? {
    let key = StoreKeySpace.key(of: id)
    let space = StoreKeySpace.space(of: id)
    guard key >= 1, key <= directLimit, space >= 0, space < 1 << 16 else { return nil }
    return (space, Int(key) - 1)
  }

  @inlinable
  package subscript(id: Int64) -> Int32? {
    get {
      if let (space, index) = position(of: id), space < bySpace.count,
        index < bySpace[space].count
      {
        let row = bySpace[space][index]
        if row >= 0 { return row }
      }
      return others.isEmpty ? nil : others[id]
    }
    set {
      guard let (space, index) = position(of: id) else {
        others[id] = newValue
        return
      }
      if space >= bySpace.count {
        guard newValue != nil else { return removeOther(id) }
        bySpace.append(contentsOf: repeatElement([], count: space + 1 - bySpace.count))
      }
      let count = bySpace[space].count
      if index >= count {
        let growth = index + 1 - count
        guard let row = newValue, Int64(slots + growth) <= 2 * directLimit else {
          others[id] = newValue
          return
        }
        bySpace[space].append(contentsOf: repeatElement(-1, count: growth))
        slots += growth
        bySpace[space][index] = row
      } else {
        bySpace[space][index] = newValue ?? -1
      }
      removeOther(id)
    }
  }

  @inlinable
  mutating func removeOther(_ id: Int64) {
    if !others.isEmpty { others[id] = nil }
  }
}
