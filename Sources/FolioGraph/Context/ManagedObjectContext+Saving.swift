import FolioModel
import FolioStores
import Foundation

/// Saving: the context's changes committed into the committed state it shares with the other
/// contexts of its coordinator, then written by the store.
///
/// ## What a save commits
/// Each inserted object becomes a committed row; each deleted one leaves, taking itself out of
/// every relationship that still named it; each updated one commits the properties it changed
/// since it was read — not its whole row, so what another context saved to the other
/// properties stays. An object whose committed row another context changed since this one read
/// it is a *conflict*, resolved by ``mergePolicy`` (see ``MergePolicy``). Relationships are
/// committed as edges, both sides at once, so the committed rows always agree with their
/// inverses. Afterwards every object the save touched reads the committed row again.
extension ManagedObjectContext {
  /// Validates the changes since the last save and commits them: new objects get permanent IDs,
  /// deleted ones leave the graph, and the change sets empty.
  ///
  /// With a ``persistentStoreCoordinator`` whose store is a file, the store's whole committed
  /// state is then written to it (atomically) before the save counts; without a file, the save
  /// commits in memory. A save with nothing to commit does nothing: it writes no file and posts
  /// no notification.
  ///
  /// - Throws: `GraphError.validation`, `.deny`; `.mergeConflict` when another context changed
  ///   objects this one changed and the merge policy is ``MergePolicy/error``; `.store` when the
  ///   store cannot be written. A failed save changes nothing, in the context, in the committed
  ///   state or on disk.
  public func save() throws(GraphError) {
    if parent != nil { return try saveToParent() }
    processPendingChanges()
    let store = persistentStoreCoordinator?.persistentStores.first
    guard hasChanges || store?.needsWrite == true else { return }
    if hasObservers { post(.willSave) }
    try sendWillSave()
    capturedTurnChanges = []
    resolveConstraintConflicts()
    var isCommitted = false
    defer { if !isCommitted { revertConstraintResolution() } }
    try validate()
    // Another process may save the same file: the save takes the store's lock, and takes in
    // what others saved since this context's coordinator read the file, so their changes are
    // kept and a change both made is a conflict for the merge policy.
    let lock: SaveLock?
    var tookIn = false
    do {
      lock = try persistentStoreCoordinator?.lockForSaving()
      tookIn = try persistentStoreCoordinator?.takeInChangesOnDisk() ?? false
    } catch {
      throw GraphError(.store, error.message, at: error.location, underlying: error)
    }
    defer { lock?.release() }
    if tookIn { try resolveConstraintConflictsWithOtherWriters() }
    var conflicts: [Int32] = []
    var commit = Commit(cache: cache)
    var refused: [Int32: [Int]] = [:]
    let saved = (inserted: insertedRows, updated: Set(updatedRows), deleted: deletedRows)
    let deletedIDs = Set(saved.deleted.compactMap { object(atRow: $0)?.objectID })
    let wasComplete = registeredGeneration == cache.generation
    // A save in place may find rows another writer moved unseen (it kept no history): the
    // whole store is then taken in, under the write lock still held, and the save made again;
    // once more if a server took the lock from it meanwhile (a restart).
    for attempt in 1...3 {
      conflicts = conflictingRows()
      if !conflicts.isEmpty, mergePolicy == .error {
        var error = GraphError(
          .mergeConflict,
          "the save conflicts with changes another context saved (\(conflicts.count == 1 ? "1 object" : "\(conflicts.count) objects"))"
        )
        error.conflicts = conflicts.map(conflict(at:))
        throw error
      }
      let derived = try derivedValues()
      let keys = cache.keyState
      cache.assignPrimaryKeys(toRows: insertedRows.filter { !cache.hasPrimaryKey($0) })
      commit = Commit(cache: cache)
      refused = applyChanges(to: &commit, conflicts: Set(conflicts))
      for (row, slot, value) in derived
      where commit.original(row) != nil || insertedRows.contains(row) {
        commit.set(value, row: row, slot: slot)
      }
      guard let coordinator = persistentStoreCoordinator, !coordinator.persistentStores.isEmpty
      else { break }
      let stale: [Int64]
      do {
        let result = try coordinator.persist(
          commit, author: transactionAuthor, contextName: name)
        guard case .stale(let ids) = result else { break }
        stale = ids
      } catch {
        commit.revert()
        cache.keyState = keys
        throw GraphError(.store, error.message, at: error.location, underlying: error)
      }
      commit.revert()
      cache.keyState = keys
      do throws(StoreError) {
        guard attempt < 3 else { throw coordinator.staleSaveError(stale) }
        try coordinator.takeInChangesOnDisk(wholeStore: true)
      } catch {
        throw GraphError(.store, error.message, at: error.location, underlying: error)
      }
    }
    isCommitted = true
    capturedTurnChanges = []
    cache.generation &+= 1
    if wasComplete { registeredGeneration = cache.generation }
    let changed = settle(after: commit, conflicts: Set(conflicts), refused: refused)
    sendDidSave(saved.inserted.union(saved.updated).union(saved.deleted))
    if hasObservers {
      post(
        .didSave(
          ObjectIDChanges(
            inserted: Set(saved.inserted.compactMap { object(atRow: $0)?.objectID }),
            updated: Set(
              changed.subtracting(saved.inserted).subtracting(saved.deleted).compactMap {
                cache.row($0) == nil ? nil : object(atRow: $0)?.objectID
              }),
            deleted: deletedIDs.union(
              changed.subtracting(saved.deleted).compactMap { row in
                cache.row(row) == nil
                  ? commit.original(row).map { objectID(ofCommitted: $0, row: row) } : nil
              }))))
    }
    mergeChangesOfOtherWriters()
  }

