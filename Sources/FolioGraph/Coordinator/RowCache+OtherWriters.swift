import FolioModel
import FolioStores

/// What another writer saved to a store, as rows of the cache that took it in.
struct ExternalChanges {
  /// Rows of objects the other writer inserted.
  var inserted: Set<Int32> = []
  /// Rows of objects whose values the other writer changed.
  var updated: Set<Int32> = []
  /// Rows of objects the other writer deleted.
  var deleted: Set<Int32> = []

  var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

extension RowCache {
  /// Takes the store as another writer left it — `fresh`, a cache loaded from it — as if
  /// another context had committed it: every object whose values differ gets a new committed
  /// row (one version on), objects only `fresh` has get rows of their own, and objects it
  /// lacks are deleted. Rows whose values are the same stay the very rows they were, so a
  /// context's snapshot of them still matches and only real changes are conflicts.
  ///
  /// The rows it changed are kept in ``rowsFromOtherWriters`` while they stay committed: for
  /// them a save merges three ways, property by property (the snapshot is the base), where a
  /// row another context of this process committed conflicts as a whole, as Core Data's
  /// optimistic locking has it.
  ///
  /// Objects are matched by primary key. A key another writer gave that names no committed
  /// row here gets a new row. A row here that is not committed (reserved for an object not
  /// saved yet, or left by a deletion) gives up its key when the other writer may have given
  /// it — it names one of theirs, or is below the file's next key — and gets a new one,
  /// above every key either writer gave, when it is saved: keys stay unique across writers
  /// and are never given twice, as Core Data's `Z_MAX` has it.
  ///
  /// - Throws: `StoreError.malformedStore` when an object's entity differs between the two
  ///   (a key given to two objects); the cache is then as it was.
  func absorb(_ fresh: RowCache) throws(StoreError) -> ExternalChanges {
    var changes = ExternalChanges()
    var ours = [Int32](repeating: -1, count: fresh.rows.count)
    var newKeys: [(freshRow: Int, key: Int64)] = []
    for (index, committed) in fresh.rows.enumerated() {
      guard let committed else { continue }
      let key = fresh.primaryKey(ofRow: Int32(index))
      if let row = committedRow(forKey: key, layout: layouts[committed.entity]),
        let existing = self.row(row)
      {
        guard existing.entity == committed.entity else {
          throw StoreError(
            .malformedStore,
            "object \(key) is a \(layouts[existing.entity].name) here and a \(fresh.layouts[committed.entity].name) in the file: the store was rewritten by a program that reuses keys",
            at: InputLocation(entity: fresh.layouts[committed.entity].name))
        }
        ours[index] = row
      } else {
        newKeys.append((index, key))
      }
    }
    // Keys below the file's next key may have been given by another writer to objects since
    // deleted: a row here not committed yet gives such a key up, so no key is ever reused.
    let released = newKeys.map(\.key) + keysGivenUp(below: fresh.nextPrimaryKey)
    if !released.isEmpty {
      makeKeysExplicit(releasing: released)
      for (freshRow, key) in newKeys {
        let row = reserveRow()
        primaryKeys?[Int(row)] = key
        rowByPrimaryKey?[key] = row
        nextPrimaryKey = max(nextPrimaryKey, StoreKeySpace.key(of: key) + 1)
        ours[freshRow] = row
      }
    }
    nextPrimaryKey = max(nextPrimaryKey, fresh.nextPrimaryKey)
    placeRowsPastNextKey()
    rowsFromOtherWriters = rowsFromOtherWriters.filter { row, committed in
      self.row(row) === committed
    }
    var kept = [Bool](repeating: false, count: rows.count)
    for (index, committed) in fresh.rows.enumerated() {
      guard let committed else { continue }
      let row = ours[index]
      kept[Int(row)] = true
      let existing = self.row(row)
      let version =
        fresh.versionsFromStore ? committed.version : (existing?.version ?? 0) &+ 1
      let translated = translate(committed, rows: ours, version: version)
      if let existing, holdsSameValues(existing, translated) {
        if fresh.versionsFromStore { existing.adoptVersion(version) }
        continue
      }
      set(translated, at: row)
      if existing == nil {
        changes.inserted.insert(row)
      } else {
        changes.updated.insert(row)
        rowsFromOtherWriters[row] = translated
      }
    }
    for (index, committed) in rows.enumerated() where committed != nil && !kept[index] {
      set(nil, at: Int32(index))
      changes.deleted.insert(Int32(index))
    }
    if !changes.isEmpty { generation &+= 1 }
    return changes
  }

