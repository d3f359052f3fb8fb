/// The oracle's model of the committed state: what a save commits into it, and what rollback,
/// reset and reopening read back.
///
/// ## What a save commits
/// A save commits what the context changed since it read each object, as Folio documents it:
/// objects deleted since the save leave, letting go of the relationships whose delete rule is
/// Nullify or Cascade on both sides; new objects arrive with their attributes; an updated
/// object commits the attributes whose values differ from its snapshot; then each new or
/// updated object, in uid order (the order objects were inserted, which is Folio's row order),
/// commits its relationships as edges against its snapshot — every target it dropped is
/// unlinked on both sides, every target it gained is linked on both sides, a to-one on either
/// side giving up its previous target — and an ordered to-many takes the object's order. The
/// committed state so always agrees with its inverses, even when undo with registration
/// disabled, or a refresh of one side, left the graph in memory disagreeing with itself.
///
/// ## Conflicts
/// An object the context updated or deleted whose committed version is no longer its
/// snapshot's is a conflict: another context's save changed it, or deleted it (unless the
/// context deleted it too). Under `error` the save fails and changes nothing. Otherwise, with
/// "changed here" meaning the context's value differs from the snapshot and "changed there"
/// the committed value differs from it (the table in `MergePolicy.swift`):
/// - store-trump commits what changed here but not there; a to-many merges both sides'
///   additions and removals and keeps the committed order;
/// - object-trump commits what changed here;
/// - overwrite commits every attribute, and relationships against the committed targets
///   instead of the snapshot's;
/// - rollback commits nothing of the object, not even its deletion.
/// An edge from another object does not change a conflicting object's to-one side that the
/// policy keeps: always under rollback, where it changed there under store-trump; the other
/// object's side of such an edge then takes its committed value, so the sides agree. An object
/// another context deleted stays deleted under every policy.
///
/// ## After the save
/// Saved objects keep their values (what the committed state leaves out of them, such as
/// references to objects that left it, stays in memory); conflicting objects, and objects the
/// commit changed without the context changing them, read the committed values; objects that
/// are no longer committed leave the context; each of them gets its committed object as its
/// snapshot. None of this registers undo.
extension SoakOracle {
  // MARK: Saving

  /// Saves. With nothing to commit and no new file to write (`asNewFile`: a save as, or the
  /// first save of an untitled document) only the save point moves; otherwise the committed
  /// objects are registered first, as a save validates them all, then a deleted object's Deny
  /// relationship holding a live object fails with `deny` and a conflict under the `error`
  /// policy with `merge-conflict`, changing nothing.
  public func save(asNewFile: Bool) throws(SoakFailure) {
    resolvedConflicts = 0
    processPendingChanges()
    if hasChanges || asNewFile {
      registerCommitted()
      try checkDenyRules()
      let conflicts = conflictingObjects()
      if !conflicts.isEmpty, mergePolicy == .error { throw SoakFailure("merge-conflict") }
      resolvedConflicts = conflicts.count
      commit(resolving: conflicts)
    }
    savePoint = stateIdentifier
    isSavePointComparable = true
  }

  private func checkDenyRules() throws(SoakFailure) {
    for (uid, object) in graph
    where object.isDeleted && (saved[uid] != nil || discarded.contains(uid)) {
      for relationship in SoakSchema.relationships[object.entity] ?? []
      where relationship.deleteRule == .deny {
        if targets(uid, relationship).contains(where: isLive) { throw SoakFailure("deny") }
      }
    }
  }

  /// The updated and deleted objects whose committed version is not their snapshot's.
  func conflictingObjects() -> Set<Int> {
    var conflicts: Set<Int> = []
    for (uid, object) in graph {
      guard let base = saved[uid], object.isDeleted || base.values != object.values,
        let snapshot = snapshots[uid]
      else { continue }
      if file[uid] == nil {
        if !object.isDeleted { conflicts.insert(uid) }
      } else if fileVersions[uid] != snapshot.version {
        conflicts.insert(uid)
      }
    }
    return conflicts
  }