  /// Merges what other writers saved to the store, which the coordinator took in at a save
  /// or when asked, into every context of the coordinator (each child through its parent), as
  /// another context's save is merged: the coordinator's committed state took it in for all.
  func mergeChangesOfOtherWriters() {
    guard let coordinator = persistentStoreCoordinator else { return }
    let changes = coordinator.takeUnmergedChanges()
    guard !changes.isEmpty else { return }
    for context in coordinator.contexts where context.parent == nil {
      context.mergeChanges(fromContextDidSave: changes)
    }
  }

  /// Sends ``ManagedObject/willSave()`` to each changed object of an entity class, then again
  /// to each object the last round changed, until a round changes nothing.
  ///
  /// - Throws: `GraphError.validation` when every one of 100 rounds still changed something.
  func sendWillSave() throws(GraphError) {
    guard layouts.contains(where: \.hasCustomClass) else { return }
    var due = insertedRows.union(updatedRows).union(deletedRows)
    for _ in 0..<Self.maximumWillSaveRounds {
      let objects = due.sorted().compactMap { object(atRow: $0) }.filter {
        $0.layout.hasCustomClass && $0.flags.isDisjoint(with: [.removed])
      }
      guard !objects.isEmpty else { return }
      for object in objects { object.willSave() }
      // What the round changed, before processing forgets the turn.
      due = Set(turnRows).union(turnInsertedRows).union(turnDeleted)
      processPendingChanges()
      due.formIntersection(insertedRows.union(updatedRows).union(deletedRows))
    }
    throw GraphError(
      .validation,
      "willSave() still changed objects after \(Self.maximumWillSaveRounds) rounds: set a value in willSave() only when it differs"
    )
  }

  /// The values of the derived attributes of the objects the save inserts or updates,
  /// computed from what is saved: they go into the committed rows, not into the objects'
  /// changes (the objects read them when the save settles), so a save that fails leaves
  /// nothing behind, and nothing of them can be undone.
  ///
  /// - Throws: `GraphError.invalidKeyPath` for an expression the object cannot answer;
  ///   `.typeMismatch` for a value the attribute cannot hold.
  func derivedValues() throws(GraphError) -> [(row: Int32, slot: Int, value: Slot)] {
    guard layouts.contains(where: { !$0.derivations.isEmpty }) else { return [] }
    var values: [(row: Int32, slot: Int, value: Slot)] = []
    let now = Date()
    for row in insertedRows.union(updatedRows).sorted() {
      guard let object = object(atRow: row), !object.layout.derivations.isEmpty,
        object.flags.isDisjoint(with: [.deleted, .removed])
      else { continue }
      for derivation in object.layout.derivations {
        let value = try derivedValue(of: derivation.expression, on: object, now: now)
          .mapError(derivation.attribute, of: object)
        let slot = try Slot.checked(
          value, for: derivation.attribute, entity: object.entityName)
        values.append((row, derivation.slot, slot))
      }
    }
    return values
  }

  private func derivedValue(
    of expression: DerivationExpression, on object: ManagedObject, now: Date
  ) -> Result<Any?, GraphError> {
    do {
      switch expression {
      case .now:
        return .success(now)
      case .keyPath(let path):
        return .success(try object.value(forKeyPath: path))
      case .function(let function, let path):
        guard let text = try object.value(forKeyPath: path) as? String else { return .success(nil) }
        switch function {
        case .lowercase: return .success(text.lowercased())
        case .uppercase: return .success(text.uppercased())
        case .canonical:
          return .success(
            text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
              .lowercased())
        }
      }
    } catch {
      return .failure(error)
    }
  }

