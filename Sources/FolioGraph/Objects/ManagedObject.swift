import FolioModel
import Foundation

/// An object in the graph: an instance of one entity, whose properties are read and written by
/// name.
///
/// The counterpart of Core Data's `NSManagedObject`. Objects are created by their context
/// (``ManagedObjectContext/insertNewObject(forEntityName:)``) and belong to it; they are not
/// `Sendable`. Values are checked against the model when they are set:
///
/// ```swift
/// let person = try context.insertNewObject(forEntityName: "Person")
/// try person.setValue("Ada", forKey: "name")
/// let name: String? = try person.value(forKey: "name", as: String.self)
/// try spending.setValue(person, forKey: "person")   // person.spendings now holds spending
/// ```
///
/// Storage is a slot per property, by property number (see `Slot`).
public final class ManagedObject: Hashable, CustomStringConvertible {
  /// The context the object belongs to; `nil` once the object has left the graph (inserted and
  /// deleted before a save, deleted by a save, or forgotten by `reset()`), or once the context
  /// itself is gone.
  public var managedObjectContext: ManagedObjectContext? {
    flags.contains(.removed) ? nil : owner
  }
  /// The context that created the object, even after the object left its graph (an undo can
  /// bring it back).
  weak var owner: ManagedObjectContext?
  let layout: EntityLayout
  /// The object's place in its context's object table.
  let row: Int32
  // Hot paths write these many times per change. Debug and sanitizer builds check exclusive
  // access to them; release builds leave the check out, as the context is confined to one
  // isolation domain (it is not Sendable).
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  var flags: Flags = []
  /// The number of slots, kept beside the flags (in what would be padding) so that reading a
  /// slot does not go through the layout; a model has at most 65,535 properties per entity.
  private let slotCount: UInt16
  /// Where the object's values are, one slot per property (no array header: 32 bytes less
  /// per object than a `ContiguousArray`): its ``snapshot``'s, shared, until its first change
  /// gives it slots of its own (``ownSlots()``).
  private var base: UnsafeMutablePointer<Slot>
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// The snapshot alone while the object has no change records, the records (which hold the
  /// snapshot) once it has: one reference where two would make every object 16 bytes larger
  /// (a 56-byte object instead of 72, in the allocator's size classes).
  private var anchor: Anchor?

  private enum Anchor {
    case row(CommittedRow)
    case records(ChangeRecords)
  }

  /// The object's values, one slot per property.
  var slots: SlotStorage {
    @inline(__always) get { SlotStorage(base: base, count: Int(slotCount)) }
  }

  /// The committed row the object was read from (or last saved as): the store's values when
  /// the context last looked. `nil` for an object not saved yet.
  var snapshot: CommittedRow? {
    get {
      switch anchor {
      case .row(let row)?: row
      case .records(let records)?: records.snapshot
      case nil: nil
      }
    }
    set {
      if case .records(let records)? = anchor {
        records.snapshot = newValue
      } else {
        anchor = newValue.map { .row($0) }
      }
    }
  }

  /// The object's change records; `nil` until its first change.
  var records: ChangeRecords? {
    @inline(__always) get {
      if case .records(let records)? = anchor { return records }
      return nil
    }
    set {
      let kept = snapshot
      if let newValue {
        newValue.snapshot = kept
        anchor = .records(newValue)
      } else {
        anchor = kept.map { .row($0) }
      }
    }
  }

  struct Flags: OptionSet {
    let rawValue: UInt16
    /// Inserted since the last save.
    static let inserted = Flags(rawValue: 1 << 0)
    /// Deleted since the last save (and not inserted since it).
    static let deleted = Flags(rawValue: 1 << 1)
    /// No longer in the graph: saved as deleted, or inserted and deleted before a save.
    static let removed = Flags(rawValue: 1 << 2)
    /// Saved at least once, so its ID is permanent.
    static let permanent = Flags(rawValue: 1 << 3)
    /// A saved value differs from the current one.
    static let updated = Flags(rawValue: 1 << 4)
    /// Inserted (or brought back) in the current turn.
    static let turnInserted = Flags(rawValue: 1 << 5)
    /// Deleted in the current turn.
    static let turnDeleted = Flags(rawValue: 1 << 6)
    /// Brought back in the current turn (with `turnInserted`): unlike a new object, it had
    /// values before the turn, which a redo of its deletion must restore.
    static let turnRevived = Flags(rawValue: 1 << 7)
    /// The slots are the snapshot's: the object must copy them before its first change.
    static let sharesRow = Flags(rawValue: 1 << 8)
    /// Saved, unchanged here, and deleted from the store by another context since the context
    /// read it: still registered (its values stay readable until it is refreshed), but no
    /// fetch finds it.
    static let vanished = Flags(rawValue: 1 << 9)
  }

