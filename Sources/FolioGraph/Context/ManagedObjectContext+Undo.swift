import FolioModel
import FolioUndo
import Foundation

/// The net change of one processed turn, as the undo manager keeps it.
///
/// Changed values are kept flat — a row, a slot number and the value before the turn per
/// change — so a recorded change costs 8 bytes beyond its old value's slot, with no per-object
/// dictionaries.
struct TurnChange {
  /// Objects inserted in the turn (and not deleted in it).
  var inserted: [Int32] = []
  /// Objects deleted in the turn (and not inserted in it), cascaded ones included.
  var deleted: [Int32] = []
  var rows: [Int32] = []
  var slots: [Int32] = []
  var olds: [Slot] = []

  var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && rows.isEmpty }

  /// Estimated bytes kept, for the undo manager's byte budget.
  var cost: Int {
    (inserted.count + deleted.count) * 4 + rows.count * (8 + MemoryLayout<Slot>.stride)
  }
}

/// Undo and redo of the context's changes, rollback, reset and refresh.
///
/// ## How a turn is undone
/// ``processPendingChanges()`` registers the turn's net change as one action. Undoing it
/// *applies* the change backwards, without running any rule: objects inserted in the turn leave
/// the graph, objects deleted in it (cascaded ones too) come back, and every recorded slot —
/// both sides of every relationship the turn touched, since each side was recorded when it
/// changed — gets its value from before the turn. Applying records changes like any edit, and
/// processing them (inside the undo, so into the redo group) registers the exact inverse; redo
/// is the same mechanism the other way. Afterwards the inserted, updated and deleted sets are
/// what they were before the change: an object whose values all match the saved ones again is
/// no longer updated.
extension ManagedObjectContext {
  /// Forgets every saved-value record: after a save, or a rollback.
  func forgetSavedValues() {
    for row in savedRows {
      table[Int(row)]?.records?.saved = nil
      if let object = table[Int(row)] { clearUpdated(object) }
    }
    savedRows.removeAll()
  }

  func registerUndo(of change: TurnChange) {
    guard let undoManager else { return }
    do {
      try undoManager.registerUndo(withTarget: self, cost: change.cost) { context in
        context.applyBackwards(change)
      }
      undoRegistrationError = nil
    } catch {
      undoRegistrationError = error
    }
  }

  /// Forgets ``undoRegistrationError`` once it has been reported.
  public func clearUndoRegistrationError() { undoRegistrationError = nil }

  /// Reverts `change`, then processes the result (which registers its inverse).
  func applyBackwards(_ change: TurnChange) {
    processPendingChanges()
    for row in change.inserted {
      if let object = object(atRow: row) { markDeleted(object, propagating: false) }
    }
    for row in change.deleted {
      if let object = object(atRow: row) { revive(object) }
    }
    // A change lists each object's slots together, so each object settles once, after its last.
    var pending: ManagedObject?
    for index in change.rows.indices {
      guard let object = object(atRow: change.rows[index]) else { continue }
      if let previous = pending, previous !== object { settleUpdated(previous) }
      pending = object
      write(change.olds[index].snapshot(), to: object, slot: Int(change.slots[index]))
    }
    if let pending { settleUpdated(pending) }
    processPendingChanges()
  }

  /// Brings a deleted object back: a saved object stops being deleted; one deleted by a save,
  /// or inserted and deleted before one, is inserted again.
  func revive(_ object: ManagedObject) {
    noteTurnActivity()
    indexVersion &+= 1
    let row = object.row
    if object.flags.contains(.deleted) {
      object.flags.remove(.deleted)
      deletedRows.remove(row)
      markUpdated(object)
    } else if object.flags.contains(.removed) {
      object.flags.remove(.removed)
      object.flags.insert(.inserted)
      insertedRows.insert(row)
      discardedRows.remove(row)
    } else {
      return
    }
    if object.flags.contains(.turnDeleted) {
      object.flags.remove(.turnDeleted)
    } else if !object.flags.contains(.turnInserted) {
      object.flags.insert([.turnInserted, .turnRevived])
      turnInsertedRows.append(row)
    }
    settleUpdated(object)
  }

  /// Drops saved-value records that match the current values again; an object with none left
  /// is no longer updated.
  func settleUpdated(_ object: ManagedObject) {
    guard let saved = object.records?.saved else {
      clearUpdated(object)
      return
    }
    var remaining = false
    for slot in saved.indices {
      if case .unrecorded = saved[slot] { continue }
      if same(saved[slot], object.slots[slot]) {
        object.records?.saved?[slot] = .unrecorded
      } else {
        remaining = true
      }
    }
    if !remaining || object.flags.contains(.deleted) { clearUpdated(object) }
  }

  // MARK: Rollback, reset, refresh

