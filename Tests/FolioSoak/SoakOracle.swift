/// The soak's oracle: the simplest model of a document that could work.
///
/// ## The model
/// The graph is a dictionary from `uid` to a plain object: its entity, its values by key (an
/// empty value has no entry) and whether it is deleted. Objects are never forgotten within a
/// session — a deleted object keeps its values, because inverse maintenance may still reach it
/// and an undo may bring it back — and only the live ones are compared with Folio.
///
/// Inverses are kept the obvious way, one relationship change at a time: setting a to-one
/// unlinks the old target's inverse and links the new one, taking the new target from its
/// previous partner. Deleting marks the object and queues it; processing applies the queued
/// objects' delete rules (Nullify unlinks the inverse of every target not deleted in the same
/// turn, Cascade deletes every target, Deny and No Action do nothing) until the queue is empty.
///
/// Undo copies the whole graph: processing compares the graph with a copy taken at the last
/// processing and, when something changed, registers both copies. Undoing a registered change
/// sets every object and key that differs between the two copies back to the earlier copy's
/// value — which is restoring the earlier copy, unless changes made with registration disabled
/// came in between (then they stay, as with any NSUndoManager). Groups, nesting, the turn's
/// automatic group, levels, disabled registration, the redo stack and the save point follow
/// NSUndoManager's documented behaviour.
///
/// ## Where the oracle follows Folio's documented choices
/// Where Core Data leaves a case undefined, or Folio documents a deliberate difference, the
/// oracle takes Folio's side, so a divergence always means something:
/// - An object inserted and then deleted before a save keeps its Deny rules until the save
///   (`Formats/undo-script.md`, `validate`); Core Data validates only `deletedObjects`. An
///   insertion undone or rolled back is not such a deletion.
/// - Updated objects are those whose values differ from the saved ones, so a value changed
///   and changed back, or undone, is not an update (Core Data keeps such objects updated).
/// - Reopening drops references to objects that were not saved (No Action leaves them) and
///   adds each relationship's missing inverse side, as Folio's stores read a file.
/// - Nullify leaves alone targets deleted in the same turn (they are deleted anyway).
///
/// ## Other contexts
/// The graph is the document's context: the objects it has registered. Below it is the
/// committed state (`file`, what every context's saves left), with a version per object that
/// changes whenever a commit changes the object, and the context keeps a snapshot of each saved
/// object: the committed object and its version when it last read or saved it. Other contexts
/// only ever change the committed state, so the context goes on seeing old values until it
/// reads again (`SoakOracle+Contexts.swift`); its saves commit against its snapshots and meet
/// conflicts, resolved by its merge policy (`SoakOracle+File.swift`).
public final class SoakOracle {
  /// A value of an attribute or relationship.
  public enum Value: Hashable, Sendable, Codable {
    case integer(Int64)
    case double(Double)
    case string(String)
    case boolean(Bool)
    /// A to-one relationship's target.
    case one(Int)
    /// An ordered to-many relationship's targets, in order.
    case list([Int])
    /// An unordered to-many relationship's targets.
    case set(Set<Int>)
  }

  /// An object of the graph.
  public struct Object: Equatable, Sendable {
    public var entity: String
    public var values: [String: Value]
    public var isDeleted = false
  }

  public typealias Graph = [Int: Object]

  /// One processed turn's change: the graph before and after it.
  struct Change {
    var before: Graph
    var after: Graph
  }

  struct Group {
    var id: Int
    var changes: [Change] = []
  }

  /// What the context read of a committed object.
  struct Snapshot {
    var object: Object
    var version: Int
  }

  /// What one save of another context changed, as its did-save notification names them.
  public struct OtherSave: Sendable {
    public var inserted: Set<Int> = []
    public var updated: Set<Int>
    public var deleted: Set<Int>
  }

