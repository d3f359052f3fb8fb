/// The oracle's model of the context's boundaries: reading the committed state again, child
/// contexts, and other root contexts saving under it.
///
/// ## Reading the committed state
/// The context reads a committed object as it is, except that a reference to an object it
/// cannot reach — one that left the committed state and that it does not have (No Action
/// leaves such references, and `reset` forgets the objects they name) — reads as nothing.
/// After another context committed, the context registers the committed objects it does not
/// have the next time it fetches or saves (a child's save fetches through it too). A saved
/// object that it has not changed and that another context deleted stays in it, readable, but
/// no fetch finds it.
///
/// ## Refreshing
/// `refresh` reads the object's committed values again; an object another context deleted
/// leaves the context instead. Without merging, its changes since the save are dropped, a
/// deletion included; with merging, the keys it changed keep their values and the others take
/// the committed ones. Either way its snapshot is the committed object, its changes count from
/// the committed values, only that object changes (its relationships may then disagree with
/// their inverses, as in Core Data), and nothing registers undo: the turn's change leaves out
/// what the refresh did. `mergeChanges(fromContextDidSave:)` refreshes, merging, the objects
/// the other save updated or deleted that the context has; `refreshAllObjects()` every object
/// of the context but those inserted since the save.
///
/// ## Other contexts
/// A child context reads through the context and pushes its changes into it: a child that sets
/// an attribute and a to-one and saves makes the same changes in the context, in its turn; a
/// child discarded changes nothing. Another root context, made for one step, reads the
/// committed state, changes one object, inserts one, or deletes one with what its Cascade
/// rules reach (refused, as its save would be, when a Deny rule holds a live object), and
/// commits; the objects it updated and deleted are its did-save notification's.
extension SoakOracle {
  func newVersion() -> Int {
    defer { nextVersion += 1 }
    return nextVersion
  }

  /// The values the context reads from the committed object `object`.
  func read(_ object: Object) -> [String: Value] {
    func isReachable(_ uid: Int) -> Bool { graph[uid] != nil || file[uid] != nil }
    var values = object.values
    for (key, value) in object.values {
      switch value {
      case .one(let target) where !isReachable(target): values[key] = nil
      case .list(let targets) where !targets.allSatisfy(isReachable):
        let kept = targets.filter(isReachable)
        values[key] = kept.isEmpty ? nil : .list(kept)
      case .set(let targets) where !targets.allSatisfy(isReachable):
        let kept = targets.filter(isReachable)
        values[key] = kept.isEmpty ? nil : .set(kept)
      default: break
      }
    }
    return values
  }

  // MARK: Fetching

  /// Registers the committed objects the context does not have yet, when another context
  /// committed since it last did.
  func registerCommitted() {
    guard isRegistrationStale else { return }
    isRegistrationStale = false
    for uid in file.keys.sorted() where graph[uid] == nil { register(uid) }
  }

  /// Registers the committed object `uid`, as reading it from the store does.
  private func register(_ uid: Int) {
    guard let object = file[uid] else { return }
    let registered = Object(entity: object.entity, values: read(object))
    graph[uid] = registered
    saved[uid] = registered
    turnStart[uid] = registered
    snapshots[uid] = Snapshot(object: object, version: fileVersions[uid] ?? 0)
  }

  /// Whether `uid` is a saved, unchanged, live object of the context that is no longer
  /// committed: another context deleted it.
  public func isVanished(_ uid: Int) -> Bool {
    guard file[uid] == nil, snapshots[uid] != nil, let object = graph[uid], !object.isDeleted,
      let base = saved[uid]
    else { return false }
    return base.values == object.values
  }

  /// The objects a fetch would find now: the live objects but those another context deleted
  /// unchanged, and, when another context committed since the last fetch, the committed
  /// objects the context does not have yet.
  public var fetchable: Set<Int> {
    var found = Set(graph.keys.filter { isLive($0) && !isVanished($0) })
    if isRegistrationStale { found.formUnion(file.keys.filter { graph[$0] == nil }) }
    return found
  }

  /// `objects(ofEntity:)` of every entity: registers what other contexts committed, and
  /// returns the objects found.
  public func fetch() -> Set<Int> {
    registerCommitted()
    return fetchable
  }

  // MARK: Refreshing

  /// `refresh(_:mergeChanges:)` of `uid`, an object of the context.
  public func refresh(_ uid: Int, merge: Bool) {
    guard isInContext(uid), let object = graph[uid], let base = saved[uid] else { return }
    guard let committed = file[uid] else {
      // Another context deleted it: it leaves the context, changes and all.
      graph[uid]?.isDeleted = true
      saved[uid] = nil
      snapshots[uid] = nil
      turnStart[uid] = graph[uid]
      pendingDeletes.removeAll { $0 == uid }
      return
    }
    let values = read(committed)
    snapshots[uid] = Snapshot(object: committed, version: fileVersions[uid] ?? 0)
    saved[uid] = Object(entity: object.entity, values: values)
    var refreshed = Object(entity: object.entity, values: values)
    guard merge else {
      // Its changes are dropped, those of the turn too: the turn registers none of them.
      graph[uid] = refreshed
      turnStart[uid] = refreshed
      pendingDeletes.removeAll { $0 == uid }
      // No longer deleted, it is not left alone by the Nullify rules the turn runs.
      deletedInTurn.remove(uid)
      return
    }
    // The keys changed since the save keep their values; a deletion stays.
    for key in Set(base.values.keys).union(object.values.keys)
    where base.values[key] != object.values[key] {
      refreshed.values[key] = object.values[key]
    }
    refreshed.isDeleted = object.isDeleted
    graph[uid] = refreshed
    // What the refresh changed registers no undo: for the turn, it was so all along.
    guard var start = turnStart[uid] else { return }
    for key in Set(object.values.keys).union(refreshed.values.keys)
    where object.values[key] != refreshed.values[key] {
      start.values[key] = refreshed.values[key]
    }
    if object.isDeleted != refreshed.isDeleted { start.isDeleted = refreshed.isDeleted }
    turnStart[uid] = start
  }

