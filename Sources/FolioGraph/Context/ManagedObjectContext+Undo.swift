import FolioModel
import FolioUndo
import Foundation

/// The net change of one processed turn, as the undo manager keeps it.
///
/// Changed values are kept flat — a row, a slot number and the value before the turn per
/// change — so a recorded change costs 8 bytes beyond its old value's slot, with no per-object
/// dictionaries.
package struct TurnChange {
  /// Objects inserted in the turn (and not deleted in it).
  package var inserted: [Int32] = []
  /// Objects deleted in the turn (and not inserted in it), cascaded ones included.
  package var deleted: [Int32] = []
  package var rows: [Int32] = []
  package var slots: [Int32] = []
  package var olds: [Slot] = []

  package init() {}

  var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && rows.isEmpty }

  /// Estimated bytes kept, for the undo manager's byte budget.
  package var cost: Int {
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
/// changed — gets its value from before the turn. (Only a change made while registration was
/// disabled can since have moved a side the turn did not record; that side then follows the
/// restored one, so the two never disagree.) Applying records changes like any edit, and
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
      try undoManager.registerUndo(withTarget: self, cost: change.cost, payload: change) {
        context in context.applyBackwards(change)
      }
      undoRegistrationError = nil
    } catch {
      undoRegistrationError = error
    }
  }

  /// Forgets ``undoRegistrationError`` once it has been reported.
  public func clearUndoRegistrationError() { undoRegistrationError = nil }

  /// Reverts `change`, then processes the result (which registers its inverse).
  package func applyBackwards(_ change: TurnChange) {
    processPendingChanges()
    for row in change.inserted {
      if let object = object(atRow: row) { markDeleted(object, propagating: false) }
    }
    for row in change.deleted {
      if let object = object(atRow: row) { revive(object) }
    }
    // A change lists each object's slots together, so each object settles once, after its last.
    var pending: ManagedObject?
    var restoredRelationships: [RestoredRelationship] = []
    for index in change.rows.indices {
      guard let object = object(atRow: change.rows[index]) else { continue }
      if let previous = pending, previous !== object { settleUpdated(previous) }
      pending = object
      let slot = Int(change.slots[index])
      if let relationship = object.layout.properties[slot].relationship,
        relationship.inverseSlot != nil
      {
        restoredRelationships.append(
          RestoredRelationship(
            object: object, slot: slot, relationship: relationship,
            before: primitiveTargets(of: object, slot: slot)))
      }
      write(change.olds[index].snapshot(), to: object, slot: slot)
    }
    if let pending { settleUpdated(pending) }
    for touched in relinkInverses(of: restoredRelationships) { settleUpdated(touched) }
    processPendingChanges()
  }

  /// A relationship slot an undo restored, with the targets it held before.
  struct RestoredRelationship {
    let object: ManagedObject
    let slot: Int
    let relationship: RelationshipLayout
    let before: [Int32]
  }

  /// Brings inverses the undone change did not record into step with the restored sides.
  ///
  /// The values a change recorded agree with each other: they are the graph as it was before
  /// the change. A change made while undo registration was disabled may since have moved an
  /// edge whose other side the change never recorded; restoring only the recorded side would
  /// leave the two sides disagreeing. So each edge a restored slot gained or lost is made to
  /// agree on the other side too, as setting the relationship would: a target gains the object
  /// in its inverse (leaving its previous partner) or loses it. Inverses the change recorded
  /// already agree, and objects out of the graph keep their relationships as they are.
  ///
  /// - Returns: the objects changed here, to settle.
  private func relinkInverses(of restored: [RestoredRelationship]) -> [ManagedObject] {
    var touched: [ManagedObject] = []
    for entry in restored where isInGraph(entry.object) {
      let object = entry.object
      let after = primitiveTargets(of: object, slot: entry.slot)
      guard after != entry.before, let inverseSlot = entry.relationship.inverseSlot else {
        continue
      }
      let kept = Set(after)
      let held = Set(entry.before)
      for row in entry.before where !kept.contains(row) {
        guard let target = self.object(atRow: row), isInGraph(target),
          primitiveTargets(of: target, slot: inverseSlot).contains(object.row)
        else { continue }
        unlinkInverse(of: object, relationship: entry.relationship, from: target)
        touched.append(target)
      }
      for row in after where !held.contains(row) {
        guard let target = self.object(atRow: row), isInGraph(target),
          !primitiveTargets(of: target, slot: inverseSlot).contains(object.row)
        else { continue }
        if let previous = primitiveTarget(of: target, slot: inverseSlot).flatMap(
          self.object(atRow:))
        {
          touched.append(previous)
        }
        linkInverse(of: object, slot: entry.slot, relationship: entry.relationship, to: target)
        touched.append(target)
      }
    }
    return touched
  }

  /// Whether `object` is in the graph: neither deleted nor out of it.
  private func isInGraph(_ object: ManagedObject) -> Bool {
    object.flags.isDisjoint(with: [.deleted, .removed])
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
    guard let records = object.records, var saved = records.saved else {
      clearUpdated(object)
      return
    }
    let slots = object.slots
    var remaining = false
    var isTakenOut = false
    for slot in saved.indices {
      if case .unrecorded = saved[slot] { continue }
      if same(saved[slot], slots[slot]) {
        // Taken out of the records while it changes, so the array changes in place rather
        // than being copied.
        if !isTakenOut {
          records.saved = nil
          isTakenOut = true
        }
        saved[slot] = .unrecorded
      } else {
        remaining = true
      }
    }
    if isTakenOut { records.saved = saved }
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

  /// Forgets every object the context registered, and its undo stack: the context holds no
  /// object and no change, and the objects it had belong to no context. The store is not
  /// touched: a fetch, an object ID or a relationship brings its objects back, as new
  /// instances under the same IDs, and a save after it has nothing to write. Objects inserted
  /// and not saved are gone.
  ///
  /// Undo: clears both stacks.
  public func reset() {
    forgetFetchedProperties()
    for case let object? in table {
      object.flags.remove([
        .inserted, .deleted, .updated, .turnInserted, .turnDeleted, .turnRevived,
      ])
      object.flags.insert(.removed)
      object.records = nil
    }
    table.removeAll()
    registeredGeneration = nil
    // A child forgets its snapshots too: what it reads next is the parent's state then.
    if cache.source != nil { cache.clear() }
    indexVersion &+= 1
    valueVersion &+= 1
    attributeIndexes.removeAll()
    attributeColumns.removeAll()
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

  /// Reads `object`'s committed row again: what the store holds now, including what other
  /// contexts saved since this one read the object.
  ///
  /// Without `mergeChanges`, the object's unsaved changes — transient attributes' included —
  /// are dropped (a deletion too) and it takes the committed values. With it, the committed
  /// values are taken for the properties the object did not change; its own changes are
  /// applied again on top, and transient attributes keep their values — Core Data's documented
  /// behaviour, staleness of derived transients included. Either way an object of an entity
  /// class awakes again (``ManagedObject/awakeFromFetch()``), as a Core Data fault fires
  /// again; when merging, the transient values are put back after it. An object another context deleted
  /// leaves this one; an object inserted and not saved has nothing to read.
  ///
  /// Only this object changes: as in Core Data, a relationship refreshed without merging may
  /// disagree with its inverse in the context until the other side is refreshed too. A save
  /// commits relationships as edges, so what is saved always agrees with itself.
  ///
  /// Undo: the refresh is not undoable and does not register.
  ///
  /// - Throws: `GraphError.notRegistered`.
  public func refresh(_ object: ManagedObject, mergeChanges: Bool) throws(GraphError) {
    try checkRegistered(object)
    forgetFetchedProperties(of: object.row)
    // A merging refresh keeps the transient values: taken now, put back after the object
    // awakes, as Core Data restores them after `awakeFromFetch`.
    var transients: [(slot: Int, value: Slot)] = []
    if mergeChanges, object.layout.hasCustomClass {
      for (slot, property) in object.layout.properties.enumerated()
      where property.attribute?.isTransient == true {
        transients.append((slot, object.slots[slot].snapshot()))
      }
    }
    let gone = refreshValues(of: object, mergeChanges: mergeChanges)
    // Read again from its committed row, as a Core Data fault fires again.
    if !gone, !object.isInserted, object.layout.hasCustomClass {
      awakenings.append(object)
      awakenFetched()
      if transients.contains(where: { !same($0.value, object.slots[$0.slot]) }) {
        object.ownSlots()
        for (slot, value) in transients { object.slots[slot] = value }
      }
    }
    if hasObservers {
      post(
        ObjectsDidChangeNotification(
          insertedObjects: [], updatedObjects: [:], deletedObjects: gone ? [object] : [],
          refreshedObjects: gone ? [] : [object]))
    }
  }

  /// Refreshes every registered object, keeping their unsaved changes (Core Data's
  /// `refreshAllObjects()`): each reads what the store holds now.
  ///
  /// Undo: not undoable, registers nothing.
  public func refreshAllObjects() {
    forgetFetchedProperties()
    refreshMerging(table.lazy.compactMap { $0 }.filter { !$0.isInserted })
  }

  /// Brings the objects another context's save changed up to date (Core Data's
  /// `mergeChanges(fromContextDidSave:)`): updated objects registered here are refreshed,
  /// keeping their unsaved changes; deleted ones leave the context; inserted ones are read
  /// from the store. One objects-did-change notification lists them, the inserted ones among
  /// its inserted objects, so a fetched results controller shows them.
  ///
  /// Undo: not undoable, registers nothing.
  public func mergeChanges(fromContextDidSave changes: ObjectIDChanges) {
    let ids = changes.updated.union(changes.deleted).union(changes.refreshed)
    refreshMerging(
      ids.compactMap { id in
        guard let row = row(of: id), Int(row) < table.count else { return nil }
        return table[Int(row)]
      },
      inserted: Set(changes.inserted.compactMap { object(with: $0) }))
  }

  /// Refreshes `objects` keeping their changes, and posts one notification of the objects
  /// refreshed, of those that left because another context deleted them, and of `inserted`.
  private func refreshMerging(
    _ objects: some Sequence<ManagedObject>, inserted: Set<ManagedObject> = []
  ) {
    var refreshed: Set<ManagedObject> = []
    var deleted: Set<ManagedObject> = []
    for object in objects where !object.flags.contains(.removed) {
      if refreshValues(of: object, mergeChanges: true) {
        deleted.insert(object)
      } else {
        refreshed.insert(object)
      }
    }
    if hasObservers, !(refreshed.isEmpty && deleted.isEmpty && inserted.isEmpty) {
      post(
        ObjectsDidChangeNotification(
          insertedObjects: inserted, updatedObjects: [:], deletedObjects: deleted,
          refreshedObjects: refreshed))
    }
  }

  /// Forgets a deletion of `object` made in the turn, which a refresh drops: its delete
  /// rules do not run, and the turn does not register it.
  private func dropTurnDeletion(of object: ManagedObject) {
    guard object.flags.contains(.turnDeleted) else { return }
    object.flags.remove(.turnDeleted)
    pendingDeletes.removeAll { $0 == object.row }
  }

  /// Gives `object` its committed row's values, with (`mergeChanges`) or without its own
  /// changes on top. Returns `true` when the row is gone and the object left the context.
  @discardableResult
  func refreshValues(of object: ManagedObject, mergeChanges: Bool) -> Bool {
    guard !object.isInserted else { return false }
    return changingEveryProperty(of: object) {
      readCommittedValues(of: object, mergeChanges: mergeChanges)
    }
  }

  /// What ``refreshValues(of:mergeChanges:)`` does, without notifying observers.
  private func readCommittedValues(of object: ManagedObject, mergeChanges: Bool) -> Bool {
    cache.forget(object.row)
    indexVersion &+= 1
    valueVersion &+= 1
    guard let committed = cache.row(object.row) else {
      guard object.flags.contains(.permanent), object.snapshot != nil else { return false }
      // Another context deleted it: it leaves this one, changes and all.
      if object.isDeleted { deletedRows.remove(object.row) }
      dropTurnDeletion(of: object)
      clearUpdated(object)
      object.records = nil
      object.flags.remove(.deleted)
      object.flags.insert(.removed)
      return true
    }
    guard mergeChanges else {
      if object.isDeleted {
        object.flags.remove(.deleted)
        deletedRows.remove(object.row)
      }
      dropTurnDeletion(of: object)
      object.records = nil
      clearUpdated(object)
      object.share(committed)
      dropDeadReferences(of: object)
      return false
    }
    // Merging: the committed values, then the object's own changes on top.
    var changed: [(Int, Slot)] = []
    if let saved = object.records?.saved {
      for slot in saved.indices {
        if case .unrecorded = saved[slot] { continue }
        if !same(saved[slot], object.slots[slot]) { changed.append((slot, object.slots[slot])) }
      }
    }
    // The values of the slots the turn changed, to tell which ones the refresh changes.
    var turnValues: [(Int, Slot)] = []
    if let turn = object.records?.turn {
      for slot in turn.indices {
        if case .unrecorded = turn[slot] { continue }
        turnValues.append((slot, object.slots[slot].snapshot()))
      }
    }
    read(committed, into: object)
    if !changed.isEmpty {
      object.ownSlots()
      let saved = ContiguousArray<Slot>(repeating: .unrecorded, count: object.slots.count)
      object.changeRecords().saved = saved
      savedRows.append(object.row)
      for (slot, value) in changed {
        object.records?.saved?[slot] = object.slots[slot].snapshot()
        object.slots[slot] = value
      }
      settleUpdated(object)
      if object.records?.saved?.contains(where: {
        if case .unrecorded = $0 { false } else { true }
      }) == true, !object.isDeleted {
        markUpdated(object)
      }
    }
    // What the refresh changed, the turn takes as its starting value: for the turn it was so
    // all along, so the refresh registers no undo.
    for (slot, value) in turnValues where !same(value, object.slots[slot]) {
      object.records?.turn?[slot] = object.slots[slot].snapshot()
    }
    return false
  }
}

extension ManagedObjectContext {
  /// Checks the graph's internal consistency: every relationship target exists, every
  /// relationship of an object in the graph (not deleted) agrees with its inverse, and the
  /// change sets agree with the objects' flags. (A deleted object keeps its own relationships
  /// while the delete rules have already changed the other side.) For tests and debugging; costs O(*n*) in the graph.
  ///
  /// - Returns: a description of each broken invariant; empty when all hold.
  package func brokenInvariants() -> [String] {
    var problems: [String] = []
    registerAllObjects()
    for case let object? in table where object.flags.isDisjoint(with: [.removed, .deleted]) {
      for (slot, property) in object.layout.properties.enumerated() {
        guard let relationship = property.relationship else { continue }
        for row in primitiveTargets(of: object, slot: slot) {
          guard row >= 0, let target = self.object(atRow: row) else {
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