  /// Discards every change since the last save — inserted objects leave, deleted ones come
  /// back, changed values return to their saved ones — and clears the undo stack.
  ///
  /// Undo: clears both stacks.
  public func rollback() {
    processPendingChanges()
    undoManager?.disableUndoRegistration()
    for row in insertedRows.sorted() {
      if let object = object(atRow: row) { markDeleted(object, propagating: false) }
    }
    for row in deletedRows.sorted() {
      if let object = object(atRow: row) { revive(object) }
    }
    for row in savedRows {
      guard let object = object(atRow: row), let saved = object.records?.saved else { continue }
      for slot in saved.indices {
        if case .unrecorded = saved[slot] { continue }
        write(saved[slot].snapshot(), to: object, slot: slot)
      }
    }
    forgetSavedValues()
    discardedRows.removeAll()
    processPendingChanges()
    try? undoManager?.enableUndoRegistration()
    undoManager?.removeAllActions()
  }

  /// Forgets every object: the context is empty, its objects belong to no context, and the
  /// undo stack is cleared.
  ///
  /// Undo: clears both stacks.
  public func reset() {
    for object in table.compactMap({ $0 }) {
      object.flags = [.removed]
    }
    table.removeAll()
    indexVersion &+= 1
    insertedRows.removeAll()
    deletedRows.removeAll()
    discardedRows.removeAll()
    savedRows.removeAll()
    updatedCount = 0
    turnRows.removeAll()
    turnInsertedRows.removeAll()
    turnDeleted.removeAll()
    pendingDeletes.removeAll()
    undoManager?.removeAllActions()
  }

  /// Refreshes `object` from its saved values.
  ///
  /// Without `mergeChanges`, the object's unsaved changes — transient attributes' included —
  /// are dropped and it takes its saved values. With it, the saved values are taken for the keys the object did not change, its
  /// own changes stay, and transient attributes keep the value they had — Core Data's
  /// documented behaviour, staleness of derived transients included. Until stores arrive
  /// (issue 5) the saved values are the ones the context committed at its last save.
  ///
  /// Only this object changes: as in Core Data, a relationship refreshed without merging may
  /// disagree with its inverse until the other side is refreshed too.
  ///
  /// Undo: the refresh is not undoable and does not register.
  ///
  /// - Throws: `GraphError.notRegistered`.
  public func refresh(_ object: ManagedObject, mergeChanges: Bool) throws(GraphError) {
    try checkRegistered(object)
    // Merging keeps the object's own changes and its transients; the other keys would take the
    // store's values, which in memory are the ones it already has.
    defer {
      if hasObservers {
        post(
          ObjectsDidChangeNotification(
            insertedObjects: [], updatedObjects: [:], deletedObjects: [],
            refreshedObjects: [object]))
      }
    }
    guard !mergeChanges else { return }
    if let saved = object.records?.saved {
      // Values change without `write`: indexes and columns are rebuilt.
      indexVersion &+= 1
      valueVersion &+= 1
      for slot in saved.indices {
        if case .unrecorded = saved[slot] { continue }
        object.slots[slot] = saved[slot].snapshot()
      }
    }
    object.records?.saved = nil
    object.records?.turn = nil
    clearUpdated(object)
  }
}

extension ManagedObjectContext {
  /// Checks the graph's internal consistency: every relationship target exists, every
  /// relationship of an object in the graph (not deleted) agrees with its inverse, and the
  /// change sets agree with the objects' flags. (A deleted object keeps its own relationships
  /// while the delete rules have already changed the other side.) For tests and debugging; costs O(*n*) in the graph.
  ///
  /// - Returns: a description of each broken invariant; empty when all hold.
  public func brokenInvariants() -> [String] {
    var problems: [String] = []
    for case let object? in table where object.flags.isDisjoint(with: [.removed, .deleted]) {
      for (slot, property) in object.layout.properties.enumerated() {
        guard let relationship = property.relationship else { continue }
        for row in primitiveTargets(of: object, slot: slot) {
          guard row >= 0, Int(row) < table.count, let target = table[Int(row)] else {
            problems.append(
              "\(object.entityName).\(property.name) of row \(object.row) points at missing row \(row)"
            )
            continue
          }
          guard let inverseSlot = relationship.inverseSlot, !target.flags.contains(.removed)
          else { continue }
          if !primitiveTargets(of: target, slot: inverseSlot).contains(object.row) {
            problems.append(
              "\(object.entityName).\(property.name) of row \(object.row) holds row \(row), whose inverse does not hold it back"
            )
          }
        }
      }
    }
    let flagged = table.reduce(0) { $0 + ($1?.flags.contains(.updated) == true ? 1 : 0) }
    if flagged != updatedCount {
      problems.append("\(flagged) objects are updated but the count says \(updatedCount)")
    }
    for row in insertedRows where table[Int(row)]?.flags.contains(.inserted) != true {
      problems.append("row \(row) is in insertedObjects without being inserted")
    }
    for row in deletedRows where table[Int(row)]?.flags.contains(.deleted) != true {
      problems.append("row \(row) is in deletedObjects without being deleted")
    }
    return problems
  }
}
