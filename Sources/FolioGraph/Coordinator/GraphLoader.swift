import FolioModel
import FolioStores

/// Builds a cache's committed rows from a store's records as they are read.
///
/// A record's row is its ID minus one whenever the IDs allow it (a store's IDs are 1 through
/// its next object ID with few gaps): no key maps are kept, and a relationship can point at
/// a record that comes later by its row alone. Gaps stay empty rows; the rows run to the
/// store's next ID, so a new object's key, its row plus one, was never given out. Sparse or
/// huge IDs switch the loader to rows in order of first mention, with the maps. Once every
/// record is in, each target is checked (it must exist and be of the relationship's
/// destination), the two sides of each relationship are checked against each other, and the
/// sides the store left out are completed.
///
/// The rows and keys are the loader's own until then, and go to the cache whole: building
/// them touches no shared state.
struct GraphLoader: StoreRecordConsumer {
  private let cache: RowCache
  /// The rows so far, by row.
  private var rows: [CommittedRow?] = []
  /// Primary keys by row, and rows by key, once rows are not IDs minus one.
  private var primaryKeys: [Int64]?
  private var rowByPrimaryKey: RowIndex?
  /// Whether rows are IDs minus one (no maps); otherwise rows are kept in the maps.
  private var isByID = true
  private var count = 0
  /// The largest key within its space (``StoreKeySpace``): new objects are numbered above.
  private var maximumKey: Int64 = 0
  /// How many records the store said follow, if it knew.
  private var expectedCount: Int?
  /// Whether the rows have been laid out for the records (at the first record).
  private var isLaidOut = false
  /// The metadata the store began with.
  private(set) var metadata = StoreMetadata(storeType: "")
  /// The key space last recorded for an entity, and the entity's layout.
  private var lastSpace = 0
  private var lastSpacedLayout: EntityLayout?
  /// The last record's entity and layout: records come grouped by entity.
  private var lastEntityName = ""
  private var lastLayout: EntityLayout?
  /// Where the values of rows with shared names go, by layout and names; the last one found.
  private var nameMaps: [ObjectIdentifier: [LoadNameMap]] = [:]
  private var lastAttributeMap: LoadNameMap?
  private var lastRelationshipMap: LoadNameMap?
  /// For records holding dictionaries: for each layout met (by its index: attributes at
  /// 2 × index, relationships after), the slots of the keys in the order records name them.
  /// Records of one entity name their keys in one order, and comparing a key with the one at
  /// its place is cheaper than hashing it.
  private var keySlots: [[(key: String, slot: Int)]] = []
  /// Whether some record gave each relationship slot of each entity, from `givenStart`.
  private var given: [Bool]
  private let givenStart: [Int]

  init(cache: RowCache) {
    self.cache = cache
    var starts: [Int] = []
    var total = 0
    for layout in cache.layouts {
      starts.append(total)
      total += layout.slotCount
    }
    givenStart = starts
    given = [Bool](repeating: false, count: total)
  }

  /// The most empty rows the by-ID layout may hold beyond twice the objects.
  private static let slack = 65_536

  mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?)
    throws(StoreError)
  {
    self.metadata = metadata
    cache.identifier = metadata.identifier
    // New objects are numbered in space 0 (``StoreKeySpace``), above every key: an ID that
    // carries its hierarchy (read from a SQLite store, or from a file written from one) counts
    // by its key, so a new object never lands in that hierarchy's space.
    cache.nextPrimaryKey = max(StoreKeySpace.key(of: max(nextObjectID, 1)), 1)
    expectedCount = recordCount
  }

  /// Lays the rows out for the records to come, once the first one tells how its store numbers
  /// them. With the count known, the rows are made at their final number at once; otherwise
  /// they grow as IDs are named, and `finish` makes them reach the next ID. A store that
  /// numbers each entity hierarchy on its own (``StoreKeySpace``) has IDs far apart: its rows
  /// go to the maps at once, sized for the count.
  private mutating func layOut(firstID: Int64) {
    isLaidOut = true
    guard let expectedCount else { return }
    if StoreKeySpace.space(of: firstID) != 0 {
      // Each hierarchy numbered from 1: rows by key go in an array per space, unhashed.
      switchToMaps(directLimit: Int64(2 * expectedCount + Self.slack), capacity: expectedCount)
      primaryKeys?.reserveCapacity(expectedCount)
      rows.reserveCapacity(expectedCount)
      return
    }
    let rowCount = max(cache.nextPrimaryKey - 1, 0)
    if rowCount <= Int64(2 * expectedCount + Self.slack) {
      rows = [CommittedRow?](repeating: nil, count: Int(rowCount))
    } else {
      switchToMaps()
    }
  }

  /// Leaves the by-ID layout: every row so far keeps its ID (row plus one) in the maps, whose
  /// arrays take keys up to `directLimit` (by default, twice the rows so far).
  private mutating func switchToMaps(directLimit: Int64? = nil, capacity: Int = 0) {
    guard isByID else { return }
    isByID = false
    let rowCount = rows.count
    primaryKeys = (0..<rowCount).map { Int64($0) + 1 }
    var index = RowIndex(
      directLimit: directLimit ?? Int64(2 * rowCount + Self.slack),
      capacity: max(capacity, rowCount))
    for row in 0..<rowCount { index[Int64(row) + 1] = Int32(row) }
    rowByPrimaryKey = index
  }

  /// The row of ID `id`, made (empty) when first mentioned.
  @inline(__always)
  private mutating func row(for id: Int64) throws(StoreError) -> Int32 {
    if isByID, id >= 1, id <= Int64(rows.count) { return Int32(id - 1) }
    return try newRow(for: id)
  }

  private mutating func newRow(for id: Int64) throws(StoreError) -> Int32 {
    guard id >= 1 else { throw Self.error(GraphError.badID(id)) }
    if isByID {
      if id <= Int64(2 * count + Self.slack) {
        rows.append(contentsOf: repeatElement(nil, count: Int(id) - rows.count))
        return Int32(id - 1)
      }
      switchToMaps()
    }
    if let row = rowByPrimaryKey?[id] { return row }
    guard rows.count < Int(Int32.max) else {
      throw Self.error(GraphError(.typeMismatch, "a store holds at most \(Int32.max) objects"))
    }
    let row = Int32(rows.count)
    rows.append(nil)
    primaryKeys?.append(id)
    rowByPrimaryKey?[id] = row
    return row
  }

  mutating func consume(_ record: StoreRecord) throws(StoreError) {
    if !isLaidOut { layOut(firstID: record.id) }
    let layout = try layout(of: record)
    let objectRow = Int(try row(for: record.id))
    guard rows[objectRow] == nil else {
      throw Self.error(GraphError.badID(record.id, entity: record.entityName))
    }
    count += 1
    maximumKey = max(maximumKey, StoreKeySpace.key(of: record.id))
    let space = StoreKeySpace.space(of: record.id)
    if space != 0, space != lastSpace || layout !== lastSpacedLayout {
      lastSpace = space
      lastSpacedLayout = layout
      cache.keysAreSpaced = true
      cache.keySpaceOfEntity[record.entityName] = space
    }
    // A store that keeps rows' versions gives each; a row of one that keeps none is at 1.
    if record.version != 0 { cache.versionsFromStore = true }
    let committed = CommittedRow.make(layout: layout, version: max(record.version, 1))
    rows[objectRow] = committed
    let slots = committed.slots
    switch record.values {
    case .shared(let names, let block, let start):
      let map = try nameMap(names, layout, attributes: true)
      for position in 0..<map.slots.count {
        let value = block[start + position]
        guard value.fits(map.types[position]) else {
          throw Self.error(
            GraphError.typeMismatch(
              "\(value.modelText) is not of type \(map.types[position].xcodeName)",
              entity: layout.name, key: names.names[position]))
        }
        slots[map.slots[position]] = Slot(value)
      }
    case .dictionary(let attributes):
      try consume(attributes, of: layout, into: slots)
    }
    switch record.links {
    case .shared(let names, let block, let start):
      let map = try nameMap(names, layout, attributes: false)
      var position = start
      for index in 0..<map.slots.count {
        let targetCount = Int(block[position])
        position += 1
        if map.isToMany[index] {
          var targets: [Int32] = []
          targets.reserveCapacity(targetCount)
          for offset in 0..<targetCount { targets.append(try row(for: block[position + offset])) }
          slots[map.slots[index]] = .objects(RowSet(targets, ordered: map.isOrdered[index]))
        } else if targetCount > 0 {
          slots[map.slots[index]] = .object(try row(for: block[position]))
        }
        position += targetCount
      }
    case .dictionary(let relationships):
      try consume(relationships, of: layout, into: slots)
    }
  }

  /// The layout of `record`'s entity.
  @inline(__always)
  private mutating func layout(of record: StoreRecord) throws(StoreError) -> EntityLayout {
    if let last = lastLayout, record.entityName == lastEntityName { return last }
    guard let found = cache.layoutByName[record.entityName] else {
      throw Self.error(
        GraphError.unknownEntity(record.entityName, known: cache.layouts.map(\.name)))
    }
    lastEntityName = record.entityName
    lastLayout = found
    return found
  }

  // MARK: Shared names

  /// Where the attribute values (or, without `attributes`, the relationships' targets) named
  /// by `names` go in an object of `layout`'s entity.
  @inline(__always)
  private mutating func nameMap(_ names: SharedNames, _ layout: EntityLayout, attributes: Bool)
    throws(StoreError) -> LoadNameMap
  {
    if let last = attributes ? lastAttributeMap : lastRelationshipMap,
      last.address == names.address, last.layout === layout
    {
      return last
    }
    let map = try nameMap(names.recordNames, layout, attributes: attributes)
    if attributes { lastAttributeMap = map } else { lastRelationshipMap = map }
    return map
  }

  /// The map of `names` in `layout`, made the first time. A map holds its names, so no other
  /// names can take their place in memory (and in the table) while the load lasts.
  private mutating func nameMap(_ names: RecordNames, _ layout: EntityLayout, attributes: Bool)
    throws(StoreError) -> LoadNameMap
  {
    let key = ObjectIdentifier(names)
    if let found = nameMaps[key]?.first(where: {
      $0.layout === layout && $0.isAttributes == attributes
    }) {
      return found
    }
    var unknown: String?
    let map = LoadNameMap(names: names, layout: layout, isAttributes: attributes, unknown: &unknown)
    if let unknown {
      throw Self.error(
        GraphError.unknownKey(unknown, entity: layout.name, known: layout.properties.map(\.name)))
    }
    if !attributes {
      for slot in map.slots { given[givenStart[layout.index] + slot] = true }
    }
    nameMaps[key, default: []].append(map)
    return map
  }

  // MARK: Dictionaries

  /// Puts the attribute values of a record that holds them in a dictionary into `slots`.
  private mutating func consume(
    _ attributes: [String: AttributeValue], of layout: EntityLayout, into slots: SlotStorage
  ) throws(StoreError) {
    var known = keySlots(of: layout, relationships: false)
    defer { keySlots[2 * layout.index] = known }
    for (position, (key, value)) in attributes.enumerated() {
      let slot: Int
      if position < known.count, known[position].key == key {
        slot = known[position].slot
      } else if let found = layout.slotByName[key] {
        slot = found
        if position == known.count { known.append((key, found)) }
      } else {
        throw Self.error(
          GraphError.unknownKey(key, entity: layout.name, known: layout.properties.map(\.name)))
      }
      guard let type = layout.properties[slot].attributeType else {
        throw Self.error(
          GraphError.unknownKey(key, entity: layout.name, known: layout.properties.map(\.name)))
      }
      guard value.fits(type) else {
        throw Self.error(
          GraphError.typeMismatch(
            "\(value.modelText) is not of type \(type.xcodeName)", entity: layout.name, key: key))
      }
      slots[slot] = Slot(value)
    }
  }

  /// Puts the targets of a record that holds them in a dictionary into `slots`.
  private mutating func consume(
    _ relationships: [String: [Int64]], of layout: EntityLayout, into slots: SlotStorage
  ) throws(StoreError) {
    var known = keySlots(of: layout, relationships: true)
    defer { keySlots[2 * layout.index + 1] = known }
    for (position, (key, targets)) in relationships.enumerated() {
      var slot = -1
      if position < known.count, known[position].key == key {
        slot = known[position].slot
      } else if let found = layout.slotByName[key] {
        slot = found
        if position == known.count { known.append((key, found)) }
      }
      guard slot >= 0, let relationship = layout.properties[slot].relationship else {
        throw Self.error(
          GraphError.unknownKey(key, entity: layout.name, known: layout.properties.map(\.name)))
      }
      given[givenStart[layout.index] + slot] = true
      if relationship.isToMany {
        var rows: [Int32] = []
        rows.reserveCapacity(targets.count)
        for id in targets { rows.append(try row(for: id)) }
        slots[slot] = .objects(RowSet(rows, ordered: relationship.isOrdered))
      } else if let first = targets.first {
        slots[slot] = .object(try row(for: first))
      }
    }
  }

  /// The attribute (or relationship) keys and slots met so far for `layout`'s records, taken
  /// out of the table (so adding to them copies nothing); the caller puts them back at
  /// `2 × index` (`2 × index + 1` for relationships).
  private mutating func keySlots(of layout: EntityLayout, relationships: Bool)
    -> [(key: String, slot: Int)]
  {
    let place = 2 * layout.index + (relationships ? 1 : 0)
    if place >= keySlots.count {
      keySlots.append(contentsOf: repeatElement([], count: place + 1 - keySlots.count))
    }
    return Self.take(&keySlots[place])
  }

  private static func take<T>(_ value: inout [T]) -> [T] {
    defer { value = [] }
    return value
  }

  // MARK: Finishing

  /// What finishing needs of one relationship of one entity, in values that are not counted
  /// references.
  private struct Link {
    let slot: Int
    /// The destination's entity index.
    let destination: Int
    /// The inverse's slot in the destination's objects, or -1 for none.
    let inverseSlot: Int
    let inverseIsToMany: Bool
    let inverseIsOrdered: Bool
    /// Whether some record gave the inverse side too: then the two sides are checked against
    /// each other before either is completed.
    let inverseIsGiven: Bool
  }

  /// Hands the rows to the cache, checks every target (so an ID named but never loaded is an
  /// error) and every pair of sides the store gave, and completes the inverses the store left
  /// out. A relationship whose inverse no record gave is completed as it is checked; the
  /// others are completed once every side given is checked, so that a side is checked as the
  /// store gave it.
  mutating func finish() throws(StoreError) {
    cache.nextPrimaryKey = max(cache.nextPrimaryKey, maximumKey + 1)
    // A new object's key is its row plus one: the rows run to the next ID, or keys go to maps.
    if isByID, rows.count < cache.nextPrimaryKey - 1 {
      let rowCount = Int(cache.nextPrimaryKey - 1)
      if rowCount <= 2 * count + Self.slack {
        rows.append(contentsOf: repeatElement(nil, count: rowCount - rows.count))
      } else {
        switchToMaps()
      }
    }
    cache.adoptLoadedRows(
      rows, primaryKeys: primaryKeys, rowByPrimaryKey: rowByPrimaryKey, committedCount: count)
    let (links, linksOfEntity) = finishingLinks()
    let entityCount = cache.layouts.count
    var isKind = [Bool](repeating: false, count: entityCount * entityCount)
    for kind in 0..<entityCount {
      for destination in 0..<entityCount where cache.layouts[kind].isKind(of: destination) {
        isKind[kind * entityCount + destination] = true
      }
    }
    // Whether some side of each link with its inverse given was left out there: only those
    // links are completed after the checks.
    var isIncomplete = [Bool](repeating: false, count: links.count)
    func visit(
      _ target: Int32, of row: Int32, _ committed: CommittedRow, _ position: Int, once: Bool
    ) throws(StoreError) {
      let link = links[position]
      guard let other = rows[Int(target)], link.destination >= 0,
        isKind[other.entity * entityCount + link.destination]
      else { throw notFound(target, of: committed, slot: link.slot) }
      guard link.inverseSlot >= 0 else { return }
      if link.inverseIsGiven {
        if try !checkAgreement(target, other, of: row, committed, link) {
          isIncomplete[position] = true
        }
      } else {
        try complete(target, other, of: row, committed, link, isNew: once)
      }
    }
    for index in rows.indices {
      guard let committed = rows[index] else { continue }
      let slots = committed.slots
      for position in linksOfEntity[committed.entity] {
        switch slots[links[position].slot] {
        case .object(let target):
          try visit(target, of: Int32(index), committed, position, once: true)
        case .objects(let set):
          for target in set.rows {
            try visit(target, of: Int32(index), committed, position, once: false)
          }
        default:
          continue
        }
      }
    }
    guard isIncomplete.contains(true) else { return }
    for index in rows.indices {
      guard let committed = rows[index] else { continue }
      let slots = committed.slots
      for position in linksOfEntity[committed.entity] where isIncomplete[position] {
        let link = links[position]
        switch slots[link.slot] {
        case .object(let target):
          if let other = rows[Int(target)] {
            try complete(target, other, of: Int32(index), committed, link)
          }
        case .objects(let set):
          for target in set.rows {
            if let other = rows[Int(target)] {
              try complete(target, other, of: Int32(index), committed, link)
            }
          }
        default:
          continue
        }
      }
    }
  }

  /// The relationships some record gave, as links, and the positions of each entity's.
  private func finishingLinks() -> (links: [Link], linksOfEntity: [Range<Int>]) {
    let layouts = cache.layouts
    func isGiven(_ entity: Int, _ slot: Int) -> Bool { given[givenStart[entity] + slot] }
    var links: [Link] = []
    var linksOfEntity: [Range<Int>] = []
    for layout in layouts {
      let first = links.count
      for slot in layout.relationshipSlots where isGiven(layout.index, slot) {
        guard let relationship = layout.properties[slot].relationship else { continue }
        let destination = relationship.destination
        let inverse = relationship.inverseSlot ?? -1
        let inverseIsGiven =
          inverse >= 0
          && layouts.indices.contains {
            layouts[$0].isKind(of: destination) && inverse < layouts[$0].slotCount
              && isGiven($0, inverse)
          }
        let inverseIsOrdered =
          inverse >= 0 && layouts.indices.contains(destination)
          && layouts[destination].properties[inverse].relationship?.isOrdered == true
        links.append(
          Link(
            slot: slot, destination: destination, inverseSlot: inverse,
            inverseIsToMany: relationship.inverseIsToMany, inverseIsOrdered: inverseIsOrdered,
            inverseIsGiven: inverseIsGiven))
      }
      linksOfEntity.append(first..<links.count)
    }
    return (links, linksOfEntity)
  }

  /// The error for a target that is not in the store, or not of the relationship's destination.
  private func notFound(_ target: Int32, of committed: CommittedRow, slot: Int) -> StoreError {
    let layout = cache.layouts[committed.entity]
    let property = layout.properties[slot]
    let destination = property.relationship?.description.destinationEntityName ?? "object"
    return Self.error(
      GraphError(
        .objectNotFound,
        "\(layout.name).\(property.name) names object \(cache.primaryKey(ofRow: target)), which is not a \(destination) in the store",
        at: InputLocation(entity: layout.name, property: property.name)))
  }

  /// Throws when the inverse side the store gave for `target` leaves out the object at `row`;
  /// `false` when the store gave no inverse side there, which is then completed.
  @inline(__always)
  private func checkAgreement(
    _ target: Int32, _ other: CommittedRow, of row: Int32, _ committed: CommittedRow,
    _ link: Link
  ) throws(StoreError) -> Bool {
    switch other.slots[link.inverseSlot] {
    case .object(let back):
      guard back == row else {
        throw contradiction(row, committed, link.slot, target: target, holder: back)
      }
      return true
    case .objects(let set) where !set.isEmpty:
      guard set.contains(row) else {
        throw contradiction(row, committed, link.slot, target: target, holder: nil)
      }
      return true
    default:
      return false
    }
  }

  /// Adds the object at `row` to the inverse side in `target`, if the store left it out (known
  /// not to be there when `isNew`: a to-one side names its target once, while a to-many side
  /// read from a store may name one twice); a to-one inverse already completed towards another
  /// object is a contradiction.
  @inline(__always)
  private func complete(
    _ target: Int32, _ other: CommittedRow, of row: Int32, _ committed: CommittedRow,
    _ link: Link, isNew: Bool = false
  ) throws(StoreError) {
    let slots = other.slots
    if link.inverseIsToMany {
      if case .objects(let set) = slots[link.inverseSlot] {
        if isNew { set.append(new: row) } else { set.insert(row) }
      } else {
        slots[link.inverseSlot] = .objects(RowSet([row], ordered: link.inverseIsOrdered))
      }
      return
    }
    switch slots[link.inverseSlot] {
    case .null:
      slots[link.inverseSlot] = .object(row)
    case .object(let back) where back != row:
      throw contradiction(row, committed, link.slot, target: target, holder: back)
    default:
      return
    }
  }

  /// The error for two sides of a relationship that disagree: `target`, named by the object at
  /// `row`, names `holder` (or, for a to-many, does not name `row`) on the inverse side.
  private func contradiction(
    _ row: Int32, _ committed: CommittedRow, _ slot: Int, target: Int32, holder: Int32?
  ) -> StoreError {
    let name = cache.layouts[committed.entity].name
    let relationship = cache.layouts[committed.entity].properties[slot]
    let inverse = relationship.relationship?.description.inverseName ?? "its inverse"
    let id = cache.primaryKey(ofRow: row)
    let targetName = rows[Int(target)].map { cache.layouts[$0.entity].name } ?? "object"
    let targetID = cache.primaryKey(ofRow: target)
    var message =
      "\(name) \(id) names \(targetName) \(targetID) in \(relationship.name), but \(targetName) \(targetID)'s \(inverse) "
    if let holder {
      let holderName = rows[Int(holder)].map { cache.layouts[$0.entity].name } ?? "object"
      message += "names \(holderName) \(cache.primaryKey(ofRow: holder)) instead"
    } else {
      message += "does not name \(name) \(id)"
    }
    // The store contradicts itself: no target is missing, so it is not a dangling reference
    // (which --drop-dangling-references would leave out).
    return Self.error(
      GraphError(
        .objectNotFound, "the two sides of a relationship disagree: " + message,
        at: InputLocation(entity: name, property: relationship.name)), as: .malformedStore)
  }

  /// A graph error carried through the store reader, which `load` unwraps.
  private static func error(_ error: GraphError, as given: StoreError.Code? = nil) -> StoreError {
    let code: StoreError.Code
    if let given {
      code = given
    } else {
      switch error.code {
      case .typeMismatch: code = .typeMismatch
      case .objectNotFound: code = .danglingReference
      default: code = .modelMismatch
      }
    }
    return StoreError(code, error.message, at: error.location, underlying: error)
  }
}
