import FolioModel

/// One object's values as the store holds them: what a save committed, or what was read from
/// the file. Immutable once it is in a ``RowCache``; a commit that changes the object makes a
/// new row, so every context's snapshot of the old one stays as it was read.
///
/// The slots live in the row's own allocation, after an eight-byte header, and relationship
/// slots name their targets by row in the cache. A context's object reads its values from the
/// row it was read from until its first change, so an unchanged object costs its context only
/// the object itself.
final class CommittedRow: ManagedBuffer<CommittedRow.Header, Slot> {
  struct Header {
    /// The row's version, Core Data's optimistic-locking counter (`Z_OPT`): 1 when first
    /// committed, one more at each commit that changes it.
    var version: UInt32
    /// The index of the row's entity layout.
    let entity: UInt16
    /// The number of slots: the entity's property count.
    let count: UInt16
  }

  /// A row of `layout`'s entity with every slot `.null`, to be filled before it is committed.
  static func make(layout: EntityLayout, version: UInt32) -> CommittedRow {
    let count = layout.properties.count
    let buffer = CommittedRow.create(minimumCapacity: max(count, 1)) { _ in
      Header(version: version, entity: UInt16(layout.index), count: UInt16(count))
    }
    let row = unsafeDowncast(buffer, to: CommittedRow.self)
    row.withUnsafeMutablePointerToElements { $0.initialize(repeating: .null, count: count) }
    return row
  }

  /// A row of `layout`'s entity holding a copy of `slots` (row sets copied too).
  static func make(layout: EntityLayout, version: UInt32, copying slots: SlotStorage)
    -> CommittedRow
  {
    let row = make(layout: layout, version: version)
    let target = row.slots
    for index in 0..<slots.count { target[index] = slots[index].snapshot() }
    return row
  }

  deinit {
    withUnsafeMutablePointers { header, elements in
      _ = elements.deinitialize(count: Int(header.pointee.count))
    }
  }

  /// The row's slots, in place. The address is the row's for its whole life.
  var slots: SlotStorage {
    withUnsafeMutablePointers { header, elements in
      SlotStorage(base: elements, count: Int(header.pointee.count))
    }
  }

  var version: UInt32 { header.version }

  /// Takes the version the store gives a row whose values are the same as this one's: another
  /// writer saved the object without changing it, and a save in place compares versions.
  func adoptVersion(_ version: UInt32) { header.version = version }
  var entity: Int { Int(header.entity) }
}