  /// Every object the context has registered since it last read the whole store (opening,
  /// `reset`): live, deleted, and gone from it.
  public internal(set) var graph: Graph = [:]
  /// The values each object of the context had at its last save or read: what its changes are
  /// counted from. An object gone from the context, or inserted since, has none.
  public internal(set) var saved: Graph = [:]
  /// The committed state, as the last save of any context left it (see `commit(resolving:)`).
  public internal(set) var file: Graph = [:]
  /// The version of each committed object.
  var fileVersions: [Int: Int] = [:]
  var nextVersion = 1
  /// What the context last read or saved of each of its saved objects.
  var snapshots: [Int: Snapshot] = [:]
  /// Whether another context committed since the context last registered every committed
  /// object (a fetch or a save registers them).
  public internal(set) var isRegistrationStale = false
  /// How the context's saves resolve conflicts.
  public internal(set) var mergePolicy = SoakMergePolicy.error
  /// How many conflicts the last save resolved by its merge policy.
  public internal(set) var resolvedConflicts = 0
  /// The last save of another context that committed something; `nil` after reopening.
  public internal(set) var lastOtherSave: OtherSave?
  /// The graph at the last processing.
  var turnStart: Graph = [:]
  var pendingDeletes: [Int] = []
  /// Whether anything was changed since the last processing (a change set back included).
  public internal(set) var hasUnprocessedChanges = false
  var deletedInTurn: Set<Int> = []
  /// Objects inserted since the save and then deleted by `delete` or a cascade: their Deny
  /// rules still hold at save.
  var discarded: Set<Int> = []

  var undoStack: [Group] = []
  var redoStack: [Group] = []
  var openGroups: [Group] = []
  var implicitGroupOpen = false
  var collector: Group?
  public internal(set) var disableCount = 0
  public internal(set) var levelsOfUndo = 0
  var nextGroupID = 1
  /// The state under the oldest undo group: the newest group the levels dropped, if any.
  var baseStateIdentifier: Int?
  var savePoint: Int?
  /// Whether the save point can be compared: not after a rollback or changes registration
  /// did not record, until the next save.
  public internal(set) var isSavePointComparable = true

  public init() {}

  // MARK: Reading

  /// The live objects.
  public var liveObjects: Graph { graph.filter { !$0.value.isDeleted } }

  /// Whether `uid` names a live object.
  public func isLive(_ uid: Int) -> Bool { graph[uid].map { !$0.isDeleted } ?? false }

  /// Whether `uid` names an object in the context: live, or deleted since the save.
  public func isInContext(_ uid: Int) -> Bool {
    guard let object = graph[uid] else { return false }
    return !object.isDeleted || saved[uid] != nil
  }

  /// Whether the session used `uid` already, in the context or in the committed state.
  public func isKnown(_ uid: Int) -> Bool { graph[uid] != nil || file[uid] != nil }

  public var groupingLevel: Int { openGroups.count }
  public var undoCount: Int { undoStack.count }
  public var redoCount: Int { redoStack.count }
  public var canUndo: Bool { !undoStack.isEmpty || openGroups.contains { !$0.changes.isEmpty } }

  /// Whether anything was inserted, updated or deleted since the save.
  public var hasChanges: Bool {
    for (uid, object) in graph {
      if object.isDeleted {
        if saved[uid] != nil { return true }
      } else if saved[uid]?.values != object.values {
        return true
      }
    }
    return false
  }

  /// The objects inserted, updated and deleted since the save, by uid.
  public var changeSets: (inserted: Set<Int>, updated: Set<Int>, deleted: Set<Int>) {
    var sets: (inserted: Set<Int>, updated: Set<Int>, deleted: Set<Int>) = ([], [], [])
    for (uid, object) in graph {
      if object.isDeleted {
        if saved[uid] != nil { sets.deleted.insert(uid) }
      } else if let savedObject = saved[uid] {
        if savedObject.values != object.values { sets.updated.insert(uid) }
      } else {
        sets.inserted.insert(uid)
      }
    }
    return sets
  }

  /// Whether `uid` names an object that is deleted but still in the context: deleted since the
  /// save, which it was in.
  public func isDeletedInContext(_ uid: Int) -> Bool {
    graph[uid]?.isDeleted == true && saved[uid] != nil
  }

  /// Whether the state differs from the save point.
  public var isEdited: Bool { stateIdentifier != savePoint }

  var stateIdentifier: Int? {
    if let open = openGroups.first, !open.changes.isEmpty { return open.id }
    return undoStack.last?.id ?? baseStateIdentifier
  }

  // MARK: Changing the graph

  public func insert(_ entity: String, uid: Int) {
    hasUnprocessedChanges = true
    graph[uid] = Object(entity: entity, values: ["uid": .integer(Int64(uid))])
  }

  public func setAttribute(_ uid: Int, _ key: String, _ value: Value?) {
    hasUnprocessedChanges = true
    graph[uid]?.values[key] = value
  }