  /// How many rounds of ``ManagedObject/willSave()`` a save allows.
  static let maximumWillSaveRounds = 100

  /// Sends ``ManagedObject/didSave()`` to each object of an entity class at `rows`.
  private func sendDidSave(_ rows: Set<Int32>) {
    guard layouts.contains(where: \.hasCustomClass) else { return }
    for row in rows.sorted() {
      guard let object = Int(row) < table.count ? table[Int(row)] : nil,
        object.layout.hasCustomClass
      else { continue }
      object.didSave()
    }
  }

  /// Applies the context's changes to the committed rows through `commit`, resolving the
  /// conflicts at `conflicts` by ``mergePolicy``. Returns the relationship slots whose change
  /// the policy refused (an edge to a conflicting object whose side it keeps), by row.
  private func applyChanges(to commit: inout Commit, conflicts: Set<Int32>) -> [Int32: [Int]] {
    let policy = mergePolicy
    // Deletions first: a deleted row lets go of its relationships, on both sides, where its
    // delete rule nullifies (a cascade's targets the context knew are deleted with it; those
    // another context added are let go). No Action leaves the other side naming the deleted
    // object, as in Core Data; a store leaves such a reference out when it writes.
    for row in deletedRows.sorted() {
      if policy == .rollback, conflicts.contains(row) { continue }
      guard let committed = cache.row(row) else { continue }
      let layout = layouts[committed.entity]
      for (slot, property) in layout.properties.enumerated() {
        guard let relationship = property.relationship,
          relationship.deleteRule == .nullify || relationship.deleteRule == .cascade
        else { continue }
        for target in committed.slots[slot].targets {
          commit.unlink(row, relationship, slot: slot, from: target)
        }
      }
      commit.delete(row)
    }
    // New rows, so relationships between new objects find both ends.
    let inserted = insertedRows.sorted()
    for row in inserted {
      guard let object = table[Int(row)] else { continue }
      let slots = commit.insert(row, layout: object.layout)
      for (slot, property) in object.layout.properties.enumerated() {
        guard let attribute = property.attribute, !attribute.isTransient else { continue }
        slots[slot] = object.slots[slot].snapshot()
      }
    }
    // Attributes of updated objects: the properties changed here, as the policy allows.
    let updated = updatedRows.filter { table[Int($0)]?.isDeleted == false }.sorted()
    for row in updated {
      guard let object = table[Int(row)], let committed = commit.original(row) else { continue }
      let conflicted = conflicts.contains(row)
      if conflicted, policy == .rollback { continue }
      let snapshot = object.snapshot?.slots
      for (slot, property) in object.layout.properties.enumerated() {
        guard let attribute = property.attribute, !attribute.isTransient else { continue }
        let mine = object.slots[slot]
        if !(conflicted && policy == .overwrite) {
          if let snapshot, Slot.same(mine, snapshot[slot]) { continue }
          if conflicted, policy == .mergeByPropertyStoreTrump, let snapshot,
            !Slot.same(committed.slots[slot], snapshot[slot])
          {
            continue
          }
        }
        commit.set(mine, row: row, slot: slot)
      }
    }
    // Relationships of new and updated objects, as edges.
    var refused: [Int32: [Int]] = [:]
    for row in (inserted + updated).sorted() {
      guard let object = table[Int(row)] else { continue }
      commitRelationships(of: object, into: &commit, conflicts: conflicts, refused: &refused)
    }
    // A conflicting object whose order the policy keeps (rollback, store-trump) can still gain
    // members of an ordered to-many through other objects' edges: they follow its committed
    // members, in the order the context's list has them.
    if policy == .rollback || policy == .mergeByPropertyStoreTrump {
      for row in conflicts.sorted() {
        guard let object = table[Int(row)], let before = commit.original(row) else { continue }
        for (slot, property) in object.layout.properties.enumerated()
        where property.relationship?.isOrdered == true {
          let kept = before.slots[slot].targets
          let held = Set(kept)
          commit.order(
            row, slot, like: kept + object.slots[slot].targets.filter { !held.contains($0) })
        }
      }
    }
    commit.releaseLeftReferences()
    return refused
  }

