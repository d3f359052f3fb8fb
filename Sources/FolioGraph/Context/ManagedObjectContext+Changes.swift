import FolioModel
import Foundation

/// The primitives every change goes through: record the old value, then write.
///
/// Relationship changes come in two layers. The *primitive* ones (`primitive…`) change one
/// side only and record it; the public ones call them for both sides, so a relationship and its
/// inverse always change together: setting `spending.person` removes the spending from its old
/// person's `spendings` and adds it to the new one's; adding to a one-to-many takes the object
/// away from its previous owner; a one-to-one takes the new partner away from its previous one.
extension ManagedObjectContext {
  // MARK: Recording

  /// Keeps the value `object` has in `slot` before it changes, for the save and the turn.
  ///
  /// The records live in the object (`records?.saved`, `records?.turn`, allocated at its first change)
  /// so recording is an array write, with no hashing.
  func recordChange(of object: ManagedObject, slot: Int) {
    willChange(object, slot: slot)
    // The first change copies the slots the object shares with its committed row.
    object.ownSlots()
    // What awakeFromFetch() sets is not a change: no record, no turn, no undo.
    guard !isAwakeningFromFetch else { return }
    noteTurnActivity()
    let flags = object.flags
    // Objects new since the save have no saved values to keep; objects out of the graph, or
    // deleted, are not "updated" (though a deleted one keeps its saved values for revival).
    let keepsSaved = flags.isDisjoint(with: [.inserted, .removed])
    let keepsTurn = !flags.contains(.turnInserted) || flags.contains(.turnRevived)
    guard keepsSaved || keepsTurn else { return }
    // One reference to the records for the whole change.
    let records = object.changeRecords()
    let slots = object.slots
    if keepsSaved {
      if records.keepSaved(slots[slot], at: slot, count: slots.count) {
        savedRows.append(object.row)
      }
      if !flags.contains(.deleted) { markUpdated(object) }
    }
    if keepsTurn, records.keepTurn(slots[slot], at: slot, count: slots.count) {
      turnRows.append(object.row)
    }
  }

  func markUpdated(_ object: ManagedObject) {
    guard !object.flags.contains(.updated) else { return }
    object.flags.insert(.updated)
    updatedCount += 1
  }

  func clearUpdated(_ object: ManagedObject) {
    guard object.flags.contains(.updated) else { return }
    object.flags.remove(.updated)
    updatedCount -= 1
  }

  package func write(_ value: Slot, to object: ManagedObject, slot: Int) {
    recordChange(of: object, slot: slot)
    if object.layout.indexedSlots[slot] { indexVersion &+= 1 }
    valueVersion &+= 1
    object.slots[slot] = value
    didChange(object, slot: slot)
  }

  // MARK: Primitive relationship changes (one side)

  func primitiveTarget(of object: ManagedObject, slot: Int) -> Int32? {
    if case .object(let row) = object.slots[slot] { return row }
    return nil
  }

  func primitiveTargets(of object: ManagedObject, slot: Int) -> [Int32] {
    switch object.slots[slot] {
    case .objects(let set): return set.rows
    case .object(let row): return [row]
    default: return []
    }
  }

  func primitiveSetTarget(of object: ManagedObject, slot: Int, to row: Int32?) {
    guard primitiveTarget(of: object, slot: slot) != row else { return }
    write(row.map { .object($0) } ?? .null, to: object, slot: slot)
  }

  func primitiveAdd(_ row: Int32, to object: ManagedObject, slot: Int, at index: Int? = nil) {
    if case .objects(let set) = object.slots[slot], set.contains(row) { return }
    recordChange(of: object, slot: slot)
    rowSet(of: object, slot: slot).insert(row, at: index)
    didChange(object, slot: slot)
  }

  func primitiveRemove(_ row: Int32, from object: ManagedObject, slot: Int) {
    guard case .objects(let set) = object.slots[slot], set.contains(row) else { return }
    recordChange(of: object, slot: slot)
    // Recording may have copied the slots: the set to change is the object's own.
    if case .objects(let own) = object.slots[slot] { own.remove(row) }
    didChange(object, slot: slot)
  }