  /// Commits the changes since the last save into `file`, resolving `conflicts` by the merge
  /// policy, and brings the context in step with the result.
  func commit(resolving conflicts: Set<Int>) {
    let plan = plannedCommit(resolving: conflicts)
    settle(
      after: plan.committed, conflicts: conflicts, saved: plan.saved, plan.deleted,
      refused: plan.refused)
  }

  /// The committed state the save would leave, and the objects it saves and deletes.
  func plannedCommit(resolving conflicts: Set<Int>) -> (
    committed: Graph, saved: Set<Int>, deleted: [Int], refused: [Int: Set<String>]
  ) {
    let policy = mergePolicy
    let original = file
    let inContext = graph.keys.sorted()
    let deleted = inContext.filter(isDeletedInContext)
    let inserted = inContext.filter { isLive($0) && saved[$0] == nil }
    let updated = inContext.filter { isLive($0) && saved[$0] != nil && saved[$0] != graph[$0] }
    var next = FileGraph(objects: file)
    for uid in deleted where !(policy == .rollback && conflicts.contains(uid)) {
      next.remove(uid)
    }
    for uid in inserted {
      guard let object = graph[uid] else { continue }
      // An object committed again where it was: the references its deletion left behind
      // (No Action, Deny) go first, so they do not name it again.
      next.dropReferences(to: uid)
      next.objects[uid] = Object(entity: object.entity, values: [:])
      for name in Self.attributeNames(object.entity) {
        next.objects[uid]?.values[name] = object.values[name]
      }
    }
    for uid in updated {
      let conflicted = conflicts.contains(uid)
      guard !(conflicted && policy == .rollback), let object = graph[uid],
        let committed = original[uid], let snapshot = snapshots[uid]?.object
      else { continue }
      for name in Self.attributeNames(object.entity) {
        let mine = object.values[name]
        if !(conflicted && policy == .overwrite) {
          if mine == snapshot.values[name] { continue }
          let isChangedThere = committed.values[name] != snapshot.values[name]
          if conflicted && policy == .storeTrump && isChangedThere { continue }
        }
        next.objects[uid]?.values[name] = mine
      }
    }
    var refused: [Int: Set<String>] = [:]
    for uid in (inserted + updated).sorted() {
      commitRelationships(
        of: uid, into: &next, conflicts: conflicts, original: original, refused: &refused)
    }
    // Members a conflicting object gains through other objects' edges, where the policy keeps
    // its order, follow its committed members in the order the context's list has them.
    if policy == .rollback || policy == .storeTrump {
      for uid in conflicts.sorted() {
        guard let object = graph[uid], let before = original[uid] else { continue }
        for relationship in SoakSchema.relationships[object.entity] ?? []
        where relationship.isOrdered {
          let kept = FileGraph.targets(of: before, relationship)
          let mine = targets(uid, relationship).filter { !kept.contains($0) }
          next.order(uid, relationship, like: kept + mine)
        }
      }
    }
    return (next.objects, Set(inserted + updated), deleted, refused)
  }

