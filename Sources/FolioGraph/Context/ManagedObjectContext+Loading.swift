import FolioModel
import FolioStores
import Foundation

extension ManagedObjectContext {
  /// Fills an empty context with a store's objects, as saved objects: nothing is inserted,
  /// nothing is undoable, no notification is posted. The records become the committed rows the
  /// context works against (its coordinator's, or its own without one).
  ///
  /// Each record becomes an object with the record's ID as its primary key, so permanent IDs
  /// (and the URIs apps keep) stay stable from one session to the next. A relationship whose
  /// inverse the store left out is completed from the side it has; sides that contradict each
  /// other are an error.
  ///
  /// Undo: loading registers nothing.
  ///
  /// - Throws: `GraphError.unknownEntity`, `.unknownKey`, `.typeMismatch` for records that do
  ///   not fit the model; `.objectNotFound` for a relationship naming an ID no record has, or
  ///   sides of a relationship that contradict each other; `.notRegistered` when the context
  ///   already holds objects. On error the context stays empty.
  /// - Complexity: O(*n*) in the records and their relationships.
  package func load(_ contents: StoreContents) throws(GraphError) {
    do {
      try cache.load { (loader: inout GraphLoader) throws(StoreError) in
        try loader.begin(
          metadata: contents.metadata, nextObjectID: contents.nextObjectID,
          recordCount: contents.records.count)
        for record in contents.records { try loader.consume(record) }
        try loader.finish()
      }
    } catch {
      throw Self.graphError(error)
    }
    registerAllObjects()
  }

  /// The graph error for a store error met loading: the `GraphError` it carries, if any.
  static func graphError(_ error: StoreError) -> GraphError {
    if let graphError = error.underlying as? GraphError { return graphError }
    return GraphError(.store, error.message, at: error.location, underlying: error)
  }
}

extension RowCache {
  /// Fills the empty cache with the store in the file at `url`, read with `format` record by
  /// record: the records never exist all at once beside the rows. Returns the store's metadata.
  ///
  /// - Throws: `StoreError`; a record that does not fit the model is a `.modelMismatch`,
  ///   `.typeMismatch` or `.danglingReference` wrapping the `GraphError`.
  func load(from url: URL, format: any StoreFormat, model: ManagedObjectModel) throws(StoreError)
    -> StoreMetadata
  {
    do {
      return try load { (loader: inout GraphLoader) throws(StoreError) in
        try format.read(from: url, model: model, into: &loader)
      }
    } catch {
      // Errors found once every record is in name the object, not a line: add the file.
      var located = error
      if located.location?.file == nil {
        var location = located.location ?? InputLocation()
        location.file = url.relativePath
        located.location = location
      }
      throw located
    }
  }

  /// Runs `read`, which feeds a loader for this cache, and leaves the cache empty when it
  /// throws. Returns the metadata the loader was given.
  @discardableResult
  func load(_ read: (inout GraphLoader) throws(StoreError) -> Void) throws(StoreError)
    -> StoreMetadata
  {
    guard rows.isEmpty else {
      throw StoreError(
        .malformedStore, "a context loads a store only while it is empty",
        underlying: GraphError(.notRegistered, "a context loads a store only while it is empty"))
    }
    var loader = GraphLoader(cache: self)
    do {
      try read(&loader)
      generation &+= 1
      return loader.metadata
    } catch {
      clear()
      throw error
    }
  }
}

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
struct GraphLoader: StoreRecordConsumer {
  private let cache: RowCache
  /// Whether rows are IDs minus one (no maps); otherwise rows are kept in the cache's maps.
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
  /// For each layout met (by its index: attributes at 2 × index, relationships after), the
  /// slots of the keys in the order records name them: records of one entity name their keys in one order, and
  /// comparing a key with the one at its place is cheaper than hashing it.
  private var keySlots: [[(key: String, slot: Int)]] = []