  /// The slot's row set, created (unrecorded: an empty set and no set are the same value) when
  /// missing. The object must own its slots (see ``ManagedObject/ownSlots()``).
  func rowSet(of object: ManagedObject, slot: Int) -> RowSet {
    if case .objects(let set) = object.slots[slot] { return set }
    let ordered = object.layout.properties[slot].relationship?.isOrdered ?? false
    let set = RowSet(ordered: ordered)
    object.slots[slot] = .objects(set)
    return set
  }

  // MARK: Relationship changes with their inverse

  /// Points a to-one relationship at `target` (or nothing), keeping the inverse in step.
  func setTarget(
    of source: ManagedObject, slot: Int, relationship: RelationshipLayout, to target: ManagedObject?
  ) {
    let old = primitiveTarget(of: source, slot: slot)
    guard old != target?.row else { return }
    if let old, let oldObject = object(atRow: old) {
      unlinkInverse(of: source, relationship: relationship, from: oldObject)
    }
    primitiveSetTarget(of: source, slot: slot, to: target?.row)
    if let target { linkInverse(of: source, slot: slot, relationship: relationship, to: target) }
  }

  /// Adds `target` to a to-many relationship, keeping the inverse in step.
  func add(
    _ target: ManagedObject, to source: ManagedObject, slot: Int,
    relationship: RelationshipLayout, at index: Int? = nil
  ) {
    if case .objects(let set) = source.slots[slot], set.contains(target.row) { return }
    primitiveAdd(target.row, to: source, slot: slot, at: index)
    linkInverse(of: source, slot: slot, relationship: relationship, to: target)
  }

  /// Removes `target` from a to-many relationship, keeping the inverse in step.
  func remove(
    _ target: ManagedObject, from source: ManagedObject, slot: Int,
    relationship: RelationshipLayout
  ) {
    guard case .objects(let set) = source.slots[slot], set.contains(target.row) else { return }
    primitiveRemove(target.row, from: source, slot: slot)
    unlinkInverse(of: source, relationship: relationship, from: target)
  }

  /// Replaces a to-many relationship's contents (and, when ordered, their order).
  func setTargets(
    of source: ManagedObject, slot: Int, relationship: RelationshipLayout,
    to targets: [ManagedObject]
  ) {
    let wanted = Set(targets.map(\.row))
    for row in primitiveTargets(of: source, slot: slot) where !wanted.contains(row) {
      if let object = object(atRow: row) {
        remove(object, from: source, slot: slot, relationship: relationship)
      }
    }
    for target in targets {
      add(target, to: source, slot: slot, relationship: relationship)
    }
    if relationship.isOrdered {
      let order = deduplicated(targets.map(\.row))
      if primitiveTargets(of: source, slot: slot) != order {
        write(.objects(RowSet(order, ordered: true)), to: source, slot: slot)
      }
    }
  }

  /// Makes `target`'s inverse point back at `source`, taking `target` from its previous owner
  /// (one-to-many) or partner (one-to-one).
  func linkInverse(
    of source: ManagedObject, slot: Int, relationship: RelationshipLayout, to target: ManagedObject
  ) {
    guard let inverseSlot = relationship.inverseSlot else { return }
    if relationship.inverseIsToMany {
      primitiveAdd(source.row, to: target, slot: inverseSlot)
      return
    }
    if let previous = primitiveTarget(of: target, slot: inverseSlot), previous != source.row,
      let previousObject = object(atRow: previous)
    {
      if relationship.isToMany {
        primitiveRemove(target.row, from: previousObject, slot: slot)
      } else if primitiveTarget(of: previousObject, slot: slot) == target.row {
        primitiveSetTarget(of: previousObject, slot: slot, to: nil)
      }
    }
    primitiveSetTarget(of: target, slot: inverseSlot, to: source.row)
  }

  /// Removes `source` from `target`'s inverse.
  func unlinkInverse(
    of source: ManagedObject, relationship: RelationshipLayout, from target: ManagedObject
  ) {
    guard let inverseSlot = relationship.inverseSlot else { return }
    if relationship.inverseIsToMany {
      primitiveRemove(source.row, from: target, slot: inverseSlot)
    } else if primitiveTarget(of: target, slot: inverseSlot) == source.row {
      primitiveSetTarget(of: target, slot: inverseSlot, to: nil)
    }
  }

  private func deduplicated(_ rows: [Int32]) -> [Int32] {
    var seen: Set<Int32> = []
    return rows.filter { seen.insert($0).inserted }
  }