  /// Commits the relationship changes of `object` as edges.
  private func commitRelationships(
    of object: ManagedObject, into commit: inout Commit, conflicts: Set<Int32>,
    refused: inout [Int32: [Int]]
  ) {
    let row = object.row
    let policy = mergePolicy
    let conflicted = conflicts.contains(row)
    if conflicted, policy == .rollback { return }
    let base: SlotStorage?
    if conflicted, policy == .overwrite {
      base = commit.original(row)?.slots
    } else {
      base = object.isInserted ? nil : object.snapshot?.slots
    }
    let original = commit.original(row)?.slots
    for (slot, property) in object.layout.properties.enumerated() {
      guard let relationship = property.relationship, !relationship.description.isTransient
      else { continue }
      let mine = object.slots[slot].targets.filter(isLive)
      let was = base.map { $0[slot].targets } ?? []
      func isRefused(_ target: Int32, linking: Bool) -> Bool {
        guard
          isProtected(target, inverseOf: relationship, conflicts: conflicts, commit: commit)
            || disagrees(target, relationship, with: row, linked: linking)
        else { return false }
        refused[row, default: []].append(slot)
        return true
      }
      if relationship.isToMany {
        let kept = Set(mine)
        for target in was where !kept.contains(target) {
          guard !isRefused(target, linking: false) else { continue }
          commit.unlink(row, relationship, slot: slot, from: target)
        }
        let had = Set(was)
        for target in mine where !had.contains(target) {
          guard !isRefused(target, linking: true) else { continue }
          commit.link(row, relationship, slot: slot, to: target)
        }
        if relationship.isOrdered, !(conflicted && policy == .mergeByPropertyStoreTrump) {
          commit.order(row, slot, like: mine)
        }
        continue
      }
      guard mine.first != was.first else { continue }
      if conflicted, policy == .mergeByPropertyStoreTrump, let original,
        let snapshot = object.snapshot?.slots, !Slot.same(original[slot], snapshot[slot])
      {
        continue
      }
      if let target = mine.first {
        guard !isRefused(target, linking: true) else { continue }
        commit.link(row, relationship, slot: slot, to: target)
      } else if case .object(let target) = commit.current(row, slot) {
        guard !isRefused(target, linking: false) else { continue }
        commit.unlink(row, relationship, slot: slot, from: target)
      }
    }
  }

  /// Whether `target`, live in the context, holds its side of the edge with `row` other than
  /// as `linked` says: it does not name `row` in the relationship's inverse where the edge
  /// comes, or still names it where the edge goes.
  ///
  /// The two sides agree whenever the context maintained them; they disagree only after a
  /// `refresh` without merging took one side back to its committed value. An edge is then
  /// changed only where both sides agree on it, so the outcome does not depend on the order
  /// the objects are held in; a to-one side is never left naming an object that does not name
  /// it back.
  private func disagrees(
    _ target: Int32, _ relationship: RelationshipLayout, with row: Int32, linked: Bool
  ) -> Bool {
    guard let inverse = relationship.inverseSlot, Int(target) < table.count,
      let object = table[Int(target)], object.flags.isDisjoint(with: [.removed, .deleted])
    else { return false }
    let names: Bool
    switch object.slots[inverse] {
    case .object(let other): names = other == row
    case .objects(let set): names = set.contains(row)
    default: names = false
    }
    return names != linked
  }

  /// Whether a row the context holds stays in the graph (not deleted here).
  private func isLive(_ row: Int32) -> Bool {
    guard let object = object(atRow: row) else { return false }
    return object.flags.isDisjoint(with: [.removed, .deleted])
  }

  /// Whether an edge from another object may not change `target`'s to-one inverse: `target`
  /// is a conflict whose policy keeps the committed value there (the store-trump policy where
  /// another context changed it, the rollback policy always).
  ///
  /// "Changed there" compares the snapshot with the committed row as it was before this
  /// commit: the commit's own edges must not make a side look changed by another context.
  private func isProtected(
    _ target: Int32, inverseOf relationship: RelationshipLayout, conflicts: Set<Int32>,
    commit: Commit
  ) -> Bool {
    guard conflicts.contains(target), let inverse = relationship.inverseSlot,
      !relationship.inverseIsToMany
    else { return false }
    switch mergePolicy {
    case .rollback:
      return true
    case .mergeByPropertyStoreTrump:
      guard let object = table[Int(target)], let snapshot = object.snapshot,
        let committed = commit.original(target)
      else { return false }
      return !Slot.same(snapshot.slots[inverse], committed.slots[inverse])
    default:
      return false
    }
  }

