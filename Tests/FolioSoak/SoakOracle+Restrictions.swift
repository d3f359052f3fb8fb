/// Where the soak stops short: states in which Folio departs from its documented behaviour in a
/// way the soak found and reported (RELIABILITY.md §3, soak findings 1–9), and which it would
/// otherwise find again and again.
///
/// The oracle goes on predicting the documented behaviour; only the choice of operations
/// changes. The generator does not choose an operation ``isRestricted(_:)`` refuses, and a
/// replay skips one, so shrinking a divergence never walks into a known finding either. The
/// state kept only for these checks (which objects were written or merged since the last
/// processing, which came back after leaving the committed state) lives in the oracle's main
/// file, marked as such.
extension SoakOracle {
  /// Whether `operation` would reach, in this state, a departure the soak already reported.
  public func isRestricted(_ operation: SoakOperation) -> Bool {
    switch operation {
    case .fetch: return !isFetchPredictable
    case .reopen: return committedSidesDisagree
    case .save, .saveAs: return isSaveUnpredictable || isStoreTrumpUnpredictable
    case .setToOne, .add, .remove, .setToMany:
      return operation.objects.contains(where: hidesReference)
    case .childSave(_, _, _, let link):
      // A child's save is the same change made in the parent only while the parent's
      // relationships agree with their inverses: it pushes each side it changed, keeping the
      // inverse in step, where a refresh (or undo with registration disabled) left sides
      // disagreeing.
      guard let link else { return false }
      return link.objects.contains(where: hidesReference) || pushDropsObjects(link)
        || !relationshipsAgree
    case .otherLink(let uid, let key, let target):
      // The other context reads a reference to an object no longer committed as nothing, and
      // setting it to nothing changes it there (soak finding 3).
      guard target == nil, let object = file[uid],
        let relationship = SoakSchema.relationship(key, of: object.entity)
      else { return false }
      return FileGraph.targets(of: object, relationship).contains { file[$0] == nil }
    case .refresh(let uid, let merge):
      // A refresh that drops a deletion not processed yet leaves its delete rules to run
      // (soak finding 5).
      let dropsDeletion = !merge || file[uid] == nil
      return (dropsDeletion && pendingDeletes.contains(uid)) || (merge && isMergeUnpredictable(uid))
    case .refreshAll, .mergeDidSave:
      return pendingDeletes.contains { file[$0] == nil }
        || graph.keys.contains(where: isMergeUnpredictable)
    default:
      return false
    }
  }

  /// Whether a child's save of `link` would push a to-many relationship that holds objects
  /// which are not live in the context (soak finding 4): the child cannot see them, and its
  /// save takes them out. The to-many pushed is the inverse of `link`, on its old and its new
  /// target.
  func pushDropsObjects(_ link: SoakOperation.Link) -> Bool {
    guard let entity = graph[link.uid]?.entity,
      let relationship = SoakSchema.relationship(link.key, of: entity),
      let inverse = SoakSchema.inverse(of: relationship), inverse.isToMany
    else { return false }
    let ends = [one(link.uid, link.key), link.target].compactMap { $0 }
    return ends.contains { end in targets(end, inverse).contains { !isLive($0) } }
  }

  /// Whether a committed object names another in a relationship whose inverse side, given and
  /// not empty, does not name it back (soak finding 9): a store refuses such a file, and
  /// Folio's saves can write one where an object whose No Action reference another save left
  /// dangling is committed again.
  public var committedSidesDisagree: Bool {
    for (uid, object) in file {
      for relationship in SoakSchema.relationships[object.entity] ?? [] {
        guard let inverse = SoakSchema.inverse(of: relationship) else { continue }
        for target in FileGraph.targets(of: object, relationship) {
          guard let other = file[target] else { continue }
          let back = FileGraph.targets(of: other, inverse)
          if !back.isEmpty && !back.contains(uid) { return true }
        }
      }
    }
    return false
  }

  /// Whether every relationship of every object in the context agrees with its inverse.
  public var relationshipsAgree: Bool {
    for (uid, object) in graph where isInContext(uid) {
      for relationship in SoakSchema.relationships[object.entity] ?? [] {
        guard let inverse = SoakSchema.inverse(of: relationship) else { continue }
        for target in targets(uid, relationship) where isInContext(target) {
          let back = targets(target, inverse)
          if !back.contains(uid) { return false }
        }
      }
    }
    return true
  }

  /// Whether a fetch now finds what ``fetchable`` says in Folio too (soak finding 1). Folio
  /// decides which objects vanished only when it registers after another context committed,
  /// so an object changed back (rollback, undo) after another context deleted it is still
  /// found, and one changed after a fetch left it out is still left out. It also counts an
  /// object changed and changed back as changed until pending changes are processed, as for
  /// `updatedObjects`, which the soak compares only after processing.
  public var isFetchPredictable: Bool {
    let isSettled =
      !hasUnprocessedChanges
      || !graph.keys.contains { file[$0] == nil && snapshots[$0] != nil && isLive($0) }
    return isSettled
      && (isRegistrationStale
        || Set(graph.keys.filter(isVanished)) == vanishedAtRegistration.filter(isLive))
  }

  /// Whether Folio's save might not keep an object's values as documented (soak finding 2):
  /// an object undo or redo brought back after it left the committed state, not changed since,
  /// names an object the save will not commit — not live, saved and deleted by another
  /// context, or, while deletions are pending, any object their rules might reach. Folio reads
  /// such an object's committed values instead when it still shares its old committed row.
  public var isSaveUnpredictable: Bool {
    func isLeftOut(_ target: Int) -> Bool {
      !pendingDeletes.isEmpty || !isLive(target) || (file[target] == nil && saved[target] != nil)
    }
    return revivedFromStore.contains { uid, values in
      guard let object = graph[uid], !object.isDeleted, saved[uid] == nil, object.values == values
      else { return false }
      return (SoakSchema.relationships[object.entity] ?? []).contains { relationship in
        targets(uid, relationship).contains(where: isLeftOut)
      }
    }
  }

  /// Whether a save under store-trump would keep a conflicting object's to-one side because
  /// an earlier edge of the same save changed it (soak finding 8): Folio judges "changed
  /// there" against the committed state as its commit has changed it so far.
  public var isStoreTrumpUnpredictable: Bool {
    guard mergePolicy == .storeTrump else { return false }
    let conflicts = conflictingObjects()
    guard !conflicts.isEmpty else { return false }
    return plannedCommit(resolving: conflicts).committed
      != plannedCommit(resolving: conflicts, judgingSoFar: true).committed
  }

  /// Whether `uid` is a live object that read a reference to an object the context cannot
  /// reach (soak finding 3): the reference reads as nothing, but after `reset` Folio's object
  /// still holds it, so changing that relationship is not what it reads as.
  public func hidesReference(_ uid: Int) -> Bool { isLive(uid) && hiddenReferences.contains(uid) }

  /// Whether Folio's refresh of `uid` with merging might register undo, or drop the turn's
  /// changes: the object was written since the last processing and the refresh would change
  /// one of its values (Folio registers that change with the turn's when the key was written,
  /// soak finding 6), or a refresh with merging did so already (the second drops the turn's
  /// changes, soak finding 7).
  public func isMergeUnpredictable(_ uid: Int) -> Bool {
    if mergedInTurn.contains(uid) { return true }
    guard writtenInTurn.contains(uid), let object = graph[uid], let base = saved[uid],
      let committed = file[uid]
    else { return false }
    let values = read(committed)
    return Set(values.keys).union(object.values.keys).contains { key in
      base.values[key] == object.values[key] && values[key] != object.values[key]
    }
  }
}