  // MARK: Deleting

  /// Marks `object` deleted; its relationships' delete rules apply when pending changes are
  /// processed.
  ///
  /// An object inserted since the last save simply leaves the graph: it is in neither
  /// ``insertedObjects`` nor ``deletedObjects`` afterwards.
  ///
  /// Undo: the deletion and what its rules cascade join the current turn.
  ///
  /// - Throws: `GraphError.notRegistered` if `object` belongs to another context.
  public func delete(_ object: ManagedObject) throws(GraphError) {
    try checkRegistered(object)
    markDeleted(object)
  }

  /// Marks `object` deleted; with `propagating`, its delete rules run when the turn is
  /// processed (undo and rollback restore both sides explicitly and pass `false`).
  package func markDeleted(_ object: ManagedObject, propagating: Bool = true) {
    guard object.flags.isDisjoint(with: [.deleted, .removed, .turnDeleted]) else { return }
    noteTurnActivity()
    indexVersion &+= 1
    if object.flags.contains(.inserted) {
      object.flags.remove(.inserted)
      object.flags.insert(.removed)
      insertedRows.remove(object.row)
      // Only an object the app deleted keeps its Deny rules until the save: undoing an
      // insertion (or rolling it back) is not a deletion.
      if propagating { discardedRows.insert(object.row) }
    } else {
      object.flags.insert(.deleted)
      deletedRows.insert(object.row)
      clearUpdated(object)
    }
    object.flags.insert(.turnDeleted)
    turnDeleted.append(object.row)
    if propagating { pendingDeletes.append(object.row) }
  }

  /// Applies the delete rules of every object deleted since the last call; cascades run until
  /// nothing more is deleted, each object once, whatever cycles or diamonds the graph has.
  func propagateDeletes() {
    var next = 0
    while next < pendingDeletes.count {
      let row = pendingDeletes[next]
      next += 1
      guard let object = object(atRow: row) else { continue }
      // The class's hook runs before the rules, and may delete more (appended to the list).
      if object.layout.hasCustomClass { object.prepareForDeletion() }
      for (slot, property) in object.layout.properties.enumerated() {
        guard let relationship = property.relationship else { continue }
        let targets = primitiveTargets(of: object, slot: slot)
        switch relationship.deleteRule {
        case .nullify:
          for target in targets {
            if let targetObject = self.object(atRow: target),
              !targetObject.flags.contains(.turnDeleted)
            {
              unlinkInverse(of: object, relationship: relationship, from: targetObject)
            }
          }
        case .cascade:
          for target in targets {
            if let targetObject = self.object(atRow: target) { markDeleted(targetObject) }
          }
        case .deny, .noAction:
          break
        }
      }
    }
    pendingDeletes.removeAll()
  }

  // MARK: Processing a turn

  /// Whether the turn has changes that ``processPendingChanges()`` has not registered yet
  /// (some may net to nothing, a value set back): what a trace shows beside the undo stack.
  package var hasUnprocessedChanges: Bool {
    !pendingDeletes.isEmpty || !turnInsertedRows.isEmpty || !turnDeleted.isEmpty
      || !turnRows.isEmpty
  }

  /// Applies pending deletes' rules, registers the turn's net change with the undo manager as
  /// one action, and posts one notification with the turn's inserted, updated (with their values
  /// before the turn) and deleted objects.
  ///
  /// The undo manager's checkpoints, the end of each turn, saving, undoing and redoing all call
  /// this first, so a turn's changes land in its undo group.
  ///
  /// Undo: the turn's changes become one action of the current undo group.
  public func processPendingChanges() {
    guard !isProcessingChanges else { return }
    isProcessingChanges = true
    defer { isProcessingChanges = false }
    isTurnScheduled = false
    propagateDeletes()
    guard !turnInsertedRows.isEmpty || !turnDeleted.isEmpty || !turnRows.isEmpty else { return }
    let change = netTurnChange()
    clearTurn()
    guard !change.isEmpty else { return }
    if capturesTurnChanges {
      capturedTurnChanges.append(change)
    } else {
      registerUndo(of: change)
    }
    if hasObservers { post(notification(for: change)) }
  }