  public func setToOne(_ uid: Int, _ key: String, _ target: Int?) {
    hasUnprocessedChanges = true
    guard let entity = graph[uid]?.entity,
      let relationship = SoakSchema.relationship(key, of: entity)
    else { return }
    let old = one(uid, key)
    guard old != target else { return }
    if let old { unlinkInverse(of: uid, relationship, from: old) }
    graph[uid]?.values[key] = target.map { .one($0) }
    if let target { linkInverse(of: uid, relationship, to: target) }
  }

  public func add(_ uid: Int, _ key: String, _ target: Int, at index: Int?) {
    hasUnprocessedChanges = true
    guard let entity = graph[uid]?.entity,
      let relationship = SoakSchema.relationship(key, of: entity)
    else { return }
    guard !many(uid, key).contains(target) else { return }
    primitiveAdd(target, to: uid, key, ordered: relationship.isOrdered, at: index)
    linkInverse(of: uid, relationship, to: target)
  }

  public func remove(_ uid: Int, _ key: String, _ target: Int) {
    hasUnprocessedChanges = true
    guard let entity = graph[uid]?.entity,
      let relationship = SoakSchema.relationship(key, of: entity)
    else { return }
    guard many(uid, key).contains(target) else { return }
    primitiveRemove(target, from: uid, key)
    unlinkInverse(of: uid, relationship, from: target)
  }

  public func setToMany(_ uid: Int, _ key: String, _ targets: [Int]) {
    hasUnprocessedChanges = true
    guard let entity = graph[uid]?.entity,
      let relationship = SoakSchema.relationship(key, of: entity)
    else { return }
    for old in many(uid, key) where !targets.contains(old) { remove(uid, key, old) }
    for target in targets { add(uid, key, target, at: nil) }
    if relationship.isOrdered {
      var seen: Set<Int> = []
      let order = targets.filter { seen.insert($0).inserted }
      if many(uid, key) != order { setMany(uid, key, order, ordered: true) }
    }
  }

  /// Deletes `uid`; deleting a deleted object does nothing (its rules ran when it was deleted).
  public func delete(_ uid: Int) {
    hasUnprocessedChanges = true
    guard graph[uid]?.isDeleted == false else { return }
    markDeleted(uid)
    pendingDeletes.append(uid)
  }

  func markDeleted(_ uid: Int) {
    guard let object = graph[uid], !object.isDeleted else { return }
    graph[uid]?.isDeleted = true
    deletedInTurn.insert(uid)
    if saved[uid] == nil { discarded.insert(uid) }
  }

  // MARK: Relationship primitives

  func one(_ uid: Int, _ key: String) -> Int? {
    if case .one(let target)? = graph[uid]?.values[key] { return target }
    return nil
  }

  func many(_ uid: Int, _ key: String) -> [Int] {
    switch graph[uid]?.values[key] {
    case .list(let targets)?: return targets
    case .set(let targets)?: return targets.sorted()
    default: return []
    }
  }

  func targets(_ uid: Int, _ relationship: SoakSchema.Relationship) -> [Int] {
    if relationship.isToMany { return many(uid, relationship.name) }
    return one(uid, relationship.name).map { [$0] } ?? []
  }

  private func setMany(_ uid: Int, _ key: String, _ targets: [Int], ordered: Bool) {
    guard graph[uid] != nil else { return }
    if targets.isEmpty {
      graph[uid]?.values[key] = nil
    } else {
      graph[uid]?.values[key] = ordered ? .list(targets) : .set(Set(targets))
    }
  }

  func primitiveAdd(
    _ target: Int, to uid: Int, _ key: String, ordered: Bool, at index: Int?
  ) {
    var targets = many(uid, key)
    guard !targets.contains(target) else { return }
    if ordered, let index, index <= targets.count {
      targets.insert(target, at: index)
    } else {
      targets.append(target)
    }
    setMany(uid, key, targets, ordered: ordered)
  }

  private func primitiveRemove(_ target: Int, from uid: Int, _ key: String) {
    guard let entity = graph[uid]?.entity,
      let relationship = SoakSchema.relationship(key, of: entity)
    else { return }
    setMany(uid, key, many(uid, key).filter { $0 != target }, ordered: relationship.isOrdered)
  }

