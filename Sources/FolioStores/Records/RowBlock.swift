import FolioModel

/// The attribute values of many records, row after row in one allocation that the records
/// share: a record read from a store points at its row instead of holding an array of its own,
/// which spares an allocation, and about 110 bytes of fresh memory, per record.
///
/// Only a reader fills a block, appending each row before it makes the record that points at
/// it; a record reads only its own row. No value is changed once written, so records may cross
/// threads as any `Sendable` value does.
final class RowBlock: @unchecked Sendable {
  /// The values a new block holds at most, unless one row needs more.
  static let capacity = 4_096

  private let base: UnsafeMutablePointer<AttributeValue>
  private let capacity: Int
  /// The values written; read only by the reader filling the block, and when it is freed.
  private var count = 0

  private init(capacity: Int) {
    self.capacity = capacity
    base = .allocate(capacity: capacity)
  }

  deinit {
    base.deinitialize(count: count)
    base.deallocate()
  }

  /// The value at `position`, written before the record reading it was made.
  @inline(__always)
  subscript(position: Int) -> AttributeValue { base[position] }

  /// Where the next value goes.
  var end: Int { count }

  /// Writes the next value.
  @inline(__always)
  func append(_ value: AttributeValue) {
    precondition(count < capacity, "a row block is full")
    (base + count).initialize(to: value)
    count += 1
  }

  /// A block with room for a row of `width` values: `current` when it has room, else a new one.
  static func room(for width: Int, in current: RowBlock?) -> RowBlock {
    if let current, current.capacity - current.count >= width { return current }
    return RowBlock(capacity: max(capacity, width))
  }
}
