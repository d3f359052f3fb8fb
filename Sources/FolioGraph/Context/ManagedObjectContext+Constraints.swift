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
    // Each merge takes one object out of the graph, so the rounds end.
    while let (survivor, loser) = nextMerge() {
      merge(loser, into: survivor)
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

  /// The next two objects to merge: an inserted object and the object it merges into.
  private func nextMerge() -> (survivor: ManagedObject, loser: ManagedObject)? {
    for group in uniquenessGroups() {
      let inserted = group.objects.filter(\.isInserted)
      let saved = group.objects.filter { !$0.isInserted }
      guard let survivor = saved.first ?? inserted.first,
        let loser = inserted.first(where: { $0 !== survivor })
      else { continue }
      return (survivor, loser)
    }
    return nil
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
    repointOneWayReferences(from: loser, to: survivor)
    markDeleted(loser)
  }

  /// Points every relationship without an inverse that holds `loser` at `survivor` instead.
  private func repointOneWayReferences(from loser: ManagedObject, to survivor: ManagedObject) {
    for layout in layouts {
      for (slot, property) in layout.properties.enumerated() {
        guard let relationship = property.relationship, relationship.inverseSlot == nil,
          loser.layout.isKind(of: relationship.destination)
        else { continue }
        let fits = survivor.layout.isKind(of: relationship.destination)
        for case let holder? in table
        where holder.layout.isKind(of: layout.index)
          && holder.flags.isDisjoint(with: [.deleted, .removed])
          && primitiveTargets(of: holder, slot: slot).contains(loser.row)
        {
          if relationship.isToMany {
            remove(loser, from: holder, slot: slot, relationship: relationship)
            if fits { add(survivor, to: holder, slot: slot, relationship: relationship) }
          } else {
            setTarget(of: holder, slot: slot, relationship: relationship, to: fits ? survivor : nil)
          }
        }
      }
    }
  }
}