  init(cache: RowCache) { self.cache = cache }

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
      cache.primaryKeys?.reserveCapacity(expectedCount)
      cache.rows.reserveCapacity(expectedCount)
      return
    }
    let rows = max(cache.nextPrimaryKey - 1, 0)
    if rows <= Int64(2 * expectedCount + Self.slack) {
      cache.rows = [CommittedRow?](repeating: nil, count: Int(rows))
    } else {
      switchToMaps()
    }
  }

  /// Leaves the by-ID layout: every row so far keeps its ID (row plus one) in the maps, whose
  /// arrays take keys up to `directLimit` (by default, twice the rows so far).
  private mutating func switchToMaps(directLimit: Int64? = nil, capacity: Int = 0) {
    guard isByID else { return }
    isByID = false
    let rows = cache.rows.count
    cache.primaryKeys = (0..<rows).map { Int64($0) + 1 }
    var index = RowIndex(
      directLimit: directLimit ?? Int64(2 * rows + Self.slack), capacity: max(capacity, rows))
    for row in 0..<rows { index[Int64(row) + 1] = Int32(row) }
    cache.rowByPrimaryKey = index
  }

  /// The row of ID `id`, made (empty) when first mentioned.
  private mutating func row(for id: Int64) throws(StoreError) -> Int32 {
    guard id >= 1 else { throw Self.error(GraphError.badID(id)) }
    if isByID {
      if id <= Int64(cache.rows.count) { return Int32(id - 1) }
      if id <= Int64(2 * count + Self.slack) {
        cache.rows.append(contentsOf: repeatElement(nil, count: Int(id) - cache.rows.count))
        return Int32(id - 1)
      }
      switchToMaps()
    }
    if let row = cache.rowByPrimaryKey?[id] { return row }
    guard cache.rows.count < Int(Int32.max) else {
      throw Self.error(GraphError(.typeMismatch, "a store holds at most \(Int32.max) objects"))
    }
    let row = Int32(cache.rows.count)
    cache.rows.append(nil)
    cache.primaryKeys?.append(id)
    cache.rowByPrimaryKey?[id] = row
    return row
  }

  mutating func consume(_ record: StoreRecord) throws(StoreError) {
    let cache = self.cache
    if !isLaidOut { layOut(firstID: record.id) }
    let layout: EntityLayout
    if let last = lastLayout, record.entityName == lastEntityName {
      layout = last
    } else {
      guard let found = cache.layoutByName[record.entityName] else {
        throw Self.error(
          GraphError.unknownEntity(record.entityName, known: cache.layouts.map(\.name)))
      }
      layout = found
      lastEntityName = record.entityName
      lastLayout = found
    }
    let objectRow = try row(for: record.id)
    guard cache.rows[Int(objectRow)] == nil else {
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
    let committed = CommittedRow.make(layout: layout, version: 1)
    cache.set(committed, at: objectRow)
    let slots = committed.slots
    var known = keySlots(of: layout, relationships: false)
    defer { keySlots[2 * layout.index] = known }
    var position = 0
    try record.forEachAttribute { (key, value) throws(StoreError) in
      defer { position += 1 }
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
    var knownRelationships = keySlots(of: layout, relationships: true)
    defer { keySlots[2 * layout.index + 1] = knownRelationships }
    position = 0
    for (key, targets) in record.relationships {
      defer { position += 1 }
      var slot = -1
      if position < knownRelationships.count, knownRelationships[position].key == key {
        slot = knownRelationships[position].slot
      } else if let found = layout.slotByName[key] {
        slot = found
        if position == knownRelationships.count { knownRelationships.append((key, found)) }
      }
      guard slot >= 0, let relationship = layout.properties[slot].relationship else {
        throw Self.error(
          GraphError.unknownKey(key, entity: layout.name, known: layout.properties.map(\.name)))
      }
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

  /// Checks every target (so an ID named but never loaded is an error) and every pair of sides
  /// the store gave, then completes the inverses the store left out.
  mutating func finish() throws(StoreError) {
    let cache = self.cache
    cache.nextPrimaryKey = max(cache.nextPrimaryKey, maximumKey + 1)
    // A new object's key is its row plus one: the rows run to the next ID, or keys go to maps.
    if isByID, cache.rows.count < cache.nextPrimaryKey - 1 {
      let rows = Int(cache.nextPrimaryKey - 1)
      if rows <= 2 * count + Self.slack {
        cache.rows.append(contentsOf: repeatElement(nil, count: rows - cache.rows.count))
      } else {
        switchToMaps()
      }
    }
    // First every side as the store gave it, before anything is completed: a side that is
    // there must agree with the other.
    try forEachTarget { (row, committed, slot, relationship, target) throws(StoreError) in
      try check(target, of: row, committed, relationship)
      try checkAgreement(target, of: row, committed, slot: slot, relationship)
    }
    try forEachTarget { (row, committed, slot, relationship, target) throws(StoreError) in
      try complete(target, of: row, committed, slot: slot, relationship)
    }
  }

  /// Calls `body` with each relationship target of each row.
  private func forEachTarget(
    _ body: (Int32, CommittedRow, Int, RelationshipLayout, Int32) throws(StoreError) -> Void
  ) throws(StoreError) {
    for (index, committed) in cache.rows.enumerated() {
      guard let committed else { continue }
      let layout = cache.layouts[committed.entity]
      let slots = committed.slots
      for slot in layout.properties.indices {
        guard let relationship = layout.properties[slot].relationship else { continue }
        switch slots[slot] {
        case .object(let target):
          try body(Int32(index), committed, slot, relationship, target)
        case .objects(let set):
          for target in set.rows { try body(Int32(index), committed, slot, relationship, target) }
        default:
          continue
        }
      }
    }
  }

  /// Throws unless row `target` holds an object of `relationship`'s destination.
  @inline(__always)
  private func check(
    _ target: Int32, of row: Int32, _ committed: CommittedRow, _ relationship: RelationshipLayout
  ) throws(StoreError) {
    if let found = cache.rows[Int(target)],
      cache.layouts[found.entity].isKind(of: relationship.destination)
    {
      return
    }
    let name = cache.layouts[committed.entity].name
    throw Self.error(
      GraphError(
        .objectNotFound,
        "\(name).\(relationship.name) names object \(cache.primaryKey(ofRow: target)), which is not a \(relationship.description.destinationEntityName) in the store",
        at: InputLocation(entity: name, property: relationship.name)))
  }

  /// Throws when the inverse side the store gave for `target` leaves out the object at `row`.
  @inline(__always)
  private func checkAgreement(
    _ target: Int32, of row: Int32, _ committed: CommittedRow, slot: Int,
    _ relationship: RelationshipLayout
  ) throws(StoreError) {
    guard let inverseSlot = relationship.inverseSlot, let other = cache.rows[Int(target)] else {
      return
    }
    switch other.slots[inverseSlot] {
    case .object(let back) where back != row:
      throw contradiction(row, committed, relationship, target: target, holder: back)
    case .objects(let set) where !set.isEmpty && !set.contains(row):
      throw contradiction(row, committed, relationship, target: target, holder: nil)
    default:
      return
    }
  }

  /// Adds the object at `row` to the inverse of `relationship` in `target`, if the store left
  /// it out; a to-one inverse already completed towards another object is a contradiction.
  @inline(__always)
  private func complete(
    _ target: Int32, of row: Int32, _ committed: CommittedRow, slot: Int,
    _ relationship: RelationshipLayout
  ) throws(StoreError) {
    guard let inverseSlot = relationship.inverseSlot, let other = cache.rows[Int(target)] else {
      return
    }
    let slots = other.slots
    if relationship.inverseIsToMany {
      if case .objects(let set) = slots[inverseSlot] {
        if !set.contains(row) { set.insert(row) }
      } else {
        let ordered = cache.layouts[other.entity].properties[inverseSlot].relationship?.isOrdered
        slots[inverseSlot] = .objects(RowSet([row], ordered: ordered ?? false))
      }
      return
    }
    switch slots[inverseSlot] {
    case .null:
      slots[inverseSlot] = .object(row)
    case .object(let back) where back != row:
      throw contradiction(row, committed, relationship, target: target, holder: back)
    default:
      return
    }
  }

  /// The error for two sides of a relationship that disagree: `target`, named by the object at
  /// `row`, names `holder` (or, for a to-many, does not name `row`) on the inverse side.
  private func contradiction(
    _ row: Int32, _ committed: CommittedRow, _ relationship: RelationshipLayout, target: Int32,
    holder: Int32?
  ) -> StoreError {
    let name = cache.layouts[committed.entity].name
    let id = cache.primaryKey(ofRow: row)
    let targetName = cache.rows[Int(target)].map { cache.layouts[$0.entity].name } ?? "object"
    let targetID = cache.primaryKey(ofRow: target)
    let inverse = relationship.description.inverseName ?? "its inverse"
    var message =
      "\(name) \(id) names \(targetName) \(targetID) in \(relationship.name), but \(targetName) \(targetID)'s \(inverse) "
    if let holder {
      let holderName = cache.rows[Int(holder)].map { cache.layouts[$0.entity].name } ?? "object"
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

extension GraphError {
  /// An object ID that is not positive, or appears twice.
  static func badID(_ id: Int64, entity: String? = nil) -> GraphError {
    GraphError(
      .typeMismatch, "object ID \(id) is not positive, or appears twice",
      at: entity.map { InputLocation(entity: $0) })
  }
}