  /// `committed`, a row of another cache, with its relationships naming rows of this one
  /// (`rows`, by the other cache's row), at `version`.
  private func translate(_ committed: CommittedRow, rows: [Int32], version: UInt32)
    -> CommittedRow
  {
    let layout = layouts[committed.entity]
    let row = CommittedRow.make(layout: layout, version: version)
    let source = committed.slots
    let target = row.slots
    for index in 0..<source.count {
      switch source[index] {
      case .object(let other):
        let mapped = Int(other) < rows.count ? rows[Int(other)] : -1
        target[index] = mapped >= 0 ? .object(mapped) : .null
      case .objects(let set):
        let mapped = set.rows.compactMap { other -> Int32? in
          let mapped = Int(other) < rows.count ? rows[Int(other)] : -1
          return mapped >= 0 ? mapped : nil
        }
        target[index] = .objects(RowSet(mapped, ordered: set.isOrdered))
      default:
        target[index] = source[index].snapshot()
      }
    }
    return row
  }

  /// Whether two rows of one entity hold the same values in every slot.
  private func holdsSameValues(_ a: CommittedRow, _ b: CommittedRow) -> Bool {
    let left = a.slots
    let right = b.slots
    guard left.count == right.count else { return false }
    for index in 0..<left.count where !Slot.same(left[index], right[index]) { return false }
    return true
  }

  /// Makes `next` the least key a commit gives out, as when another writer's file or a key
  /// reservation (``FolioStores/StoreKeyReservation``) says keys below it may be given: a row
  /// not committed yet that would have had such a key gives it up, and gets a new one when it
  /// is committed.
  func raiseNextKey(to next: Int64) {
    guard next > nextPrimaryKey else { return }
    let released = keysGivenUp(below: next)
    if !released.isEmpty { makeKeysExplicit(releasing: released) }
    nextPrimaryKey = max(nextPrimaryKey, next)
    placeRowsPastNextKey()
  }

  /// The keys below `next` that rows not committed hold (rows reserved for objects not saved
  /// yet, or left by a deletion): another writer may have given them. A row whose key the
  /// store reserved keeps it.
  private func keysGivenUp(below next: Int64) -> [Int64] {
    var keys: [Int64] = []
    for (index, committed) in rows.enumerated()
    where committed == nil && !reservedRows.contains(Int32(index)) {
      let key = primaryKey(ofRow: Int32(index))
      if hasPrimaryKey(Int32(index)), key < next { keys.append(key) }
    }
    return keys
  }

  /// While keys are rows plus one, a new object's row must be past every key given: the rows
  /// run to the next key, as a load lays them out, unless that is far.
  private func placeRowsPastNextKey() {
    guard primaryKeys == nil, nextPrimaryKey - 1 > Int64(rows.count) else { return }
    let gap = Int(nextPrimaryKey - 1) - rows.count
    if gap <= 2 * rows.count + 65_536 {
      rows.append(contentsOf: repeatElement(nil, count: gap))
    } else {
      makeKeysExplicit(releasing: [])
    }
  }

