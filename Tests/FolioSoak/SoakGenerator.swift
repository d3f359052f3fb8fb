import FolioTestSupport

/// Chooses each next operation from the oracle's state, so that every operation names live
/// objects and the session keeps a graph of a few dozen objects.
public struct SoakGenerator {
  var random: SeededGenerator
  var nextUID = 1
  /// The most live objects the generator lets the graph grow to.
  public var maximumObjects = 40

  public init(seed: UInt64) { random = SeededGenerator(seed: seed) }

  static let strings = ["a", "b", "c", "d"]
  static let doubles = [0.5, 1.5, -2.25, 3.0]

  mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

  mutating func pick<T>(_ items: [T]) -> T? {
    items.isEmpty ? nil : items[Int.random(in: 0..<items.count, using: &random)]
  }

  /// The next operation for a session whose oracle is `oracle`, saved to a file or not: never
  /// one the oracle restricts (see `SoakOracle+Restrictions.swift`).
  public mutating func next(for oracle: SoakOracle, hasFile: Bool) -> SoakOperation {
    while true {
      let operation = candidate(for: oracle, hasFile: hasFile)
      if !oracle.isRestricted(operation) { return operation }
    }
  }

  mutating func candidate(for oracle: SoakOracle, hasFile: Bool) -> SoakOperation {
    let live = oracle.liveObjects.keys.sorted()
    // Conflicts with other contexts' saves are rare by chance; once there are some, a policy
    // that resolves them, and a save, come sooner.
    if hasFile, chance(10), !oracle.conflictingObjects().isEmpty {
      if oracle.mergePolicy == .error,
        let policy = pick(Array(SoakMergePolicy.allCases.dropFirst()))
      {
        return .mergePolicy(policy)
      }
      return .save(pick(SoakFormat.allCases) ?? .xml)
    }
    while true {
      let roll = Int.random(in: 0..<1100, using: &random)
      if roll >= 1000 {
        if let operation = acrossContexts(roll - 1000, oracle, live, hasFile: hasFile) {
          return operation
        }
        continue
      }
      switch roll {
      case 0..<120:
        if live.count >= maximumObjects && !chance(5) { continue }
        defer { nextUID += 1 }
        return .insert(entity: pick(SoakSchema.entities) ?? "Owner", uid: nextUID)
      case 120..<300:
        if let operation = attributeChange(oracle, live) { return operation }
      case 300..<520:
        if let operation = relationshipChange(oracle, live) { return operation }
      case 520..<575:
        if let uid = pick(live) { return .delete(uid: uid) }
      case 575..<580:
        // An object deleted since the save is still in the context: set it, or delete it again.
        let deleted = oracle.graph.keys.filter(oracle.isDeletedInContext).sorted()
        guard let uid = pick(deleted), let entity = oracle.graph[uid]?.entity else { continue }
        if chance(25) { return .delete(uid: uid) }
        let attribute = pick(SoakSchema.attributes[entity] ?? [])
        if attribute?.kind == .string {
          return .setAttribute(uid: uid, key: "name", value: pick(Self.strings).map { .string($0) })
        }
      case 580..<720: return .endTurn
      case 720..<745: return .process
      case 745..<775: return .begin
      case 775..<805:
        if oracle.groupingLevel > 1 || chance(10) { return .end }
      case 805..<855: return .undo
      case 855..<865: return .undoNested
      case 865..<905: return .redo
      case 905..<915: return .levels(pick([0, 0, 1, 2, 3, 5, 10]) ?? 0)
      case 915..<925:
        if oracle.disableCount == 0 || chance(20) { return .disable }
      case 925..<940:
        if oracle.disableCount > 0 || chance(5) { return .enable }
      case 940..<950: return .rollback
      case 950..<975: return .save(pick(SoakFormat.allCases) ?? .xml)
      case 975..<985: return .saveAs(pick(SoakFormat.allCases) ?? .xml)
      default:
        if hasFile { return .reopen }
      }
    }
  }

  mutating func attributeChange(_ oracle: SoakOracle, _ live: [Int]) -> SoakOperation? {
    guard let uid = pick(live), let entity = oracle.graph[uid]?.entity,
      let (key, value) = attributeValue(of: entity)
    else { return nil }
    return .setAttribute(uid: uid, key: key, value: value)
  }

  /// A random attribute of `entity` and a value for it (`nil` now and then).
  mutating func attributeValue(of entity: String) -> (String, SoakOracle.Value?)? {
    guard let attribute = pick(SoakSchema.attributes[entity] ?? []) else { return nil }
    var value: SoakOracle.Value?
    if !chance(15) {
      switch attribute.kind {
      case .string: value = pick(Self.strings).map { .string($0) }
      case .integer32: value = .integer(Int64.random(in: -3...3, using: &random))
      case .double: value = pick(Self.doubles).map { .double($0) }
      case .boolean: value = .boolean(chance(50))
      }
    }
    return (attribute.name, value)
  }