  private func linkInverse(of uid: Int, _ relationship: SoakSchema.Relationship, to target: Int) {
    guard let inverse = SoakSchema.inverse(of: relationship) else { return }
    if inverse.isToMany {
      primitiveAdd(uid, to: target, inverse.name, ordered: inverse.isOrdered, at: nil)
      return
    }
    if let previous = one(target, inverse.name), previous != uid {
      if relationship.isToMany {
        primitiveRemove(target, from: previous, relationship.name)
      } else if one(previous, relationship.name) == target {
        graph[previous]?.values[relationship.name] = nil
      }
    }
    graph[target]?.values[inverse.name] = .one(uid)
  }

  private func unlinkInverse(of uid: Int, _ relationship: SoakSchema.Relationship, from target: Int)
  {
    guard let inverse = SoakSchema.inverse(of: relationship) else { return }
    if inverse.isToMany {
      primitiveRemove(uid, from: target, inverse.name)
    } else if one(target, inverse.name) == uid {
      graph[target]?.values[inverse.name] = nil
    }
  }

  // MARK: Processing

  /// Applies the delete rules of the queued deletions, then registers the turn's change.
  public func processPendingChanges() {
    hasUnprocessedChanges = false
    var next = 0
    while next < pendingDeletes.count {
      let uid = pendingDeletes[next]
      next += 1
      guard let object = graph[uid] else { continue }
      for relationship in SoakSchema.relationships[object.entity] ?? [] {
        let targets = targets(uid, relationship)
        switch relationship.deleteRule {
        case .nullify:
          for target in targets where !deletedInTurn.contains(target) {
            unlinkInverse(of: uid, relationship, from: target)
          }
        case .cascade:
          for target in targets where graph[target]?.isDeleted == false {
            markDeleted(target)
            pendingDeletes.append(target)
          }
        case .deny, .noAction:
          break
        }
      }
    }
    pendingDeletes.removeAll()
    deletedInTurn.removeAll()
    let change = Change(before: turnStart, after: graph)
    turnStart = graph
    if isEffective(change) { register(change) }
  }

  /// Whether a change changes anything: an object inserted and deleted within it does not.
  func isEffective(_ change: Change) -> Bool {
    for (uid, after) in change.after where change.before[uid] != after {
      if change.before[uid] == nil && after.isDeleted { continue }
      return true
    }
    return false
  }

  func register(_ change: Change) {
    guard disableCount == 0 else {
      isSavePointComparable = false
      return
    }
    if collector != nil {
      collector?.changes.append(change)
      return
    }
    if openGroups.isEmpty {
      openGroups.append(makeGroup())
      implicitGroupOpen = true
    }
    openGroups[openGroups.count - 1].changes.append(change)
    redoStack.removeAll()
  }

  private func makeGroup() -> Group {
    defer { nextGroupID += 1 }
    return Group(id: nextGroupID)
  }

  // MARK: Turns and groups

  /// The end of an event-loop turn.
  public func endTurn() {
    processPendingChanges()
    if implicitGroupOpen, openGroups.count == 1 { try? endGroup() }
  }

  public func beginGroup() {
    processPendingChanges()
    if openGroups.isEmpty {
      openGroups.append(makeGroup())
      implicitGroupOpen = true
    }
    openGroups.append(makeGroup())
  }

  /// Closes the innermost group; `no-open-group` when none is open.
  public func endGroup() throws(SoakFailure) {
    guard !openGroups.isEmpty else { throw SoakFailure("no-open-group") }
    processPendingChanges()
    let group = openGroups.removeLast()
    if !openGroups.isEmpty {
      openGroups[openGroups.count - 1].changes += group.changes
    } else {
      implicitGroupOpen = false
      if !group.changes.isEmpty {
        undoStack.append(group)
        trim()
      }
    }
  }

  public func undo() throws(SoakFailure) {
    if openGroups.count == 1 { try endGroup() }
    guard openGroups.isEmpty else { throw SoakFailure("open-group") }
    processPendingChanges()
    if openGroups.count == 1, implicitGroupOpen { try endGroup() }
    guard let group = undoStack.popLast() else { return }
    let replayed = replay(group)
    if !replayed.changes.isEmpty { redoStack.append(replayed) }
    trim()
  }

