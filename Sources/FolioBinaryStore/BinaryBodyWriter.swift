import FolioModel
import FolioStores
import Foundation

// Writing the BODY section's content (before it is deflated), laid out for a fast load:
//
//   string table     every string once: count, all lengths, then all the UTF-8
//   entity directory per entity: name, object count, the objects' IDs; an object's index in
//                    the store is its position in this directory, counting across entities
//   columns          per entity, in directory order: its attribute columns (name, type tag,
//                    presence bitmap, the present values back to back), then its relationship
//                    columns (name, kind, a target count per object, all targets as indices)
//
// A reader thus knows every object and its index before it reads any relationship, and reads
// each column with one type in hand. Values are checked against the model as they are
// written, so a file Folio writes always reads back.

/// Encodes records as a BODY section's content.
struct BinaryBodyWriter {
  private let model: ManagedObjectModel
  private var values: BinaryValueEncoder
  private var columns = ByteWriter()
  /// Each ID's object index, and each index's entity block.
  private var indexOfID = ObjectIndexTable(minimum: 0, maximum: -1, count: 0)
  private var blockOfIndex: [UInt32] = []

  private init(model: ManagedObjectModel) {
    self.model = model
    self.values = BinaryValueEncoder(model: model)
  }

  /// The BODY content for `records`, which must fit `model`.
  ///
  /// - Throws: `.modelMismatch` for an entity the model lacks, `.typeMismatch` for a value or
  ///   key that does not fit, `.danglingReference` for a target not among the records,
  ///   `.malformedStore` for a duplicate or non-positive ID.
  static func encode(_ records: [StoreRecord], model: ManagedObjectModel) throws(StoreError)
    -> [UInt8]
  {
    var writer = BinaryBodyWriter(model: model)
    return try writer.encode(records)
  }

  private mutating func encode(_ records: [StoreRecord]) throws(StoreError) -> [UInt8] {
    try StoreLimits.current.checkObjectCount(records.count)
    // Records usually come in runs of one entity, so a name is looked up only when it changes.
    let entities = model.entities
    var entityIndex: [String: Int] = [:]
    for (index, entity) in entities.enumerated() { entityIndex[entity.name] = index }
    var positions = [[Int]](repeating: [], count: entities.count)
    var unknown = Set<String>()
    var lastName: String?
    var lastIndex = -1
    // Records are read in place, field by field: a copy of a whole record is a retain of each
    // of its references.
    for position in records.indices {
      if records[position].entityName != lastName {
        lastName = records[position].entityName
        lastIndex = entityIndex[records[position].entityName] ?? -1
      }
      if lastIndex < 0 {
        unknown.insert(records[position].entityName)
      } else {
        positions[lastIndex].append(position)
      }
    }
    if let unknown = unknown.sorted().first {
      throw StoreError(
        .modelMismatch, "records of entity \"\(unknown)\" are not in the model",
        at: InputLocation(entity: unknown))
    }
    let blocks = entities.indices.filter { !positions[$0].isEmpty }.map {
      (entities[$0], positions[$0])
    }
    columns.reserve(records.count * 48)
    var directory = ByteWriter(capacity: records.count * 8 + blocks.count * 8 + 4)
    directory.append(UInt32(blocks.count))
    var minimum = Int64.max
    var maximum = Int64.min
    for position in records.indices {
      minimum = min(minimum, records[position].id)
      maximum = max(maximum, records[position].id)
    }
    indexOfID = ObjectIndexTable(
      minimum: records.isEmpty ? 0 : minimum, maximum: records.isEmpty ? -1 : maximum,
      count: records.count)
    blockOfIndex.reserveCapacity(records.count)
    for (block, (entity, members)) in blocks.enumerated() {
      directory.append(values.strings.index(of: entity.name))
      directory.append(UInt32(members.count))
      for position in members {
        let id = records[position].id
        guard id >= 1,
          indexOfID.insert(UInt32(blockOfIndex.count), for: id)
        else {
          throw StoreError(
            .malformedStore, "record ID \(id) is \(id < 1 ? "below 1" : "used twice")",
            at: InputLocation(entity: entity.name))
        }
        blockOfIndex.append(UInt32(block))
        directory.append(id)
      }
    }
    let blockEntities = blocks.map(\.0)
    for (entity, members) in blocks {
      try writeColumns(of: entity, members, in: records, blocks: blockEntities)
    }
    let strings = values.strings
    var body = ByteWriter(
      capacity: 4 + strings.lengths.count + strings.utf8.count + directory.count + columns.count)
    body.append(UInt32(strings.count))
    body.append(strings.lengths)
    body.append(strings.utf8)
    body.append(directory)
    body.append(columns)
    return body.finished()
  }

