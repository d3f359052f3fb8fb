import FolioModel
import Foundation

/// An object in the graph: an instance of one entity, whose properties are read and written by
/// name, or through the typed properties of its entity's class.
///
/// The counterpart of Core Data's `NSManagedObject`. Objects are created by their context
/// (``ManagedObjectContext/insertNewObject(forEntityName:)``, or `Book(context:)` for an
/// entity's class) and belong to it; they are not `Sendable`. Values are checked against the
/// model when they are set:
///
/// ```swift
/// let person = try context.insertNewObject(forEntityName: "Person")
/// try person.setValue("Ada", forKey: "name")
/// let name: String? = try person.value(forKey: "name", as: String.self)
/// try spending.setValue(person, forKey: "person")   // person.spendings now holds spending
/// ```
///
/// ## Entity classes
/// Subclass `ManagedObject` for an entity (entity inheritance is class inheritance), register
/// the classes with the model (``FolioModel/ManagedObjectModel/register(_:)``), and the context
/// instantiates them for every insert, fetch and load. `folio codegen` writes such classes
/// from a model, with a typed property per attribute and relationship. A subclass may override
/// the lifecycle methods (``awakeFromInsert()``) and need not declare an initializer; one that
/// does overrides ``init(_:)`` and calls `super.init(_:)`.
///
/// Storage is a slot per property, by property number (see `Slot`), whichever door a value
/// comes through: keyed and typed access read and write the same slots.
open class ManagedObject: Hashable, CustomStringConvertible {
  /// What the context passes to a new object: its entity, its place in the context, and the
  /// committed values it starts from. Only a context makes one.
  public struct Initialization {
    let context: ManagedObjectContext
    let layout: EntityLayout
    let row: Int32
    let committed: CommittedRow?
  }

  /// The name of the entity this class represents: by default the class's own name. Classes
  /// that `folio codegen` writes return their entity's name.
  open class var entityName: String { String(describing: self) }

  /// The context the object belongs to; `nil` once the object has left the graph (inserted and
  /// deleted before a save, deleted by a save, or forgotten by `reset()`), or once the context
  /// itself is gone.
  public final var managedObjectContext: ManagedObjectContext? {
    flags.contains(.removed) ? nil : owner
  }
  /// The context that created the object, even after the object left its graph (an undo can
  /// bring it back).
  final weak var owner: ManagedObjectContext?
  package final let layout: EntityLayout
  /// The object's place in its context's object table.
  package final let row: Int32
  // No access to a property marked `@exclusivity(unchecked)` overlaps another access to it: none is
  // passed inout to code that can reach it again, and no closure run while one is being changed
  // touches it. Debug builds, where the tests run, check that at every access; release builds leave
  // the check out (an insert takes 1.1 times as long with it). Each property keeps its own mark:
  // gathered in one struct, reading one field while changing another would overlap on the struct.
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  package internal(set) final var flags: Flags = []
  /// The number of slots, kept beside the flags (in what would be padding) so that reading a
  /// slot does not go through the layout; a model has at most 65,535 properties per entity.
  private final let slotCount: UInt16
  /// Where the object's values are, one slot per property (no array header: 32 bytes less
  /// per object than a `ContiguousArray`): its ``snapshot``'s, shared, until its first change
  /// gives it slots of its own (``ownSlots()``).
  private final var base: UnsafeMutablePointer<Slot>
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// The snapshot alone while the object has no change records, the records (which hold the
  /// snapshot) once it has: one reference where two would make every object 16 bytes larger
  /// (a 56-byte object instead of 72, in the allocator's size classes).
  private final var anchor: Anchor?

  private enum Anchor {
    case row(CommittedRow)
    case records(ChangeRecords)
  }

  /// The object's values, one slot per property.
  package final var slots: SlotStorage {
    @inline(__always) get {
      #if DEBUG
        // A debug build refuses a write into a committed row the object shares: the caller
        // forgot `ownSlots()`, and would change every context's view of the store.
        SlotStorage(base: base, count: Int(slotCount), isShared: flags.contains(.sharesRow))
      #else
        SlotStorage(base: base, count: Int(slotCount))
      #endif
    }
  }

