import FolioModel

/// The values of many records, row after row in one allocation that the records share: a
/// record read from a store points at its row instead of holding an array (or a dictionary) of
/// its own, which spares an allocation, and about 110 bytes of fresh memory, per record.
///
/// Only a reader fills a block, appending each row before it makes the record that points at
/// it; a record reads only its own row. No value is changed once written, so records may cross
/// threads as any `Sendable` value does.
@usableFromInline package final class RecordBlock<Element>: @unchecked Sendable {
  /// The values a new block holds at most, unless one row needs more.
  @inlinable package static var capacity: Int { 4_096 }

  // The readers in each format's module fill blocks row by row: what they call is inlinable
  // across the module boundary, as it was inlined when they lived in this module.
  @usableFromInline package let base: UnsafeMutablePointer<Element>
  @usableFromInline let capacity: Int
  // Both are changed only by the one reader filling the block, a value at a time, and no
  // access to them overlaps another: the checks of exclusive access, made at each value
  // otherwise, are left out.
  /// The values written; read only by the reader filling the block, and when it is freed.
  @exclusivity(unchecked) @usableFromInline var count = 0
  /// The names the rows in the block are read by (see ``SharedNames``).
  @exclusivity(unchecked) @usableFromInline var names: [RecordNames] = []

  @usableFromInline init(capacity: Int) {
    self.capacity = capacity
    base = .allocate(capacity: capacity)
  }

  deinit {
    base.deinitialize(count: count)
    base.deallocate()
  }

  /// The value at `position`, written before the record reading it was made.
  @inlinable @inline(__always)
  package subscript(position: Int) -> Element { base[position] }

  /// Where the next value goes.
  @inlinable
  package var end: Int { count }

  /// Writes the next value.
  @inlinable @inline(__always)
  package func append(_ value: Element) {
    precondition(count < capacity, "a row block is full")
    (base + count).initialize(to: value)
    count += 1
  }

  /// Keeps `names` for as long as the block lives: a row written in it is read by them.
  @inlinable @inline(__always)
  package func keep(_ names: RecordNames) {
    if let last = self.names.last, last === names { return }
    // Rows alternating between a few sets of names keep each once; many sets may repeat.
    if self.names.count < 8, self.names.contains(where: { $0 === names }) { return }
    self.names.append(names)
  }

  /// A block with room for a row of `width` values: `current` when it has room, else a new one.
  @inlinable
  package static func room(for width: Int, in current: RecordBlock?) -> RecordBlock {
    if let current, current.capacity - current.count >= width { return current }
    return RecordBlock(capacity: max(capacity, width))
  }
}

/// The attribute values of many records.
@usableFromInline package typealias RowBlock = RecordBlock<AttributeValue>
/// The relationships' targets of many records: for each relationship a record has, the number
/// of its targets and then their IDs.
@usableFromInline package typealias TargetBlock = RecordBlock<Int64>