  /// A new object, with slots of its own, all empty.
  init(context: ManagedObjectContext, layout: EntityLayout, row: Int32) {
    self.owner = context
    self.layout = layout
    self.row = row
    self.slotCount = UInt16(layout.slotCount)
    self.base = SlotStorage(count: layout.slotCount).base
  }

  /// A saved object, reading its values from `committed` until its first change.
  init(
    context: ManagedObjectContext, layout: EntityLayout, row: Int32, sharing committed: CommittedRow
  ) {
    self.owner = context
    self.layout = layout
    self.row = row
    self.slotCount = UInt16(layout.slotCount)
    self.base = committed.slots.base
    self.anchor = .row(committed)
    self.flags = [.permanent, .sharesRow]
  }

  deinit {
    if !flags.contains(.sharesRow) { slots.deallocate() }
  }

  /// Gives the object slots of its own, copied from the snapshot's, before a change.
  @inline(__always)
  func ownSlots() {
    guard flags.contains(.sharesRow) else { return }
    base = SlotStorage(copying: slots).base
    flags.remove(.sharesRow)
  }

  /// Makes `committed` the object's snapshot and its values, dropping slots of its own.
  func share(_ committed: CommittedRow) {
    if !flags.contains(.sharesRow) { slots.deallocate() }
    base = committed.slots.base
    snapshot = committed
    flags.insert(.sharesRow)
  }

  /// The object's entity.
  public var entity: EntityDescription { layout.entity }

  /// The name of the object's entity.
  public var entityName: String { layout.entity.name }

  /// The object's ID: temporary until the object is saved, permanent afterwards.
  public var objectID: ManagedObjectID {
    guard let context = owner else {
      return ManagedObjectID(entityName: entityName, temporary: UUID(uuid: UUID_NULL_BYTES))
    }
    return context.objectID(of: self)
  }

  /// Whether the object was inserted since the last save.
  public var isInserted: Bool { flags.contains(.inserted) }

  /// Whether the object was deleted since the last save.
  public var isDeleted: Bool { flags.contains(.deleted) }

  /// Whether the object has unsaved changes to its values.
  public var isUpdated: Bool { flags.contains(.updated) }

  /// Whether the object was inserted, updated or deleted since the last save.
  public var hasChanges: Bool { isInserted || isDeleted || isUpdated }

  public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

  /// `Entity <ID>`.
  public var description: String { "\(entityName) <\(objectID)>" }

  // MARK: Slots

  /// The slot of `key`, or an `unknownKey` error naming the entity's properties.
  func slot(of key: String) throws(GraphError) -> Int {
    guard let slot = layout.slotByName[key] else {
      throw GraphError.unknownKey(
        key, entity: entityName, known: layout.properties.map(\.name))
    }
    return slot
  }

  /// The context, or `notRegistered` when the object has left it.
  func context() throws(GraphError) -> ManagedObjectContext {
    guard let context = owner else { throw GraphError.notRegistered(entityName) }
    guard !flags.contains(.removed) else { throw GraphError.removed(entityName) }
    return context
  }
}

private let UUID_NULL_BYTES: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

/// What an object's changes recorded: the value at the last save of each slot changed since,
/// and the value before the turn of each slot changed in it (`.unrecorded` for the others).
final class ChangeRecords {
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  var saved: ContiguousArray<Slot>?
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  var turn: ContiguousArray<Slot>?
  /// The object's snapshot, kept here while the object has records.
  var snapshot: CommittedRow?

  /// Records `value` as `slot`'s value at the last save unless one is recorded; returns
  /// whether the save's records were created (`count` of them, all `.unrecorded`).
  @inline(__always)
  func keepSaved(_ value: Slot, at slot: Int, count: Int) -> Bool {
    let created = saved == nil
    if created { saved = ContiguousArray(repeating: .unrecorded, count: count) }
    if case .unrecorded? = saved?[slot] { saved?[slot] = value.snapshot() }
    return created
  }

  /// Records `value` as `slot`'s value before the turn unless one is recorded; returns
  /// whether the turn's records were created.
  @inline(__always)
  func keepTurn(_ value: Slot, at slot: Int, count: Int) -> Bool {
    let created = turn == nil
    if created { turn = ContiguousArray(repeating: .unrecorded, count: count) }
    if case .unrecorded? = turn?[slot] { turn?[slot] = value.snapshot() }
    return created
  }
}

extension ManagedObject {
  /// The object's change records, created at the first change.
  func changeRecords() -> ChangeRecords {
    if let records { return records }
    let created = ChangeRecords()
    records = created
    return created
  }
}