  /// Keeps keys in the table by row from now on (each row keeping the key it has), and takes
  /// `keys` from the rows that hold them only by number: rows reserved for objects not saved
  /// yet, or left empty by a deletion. Those get a new key if they are ever committed. A row
  /// whose reserved key another writer gave regardless (a program that does not honour
  /// reservations) loses it with the rest.
  private func makeKeysExplicit(releasing keys: [Int64]) {
    if primaryKeys == nil {
      primaryKeys = (0..<rows.count).map { Int64($0) + 1 }
      var index = RowIndex(directLimit: Int64(2 * rows.count + 65_536), capacity: rows.count)
      for row in 0..<rows.count { index[Int64(row) + 1] = Int32(row) }
      rowByPrimaryKey = index
      nextPrimaryKey = max(nextPrimaryKey, Int64(rows.count) + 1)
    }
    for key in keys {
      guard let row = rowByPrimaryKey?[key], self.row(row) == nil else { continue }
      primaryKeys?[Int(row)] = 0
      rowByPrimaryKey?[key] = nil
      reservedRows.remove(row)
    }
  }
}

extension RowCache {
  /// Takes in what other writers changed, as a store's history tells it (`since`): the objects
  /// they inserted and updated, as the store holds them now, and those they deleted. Each is
  /// applied as an edit of a commit, relationships as edges on both sides, so the rows keep
  /// agreeing with their inverses; a relationship a record does not give (its inverse is
  /// stored) changes through the edges of the records that give its inverse. Rows whose
  /// values come out the same stay the rows they were.
  ///
  /// - Throws: `StoreError.malformedStore` when a record names an object this cache does not
  ///   have and the changes do not insert, or an object changes entity; the cache is then as
  ///   it was, and the caller reads the whole store instead.
  func absorb(_ since: StoreChangesSince) throws(StoreError) -> ExternalChanges {
    let keys = keyState
    var commit = Commit(cache: self)
    do {
      try apply(since, to: &commit)
    } catch {
      commit.revert()
      keyState = keys
      throw error
    }
    var changes = ExternalChanges()
    rowsFromOtherWriters = rowsFromOtherWriters.filter { row, committed in
      self.row(row) === committed
    }
    for (row, original) in commit.originals {
      switch (original, self.row(row)) {
      case (nil, _?): changes.inserted.insert(row)
      case (let old?, let new?):
        if holdsSameValues(old, new) {
          set(old, at: row)
        } else {
          changes.updated.insert(row)
          rowsFromOtherWriters[row] = new
        }
      case (_?, nil): changes.deleted.insert(row)
      case (nil, nil): continue
      }
    }
    // Each object the history names is at the version the store gives its row.
    for record in since.records where record.version != 0 {
      guard let layout = layoutByName[record.entityName],
        let row = committedRow(forKey: record.id, layout: layout)
      else { continue }
      self.row(row)?.adoptVersion(record.version)
    }
    if !changes.isEmpty { generation &+= 1 }
    return changes
  }