  private mutating func writeColumns(
    of entity: EntityDescription, _ members: [Int], in records: [StoreRecord],
    blocks: [EntityDescription]
  ) throws(StoreError) {
    // One pass over each record's own dictionaries, matching keys to columns by a short
    // linear scan: no key is hashed, and a key that matches no column is refused.
    let attributes = entity.allAttributes.filter { !$0.isTransient }
    let names = attributes.map(\.name)
    let types = attributes.map(\.attributeType)
    let composites = attributes.map(\.compositeName)
    let count = members.count
    var used = [Bool](repeating: false, count: attributes.count)
    var bitmaps = [[UInt8]](
      repeating: [UInt8](repeating: 0, count: (count + 7) / 8), count: attributes.count)
    var buffers = [ByteWriter](repeating: ByteWriter(), count: attributes.count)
    for column in attributes.indices {
      buffers[column].reserve(count * (types[column].binaryWidth ?? 16))
    }
    // Each row's values are encoded in column order, not in its dictionary's order, which
    // varies between dictionaries: strings then enter the string table in the same order
    // every time, and the same records always make the same bytes.
    var pending = [AttributeValue?](repeating: nil, count: attributes.count)
    // The closure below takes the name alone, not the whole entity (a copy per record).
    let entityName = entity.name
    for (index, position) in members.enumerated() {
      var first = attributes.count
      var last = -1
      try records[position].forEachAttribute { (key, value) throws(StoreError) in
        guard let column = names.firstIndex(of: key) else {
          throw .recordMismatch(
            "object \(records[position].id) has a value for \"\(key)\", which is not a stored"
              + " attribute", entity: entityName, key: key)
        }
        pending[column] = value
        first = min(first, column)
        last = max(last, column)
      }
      guard first <= last else { continue }
      for column in first...last {
        guard let value = pending[column] else { continue }
        pending[column] = nil
        used[column] = true
        bitmaps[column][index >> 3] |= 1 << UInt8(index & 7)
        try values.encode(
          value, as: types[column], composite: composites[column], entity: entity.name,
          key: names[column], into: &buffers[column])
      }
    }
    columns.append(UInt32(used.lazy.filter { $0 }.count))
    for (column, attribute) in attributes.enumerated() where used[column] {
      guard let tag = attribute.attributeType.binaryTag else {
        throw .recordMismatch(
          "attributes of type Undefined cannot be stored", entity: entity.name,
          key: attribute.name)
      }
      columns.append(values.strings.index(of: attribute.name))
      columns.append(tag)
      columns.append(bitmaps[column])
      columns.append(buffers[column])
    }
    try writeRelationships(of: entity, members, in: records, blocks: blocks)
  }

  private mutating func writeRelationships(
    of entity: EntityDescription, _ members: [Int], in records: [StoreRecord],
    blocks: [EntityDescription]
  ) throws(StoreError) {
    let relationships = entity.allRelationships.filter { !$0.isTransient }
    let names = relationships.map(\.name)
    let kinds = relationships.map { RelationshipKind($0) }
    let allowed = relationships.map { relationship in
      blocks.map { block in
        model.destination(of: relationship).map { model.entity(block, isKindOf: $0) } ?? false
      }
    }
    let count = members.count
    var used = [Bool](repeating: false, count: relationships.count)
    var counts = [[UInt32]](repeating: [], count: relationships.count)
    var targets = [ByteWriter](repeating: ByteWriter(), count: relationships.count)
    for (index, position) in members.enumerated() {
      let record = (id: records[position].id, relationships: records[position].relationships)
      for (key, list) in record.relationships where !list.isEmpty {
        guard let column = names.firstIndex(of: key) else {
          throw .recordMismatch(
            "object \(record.id) has targets for \"\(key)\", which is not a stored relationship",
            entity: entity.name, key: key)
        }
        guard kinds[column] != .toOne || list.count <= 1 else {
          throw .recordMismatch(
            "to-one relationship holds \(list.count) objects", entity: entity.name, key: key)
        }
        if !used[column] {
          used[column] = true
          counts[column] = [UInt32](repeating: 0, count: count)
          targets[column].reserve(count * 4)
        }
        counts[column][index] = UInt32(list.count)
        for target in list {
          guard let targetIndex = indexOfID[target] else {
            throw StoreError(
              .danglingReference,
              "object \(record.id) refers to object \(target), which is not in the store",
              at: InputLocation(entity: entity.name, property: key))
          }
          let block = Int(blockOfIndex[Int(targetIndex)])
          guard allowed[column][block] else {
            throw .recordMismatch(
              "object \(record.id) refers to object \(target) of entity"
                + " \"\(blocks[block].name)\", not a"
                + " \(relationships[column].destinationEntityName)", entity: entity.name,
              key: key)
          }
          targets[column].append(targetIndex)
        }
      }
    }
    columns.append(UInt32(used.lazy.filter { $0 }.count))
    for column in relationships.indices where used[column] {
      columns.append(values.strings.index(of: names[column]))
      columns.append(kinds[column].rawValue)
      columns.append(counts: counts[column])
      columns.append(targets[column])
    }
  }
}

/// Object indices by ID: an array over the IDs' range when they are dense (as a store's IDs
/// usually are), a dictionary otherwise.
struct ObjectIndexTable {
  private let minimum: Int64
  private var dense: [UInt32] = []
  private var sparse: [Int64: UInt32] = [:]
  private let isDense: Bool

  init(minimum: Int64, maximum: Int64, count: Int) {
    self.minimum = minimum
    let span = maximum.subtractingReportingOverflow(minimum)
    isDense = !span.overflow && span.partialValue < Int64(4 * count + 1024)
    if isDense {
      dense = [UInt32](repeating: .max, count: Int(max(span.partialValue + 1, 0)))
    } else {
      sparse.reserveCapacity(count)
    }
  }

  /// Records `index` for `id`; `false` if `id` already has one.
  mutating func insert(_ index: UInt32, for id: Int64) -> Bool {
    guard isDense else { return sparse.updateValue(index, forKey: id) == nil }
    let slot = Int(id - minimum)
    guard dense[slot] == .max else { return false }
    dense[slot] = index
    return true
  }

  /// The index of `id`, if it has one.
  subscript(id: Int64) -> UInt32? {
    guard isDense else { return sparse[id] }
    let (offset, overflow) = id.subtractingReportingOverflow(minimum)
    guard !overflow, offset >= 0, offset < dense.count, dense[Int(offset)] != .max else {
      return nil
    }
    return dense[Int(offset)]
  }
}