  /// Undoes the last group; `open-group` while any group is open.
  public func undoNestedGroup() throws(SoakFailure) {
    guard openGroups.isEmpty else { throw SoakFailure("open-group") }
    processPendingChanges()
    if openGroups.count == 1, implicitGroupOpen { try endGroup() }
    guard let group = undoStack.popLast() else { return }
    let replayed = replay(group)
    if !replayed.changes.isEmpty { redoStack.append(replayed) }
    trim()
  }

  public func redo() throws(SoakFailure) {
    if openGroups.count == 1 { try endGroup() }
    guard openGroups.isEmpty else { throw SoakFailure("open-group") }
    processPendingChanges()
    if openGroups.count == 1, implicitGroupOpen { try endGroup() }
    guard let group = redoStack.popLast() else { return }
    let replayed = replay(group)
    if !replayed.changes.isEmpty { undoStack.append(replayed) }
    trim()
  }

  /// Applies a group's changes in reverse, collecting what they register (their inverses).
  private func replay(_ group: Group) -> Group {
    collector = Group(id: group.id)
    for change in group.changes.reversed() {
      processPendingChanges()
      apply(from: change.after, to: change.before)
      processPendingChanges()
    }
    defer { collector = nil }
    return collector ?? Group(id: group.id)
  }

  /// Sets every object and key that differs between `from` and `to` to its value in `to`,
  /// then brings the inverses of the restored relationships into step (see `relink`).
  func apply(from: Graph, to: Graph) {
    var restored: [(uid: Int, relationship: SoakSchema.Relationship, before: [Int])] = []
    for uid in Set(from.keys).union(to.keys).sorted() where from[uid] != to[uid] {
      guard let target = to[uid] else {
        if graph[uid] != nil { graph[uid]?.isDeleted = true }
        continue
      }
      guard let source = from[uid], graph[uid] != nil else {
        graph[uid] = target
        continue
      }
      if source.isDeleted != target.isDeleted {
        graph[uid]?.isDeleted = target.isDeleted
        if !target.isDeleted { discarded.remove(uid) }
      }
      for key in Set(source.values.keys).union(target.values.keys).sorted()
      where source.values[key] != target.values[key] {
        if let entity = graph[uid]?.entity,
          let relationship = SoakSchema.relationship(key, of: entity)
        {
          restored.append((uid, relationship, targets(uid, relationship)))
        }
        graph[uid]?.values[key] = target.values[key]
      }
    }
    relink(restored)
  }

  /// Makes the other side of every edge a restored relationship gained or lost agree with it,
  /// as setting the relationship would. The restored values agree with each other (they are
  /// one earlier copy); only sides changed while registration was disabled can disagree.
  /// Deleted objects keep their relationships as they are.
  private func relink(
    _ restored: [(uid: Int, relationship: SoakSchema.Relationship, before: [Int])]
  ) {
    func isLive(_ uid: Int) -> Bool { graph[uid]?.isDeleted == false }
    for (uid, relationship, before) in restored where isLive(uid) {
      guard let inverse = SoakSchema.inverse(of: relationship) else { continue }
      let after = targets(uid, relationship)
      for target in before where !after.contains(target) && isLive(target) {
        guard targets(target, inverse).contains(uid) else { continue }
        unlinkInverse(of: uid, relationship, from: target)
      }
      for target in after where !before.contains(target) && isLive(target) {
        guard !targets(target, inverse).contains(uid) else { continue }
        linkInverse(of: uid, relationship, to: target)
      }
    }
  }

  public func setLevelsOfUndo(_ levels: Int) {
    levelsOfUndo = levels
    trim()
  }

  private func trim() {
    guard levelsOfUndo > 0 else { return }
    if undoStack.count > levelsOfUndo {
      let dropped = undoStack.count - levelsOfUndo
      baseStateIdentifier = undoStack[dropped - 1].id
      undoStack.removeFirst(dropped)
    }
    if redoStack.count > levelsOfUndo { redoStack.removeFirst(redoStack.count - levelsOfUndo) }
  }

  public func disableUndoRegistration() { disableCount += 1 }

  public func enableUndoRegistration() throws(SoakFailure) {
    guard disableCount > 0 else { throw SoakFailure("enable-without-disable") }
    disableCount -= 1
  }
}

/// A failure the oracle predicts, by the undo-script error code Folio's would have.
public struct SoakFailure: Error, Hashable, Sendable, CustomStringConvertible {
  public var code: String
  public init(_ code: String) { self.code = code }
  public var description: String { code }
}
