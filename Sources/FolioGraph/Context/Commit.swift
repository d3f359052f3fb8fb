import FolioModel

/// The committed rows a save changes, changed in place in the cache and put back by
/// ``revert()`` when the store cannot be written.
///
/// Every change goes through a few edits that compare first, so a row is copied (and its
/// version advanced) only when its value really changes. Relationship edits change both sides
/// at once — ``link(_:_:slot:to:)`` and ``unlink(_:_:slot:from:)`` — and a to-one side that
/// pointed elsewhere is taken from its previous target, so the committed rows always agree
/// with their inverses, whatever order the edits come in.
struct Commit {
  let cache: RowCache
  /// The rows before the commit touched them, in the order touched.
  private(set) var originals: [(row: Int32, committed: CommittedRow?)] = []
  /// The rows this commit made (new or copied): private to it, so edited in place.
  private var fresh: [Int32: CommittedRow] = [:]
  /// The rows as the commit found them, by row.
  private var before: [Int32: CommittedRow?] = [:]
  /// Rows committed again where references their deletion left behind still name them.
  private var revived: [(row: Int32, holders: [(holder: Int32, slot: Int)])] = []
  /// Every row committed again whose deletion had left references behind, with their holders:
  /// a store that wrote the holders without those references (a whole file, written while the
  /// row was gone) must write them again.
  private(set) var revivedReferences: [(row: Int32, holders: [(holder: Int32, slot: Int)])] = []

  /// The cache's references left by deletions, as the commit found them.
  private let deadReferences: [Int32: [(holder: Int32, slot: Int)]]
  private let deadReferenceHolders: Set<Int32>

  init(cache: RowCache) {
    self.cache = cache
    self.deadReferences = cache.deadReferences
    self.deadReferenceHolders = cache.deadReferenceHolders
  }

  /// The rows the commit changed, inserted or deleted.
  var touchedRows: [Int32] { originals.map(\.row) }

  /// The committed row `row` as it was before the commit.
  func original(_ row: Int32) -> CommittedRow? {
    if let found = before[row] { return found }
    return cache.row(row)
  }

  /// Undoes every change: the cache is as it was before the commit.
  func revert() {
    for (row, committed) in originals.reversed() { cache.set(committed, at: row) }
    cache.deadReferences = deadReferences
    cache.deadReferenceHolders = deadReferenceHolders
  }

  // MARK: Rows

  private mutating func remember(_ row: Int32) {
    guard before[row] == nil else { return }
    let old = cache.row(row)
    before[row] = .some(old)
    originals.append((row, old))
  }

  /// The row as it will be committed, copied into the commit on its first change.
  private mutating func editable(_ row: Int32) -> SlotStorage? {
    if let found = fresh[row] { return found.slots }
    guard let old = cache.row(row) else { return nil }
    let copy = CommittedRow.make(
      layout: cache.layouts[old.entity], version: old.version &+ 1, copying: old.slots)
    remember(row)
    cache.set(copy, at: row)
    fresh[row] = copy
    return copy.slots
  }

  /// Commits a new row for an object inserted at `row`, every slot empty.
  mutating func insert(_ row: Int32, layout: EntityLayout) -> SlotStorage {
    // An object brought back at its old row: the references its deletion left behind name
    // it again; once its own relationships are linked, those it does not name go
    // (``releaseLeftReferences()``).
    if let holders = cache.deadReferences.removeValue(forKey: row) {
      revived.append((row, holders))
      revivedReferences.append((row, holders))
    }
    let new = CommittedRow.make(layout: layout, version: 1)
    remember(row)
    cache.set(new, at: row)
    fresh[row] = new
    return new.slots
  }

  /// Takes out the references a deletion left behind to a row committed again, where the
  /// row's own side does not name the holder back: the committed sides then agree, and a
  /// reference the object still names stays untouched (its row is not rewritten).
  mutating func releaseLeftReferences() {
    for (row, holders) in revived {
      for (holder, slot) in holders {
        guard let committed = cache.row(holder),
          let inverse = cache.layouts[committed.entity].properties[slot].relationship?.inverseSlot,
          current(holder, slot).targets.contains(row),
          !current(row, inverse).targets.contains(holder)
        else { continue }
        if case .object = current(holder, slot) {
          setTarget(holder, slot, nil)
        } else {
          remove(row, from: holder, slot)
        }
      }
    }
    revived.removeAll()
  }

  /// Removes the row of an object deleted at `row`.
  mutating func delete(_ row: Int32) {
    guard let old = cache.row(row) else { return }
    // Whatever still names the row (No Action, Deny) is kept as a reference left behind.
    var holders: [(holder: Int32, slot: Int)] = []
    for (slot, property) in cache.layouts[old.entity].properties.enumerated() {
      guard let inverse = property.relationship?.inverseSlot else { continue }
      for target in old.slots[slot].targets where current(target, inverse).targets.contains(row) {
        holders.append((target, inverse))
      }
    }
    if !holders.isEmpty {
      cache.deadReferences[row, default: []] += holders
      cache.deadReferenceHolders.formUnion(holders.map(\.holder))
    }
    remember(row)
    cache.set(nil, at: row)
    fresh[row] = nil
  }

  /// The committed value of `slot` of `row` as the commit stands.
  func current(_ row: Int32, _ slot: Int) -> Slot {
    cache.row(row)?.slots[slot] ?? .null
  }

