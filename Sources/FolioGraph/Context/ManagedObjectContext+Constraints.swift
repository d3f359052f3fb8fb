import FolioModel

/// Uniqueness constraints resolved at a save by the merge policy, as Core Data resolves a
/// constraint conflict: an object inserted with the values of an object already saved is
/// merged into that one (an *upsert*), which keeps its ID.
///
/// | policy | attributes of the object saved | relationships |
/// |---|---|---|
/// | ``MergePolicy/error`` | the save fails (`validation`, rule `uniqueness`, naming the objects and values) | — |
/// | ``MergePolicy/mergeByPropertyObjectTrump`` | the new object's values, where it has one | the new object's targets join (to-one: replace) |
/// | ``MergePolicy/overwrite`` | the new object's values, empty ones included | the new object's targets join (to-one: replace) |
/// | ``MergePolicy/mergeByPropertyStoreTrump``, ``MergePolicy/rollback`` | its own values | the new object's targets join (to-one: only where it has none) |
///
/// Every object that referred to the new object refers to the one kept, so no reference is
/// lost; the new object then leaves the graph, as an object inserted and deleted before a save
/// does. Where only new objects share the values, the first inserted (the lowest row) is kept
/// and the others merge into it in turn. Objects saved before that share values (an update
/// made one collide with another) cannot be merged: the save fails under every policy. The
/// merge is part of the save, so it is not undoable (undoing the insert afterwards finds the
/// new object gone), and a save that fails afterwards undoes it: a failed save changes nothing.
///
/// **Where Folio differs.** Core Data reports an unresolved constraint conflict as
/// `NSManagedObjectConstraintMergeError`; Folio reports it as a validation failure with the rule
/// `uniqueness`, as ``validate()`` does before any save, naming the objects that share the values.
extension ManagedObjectContext {
  /// Merges each object inserted with a uniqueness constraint's values that another object
  /// has into that object, as the merge policy says; under ``MergePolicy/error`` nothing.
  func resolveConstraintConflicts() {
    guard mergePolicy != .error,
      layouts.contains(where: { !$0.entity.uniquenessConstraints.isEmpty })
    else { return }
    registerAllObjects()
    capturesTurnChanges = true
    defer { capturesTurnChanges = false }
    // Each round merges every conflict the graph shows at its start, and takes each merged
    // object out of it, so the rounds end; a round that merged values may make new conflicts,
    // which the next finds.
    while true {
      let merges = nextMerges()
      guard !merges.isEmpty else { break }
      for (loser, survivor) in merges { merge(loser, into: survivor) }
      repointOneWayReferences(merges)
    }
    processPendingChanges()
  }

  /// Undoes what ``resolveConstraintConflicts()`` merged since the save began, for a save that
  /// failed: a failed save changes nothing.
  func revertConstraintResolution() {
    let changes = capturedTurnChanges
    capturedTurnChanges = []
    guard !changes.isEmpty else { return }
    capturesTurnChanges = true
    defer {
      capturesTurnChanges = false
      capturedTurnChanges = []
    }
    for change in changes.reversed() { applyBackwards(change) }
    processPendingChanges()
  }

  /// After a save took in what another process saved: its new objects may share unique
  /// values with this context's. They are registered, and the conflicts fail the save under
  /// ``MergePolicy/error`` or merge as the policy says, the result validated again.
  ///
  /// - Throws: `GraphError.validation` as ``validate()`` throws it.
  func resolveConstraintConflictsWithOtherWriters() throws(GraphError) {
    guard layouts.contains(where: { !$0.entity.uniquenessConstraints.isEmpty }) else { return }
    registerAllObjects()
    guard mergePolicy != .error else {
      let failures = uniquenessFailures()
      guard failures.isEmpty else { throw Self.validationError(failures) }
      return
    }
    resolveConstraintConflicts()
    try validate()
  }

  /// The merges the conflicts in the graph ask for now: each inserted object that shares a
  /// constraint's values with another object, and the object it merges into. A group whose
  /// survivor merges away itself waits for the next round.
  private func nextMerges() -> [(loser: ManagedObject, survivor: ManagedObject)] {
    var merges: [(loser: ManagedObject, survivor: ManagedObject)] = []
    var losers: Set<ObjectIdentifier> = []
    for group in uniquenessGroups() {
      let objects = group.objects.filter { !losers.contains(ObjectIdentifier($0)) }
      let inserted = objects.filter(\.isInserted)
      guard let survivor = objects.first(where: { !$0.isInserted }) ?? inserted.first else {
        continue
      }
      for loser in inserted where loser !== survivor {
        losers.insert(ObjectIdentifier(loser))
        merges.append((loser, survivor))
      }
    }
    return merges
  }

  /// Merges `loser`, an inserted object, into `survivor`, and takes it out of the graph.
  private func merge(_ loser: ManagedObject, into survivor: ManagedObject) {
    let takesValues = mergePolicy == .mergeByPropertyObjectTrump || mergePolicy == .overwrite
    for (slot, property) in loser.layout.properties.enumerated() {
      guard let target = survivor.layout.slotByName[property.name] else { continue }
      let kept = survivor.layout.properties[target]
      switch (property.kind, kept.kind) {
      case (.attribute(let attribute), .attribute):
        let value = loser.slots[slot]
        guard takesValues, !attribute.isDerived, !same(value, survivor.slots[target]) else {
          continue
        }
        if case .null = value, mergePolicy != .overwrite { continue }
        write(value.snapshot(), to: survivor, slot: target)
      case (.relationship(let relationship), .relationship(let keptRelationship)):
        let targets = primitiveTargets(of: loser, slot: slot).compactMap(object(atRow:))
        if relationship.isToMany {
          for object in targets {
            remove(object, from: loser, slot: slot, relationship: relationship)
            add(object, to: survivor, slot: target, relationship: keptRelationship)
          }
        } else if let object = targets.first {
          setTarget(of: loser, slot: slot, relationship: relationship, to: nil)
          if takesValues || primitiveTarget(of: survivor, slot: target) == nil {
            setTarget(of: survivor, slot: target, relationship: keptRelationship, to: object)
          }
        }
      default:
        continue
      }
    }
    markDeleted(loser)
  }

  /// Points every relationship without an inverse that holds a merged object at the object it
  /// merged into: one pass over the graph for all of a round's merges.
  private func repointOneWayReferences(
    _ merges: [(loser: ManagedObject, survivor: ManagedObject)]
  ) {
    var survivorOf: [Int32: ManagedObject] = [:]
    for (loser, survivor) in merges { survivorOf[loser.row] = survivor }
    for layout in layouts {
      for (slot, property) in layout.properties.enumerated() {
        guard let relationship = property.relationship, relationship.inverseSlot == nil,
          merges.contains(where: { $0.loser.layout.isKind(of: relationship.destination) })
        else { continue }
        for case let holder? in table
        where holder.layout.isKind(of: layout.index)
          && holder.flags.isDisjoint(with: [.deleted, .removed])
        {
          for row in primitiveTargets(of: holder, slot: slot) {
            guard let survivor = survivorOf[row], let loser = object(atRow: row) else { continue }
            let fits = survivor.layout.isKind(of: relationship.destination)
            if relationship.isToMany {
              remove(loser, from: holder, slot: slot, relationship: relationship)
              if fits { add(survivor, to: holder, slot: slot, relationship: relationship) }
            } else {
              setTarget(
                of: holder, slot: slot, relationship: relationship, to: fits ? survivor : nil)
            }
          }
        }
      }
    }
  }
}