  /// One in 100 of the steps, `roll`, crossing the context's boundaries: reset and refresh, a
  /// child context, another root context (only once the document has a file: an untitled
  /// document's other contexts cannot save), the merge policy, merging and fetching.
  mutating func acrossContexts(_ roll: Int, _ oracle: SoakOracle, _ live: [Int], hasFile: Bool)
    -> SoakOperation?
  {
    switch roll {
    case 0..<8: return .reset
    case 8..<28:
      let inContext = oracle.graph.keys.filter(oracle.isInContext).sorted()
      return pick(inContext).map { .refresh(uid: $0, merge: chance(50)) }
    case 28..<43, 43..<48:
      guard let uid = pick(live), let entity = oracle.graph[uid]?.entity,
        let (key, value) = attributeValue(of: entity)
      else { return nil }
      let link = chance(60) ? toOneLink(oracle, live) : nil
      guard roll >= 43 else { return .childSave(uid: uid, key: key, value: value, link: link) }
      return .childDiscard(
        uid: uid, key: key, value: value, link: link, delete: chance(50) ? pick(live) : nil)
    case 48..<75:
      guard hasFile else { return nil }
      let committed = oracle.file.keys.sorted()
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<4:
        guard let uid = pick(committed), let entity = oracle.file[uid]?.entity,
          let (key, value) = attributeValue(of: entity)
        else { return nil }
        return .otherSet(uid: uid, key: key, value: value)
      case 4..<6:
        return otherLink(oracle, committed)
      case 6..<8:
        defer { nextUID += 1 }
        return .otherInsert(
          entity: pick(SoakSchema.entities) ?? "Note", uid: nextUID,
          name: chance(70) ? pick(Self.strings) : nil)
      default:
        return pick(committed).map { .otherDelete(uid: $0) }
      }
    case 75..<82: return .mergePolicy(pick(SoakMergePolicy.allCases) ?? .error)
    case 82..<90:
      if oracle.lastOtherSave != nil, chance(70) { return .mergeDidSave }
      return .refreshAll
    default: return .fetch
    }
  }

  /// Another context's change of a to-one relationship of a committed object, to a committed
  /// object or to nothing.
  mutating func otherLink(_ oracle: SoakOracle, _ committed: [Int]) -> SoakOperation? {
    guard let uid = pick(committed), let object = oracle.file[uid],
      let relationship = pick(
        (SoakSchema.relationships[object.entity] ?? []).filter { !$0.isToMany })
    else { return nil }
    let candidates = committed.filter { oracle.file[$0]?.entity == relationship.destination }
    let target = chance(20) ? nil : pick(candidates)
    return .otherLink(uid: uid, key: relationship.name, target: target)
  }

  /// A to-one relationship of a live object set to a live object, or to nothing.
  mutating func toOneLink(_ oracle: SoakOracle, _ live: [Int]) -> SoakOperation.Link? {
    guard let uid = pick(live), let entity = oracle.graph[uid]?.entity,
      let relationship = pick((SoakSchema.relationships[entity] ?? []).filter { !$0.isToMany })
    else { return nil }
    let candidates = live.filter { oracle.graph[$0]?.entity == relationship.destination }
    return SoakOperation.Link(
      uid: uid, key: relationship.name, target: chance(20) ? nil : pick(candidates))
  }

  mutating func relationshipChange(_ oracle: SoakOracle, _ live: [Int]) -> SoakOperation? {
    guard let uid = pick(live), let entity = oracle.graph[uid]?.entity,
      let relationship = pick(SoakSchema.relationships[entity] ?? [])
    else { return nil }
    let candidates = live.filter { oracle.graph[$0]?.entity == relationship.destination }
    guard relationship.isToMany else {
      return .setToOne(
        uid: uid, key: relationship.name, target: chance(20) ? nil : pick(candidates))
    }
    let current = oracle.many(uid, relationship.name)
    switch Int.random(in: 0..<10, using: &random) {
    case 0..<5:
      guard let target = pick(candidates) else { return nil }
      let index =
        relationship.isOrdered && chance(50)
        ? Int.random(in: 0...current.count, using: &random) : nil
      return .add(uid: uid, key: relationship.name, target: target, index: index)
    case 5..<8:
      guard let target = pick(current.filter(oracle.isLive)) ?? pick(candidates) else { return nil }
      return .remove(uid: uid, key: relationship.name, target: target)
    default:
      var targets: [Int] = []
      for _ in 0..<Int.random(in: 0...3, using: &random) {
        if let target = pick(candidates) { targets.append(target) }
      }
      return .setToMany(uid: uid, key: relationship.name, targets: targets)
    }
  }
}