  // MARK: Slot edits

  /// Sets an attribute's value.
  mutating func set(_ value: Slot, row: Int32, slot: Int) {
    guard !Slot.same(current(row, slot), value), let slots = editable(row) else { return }
    slots[slot] = value.snapshot()
  }

  private mutating func setTarget(_ row: Int32, _ slot: Int, _ target: Int32?) {
    if case .object(let old) = current(row, slot), old == target { return }
    if target == nil, case .null = current(row, slot) { return }
    guard let slots = editable(row) else { return }
    slots[slot] = target.map { .object($0) } ?? .null
  }

  private mutating func add(_ target: Int32, to row: Int32, _ slot: Int, ordered: Bool) {
    if case .objects(let set) = current(row, slot), set.contains(target) { return }
    guard let slots = editable(row) else { return }
    if case .objects(let set) = slots[slot] {
      set.insert(target)
    } else {
      slots[slot] = .objects(RowSet([target], ordered: ordered))
    }
  }

  private mutating func remove(_ target: Int32, from row: Int32, _ slot: Int) {
    guard case .objects(let set) = current(row, slot), set.contains(target),
      let slots = editable(row), case .objects(let own) = slots[slot]
    else { return }
    own.remove(target)
  }

  /// Puts an ordered to-many's targets in the order of `order`; targets it does not name
  /// (added by another context) follow in their committed order.
  mutating func order(_ row: Int32, _ slot: Int, like order: [Int32]) {
    guard case .objects(let set) = current(row, slot) else { return }
    let members = Set(set.rows)
    var wanted = order.filter { members.contains($0) }
    let named = Set(wanted)
    wanted += set.rows.filter { !named.contains($0) }
    guard wanted != set.rows, let slots = editable(row) else { return }
    slots[slot] = .objects(RowSet(wanted, ordered: true))
  }

  // MARK: Relationship edits, both sides

  /// Makes `source`'s relationship hold `target`, and `target`'s inverse hold `source`; a
  /// to-one on either side that held another object lets it go, on both of its sides. Nothing
  /// happens when either row is not committed.
  mutating func link(
    _ source: Int32, _ relationship: RelationshipLayout, slot: Int, to target: Int32
  ) {
    guard cache.row(source) != nil, let targetRow = cache.row(target) else { return }
    if relationship.isToMany {
      add(target, to: source, slot, ordered: relationship.isOrdered)
    } else {
      if case .object(let old) = current(source, slot), old != target {
        detachInverse(of: source, relationship, from: old)
      }
      setTarget(source, slot, target)
    }
    guard let inverse = relationship.inverseSlot else { return }
    if relationship.inverseIsToMany {
      let ordered =
        cache.layouts[targetRow.entity].properties[inverse].relationship?.isOrdered ?? false
      add(source, to: target, inverse, ordered: ordered)
      return
    }
    if case .object(let previous) = current(target, inverse), previous != source {
      if relationship.isToMany {
        remove(target, from: previous, slot)
      } else if case .object(let back) = current(previous, slot), back == target {
        setTarget(previous, slot, nil)
      }
    }
    setTarget(target, inverse, source)
  }

  /// Takes `target` out of `source`'s relationship, and `source` out of `target`'s inverse.
  mutating func unlink(
    _ source: Int32, _ relationship: RelationshipLayout, slot: Int, from target: Int32
  ) {
    if relationship.isToMany {
      remove(target, from: source, slot)
    } else if case .object(let old) = current(source, slot), old == target {
      setTarget(source, slot, nil)
    }
    detachInverse(of: source, relationship, from: target)
  }

  /// Takes `source` out of `target`'s side of `relationship`'s inverse.
  private mutating func detachInverse(
    of source: Int32, _ relationship: RelationshipLayout, from target: Int32
  ) {
    guard let inverse = relationship.inverseSlot else { return }
    if relationship.inverseIsToMany {
      remove(source, from: target, inverse)
    } else if case .object(let back) = current(target, inverse), back == source {
      setTarget(target, inverse, nil)
    }
  }
}

extension Slot {
  /// Whether two slots hold the same value (row sets compared by content, in order when
  /// ordered).
  static func same(_ a: Slot, _ b: Slot) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.integer(let x), .integer(let y)): return x == y
    case (.real(let x), .real(let y)): return x == y || (x.isNaN && y.isNaN)
    case (.boolean(let x), .boolean(let y)): return x == y
    case (.string(let x), .string(let y)): return x == y
    case (.data(let x), .data(let y)): return x == y
    case (.uuid(let x), .uuid(let y)): return x == y
    case (.boxed(let x), .boxed(let y)):
      if case .attribute(let u) = x.value, case .attribute(let v) = y.value { return u == v }
      return x === y
    case (.object(let x), .object(let y)): return x == y
    case (.objects(let x), .objects(let y)):
      return x.isOrdered ? x.rows == y.rows : Set(x.rows) == Set(y.rows)
    case (.objects(let x), .null), (.null, .objects(let x)): return x.isEmpty
    default: return false
    }
  }

  /// The rows a relationship slot names.
  var targets: [Int32] {
    switch self {
    case .object(let row): [row]
    case .objects(let set): set.rows
    default: []
    }
  }
}