  /// `mergeChanges(fromContextDidSave:)` with the last other save's notification.
  public func mergeOtherSave() {
    guard let last = lastOtherSave else { return }
    for uid in last.updated.union(last.deleted).sorted() where isInContext(uid) {
      refresh(uid, merge: true)
    }
    // Core Data's merge faults in the objects the other save inserted.
    for uid in last.inserted.sorted() where graph[uid] == nil { register(uid) }
  }

  /// `refreshAllObjects()`.
  public func refreshAll() {
    for uid in graph.keys.sorted() where isInContext(uid) && saved[uid] != nil {
      refresh(uid, merge: true)
    }
  }

  public func setMergePolicy(_ policy: SoakMergePolicy) { mergePolicy = policy }

  // MARK: A child context

  /// A child sets `key` of `uid` (and the to-one `link`) and saves into the context: the
  /// same changes made in the context. A child's save with changes fetches through the
  /// context first.
  public func childSave(
    _ uid: Int, _ key: String, _ value: Value?, link: SoakOperation.Link?
  ) {
    let changesKey = graph[uid]?.values[key] != value
    let changesLink = link.map { one($0.uid, $0.key) != $0.target } ?? false
    if changesKey || changesLink { registerCommitted() }
    setAttribute(uid, key, value)
    if let link { setToOne(link.uid, link.key, link.target) }
  }

  // MARK: Another root context

  /// Another context sets `key` of the committed object `uid` and saves: nothing when the
  /// value is already committed (there is nothing to save).
  public func otherSet(_ uid: Int, _ key: String, _ value: Value?) {
    guard let object = file[uid], object.values[key] != value else { return }
    var next = FileGraph(objects: file)
    next.objects[uid]?.values[key] = value
    // Its relationships commit as edges too, against what that context read: a reference
    // to an object no longer committed (No Action leaves them) is not live there, so it goes.
    for relationship in SoakSchema.relationships[object.entity] ?? [] {
      for target in FileGraph.targets(of: object, relationship) where file[target] == nil {
        next.unlink(uid, relationship, from: target)
      }
    }
    commitOtherSave(next.objects)
  }

  /// Another context sets the to-one `key` of the committed object `uid` to `target` (a
  /// committed object, or nothing) and saves: nothing when it already reads so.
  public func otherLink(_ uid: Int, _ key: String, _ target: Int?) {
    guard let object = file[uid], let relationship = SoakSchema.relationship(key, of: object.entity)
    else { return }
    let current = FileGraph.targets(of: object, relationship).first { file[$0] != nil }
    guard current != target else { return }
    var next = FileGraph(objects: file)
    if let target {
      next.link(uid, relationship, to: target)
    } else if let current {
      next.unlink(uid, relationship, from: current)
    }
    commitOtherSave(next.objects)
  }

  /// Another context inserts an object of `entity` and saves.
  public func otherInsert(_ entity: String, uid: Int, name: String?) {
    var values: [String: Value] = ["uid": .integer(Int64(uid))]
    if let name { values["name"] = .string(name) }
    var committed = file
    committed[uid] = Object(entity: entity, values: values)
    commitOtherSave(committed)
  }

  /// Another context deletes the committed object `uid`, and what its Cascade rules reach, and
  /// saves; `deny` when a deleted object's Deny relationship holds an object that stays.
  public func otherDelete(_ uid: Int) throws(SoakFailure) {
    guard file[uid] != nil else { return }
    var doomed = [uid]
    var next = 0
    while next < doomed.count {
      let deleted = doomed[next]
      next += 1
      guard let object = file[deleted] else { continue }
      for relationship in SoakSchema.relationships[object.entity] ?? []
      where relationship.deleteRule == .cascade {
        for target in FileGraph.targets(of: object, relationship)
        where file[target] != nil && !doomed.contains(target) {
          doomed.append(target)
        }
      }
    }
    let leaving = Set(doomed)
    for deleted in doomed {
      guard let object = file[deleted] else { continue }
      for relationship in SoakSchema.relationships[object.entity] ?? []
      where relationship.deleteRule == .deny {
        let held = FileGraph.targets(of: object, relationship)
        if held.contains(where: { file[$0] != nil && !leaving.contains($0) }) {
          throw SoakFailure("deny")
        }
      }
    }
    var graph = FileGraph(objects: file)
    for deleted in doomed.sorted() { graph.remove(deleted) }
    commitOtherSave(graph.objects)
  }

  /// Makes `committed`, what another context's save leaves, the committed state: each object
  /// it changed gets a new version, and its did-save notification names the objects it
  /// updated and deleted.
  private func commitOtherSave(_ committed: Graph) {
    let before = file
    file = committed
    var inserted: Set<Int> = []
    var updated: Set<Int> = []
    for (uid, object) in file where before[uid] != object {
      fileVersions[uid] = newVersion()
      if before[uid] != nil { updated.insert(uid) } else { inserted.insert(uid) }
    }
    let deleted = Set(before.keys.filter { file[$0] == nil })
    for uid in deleted { fileVersions[uid] = nil }
    lastOtherSave = OtherSave(inserted: inserted, updated: updated, deleted: deleted)
    isRegistrationStale = true
  }
}