  /// Brings the context in step with the committed state after a commit: inserted objects are
  /// saved, deleted ones leave, and every registered object whose row the commit touched reads
  /// its committed row. Returns the rows the commit touched.
  ///
  /// A relationship whose change the policy refused takes its committed value, so the context
  /// never holds two sides that disagree.
  private func settle(after commit: Commit, conflicts: Set<Int32>, refused: [Int32: [Int]])
    -> Set<Int32>
  {
    for row in insertedRows {
      table[Int(row)]?.flags.remove(.inserted)
      table[Int(row)]?.flags.insert(.permanent)
    }
    for row in deletedRows {
      guard let object = table[Int(row)] else { continue }
      if mergePolicy == .rollback, conflicts.contains(row), cache.row(row) != nil {
        object.flags.remove(.deleted)
      } else {
        object.flags.remove(.deleted)
        object.flags.insert(.removed)
      }
    }
    let touched = Set(commit.touchedRows)
    let saved = insertedRows.union(updatedRows)
    for row in touched.union(saved).union(conflicts) {
      guard Int(row) < table.count, let object = table[Int(row)],
        !object.flags.contains(.removed)
      else { continue }
      guard let committed = cache.row(row) else {
        // Deleted by another context, and the policy let that stand.
        object.flags.remove([.inserted, .deleted])
        object.flags.insert(.removed)
        continue
      }
      if saved.contains(row), !conflicts.contains(row), !holds(committed, object) {
        // What it saved, less what the committed row leaves out (relationships to objects
        // that left the graph): the object keeps its values, as in Core Data. One that still
        // shares the row it was read from (brought back by undo, unchanged since) takes a
        // copy of it first.
        object.ownSlots()
        object.records?.saved = nil
        clearUpdated(object)
        object.snapshot = committed
        // The derived attributes' values were computed into the committed row; a refused
        // relationship change is dropped.
        for slot in object.layout.derivations.map(\.slot) + (refused[row] ?? []) {
          willChange(object, slot: slot)
          object.slots[slot] = committed.slots[slot].snapshot()
          didChange(object, slot: slot)
        }
      } else {
        // Saved as it is, merged, or changed by the commit without changes of its own here.
        read(committed, into: object)
      }
    }
    insertedRows.removeAll()
    deletedRows.removeAll()
    discardedRows.removeAll()
    forgetSavedValues()
    indexVersion &+= 1
    valueVersion &+= 1
    return touched.union(conflicts)
  }

  /// Whether `object` holds `committed`'s values in every persistent property.
  private func holds(_ committed: CommittedRow, _ object: ManagedObject) -> Bool {
    for (slot, property) in object.layout.properties.enumerated() {
      switch property.kind {
      case .attribute(let attribute) where attribute.isTransient: continue
      case .relationship(let relationship) where relationship.description.isTransient: continue
      case .fetched: continue
      default:
        if !Slot.same(committed.slots[slot], object.slots[slot]) { return false }
      }
    }
    return true
  }

  /// Makes `committed` the object's snapshot and its values; transient properties keep the
  /// values the object has.
  func read(_ committed: CommittedRow, into object: ManagedObject) {
    changingEveryProperty(of: object) { readValues(committed, into: object) }
  }

  /// What ``read(_:into:)`` does, without notifying observers.
  private func readValues(_ committed: CommittedRow, into object: ManagedObject) {
    object.records?.saved = nil
    clearUpdated(object)
    guard object.layout.hasTransients else {
      object.share(committed)
      dropDeadReferences(of: object)
      return
    }
    object.ownSlots()
    object.snapshot = committed
    for (slot, property) in object.layout.properties.enumerated() {
      switch property.kind {
      case .attribute(let attribute) where attribute.isTransient: continue
      case .relationship(let relationship) where relationship.description.isTransient: continue
      default: object.slots[slot] = committed.slots[slot].snapshot()
      }
    }
    dropDeadReferences(of: object)
  }

  /// The ID of the object committed at `row` as `committed`.
  func objectID(ofCommitted committed: CommittedRow, row: Int32) -> ManagedObjectID {
    ManagedObjectID(
      entityName: layouts[committed.entity].name, store: storeIdentifier,
      primaryKey: cache.primaryKey(ofRow: row))
  }
}

extension Result where Success == Any?, Failure == GraphError {
  /// The value, or an error naming the derived attribute whose expression failed.
  fileprivate func mapError(_ attribute: AttributeDescription, of object: ManagedObject)
    throws(GraphError) -> Any?
  {
    switch self {
    case .success(let value): return value
    case .failure(let error):
      throw GraphError(
        .invalidKeyPath,
        "the derivation \"\(attribute.derivationExpression ?? "")\" cannot be computed: \(error.message)",
        at: InputLocation(entity: object.entityName, property: attribute.name),
        underlying: error)
    }
  }
}
