import FolioModel
import FolioStores

/// Conflicts: objects a save changed or deleted whose committed rows another context, or
/// another process, changed since this context read them (see ``MergePolicy``).
extension ManagedObjectContext {
  /// The rows of updated and deleted objects whose committed row changed since the context
  /// read it, in row order. An object deleted both here and by another context is no conflict.
  ///
  /// A row another process's save changed (taken in from the store's file) conflicts only
  /// where this context changed a property that save changed too, to another value: the
  /// three-way merge of a document with several writers, where the snapshot is the base.
  /// To-many relationships merge their additions and removals and never conflict there.
  func conflictingRows() -> [Int32] {
    var rows: [Int32] = []
    for row in Set(updatedRows).union(deletedRows).sorted() {
      guard let object = table[Int(row)] else { continue }
      let committed = cache.row(row)
      if committed === object.snapshot { continue }
      if committed == nil, object.isDeleted { continue }
      if let committed, let snapshot = object.snapshot, !object.isDeleted,
        cache.rowsFromOtherWriters[row] === committed,
        !changesOverlap(of: object, snapshot: snapshot, committed: committed)
      {
        continue
      }
      rows.append(row)
    }
    return rows
  }

  /// Whether `object` changed a property since `snapshot` that `committed` changed too, to
  /// another value; to-many relationships, whose changes merge, never count.
  private func changesOverlap(
    of object: ManagedObject, snapshot: CommittedRow, committed: CommittedRow
  ) -> Bool {
    let base = snapshot.slots
    let theirs = committed.slots
    for (slot, property) in object.layout.properties.enumerated() {
      switch property.kind {
      case .attribute(let attribute) where attribute.isTransient: continue
      case .relationship(let relationship)
      where relationship.description.isTransient || relationship.isToMany:
        continue
      case .fetched: continue
      default:
        let mine = object.slots[slot]
        if !Slot.same(mine, base[slot]), !Slot.same(theirs[slot], base[slot]),
          !Slot.same(mine, theirs[slot])
        {
          return true
        }
      }
    }
    return false
  }

  /// The conflict of the object at `row`: the properties whose snapshot, committed and pending
  /// values are not all the same.
  func conflict(at row: Int32) -> MergeConflict {
    guard let object = table[Int(row)] else { preconditionFailure("a conflict has no object") }
    let committed = cache.row(row)
    var snapshotValues: [String: ConflictValue] = [:]
    var committedValues: [String: ConflictValue] = [:]
    var pendingValues: [String: ConflictValue] = [:]
    for (slot, property) in object.layout.properties.enumerated() {
      if case .fetched = property.kind { continue }
      let read = object.snapshot?.slots[slot] ?? .null
      let now = committed?.slots[slot] ?? .null
      let mine = object.slots[slot]
      guard !(Slot.same(read, now) && Slot.same(read, mine)) else { continue }
      snapshotValues[property.name] = conflictValue(read, property)
      committedValues[property.name] = conflictValue(now, property)
      pendingValues[property.name] = conflictValue(mine, property)
    }
    return MergeConflict(
      objectID: object.objectID, snapshot: snapshotValues,
      committed: committed == nil ? nil : committedValues,
      pending: object.isDeleted ? nil : pendingValues,
      snapshotVersion: Int(object.snapshot?.version ?? 0),
      committedVersion: Int(committed?.version ?? 0))
  }

  private func conflictValue(_ slot: Slot, _ property: PropertyLayout) -> ConflictValue {
    if let attribute = property.attribute {
      return slot.attributeValue(as: attribute.attributeType).map { .attribute($0) } ?? .null
    }
    let targets = slot.targets
    if targets.isEmpty, property.relationship?.isToMany == false { return .null }
    return .objects(
      targets.compactMap { row in
        if let object = object(atRow: row) { return object.objectID }
        return nil
      })
  }
}
