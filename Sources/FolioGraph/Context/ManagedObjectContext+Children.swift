import FolioModel
import FolioUndo

/// Child contexts: a context whose "store" is another context.
///
/// A child reads through its parent — an object the child first touches takes the parent's
/// values at that moment, pending changes included, and keeps them as its snapshot until it is
/// refreshed — and its save pushes its changes into the parent, as changes of the parent's
/// current turn (so the parent's undo manager registers them), never to the file. Its undo
/// stack is its own. Discarding a child (or rolling it back) leaves the parent as it was: the
/// "edit sheet with Cancel" pattern. Objects inserted in a child keep their temporary IDs,
/// which are the same in the parent, until the root context saves.
extension ManagedObjectContext {
  /// Creates a child context of `parent`, empty until it reads objects through the parent;
  /// its changes register with `undoManager` (none when `nil`).
  ///
  /// The counterpart of a Core Data context whose `parent` is set.
  public convenience init(parent: ManagedObjectContext, undoManager: UndoManager? = UndoManager()) {
    self.init(model: parent.model, layouts: parent.layouts, undoManager: undoManager)
    self.parent = parent
    persistentStoreCoordinator = parent.persistentStoreCoordinator
    cache = RowCache(childOf: parent.cache, source: parent)
    validationRules = parent.validationRules
  }

  /// Pushes the changes since the last save into the parent.
  ///
  /// - Throws: `GraphError.validation`, `.deny`, as ``save()``. On error nothing reaches the
  ///   parent.
  func saveToParent() throws(GraphError) {
    guard let parent else { return }
    processPendingChanges()
    guard hasChanges else { return }
    if hasObservers { post(.willSave) }
    capturedTurnChanges = []
    resolveConstraintConflicts()
    do {
      try validate()
    } catch {
      revertConstraintResolution()
      throw error
    }
    capturedTurnChanges = []
    let saved = (inserted: insertedRows, updated: Set(updatedRows), deleted: deletedRows)
    // New objects first, so that relationships between them find both ends in the parent.
    for row in saved.inserted.sorted() {
      guard let object = table[Int(row)] else { continue }
      parent.adoptInserted(row: row, layout: object.layout, values: object.slots)
    }
    for row in saved.deleted.sorted() {
      if let object = parent.object(atRow: row) { parent.markDeleted(object, propagating: false) }
    }
    for row in saved.inserted.union(saved.updated).sorted() {
      guard let object = table[Int(row)], let target = parent.object(atRow: row) else { continue }
      push(object, into: target, of: parent, isNew: saved.inserted.contains(row))
    }
    // The child now reads what it pushed as its snapshot.
    for row in saved.inserted.union(saved.updated).union(saved.deleted) {
      guard let object = table[Int(row)] else { continue }
      cache.forget(row)
      if object.flags.contains(.deleted) {
        object.flags.remove(.deleted)
        object.flags.insert(.removed)
        continue
      }
      object.flags.remove(.inserted)
      guard let committed = cache.row(row) else { continue }
      object.records?.saved = nil
      clearUpdated(object)
      object.snapshot = committed
    }
    insertedRows.removeAll()
    deletedRows.removeAll()
    discardedRows.removeAll()
    forgetSavedValues()
    if hasObservers {
      post(
        .didSave(
          ObjectIDChanges(
            inserted: Set(saved.inserted.compactMap { table[Int($0)]?.objectID }),
            updated: Set(saved.updated.compactMap { table[Int($0)]?.objectID }),
            deleted: Set(saved.deleted.compactMap { table[Int($0)]?.objectID }))))
    }
  }

  /// Applies what `object` changed since its snapshot to `target`, the parent's object at the
  /// same row: attributes by `write`, relationships through the parent's inverse-keeping
  /// changes, so the parent records both sides.
  private func push(
    _ object: ManagedObject, into target: ManagedObject, of parent: ManagedObjectContext,
    isNew: Bool
  ) {
    let snapshot = isNew ? nil : object.snapshot?.slots
    for (slot, property) in object.layout.properties.enumerated() {
      let mine = object.slots[slot]
      if let snapshot, same(mine, snapshot[slot]) { continue }
      switch property.kind {
      case .attribute:
        if !isNew { parent.write(mine.snapshot(), to: target, slot: slot) }
      case .relationship(let relationship):
        let live = mine.targets.filter { row in
          self.object(atRow: row)?.flags.isDisjoint(with: [.removed, .deleted]) ?? false
        }
        let was = snapshot?[slot].targets ?? []
        if relationship.isToMany {
          // Only what the child took out goes: objects it cannot see (deleted in the parent
          // since it read them) stay, as they would for the same change made in the parent.
          let kept = Set(mine.targets)
          for row in was where !kept.contains(row) {
            if let other = parent.object(atRow: row) {
              parent.remove(other, from: target, slot: slot, relationship: relationship)
            }
          }
          if relationship.isOrdered {
            let visible = Set(live)
            let held = Set(parent.primitiveTargets(of: target, slot: slot))
            let order = mine.targets.filter { visible.contains($0) || held.contains($0) }
            parent.setTargets(
              of: target, slot: slot, relationship: relationship,
              to: order.compactMap { parent.object(atRow: $0) })
          } else {
            for other in live.compactMap({ parent.object(atRow: $0) }) {
              parent.add(other, to: target, slot: slot, relationship: relationship)
            }
          }
        } else {
          parent.setTarget(
            of: target, slot: slot, relationship: relationship,
            to: live.first.flatMap { parent.object(atRow: $0) })
        }
      case .fetched:
        continue
      }
    }
  }

  /// Inserts an object pushed from a child at its row, with the child's attribute values.
  private func adoptInserted(row: Int32, layout: EntityLayout, values: SlotStorage) {
    let object: ManagedObject
    if let existing = Int(row) < table.count ? table[Int(row)] : nil {
      // Pushed before and since deleted here: it comes back.
      object = existing
      revive(object)
    } else {
      object = layout.makeObject(in: self, row: row)
      object.flags.insert([.inserted, .turnInserted])
      place(object)
      insertedRows.insert(row)
      turnInsertedRows.append(row)
      noteTurnActivity()
      indexVersion &+= 1
    }
    for (slot, property) in layout.properties.enumerated() where property.attribute != nil {
      write(values[slot].snapshot(), to: object, slot: slot)
    }
  }
}

extension ManagedObjectContext: RowSource {
  func committedRow(_ row: Int32) -> CommittedRow? {
    guard let object = object(atRow: row), object.flags.isDisjoint(with: [.removed, .deleted])
    else { return nil }
    return CommittedRow.make(
      layout: object.layout, version: object.snapshot?.version ?? 0, copying: object.slots)
  }

  func liveRows() -> [Int32] {
    registerAllObjects()
    return table.indices.compactMap { index in
      guard let object = table[index], object.flags.isDisjoint(with: [.removed, .deleted]) else {
        return nil
      }
      return Int32(index)
    }
  }

  func isPermanent(_ row: Int32) -> Bool {
    object(atRow: row)?.flags.contains(.permanent) ?? false
  }
}
