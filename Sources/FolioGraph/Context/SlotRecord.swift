/// Values kept per (object, property): the saved values of changed properties, or the values
/// from before the turn.
///
/// One flat dictionary keyed by row and slot together, rather than a dictionary per object:
/// recording a change costs one hash insertion and no allocation per object.
struct SlotRecord {
  private(set) var values: [Int: Slot] = [:]

  private static func key(_ row: Int32, _ slot: Int) -> Int { Int(row) << 24 | slot }

  var isEmpty: Bool { values.isEmpty }

  subscript(row: Int32, slot: Int) -> Slot? {
    get { values[Self.key(row, slot)] }
    set { values[Self.key(row, slot)] = newValue }
  }

  /// The recorded slots of `row`, whose object has `count` slots, in slot order.
  func entries(of row: Int32, count: Int) -> [(slot: Int, value: Slot)] {
    guard !values.isEmpty else { return [] }
    return (0..<count).compactMap { slot in self[row, slot].map { (slot, $0) } }
  }

  /// Whether anything is recorded for `row`, whose object has `count` slots.
  func contains(row: Int32, count: Int) -> Bool {
    guard !values.isEmpty else { return false }
    return (0..<count).contains { self[row, $0] != nil }
  }

  mutating func remove(row: Int32, count: Int) {
    for slot in 0..<count { self[row, slot] = nil }
  }

  /// Every entry, by row then slot.
  func sortedEntries() -> [(row: Int32, slot: Int, value: Slot)] {
    values.keys.sorted().compactMap { key in
      values[key].map { (Int32(key >> 24), key & 0xFF_FFFF, $0) }
    }
  }

  mutating func removeAll() { values.removeAll() }
}