  private func apply(_ since: StoreChangesSince, to commit: inout Commit) throws(StoreError) {
    func malformed(_ message: String) -> StoreError {
      StoreError(.malformedStore, message)
    }
    // Rows for the records: the object's own, or a new one for an object inserted.
    var rowOfID: [Int64: Int32] = [:]
    var newKeys: [(id: Int64, record: Int)] = []
    for (index, record) in since.records.enumerated() {
      guard let layout = layoutByName[record.entityName] else {
        throw malformed("the store holds a \(record.entityName), which the model lacks")
      }
      if let row = committedRow(forKey: record.id, layout: layout) {
        guard self.row(row)?.entity == layout.index else {
          throw malformed("object \(record.id) changed entity")
        }
        rowOfID[record.id] = row
      } else {
        newKeys.append((record.id, index))
      }
    }
    let next = StoreKeySpace.key(of: since.nextObjectID)
    let released = newKeys.map(\.id) + keysGivenUp(below: next)
    if !released.isEmpty { makeKeysExplicit(releasing: released) }
    for (id, _) in newKeys {
      let row = reserveRow()
      primaryKeys?[Int(row)] = id
      rowByPrimaryKey?[id] = row
      rowOfID[id] = row
    }
    nextPrimaryKey = max(nextPrimaryKey, next)
    func target(_ id: Int64) throws(StoreError) -> Int32 {
      if let row = rowOfID[id] { return row }
      if let row = row(forPrimaryKey: id), self.row(row) != nil { return row }
      if let row = row(forPrimaryKey: StoreKeySpace.key(of: id)), self.row(row) != nil {
        return row
      }
      throw malformed("a changed object names object \(id), which is not in the store")
    }
    // Deletions first, letting go of every relationship on both sides.
    for id in since.deleted {
      guard let row = committedRowOfAnyEntity(forKey: id), let committed = self.row(row) else {
        continue
      }
      for (slot, property) in layouts[committed.entity].properties.enumerated() {
        guard let relationship = property.relationship else { continue }
        for other in committed.slots[slot].targets {
          commit.unlink(row, relationship, slot: slot, from: other)
        }
      }
      commit.delete(row)
    }
    // New rows, then every record's attributes, then its relationships as edges.
    for (id, index) in newKeys {
      guard let row = rowOfID[id], let layout = layoutByName[since.records[index].entityName]
      else { continue }
      _ = commit.insert(row, layout: layout)
    }
    for record in since.records {
      guard let row = rowOfID[record.id], let layout = layoutByName[record.entityName] else {
        continue
      }
      let attributes = record.attributes
      for (slot, property) in layout.properties.enumerated() {
        guard let attribute = property.attribute, !attribute.isTransient else { continue }
        commit.set(attributes[attribute.name].map { Slot($0) } ?? .null, row: row, slot: slot)
      }
    }
    for record in since.records {
      guard let row = rowOfID[record.id], let layout = layoutByName[record.entityName] else {
        continue
      }
      let given = since.givenRelationships[record.entityName] ?? []
      let relationships = record.relationships
      for (slot, property) in layout.properties.enumerated() {
        guard let relationship = property.relationship, given.contains(property.name) else {
          continue
        }
        let wanted = try (relationships[property.name] ?? []).map { id throws(StoreError) in
          let other = try target(id)
          guard let kind = self.row(other)?.entity,
            layouts[kind].isKind(of: relationship.destination)
          else { throw malformed("object \(record.id) names object \(id) of another entity") }
          return other
        }
        if !relationship.isToMany, wanted.count > 1 {
          throw malformed("a to-one names several objects")
        }
        let now = commit.current(row, slot).targets
        let kept = Set(wanted)
        for other in now where !kept.contains(other) {
          commit.unlink(row, relationship, slot: slot, from: other)
        }
        let had = Set(now)
        for other in wanted where !had.contains(other) {
          commit.link(row, relationship, slot: slot, to: other)
        }
        if relationship.isOrdered { commit.order(row, slot, like: wanted) }
      }
    }
  }

  /// The committed row of the object `id` names, of `layout`'s entity or one of its kind: by
  /// the ID itself, or by its key within its space for an object this cache numbered itself
  /// (a store that numbers each entity hierarchy on its own, SQLite, reads such an object with
  /// its hierarchy's space: ``FolioStores/StoreKeySpace``).
  private func committedRow(forKey id: Int64, layout: EntityLayout) -> Int32? {
    if let row = row(forPrimaryKey: id), self.row(row) != nil { return row }
    guard StoreKeySpace.space(of: id) != 0,
      let row = row(forPrimaryKey: StoreKeySpace.key(of: id)), let existing = self.row(row),
      layouts[existing.entity].isKind(of: layout.index) || layout.isKind(of: existing.entity)
    else { return nil }
    return row
  }

  /// The committed row of the object `id` names, whatever its entity.
  private func committedRowOfAnyEntity(forKey id: Int64) -> Int32? {
    if let row = row(forPrimaryKey: id), self.row(row) != nil { return row }
    guard StoreKeySpace.space(of: id) != 0,
      let row = row(forPrimaryKey: StoreKeySpace.key(of: id)), self.row(row) != nil
    else { return nil }
    return row
  }
}