  /// The turn's change with no-ops left out: objects inserted and deleted in the turn, and
  /// values set back to what they were, leave nothing. An object whose values all match its
  /// saved ones again stops being updated.
  private func netTurnChange() -> TurnChange {
    var change = TurnChange()
    var seen: Set<Int32> = []
    for row in turnInsertedRows where seen.insert(row).inserted {
      guard let object = object(atRow: row), object.flags.contains(.turnInserted),
        !object.flags.contains(.turnDeleted)
      else { continue }
      change.inserted.append(row)
    }
    seen.removeAll()
    for row in turnDeleted where seen.insert(row).inserted {
      guard let object = object(atRow: row), object.flags.contains(.turnDeleted),
        !object.flags.contains(.turnInserted)
      else { continue }
      change.deleted.append(row)
    }
    for row in turnRows {
      guard let object = object(atRow: row), let records = object.records,
        let olds = records.turn
      else { continue }
      let slots = object.slots
      for slot in olds.indices {
        let old = olds[slot]
        if case .unrecorded = old { continue }
        guard !same(old, slots[slot]) else { continue }
        change.rows.append(row)
        change.slots.append(Int32(slot))
        change.olds.append(old)
      }
      if records.saved != nil { settleUpdated(object) }
    }
    return change
  }

  /// Forgets the turn's records.
  func clearTurn() {
    for row in turnRows { table[Int(row)]?.records?.turn = nil }
    for row in turnInsertedRows { table[Int(row)]?.flags.remove([.turnInserted, .turnRevived]) }
    for row in turnDeleted { table[Int(row)]?.flags.remove(.turnDeleted) }
    turnRows.removeAll()
    turnInsertedRows.removeAll()
    turnDeleted.removeAll()
  }

  private func notification(for change: TurnChange) -> ObjectsDidChangeNotification {
    // An object brought back has its values recorded (for redo), but it is inserted, not updated.
    let notUpdated = Set(change.deleted).union(change.inserted)
    var updated: [ManagedObject: [String: Any?]] = [:]
    for index in change.rows.indices where !notUpdated.contains(change.rows[index]) {
      guard let object = object(atRow: change.rows[index]) else { continue }
      let slot = Int(change.slots[index])
      updated[object, default: [:]][object.layout.properties[slot].name] = publicValue(
        change.olds[index], slot: slot, of: object)
    }
    return ObjectsDidChangeNotification(
      insertedObjects: Set(change.inserted.compactMap { object(atRow: $0) }),
      updatedObjects: updated,
      deletedObjects: Set(change.deleted.compactMap { object(atRow: $0) }))
  }

  /// Asks the undo manager's event loop to process pending changes when the turn ends, once
  /// per turn.
  func noteTurnActivity() {
    if !isChangeNoticed, let changeHook {
      isChangeNoticed = true
      changeHook()
    }
    guard !isTurnScheduled, let loop = undoManager?.eventLoop else { return }
    isTurnScheduled = true
    loop.scheduleEndOfTurn { [weak self] in self?.processPendingChanges() }
  }

  // MARK: Helpers

  func checkRegistered(_ object: ManagedObject) throws(GraphError) {
    guard object.owner === self else { throw GraphError.notRegistered(object.entityName) }
    guard !object.flags.contains(.removed) else { throw GraphError.removed(object.entityName) }
  }

  /// The public value of a slot of `object`: objects for relationships.
  func publicValue(_ value: Slot, slot: Int, of object: ManagedObject) -> Any? {
    switch object.layout.properties[slot].kind {
    case .attribute(let attribute):
      return value.publicValue(as: attribute.attributeType)
    case .relationship(let relationship):
      switch value {
      case .object(let row): return self.object(atRow: row)
      case .objects(let set):
        let objects = set.rows.compactMap { self.object(atRow: $0) }
        return relationship.isOrdered ? objects as Any : Set(objects) as Any
      default:
        if relationship.isToMany {
          return relationship.isOrdered ? [ManagedObject]() as Any : Set<ManagedObject>() as Any
        }
        return nil
      }
    case .fetched:
      return nil
    }
  }

  /// Whether two slots hold the same value (row sets compared by content, in order when
  /// ordered).
  func same(_ a: Slot, _ b: Slot) -> Bool { Slot.same(a, b) }
}

extension Slot {
  /// A copy that later in-place changes to a row set do not reach.
  func snapshot() -> Slot {
    if case .objects(let set) = self { return .objects(set.copy()) }
    return self
  }
}