  /// Commits `uid`'s relationships as edges against its snapshot (or, overwriting a conflict,
  /// against the committed targets).
  private func commitRelationships(
    of uid: Int, into next: inout FileGraph, conflicts: Set<Int>, original: Graph,
    refused: inout [Int: Set<String>]
  ) {
    let policy = mergePolicy
    let conflicted = conflicts.contains(uid)
    guard !(conflicted && policy == .rollback), let object = graph[uid] else { return }
    let base: Object?
    if conflicted && policy == .overwrite {
      base = original[uid]
    } else {
      base = saved[uid] == nil ? nil : snapshots[uid]?.object
    }
    func isKept(_ target: Int, _ relationship: SoakSchema.Relationship, linking: Bool) -> Bool {
      guard
        isProtected(target, inverseOf: relationship, conflicts: conflicts, committed: original)
          || disagrees(target, relationship, with: uid, linked: linking)
      else { return false }
      refused[uid, default: []].insert(relationship.name)
      return true
    }
    for relationship in SoakSchema.relationships[object.entity] ?? [] {
      let mine = targets(uid, relationship).filter(isLive)
      let was = base.map { FileGraph.targets(of: $0, relationship) } ?? []
      if relationship.isToMany {
        for target in was
        where !mine.contains(target) && !isKept(target, relationship, linking: false) {
          next.unlink(uid, relationship, from: target)
        }
        for target in mine
        where !was.contains(target) && !isKept(target, relationship, linking: true) {
          next.link(uid, relationship, to: target)
        }
        if relationship.isOrdered && !(conflicted && policy == .storeTrump) {
          next.order(uid, relationship, like: mine)
        }
        continue
      }
      guard mine.first != was.first else { continue }
      if conflicted, policy == .storeTrump, let committed = original[uid],
        committed.values[relationship.name] != snapshots[uid]?.object.values[relationship.name]
      {
        continue
      }
      if let target = mine.first {
        if !isKept(target, relationship, linking: true) {
          next.link(uid, relationship, to: target)
        }
      } else if let target = next.targets(uid, relationship).first,
        !isKept(target, relationship, linking: false)
      {
        next.unlink(uid, relationship, from: target)
      }
    }
  }

  /// Whether `target`, live in the context, holds its side of the edge with `uid` other than as
  /// `linked` says. After a `refresh` without merging the two sides can disagree; an edge is
  /// changed only where both agree.
  private func disagrees(
    _ target: Int, _ relationship: SoakSchema.Relationship, with uid: Int, linked: Bool
  ) -> Bool {
    guard isLive(target), let inverse = SoakSchema.inverse(of: relationship) else { return false }
    return targets(target, inverse).contains(uid) != linked
  }

  /// Whether an edge of `relationship` may not change `target`'s to-one inverse: `target` is a
  /// conflict whose side the policy keeps.
  private func isProtected(
    _ target: Int, inverseOf relationship: SoakSchema.Relationship, conflicts: Set<Int>,
    committed original: Graph
  ) -> Bool {
    guard conflicts.contains(target), let inverse = SoakSchema.inverse(of: relationship),
      !inverse.isToMany
    else { return false }
    switch mergePolicy {
    case .rollback: return true
    case .storeTrump:
      guard let committed = original[target] else { return false }
      return committed.values[inverse.name] != snapshots[target]?.object.values[inverse.name]
    default: return false
    }
  }

  /// Makes `committed` the committed state, with a new version for each object it changed,
  /// and brings the context in step (see the type's discussion).
  private func settle(
    after committed: Graph, conflicts: Set<Int>, saved savedNow: Set<Int>, _ deleted: [Int],
    refused: [Int: Set<String>]
  ) {
    let before = file
    file = committed
    var touched: Set<Int> = []
    for uid in Set(before.keys).union(file.keys) where before[uid] != file[uid] {
      touched.insert(uid)
      fileVersions[uid] = file[uid] == nil ? nil : newVersion()
    }
    var left: Set<Int> = []
    for uid in deleted {
      if mergePolicy == .rollback, conflicts.contains(uid), file[uid] != nil {
        graph[uid]?.isDeleted = false
      } else {
        left.insert(uid)
      }
    }
    for uid in touched.union(savedNow).union(conflicts).sorted()
    where !left.contains(uid) && isInContext(uid) {
      guard let object = file[uid], let version = fileVersions[uid] else {
        // Another context deleted it, and the policy let that stand.
        graph[uid]?.isDeleted = true
        left.insert(uid)
        continue
      }
      if !savedNow.contains(uid) || conflicts.contains(uid) {
        let values = read(object)
        graph[uid]?.values = values
      } else if let keys = refused[uid] {
        // A relationship whose change the policy refused takes its committed value.
        let values = read(object)
        for key in keys { graph[uid]?.values[key] = values[key] }
      }
      snapshots[uid] = Snapshot(object: object, version: version)
    }
    for uid in left { snapshots[uid] = nil }
    saved = liveObjects
    turnStart = graph
    discarded.removeAll()
  }

