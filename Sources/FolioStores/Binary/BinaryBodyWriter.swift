import FolioModel
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
    var positions: [String: [Int]] = [:]
    for (position, record) in records.enumerated() {
      positions[record.entityName, default: []].append(position)
    }
    if let unknown = positions.keys.sorted().first(where: { model.entity(named: $0) == nil }) {
      throw StoreError(
        .modelMismatch, "records of entity \"\(unknown)\" are not in the model",
        at: InputLocation(entity: unknown))
    }
    let blocks = model.entities.compactMap { entity in
      positions[entity.name].map { (entity, $0) }
    }
    columns.bytes.reserveCapacity(records.count * 48)
    var directory = ByteWriter(capacity: records.count * 8 + blocks.count * 8)
    directory.append(UInt32(blocks.count))
    indexOfID = ObjectIndexTable(
      minimum: records.lazy.map(\.id).min() ?? 0, maximum: records.lazy.map(\.id).max() ?? -1,
      count: records.count)
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
    for (entity, members) in blocks {
      try writeColumns(of: entity, members.map { records[$0] }, blocks: blocks.map(\.0))
    }
    var body = ByteWriter(capacity: columns.bytes.count + directory.bytes.count + 1024)
    let strings = values.strings.strings
    body.append(UInt32(strings.count))
    for string in strings { body.append(UInt32(string.utf8.count)) }
    for var string in strings { string.withUTF8 { body.append($0) } }
    body.append(directory.bytes)
    body.append(columns.bytes)
    return body.bytes
  }

  private mutating func writeColumns(
    of entity: EntityDescription, _ records: [StoreRecord], blocks: [EntityDescription]
  ) throws(StoreError) {
    // One pass over each record's own dictionaries, matching keys to columns by a short
    // linear scan: no key is hashed, and a key that matches no column is refused.
    let attributes = entity.allAttributes.filter { !$0.isTransient }
    let names = attributes.map(\.name)
    var used = [Bool](repeating: false, count: attributes.count)
    var bitmaps = [[UInt8]](
      repeating: [UInt8](repeating: 0, count: (records.count + 7) / 8), count: attributes.count)
    var buffers = [ByteWriter](repeating: ByteWriter(), count: attributes.count)
    for (index, record) in records.enumerated() {
      for (key, value) in record.attributes {
        guard let column = names.firstIndex(of: key) else {
          throw .recordMismatch(
            "object \(record.id) has a value for \"\(key)\", which is not a stored attribute",
            entity: entity.name, key: key)
        }
        let attribute = attributes[column]
        used[column] = true
        bitmaps[column][index >> 3] |= 1 << UInt8(index & 7)
        try values.encode(
          value, as: attribute.attributeType, composite: attribute.compositeName,
          entity: entity.name, key: key, into: &buffers[column])
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
      columns.append(buffers[column].bytes)
    }
    let relationships = entity.allRelationships.filter { relationship in
      !relationship.isTransient
        && records.contains { !($0.relationships[relationship.name] ?? []).isEmpty }
    }
    let relationshipNames = relationships.map(\.name)
    for record in records {
      for (key, targets) in record.relationships
      where !targets.isEmpty && !relationshipNames.contains(key) {
        throw .recordMismatch(
          "object \(record.id) has targets for \"\(key)\", which is not a stored relationship",
          entity: entity.name, key: key)
      }
    }
    columns.append(UInt32(relationships.count))
    for relationship in relationships {
      try writeRelationship(relationship, of: entity, records, blocks: blocks)
    }
  }

  private mutating func writeRelationship(
    _ relationship: RelationshipDescription, of entity: EntityDescription,
    _ records: [StoreRecord], blocks: [EntityDescription]
  ) throws(StoreError) {
    let kind = RelationshipKind(relationship)
    let allowed = blocks.map { block in
      model.destination(of: relationship).map { model.entity(block, isKindOf: $0) } ?? false
    }
    columns.append(values.strings.index(of: relationship.name))
    columns.append(kind.rawValue)
    for record in records {
      let count = record.relationships[relationship.name]?.count ?? 0
      guard kind != .toOne || count <= 1 else {
        throw .recordMismatch(
          "to-one relationship holds \(count) objects", entity: entity.name,
          key: relationship.name)
      }
      columns.append(UInt32(count))
    }
    for record in records {
      for target in record.relationships[relationship.name] ?? [] {
        guard let index = indexOfID[target] else {
          throw StoreError(
            .danglingReference,
            "object \(record.id) refers to object \(target), which is not in the store",
            at: InputLocation(entity: entity.name, property: relationship.name))
        }
        guard allowed[Int(blockOfIndex[Int(index)])] else {
          throw .recordMismatch(
            "object \(record.id) refers to object \(target) of entity"
              + " \"\(blocks[Int(blockOfIndex[Int(index)])].name)\", not a"
              + " \(relationship.destinationEntityName)", entity: entity.name,
            key: relationship.name)
        }
        columns.append(index)
      }
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
