import FolioModel
import FolioStores
import Foundation

extension ManagedObjectContext {
  /// Fills an empty context with a store's objects, as saved objects: nothing is inserted,
  /// nothing is undoable, no notification is posted.
  ///
  /// Each record becomes an object with the record's ID as its primary key, so permanent IDs
  /// (and the URIs apps keep) stay stable from one session to the next. A relationship whose
  /// inverse the store left out is completed from the side it has.
  ///
  /// Undo: loading registers nothing.
  ///
  /// - Throws: `GraphError.unknownEntity`, `.unknownKey`, `.typeMismatch` for records that do
  ///   not fit the model; `.objectNotFound` for a relationship naming an ID no record has;
  ///   `.notRegistered` when the context already holds objects. On error the context stays
  ///   empty.
  /// - Complexity: O(*n*) in the records and their relationships.
  public func load(_ contents: StoreContents) throws(GraphError) {
    do {
      try loadRecords(contents)
    } catch {
      if let graphError = error.underlying as? GraphError { throw graphError }
      throw GraphError(.store, error.description, at: error.location, underlying: error)
    }
  }

  private func loadRecords(_ contents: StoreContents) throws(StoreError) {
    _ = try load { (loader: inout GraphLoader) throws(StoreError) in
      try loader.begin(
        metadata: contents.metadata, nextObjectID: contents.nextObjectID,
        recordCount: contents.records.count)
      for record in contents.records { try loader.consume(record) }
      try loader.finish()
    }
  }

  /// Fills an empty context with the store in the file at `url`, read with `format` record by
  /// record: the records never exist all at once beside the objects. Returns the store's
  /// metadata.
  ///
  /// - Throws: `GraphError` as ``load(_:)`` does; `.store` wrapping the `StoreError` of a file
  ///   that cannot be read.
  @discardableResult
  func load(from url: URL, format: any StoreFormat) throws(GraphError) -> StoreMetadata {
    do {
      return try loadStore(from: url, format: format)
    } catch {
      if let graphError = error.underlying as? GraphError { throw graphError }
      throw GraphError(.store, error.description, at: error.location, underlying: error)
    }
  }

  /// ``load(from:format:)`` for the coordinator: every error is a `StoreError`, a record
  /// that does not fit the model a `.modelMismatch` wrapping the `GraphError`.
  func loadStore(from url: URL, format: any StoreFormat) throws(StoreError) -> StoreMetadata {
    let model = self.model
    return try load { (loader: inout GraphLoader) throws(StoreError) in
      try format.read(from: url, model: model, into: &loader)
    }
  }

  /// Runs `read`, which feeds a loader for this context, and leaves the context empty when it
  /// throws. Returns the metadata the loader was given.
  private func load(_ read: (inout GraphLoader) throws(StoreError) -> Void) throws(StoreError)
    -> StoreMetadata
  {
    guard table.isEmpty else {
      throw StoreError(
        .malformedStore, "a context loads a store only while it is empty",
        underlying: GraphError(.notRegistered, "a context loads a store only while it is empty"))
    }
    var loader = GraphLoader(context: self)
    do {
      try read(&loader)
      return loader.metadata
    } catch {
      table.removeAll()
      primaryKeys = nil
      rowByPrimaryKey = nil
      nextPrimaryKey = 1
      throw error
    }
  }
}

/// Builds a context's graph from a store's records as they are read.
///
/// An object's row is its ID minus one whenever the IDs allow it (a store's IDs are 1 through
/// its next object ID with few gaps): no key maps are kept, and a relationship can point at
/// an object whose record comes later by its row alone. Gaps stay empty rows; the table runs
/// to the store's next ID, so a new object's key, its row plus one, was never given out.
/// Sparse or huge IDs switch the loader to rows in order of first mention, with the maps.
/// Targets are checked once every record is in: each must exist and be of the relationship's
/// destination.
struct GraphLoader: StoreRecordConsumer {
  private unowned let context: ManagedObjectContext
  /// Whether rows are IDs minus one (no maps); otherwise rows are kept in the context's maps.
  private var isByID = true
  private var count = 0
  private var maximumID: Int64 = 0
  /// The metadata the store began with.
  private(set) var metadata = StoreMetadata(storeType: "")

  init(context: ManagedObjectContext) { self.context = context }

  /// The most empty rows the by-ID layout may hold beyond twice the objects.
  private static let slack = 65_536

  mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?)
    throws(StoreError)
  {
    self.metadata = metadata
    // Indexes and columns built before (on the empty context) are stale.
    context.indexVersion &+= 1
    context.storeIdentifier = metadata.identifier
    context.nextPrimaryKey = max(nextObjectID, 1)
    // With the count known, the table is made at its final size at once; otherwise it grows
    // as IDs are named, and `finish` makes it reach the next ID.
    guard let recordCount else { return }
    let rows = max(nextObjectID - 1, 0)
    if rows <= Int64(2 * recordCount + Self.slack) {
      context.table = [ManagedObject?](repeating: nil, count: Int(rows))
    } else {
      switchToMaps()
    }
  }

  /// Leaves the by-ID layout: every row so far keeps its ID (row plus one) in the maps.
  private mutating func switchToMaps() {
    guard isByID else { return }
    isByID = false
    let rows = context.table.count
    context.primaryKeys = (0..<rows).map { Int64($0) + 1 }
    var map = [Int64: Int32](minimumCapacity: rows)
    for row in 0..<rows { map[Int64(row) + 1] = Int32(row) }
    context.rowByPrimaryKey = map
  }

  /// The row of ID `id`, made (empty) when first mentioned.
  private mutating func row(for id: Int64) throws(StoreError) -> Int32 {
    guard id >= 1 else { throw Self.error(GraphError.badID(id)) }
    if isByID {
      if id <= Int64(context.table.count) { return Int32(id - 1) }
      if id <= Int64(2 * count + Self.slack) {
        context.table.append(
          contentsOf: repeatElement(nil, count: Int(id) - context.table.count))
        return Int32(id - 1)
      }
      switchToMaps()
    }
    if let row = context.rowByPrimaryKey?[id] { return row }
    guard context.table.count < Int(Int32.max) else {
      throw Self.error(GraphError(.typeMismatch, "a store holds at most \(Int32.max) objects"))
    }
    let row = Int32(context.table.count)
    context.table.append(nil)
    context.primaryKeys?.append(id)
    context.rowByPrimaryKey?[id] = row
    return row
  }

  mutating func consume(_ record: StoreRecord) throws(StoreError) {
    let context = self.context
    guard let layout = context.layoutByName[record.entityName] else {
      throw Self.error(
        GraphError.unknownEntity(record.entityName, known: context.layouts.map(\.name)))
    }
    let objectRow = try row(for: record.id)
    guard context.table[Int(objectRow)] == nil else {
      throw Self.error(GraphError.badID(record.id, entity: record.entityName))
    }
    count += 1
    maximumID = max(maximumID, record.id)
    let object = ManagedObject(context: context, layout: layout, row: objectRow)
    object.flags = [.permanent]
    context.table[Int(objectRow)] = object
    try record.forEachAttribute { (key, value) throws(StoreError) in
      guard let slot = layout.slotByName[key], let attribute = layout.properties[slot].attribute
      else {
        throw Self.error(
          GraphError.unknownKey(key, entity: layout.name, known: layout.properties.map(\.name)))
      }
      guard ModelValueCheck.fits(value, attribute.attributeType) else {
        throw Self.error(
          GraphError.typeMismatch(
            "\(value.modelText) is not of type \(attribute.attributeType.xcodeName)",
            entity: layout.name, key: key))
      }
      object.slots[slot] = Slot(value)
    }
    for (key, targets) in record.relationships {
      guard let slot = layout.slotByName[key],
        let relationship = layout.properties[slot].relationship
      else {
        throw Self.error(
          GraphError.unknownKey(key, entity: layout.name, known: layout.properties.map(\.name)))
      }
      if relationship.isToMany {
        var rows: [Int32] = []
        rows.reserveCapacity(targets.count)
        for id in targets { rows.append(try row(for: id)) }
        object.slots[slot] = .objects(RowSet(rows, ordered: relationship.isOrdered))
      } else if let first = targets.first {
        object.slots[slot] = .object(try row(for: first))
      }
    }
  }

  /// Checks every target (so an ID named but never loaded is an error), and completes the
  /// inverses the store left out.
  mutating func finish() throws(StoreError) {
    let context = self.context
    context.nextPrimaryKey = max(context.nextPrimaryKey, maximumID + 1)
    // A new object's key is its row plus one: the rows run to the next ID, or keys go to maps.
    if isByID, context.table.count < context.nextPrimaryKey - 1 {
      let rows = Int(context.nextPrimaryKey - 1)
      if rows <= 2 * count + Self.slack {
        context.table.append(contentsOf: repeatElement(nil, count: rows - context.table.count))
      } else {
        switchToMaps()
      }
    }
    let table = context.table
    for case let object? in table {
      let layout = object.layout
      for slot in layout.properties.indices {
        guard let relationship = layout.properties[slot].relationship else { continue }
        switch object.slots[slot] {
        case .object(let row):
          try check(row, of: object, relationship)
          complete(row, of: object, relationship)
        case .objects(let set):
          for row in set.rows {
            try check(row, of: object, relationship)
            complete(row, of: object, relationship)
          }
        default:
          continue
        }
      }
    }
  }

  /// Throws unless row `row` holds an object of `relationship`'s destination.
  @inline(__always)
  private func check(_ row: Int32, of object: ManagedObject, _ relationship: RelationshipLayout)
    throws(StoreError)
  {
    if let target = context.table[Int(row)], target.layout.isKind(of: relationship.destination) {
      return
    }
    let id = context.primaryKeys?[Int(row)] ?? Int64(row) + 1
    throw Self.error(
      GraphError(
        .objectNotFound,
        "\(object.entityName).\(relationship.name) names object \(id), which is not a \(relationship.description.destinationEntityName) in the store",
        at: InputLocation(entity: object.entityName, property: relationship.name)))
  }

  /// Adds `object` to the inverse of `relationship` in the object at `row`, if the store left
  /// it out.
  @inline(__always)
  private func complete(_ row: Int32, of object: ManagedObject, _ relationship: RelationshipLayout)
  {
    guard let inverseSlot = relationship.inverseSlot, let target = context.table[Int(row)] else {
      return
    }
    if relationship.inverseIsToMany {
      let set = context.rowSet(of: target, slot: inverseSlot)
      if !set.contains(object.row) { set.insert(object.row) }
    } else if case .null = target.slots[inverseSlot] {
      target.slots[inverseSlot] = .object(object.row)
    }
  }

  /// A graph error carried through the store reader, which `load` unwraps.
  private static func error(_ error: GraphError) -> StoreError {
    let code: StoreError.Code
    switch error.code {
    case .typeMismatch: code = .typeMismatch
    case .objectNotFound: code = .danglingReference
    default: code = .modelMismatch
    }
    return StoreError(code, error.description, at: error.location, underlying: error)
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