  /// The committed row the object was read from (or last saved as): the store's values when
  /// the context last looked. `nil` for an object not saved yet.
  final var snapshot: CommittedRow? {
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
  final var records: ChangeRecords? {
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

  package struct Flags: OptionSet {
    package let rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }
    /// Inserted since the last save.
    static let inserted = Flags(rawValue: 1 << 0)
    /// Deleted since the last save (and not inserted since it).
    package static let deleted = Flags(rawValue: 1 << 1)
    /// No longer in the graph: saved as deleted, or inserted and deleted before a save.
    package static let removed = Flags(rawValue: 1 << 2)
    /// Saved at least once, so its ID is permanent.
    package static let permanent = Flags(rawValue: 1 << 3)
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
    /// A key path recorder, outside any model (see `KeyPathRecording`).
    static let recorder = Flags(rawValue: 1 << 10)
  }

  /// Creates the object the context asked for: a new one, with slots of its own, all empty,
  /// or a saved one, reading its values from its committed row until its first change.
  ///
  /// Only a context calls this initializer (to create objects of your class, call
  /// ``init(context:)``); a subclass that declares its own initializers overrides it and
  /// calls `super.init(initialization)`.
  public required init(_ initialization: Initialization) {
    self.owner = initialization.context
    self.layout = initialization.layout
    self.row = initialization.row
    self.slotCount = UInt16(initialization.layout.slotCount)
    if let committed = initialization.committed {
      self.base = committed.slots.base
      self.anchor = .row(committed)
      self.flags = [.permanent, .sharesRow]
    } else {
      self.base = SlotStorage(count: initialization.layout.slotCount).base
    }
  }

  /// Creates an object of this class's entity and inserts it into `context`, as
  /// ``ManagedObjectContext/insertNewObject(forEntityName:)`` does:
  ///
  /// ```swift
  /// let book = Book(context: context)
  /// book.title = "Dune"
  /// ```
  ///
  /// The class must be registered with the context's model, for an entity that is not
  /// abstract; a class that is not is a programming error, and traps naming the class.
  public convenience init(context: ManagedObjectContext) {
    let layout = context.layout(ofClass: Self.self)
    self.init(
      Initialization(
        context: context, layout: layout, row: context.cache.reserveRow(), committed: nil))
    context.completeInsertion(of: self)
  }

  deinit {
    if !flags.contains(.sharesRow) { slots.deallocate() }
  }

  /// Gives the object slots of its own, copied from the snapshot's, before a change.
  @inline(__always)
  final func ownSlots() {
    guard flags.contains(.sharesRow) else { return }
    base = SlotStorage(copying: slots).base
    flags.remove(.sharesRow)
  }

  /// Makes `committed` the object's snapshot and its values, dropping slots of its own.
  final func share(_ committed: CommittedRow) {
    if !flags.contains(.sharesRow) { slots.deallocate() }
    base = committed.slots.base
    snapshot = committed
    flags.insert(.sharesRow)
  }

  // MARK: Lifecycle

  /// Called once in the object's life, when it is inserted (by ``init(context:)`` or
  /// ``ManagedObjectContext/insertNewObject(forEntityName:)``), after its attributes took their
  /// default values: set initial values here.
  ///
  /// What is set here is part of the insertion: undoing the insertion removes the object with
  /// its values, and a redo brings them back without calling this method again. The default
  /// does nothing. Called for registered classes only.
  open func awakeFromInsert() {}

  /// Called when the object is read from what the store holds: when a context first
  /// registers it (opening a document, a fetch, following a relationship to it), and again
  /// after ``ManagedObjectContext/refresh(_:mergeChanges:)`` without merging. Compute caches
  /// and transient values here.
  ///
  /// As in Core Data, change tracking is off meanwhile: what is set here is not a change (the
  /// context stays unchanged, nothing is saved unless set again later, and nothing can be
  /// undone). Inserting, deleting, fetching or saving here is not supported. The default does
  /// nothing. Not called for objects inserted in the context, nor for plain `ManagedObject`s.
  open func awakeFromFetch() {}

  /// Called when the object is deleted (by ``ManagedObjectContext/delete(_:)`` or a Cascade
  /// rule), when the turn is processed, before its delete rules apply: let go of what it
  /// holds, or record its passing elsewhere.
  ///
  /// What changes here joins the deletion's turn: undoing the deletion undoes it too, and a
  /// redo does not call this method again. The default does nothing.
  open func prepareForDeletion() {}

  /// Called at the start of a save for each object inserted, updated or deleted since the last
  /// one, before validation: set values derived from others here (a modification date).
  ///
  /// What changes here is saved and validated with the rest. An object changed here, or
  /// changed or inserted by another object's `willSave()`, gets `willSave()` again, until a
  /// round changes nothing, as in Core Data — so set a value only when it differs. What changes
  /// here stays in the context if the save then fails. The default does nothing.
  open func willSave() {}

  /// Called after a save succeeded, for each object it inserted, updated or deleted. The
  /// default does nothing.
  open func didSave() {}

  // MARK: Validation

  /// Checks the value `value` would be for `key`, without setting it: the model's constraints
  /// and the app's rules for that key.
  ///
  /// An entity class overrides this to add its own checks for some keys, throwing its own
  /// error (carried in the save's validation error) and calling `super` for the model's:
  ///
  /// ```swift
  /// override func validateValue(_ value: Any?, forKey key: String) throws {
  ///   try super.validateValue(value, forKey: key)
  ///   if key == "isbn", let text = value as? String, text.count != 13 { throw BookError.isbn }
  /// }
  /// ```
  ///
  /// A save calls it for each property of the inserted and updated objects of entity classes.
  ///
  /// - Throws: `GraphError.validation` with every failure; `.unknownKey`, `.typeMismatch`;
  ///   an override, any error.
  open func validateValue(_ value: Any?, forKey key: String) throws {
    try defaultValidation(of: value, forKey: key)
  }

  /// Checks the object as a save checks an inserted one: each property (through
  /// ``validateValue(_:forKey:)``), then the app's rules. An entity class overrides it for
  /// checks across properties, calling `super`; a save calls it for each inserted object, and
  /// carries what it throws in its validation error.
  ///
  /// - Throws: `GraphError.validation` with every failure; an override, any error.
  open func validateForInsert() throws { try defaultWholeValidation(on: .insert) }

  /// Checks the object as a save checks an updated one; see ``validateForInsert()``.
  ///
  /// - Throws: `GraphError.validation` with every failure; an override, any error.
  open func validateForUpdate() throws { try defaultWholeValidation(on: .update) }

  /// Checks whether the object may be deleted: its Deny rules and the app's delete rules. An
  /// entity class overrides it, calling `super`; a save calls it for each deleted object.
  ///
  /// - Throws: `GraphError.deny` or `.validation` with every failure; an override, any error.
  open func validateForDelete() throws { try defaultWholeValidation(on: .delete) }

  /// The object's entity.
  public final var entity: EntityDescription { layout.entity }

  /// The name of the object's entity.
  public final var entityName: String { layout.entity.name }

  /// The object's ID: temporary until the object is saved, permanent afterwards.
  public final var objectID: ManagedObjectID {
    guard let context = owner else {
      return ManagedObjectID(entityName: entityName, temporary: UUID(uuid: UUID_NULL_BYTES))
    }
    return context.objectID(of: self)
  }

  /// Whether the object was inserted since the last save.
  public final var isInserted: Bool { flags.contains(.inserted) }

  /// Whether the object was deleted since the last save.
  public final var isDeleted: Bool { flags.contains(.deleted) }

  /// Whether the object has unsaved changes to its values.
  public final var isUpdated: Bool { flags.contains(.updated) }

  /// Whether the object was inserted, updated or deleted since the last save.
  public final var hasChanges: Bool { isInserted || isDeleted || isUpdated }

  public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

  public final func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

  /// `Entity <ID>`.
  open var description: String { "\(entityName) <\(objectID)>" }

  // MARK: Slots

  /// The slot of `key`, or an `unknownKey` error naming the entity's properties.
  final func slot(of key: String) throws(GraphError) -> Int {
    guard let slot = layout.slotByName[key] else {
      throw GraphError.unknownKey(
        key, entity: entityName, known: layout.properties.map(\.name))
    }
    return slot
  }

  /// The context, or `notRegistered` when the object has left it.
  final func context() throws(GraphError) -> ManagedObjectContext {
    guard let context = owner else { throw GraphError.notRegistered(entityName) }
    guard !flags.contains(.removed) else { throw GraphError.removed(entityName) }
    return context
  }
}

private let UUID_NULL_BYTES: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

/// What an object's changes recorded: the value at the last save of each slot changed since,
/// and the value before the turn of each slot changed in it (`.unrecorded` for the others).
final class ChangeRecords {
  // No access to a property marked `@exclusivity(unchecked)` overlaps another access to it: none is
  // passed inout to code that can reach it again, and no closure run while one is being changed
  // touches it. Debug builds, where the tests run, check that at every access; release builds leave
  // the check out (an insert takes 1.1 times as long with it). Each property keeps its own mark:
  // gathered in one struct, reading one field while changing another would overlap on the struct.
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