  static func attributeNames(_ entity: String) -> [String] {
    ["uid"] + (SoakSchema.attributes[entity] ?? []).map(\.name)
  }

  // MARK: Rollback, reset, reopen

  /// Every live saved object takes its saved values; everything else is deleted. Both stacks
  /// and every open group are cleared, and registration is enabled again (as
  /// `NSUndoManager.removeAllActions()` does).
  public func rollback() {
    processPendingChanges()
    for uid in graph.keys {
      if let saved = saved[uid] {
        graph[uid]?.values = saved.values
        graph[uid]?.isDeleted = false
      } else {
        graph[uid]?.isDeleted = true
      }
    }
    discarded.removeAll()
    turnStart = graph
    removeAllActions()
    isSavePointComparable = false
  }

  /// Forgets every object and reads the committed state again, as reopening does but from the
  /// committed state in memory; the undo manager loses its actions (registration is enabled
  /// again) and keeps its levels.
  public func reset() {
    readCommittedState()
    removeAllActions()
    isSavePointComparable = false
  }

  /// Closes the document and opens its file: the committed objects, with references to
  /// objects that were not saved dropped and each relationship's missing inverse side added
  /// (as a store that keeps one side would read back). Undo starts afresh.
  public func reopen() {
    let committed = file
    var loaded = file
    for (uid, object) in committed {
      loaded[uid]?.values = object.values.compactMapValues { value in
        switch value {
        case .one(let target): return committed[target] == nil ? nil : value
        case .list(let targets):
          let kept = targets.filter { committed[$0] != nil }
          return kept.isEmpty ? nil : .list(kept)
        case .set(let targets):
          let kept = targets.filter { committed[$0] != nil }
          return kept.isEmpty ? nil : .set(Set(kept))
        default: return value
        }
      }
    }
    graph = loaded
    // In uid order, which is the order objects were inserted and so the order the store
    // lists them: an ordered side completed from the other gets its objects in that order.
    for (uid, object) in loaded.sorted(by: { $0.key < $1.key }) {
      for relationship in SoakSchema.relationships[object.entity] ?? [] {
        guard let inverse = SoakSchema.inverse(of: relationship) else { continue }
        for target in targets(uid, relationship) {
          if inverse.isToMany {
            primitiveAdd(uid, to: target, inverse.name, ordered: inverse.isOrdered, at: nil)
          } else if one(target, inverse.name) == nil {
            graph[target]?.values[inverse.name] = .one(uid)
          }
        }
      }
    }
    file = graph
    for uid in file.keys { fileVersions[uid] = newVersion() }
    readCommittedState()
    removeAllActions()
    levelsOfUndo = 0
    savePoint = nil
    isSavePointComparable = true
    mergePolicy = .error
    lastOtherSave = nil
  }

  /// The context holds every committed object as it reads it, unchanged.
  private func readCommittedState() {
    graph = [:]
    for (uid, object) in file {
      let values = read(object)
      graph[uid] = Object(entity: object.entity, values: values)
    }
    snapshots = [:]
    for (uid, object) in file {
      snapshots[uid] = Snapshot(object: object, version: fileVersions[uid] ?? 0)
    }
    saved = graph
    turnStart = graph
    pendingDeletes.removeAll()
    deletedInTurn.removeAll()
    discarded.removeAll()
    isRegistrationStale = false
  }

  /// Clears both stacks and every open group, and enables registration again.
  private func removeAllActions() {
    undoStack.removeAll()
    redoStack.removeAll()
    openGroups.removeAll()
    implicitGroupOpen = false
    collector = nil
    disableCount = 0
    baseStateIdentifier = nil
  }
}

/// A graph edited edge by edge, both sides at once.
struct FileGraph {
  var objects: SoakOracle.Graph

