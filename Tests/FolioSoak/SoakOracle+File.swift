/// The oracle's model of the file: the committed state a save leaves, which reopening reads.
///
/// A save commits what changed since the last save, as Folio documents it: objects deleted
/// since leave, letting go of the relationships whose delete rule is Nullify or Cascade on both
/// sides; new objects arrive with their attributes; changed attributes are set; then each new
/// or changed object, in uid order (the order objects were inserted, which is Folio's row
/// order), commits its relationships as edges against what the file held for it — every target
/// it dropped is unlinked on both sides, every target it gained is linked on both sides, a
/// to-one on either side giving up its previous target — and an ordered to-many takes the
/// object's order. The file so always agrees with its inverses, even when undo with
/// registration disabled left the graph in memory disagreeing with itself.
extension SoakOracle {
  /// Commits the changes since the last save into `file`.
  func commitToFile() {
    var next = FileGraph(objects: file)
    for uid in file.keys.sorted() where !isLive(uid) {
      guard let object = next.objects[uid] else { continue }
      for relationship in SoakSchema.relationships[object.entity] ?? []
      where relationship.deleteRule == .nullify || relationship.deleteRule == .cascade {
        for target in next.targets(uid, relationship) {
          next.unlink(uid, relationship, from: target)
        }
      }
      next.objects[uid] = nil
    }
    var changed: [Int] = []
    for (uid, object) in graph.sorted(by: { $0.key < $1.key }) where !object.isDeleted {
      let isNew = file[uid] == nil
      guard isNew || saved[uid]?.values != object.values else { continue }
      changed.append(uid)
      if isNew { next.objects[uid] = Object(entity: object.entity, values: [:]) }
      for (name, _) in SoakSchema.attributes[object.entity] ?? [] {
        next.objects[uid]?.values[name] = object.values[name]
      }
      next.objects[uid]?.values["uid"] = object.values["uid"]
    }
    for uid in changed {
      guard let object = graph[uid] else { continue }
      for relationship in SoakSchema.relationships[object.entity] ?? [] {
        let mine = targets(uid, relationship).filter(isLive)
        let was = file[uid] == nil ? [] : FileGraph(objects: file).targets(uid, relationship)
        if relationship.isToMany {
          for target in was where !mine.contains(target) {
            next.unlink(uid, relationship, from: target)
          }
          for target in mine where !was.contains(target) {
            next.link(uid, relationship, to: target)
          }
          if relationship.isOrdered { next.order(uid, relationship, like: mine) }
        } else if mine.first != was.first {
          if let target = mine.first {
            next.link(uid, relationship, to: target)
          } else if let target = next.targets(uid, relationship).first {
            next.unlink(uid, relationship, from: target)
          }
        }
      }
    }
    file = next.objects
  }
}

/// A graph edited edge by edge, both sides at once.
struct FileGraph {
  var objects: SoakOracle.Graph

  func targets(_ uid: Int, _ relationship: SoakSchema.Relationship) -> [Int] {
    switch objects[uid]?.values[relationship.name] {
    case .one(let target)?: [target]
    case .list(let targets)?: targets
    case .set(let targets)?: targets.sorted()
    default: []
    }
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
