import FolioModel
import Foundation

/// One stored property value, as compact as the value allows.
///
/// An object keeps its values in a contiguous array of slots indexed by property number, not in
/// a dictionary keyed by name: an object of two short attributes and a to-one relationship
/// costs three 24-byte slots. Common values live inline — integers, floating-point numbers and
/// dates (as seconds since 2001), booleans, strings, data, UUIDs, and relationship targets as
/// row numbers in the context's object table; rarer ones (decimals, URIs, composites) are boxed
/// so they do not widen every slot.
package enum Slot {
  case null
  case integer(Int64)
  case real(Double)
  case boolean(Bool)
  case string(String)
  case data(Data)
  case uuid(UUID)
  case boxed(ValueBox)
  /// A to-one relationship's target, by row.
  case object(Int32)
  /// A to-many relationship's targets.
  case objects(RowSet)
  /// In a change record: no value recorded for this slot. Never an object's value.
  case unrecorded

  var isNull: Bool {
    if case .null = self { return true }
    return false
  }
}

/// An object's slots: a fixed number of them, either in memory allocated for the object and
/// freed with it by ``deallocate()``, or in the committed row the object shares until its
/// first change (see ``CommittedRow``).
///
/// A handle, not a value: copies share the slots, and writing through any of them writes the
/// value. Only ``ManagedObject`` and ``CommittedRow`` own one.
package struct SlotStorage {
  let base: UnsafeMutablePointer<Slot>
  /// The number of slots: the entity's property count.
  let count: Int
  #if DEBUG
    /// Whether the slots are a committed row an object shares, which no write may reach
    /// through the object (checked in debug builds only).
    var isShared = false

    init(base: UnsafeMutablePointer<Slot>, count: Int, isShared: Bool) {
      self.base = base
      self.count = count
      self.isShared = isShared
    }
  #endif

  /// Allocates `count` slots, each `.null`.
  init(count: Int) {
    base = UnsafeMutablePointer<Slot>.allocate(capacity: max(count, 1))
    base.initialize(repeating: .null, count: count)
    self.count = count
  }

  /// The `count` slots at `base`, owned elsewhere.
  init(base: UnsafeMutablePointer<Slot>, count: Int) {
    self.base = base
    self.count = count
  }

  /// Allocates a copy of `other`'s slots; row sets are copied, so changing them in place does
  /// not reach `other`.
  init(copying other: SlotStorage) {
    base = UnsafeMutablePointer<Slot>.allocate(capacity: max(other.count, 1))
    for index in 0..<other.count { (base + index).initialize(to: other.base[index].snapshot()) }
    count = other.count
  }

  package internal(set) subscript(index: Int) -> Slot {
    get {
      precondition(index >= 0 && index < count, "slot \(index) out of range 0..<\(count)")
      return base[index]
    }
    nonmutating _modify {
      precondition(index >= 0 && index < count, "slot \(index) out of range 0..<\(count)")
      #if DEBUG
        assert(!isShared, "a write into a shared committed row: call ownSlots() first")
      #endif
      yield &base[index]
    }
  }

  var indices: Range<Int> { 0..<count }

  /// Releases the slots' values and their memory; the storage is unusable afterwards.
  func deallocate() {
    base.deinitialize(count: count)
    base.deallocate()
  }
}

/// A rare value, boxed to keep ``Slot`` narrow.
package final class ValueBox {
  let value: BoxedValue
  init(_ value: BoxedValue) { self.value = value }
}

enum BoxedValue {
  case attribute(AttributeValue)
  /// A transient attribute of undefined type holds any value.
  case any(Any)
}

/// The targets of a to-many relationship: rows in insertion order (which is *the* order for an
/// ordered relationship), with an index built the first time a big set is searched, so
/// membership is O(1) and a set never searched (most of a loaded store's) costs no index.
///
/// A class, so that adding to a relationship changes it in place instead of copying the slot
/// array; ``copy()`` takes the snapshot that change tracking keeps. Searching it may build its
/// index: like the rest of the graph, a set belongs to one isolation domain.
package final class RowSet {
  package private(set) var rows: [Int32]
  /// Whether order is meaningful; an unordered set removes by moving its last row into the gap.
  let isOrdered: Bool
  /// Each row's position, once a search of more than `indexThreshold` rows needed it.
  private var positions: [Int32: Int32]?
  private static let indexThreshold = 16

  package init(_ rows: [Int32] = [], ordered: Bool) {
    self.rows = rows
    self.isOrdered = ordered
  }

  var count: Int { rows.count }
  var isEmpty: Bool { rows.isEmpty }

  func contains(_ row: Int32) -> Bool {
    if let positions = index() { return positions[row] != nil }
    return rows.contains(row)
  }

  /// Appends `row` (or inserts it at `index`); returns `false` when it was already there.
  @discardableResult
  func insert(_ row: Int32, at index: Int? = nil) -> Bool {
    guard !contains(row) else { return false }
    if let index, index < rows.count {
      rows.insert(row, at: index)
      positions = nil
    } else {
      append(new: row)
    }
    return true
  }

  /// Appends `row`, which the caller knows is not in the set, without searching for it.
  func append(new row: Int32) {
    rows.append(row)
    positions?[row] = Int32(rows.count - 1)
  }

  /// Removes `row`, keeping the others' order; returns `false` when it was not there.
  @discardableResult
  func remove(_ row: Int32) -> Bool {
    let position: Int
    if let found = index().map({ $0[row] }) {
      guard let found else { return false }
      position = Int(found)
    } else {
      guard let found = rows.firstIndex(of: row) else { return false }
      position = found
    }
    if !isOrdered, position != rows.count - 1 {
      let last = rows.removeLast()
      rows[position] = last
      positions?[last] = Int32(position)
      positions?[row] = nil
      return true
    }
    rows.remove(at: position)
    if position == rows.count {
      positions?[row] = nil
    } else {
      positions = nil
    }
    return true
  }

  func copy() -> RowSet { RowSet(rows, ordered: isOrdered) }

  /// The positions of a set too big to search row by row, built when first needed.
  private func index() -> [Int32: Int32]? {
    if positions == nil, rows.count > Self.indexThreshold {
      var index: [Int32: Int32] = [:]
      index.reserveCapacity(rows.count)
      for (position, row) in rows.enumerated() { index[row] = Int32(position) }
      positions = index
    }
    return positions
  }
}

extension SlotStorage {
  /// The floating-point value in slot `index`, or `nil` when it holds anything else — read in
  /// place, without copying the slot.
  @inline(__always)
  func real(at index: Int) -> Double? {
    precondition(index >= 0 && index < count, "slot \(index) out of range 0..<\(count)")
    if case .real(let value) = base[index] { return value }
    return nil
  }
}