  /// Takes `uid` out of every relationship that names it.
  mutating func dropReferences(to uid: Int) {
    for (other, object) in objects {
      for (key, value) in object.values {
        switch value {
        case .one(let target) where target == uid:
          objects[other]?.values[key] = nil
        case .list(let targets) where targets.contains(uid):
          let kept = targets.filter { $0 != uid }
          objects[other]?.values[key] = kept.isEmpty ? nil : .list(kept)
        case .set(let targets) where targets.contains(uid):
          let kept = targets.subtracting([uid])
          objects[other]?.values[key] = kept.isEmpty ? nil : .set(kept)
        default: break
        }
      }
    }
  }

  /// The targets `object` names in `relationship`.
  static func targets(of object: SoakOracle.Object, _ relationship: SoakSchema.Relationship)
    -> [Int]
  {
    switch object.values[relationship.name] {
    case .one(let target)?: [target]
    case .list(let targets)?: targets
    case .set(let targets)?: targets.sorted()
    default: []
    }
  }

  func targets(_ uid: Int, _ relationship: SoakSchema.Relationship) -> [Int] {
    objects[uid].map { Self.targets(of: $0, relationship) } ?? []
  }

  private mutating func setTargets(
    _ uid: Int, _ relationship: SoakSchema.Relationship, _ targets: [Int]
  ) {
    guard objects[uid] != nil else { return }
    if targets.isEmpty {
      objects[uid]?.values[relationship.name] = nil
    } else if !relationship.isToMany {
      objects[uid]?.values[relationship.name] = .one(targets[0])
    } else {
      objects[uid]?.values[relationship.name] =
        relationship.isOrdered ? .list(targets) : .set(Set(targets))
    }
  }

  /// Adds `target` to a to-many side, or points a to-one side at it.
  private mutating func attach(_ target: Int, to uid: Int, _ relationship: SoakSchema.Relationship)
  {
    if relationship.isToMany {
      let current = targets(uid, relationship)
      if !current.contains(target) { setTargets(uid, relationship, current + [target]) }
    } else {
      setTargets(uid, relationship, [target])
    }
  }

  /// Takes `target` out of one side.
  private mutating func detach(
    _ target: Int, from uid: Int, _ relationship: SoakSchema.Relationship
  ) {
    let current = targets(uid, relationship)
    if current.contains(target) { setTargets(uid, relationship, current.filter { $0 != target }) }
  }

  mutating func link(_ uid: Int, _ relationship: SoakSchema.Relationship, to target: Int) {
    guard objects[uid] != nil, objects[target] != nil,
      let inverse = SoakSchema.inverse(of: relationship)
    else { return }
    if !relationship.isToMany, let old = targets(uid, relationship).first, old != target {
      detach(uid, from: old, inverse)
    }
    attach(target, to: uid, relationship)
    if !inverse.isToMany, let previous = targets(target, inverse).first, previous != uid {
      detach(target, from: previous, relationship)
    }
    attach(uid, to: target, inverse)
  }

  mutating func unlink(_ uid: Int, _ relationship: SoakSchema.Relationship, from target: Int) {
    detach(target, from: uid, relationship)
    if let inverse = SoakSchema.inverse(of: relationship) { detach(uid, from: target, inverse) }
  }

  /// Takes `uid` out, letting go of its Nullify and Cascade relationships on both sides; No
  /// Action and Deny leave the other side naming it.
  mutating func remove(_ uid: Int) {
    guard let object = objects[uid] else { return }
    for relationship in SoakSchema.relationships[object.entity] ?? []
    where relationship.deleteRule == .nullify || relationship.deleteRule == .cascade {
      for target in targets(uid, relationship) { unlink(uid, relationship, from: target) }
    }
    objects[uid] = nil
  }

  /// Puts an ordered to-many in the order of `order`, the targets it does not name after.
  mutating func order(_ uid: Int, _ relationship: SoakSchema.Relationship, like order: [Int]) {
    let current = targets(uid, relationship)
    let members = Set(current)
    var wanted = order.filter { members.contains($0) }
    let named = Set(wanted)
    wanted += current.filter { !named.contains($0) }
    setTargets(uid, relationship, wanted)
  }
}
