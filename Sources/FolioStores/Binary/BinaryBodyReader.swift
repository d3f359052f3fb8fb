import FolioModel
import Foundation

// Reading the BODY section's inflated content back into records (the layout is described in
// BinaryBodyWriter.swift and Formats/binary-store.md).
//
// Nothing from the file is trusted: each count is checked against the bytes left before
// anything is allocated for it, each string index and object index against its table, each
// column's name, type tag and relationship kind against the model, and each target's entity
// against the relationship's destination.

/// Decodes a BODY section's content into records.
struct BinaryBodyReader {
  private let model: ManagedObjectModel
  private var reader: ByteReader
  private var values: BinaryValueDecoder
  private var records: [StoreRecord] = []
  /// Each entity block: its entity and the range of its objects' indices.
  private var blocks: [(entity: EntityDescription, range: Range<Int>)] = []

  private init(_ reader: ByteReader, model: ManagedObjectModel) {
    self.reader = reader
    self.model = model
    self.values = BinaryValueDecoder(model: model, strings: [])
  }

  /// The records in `reader`'s bytes, which must be a whole BODY content.
  ///
  /// - Throws: `StoreError` naming the byte of the inflated content: `.truncated`,
  ///   `.malformedStore`, `.modelMismatch`, `.typeMismatch` or `.danglingReference`.
  static func decode(_ reader: ByteReader, model: ManagedObjectModel) throws(StoreError)
    -> [StoreRecord]
  {
    var body = BinaryBodyReader(reader, model: model)
    try body.readStrings()
    try body.readDirectory()
    for block in body.blocks.indices { try body.readColumns(of: block) }
    guard body.reader.isAtEnd else {
      throw body.reader.error(
        .malformedStore, "\(body.reader.remaining) bytes follow the last column")
    }
    return body.records
  }

  private mutating func readStrings() throws(StoreError) {
    let count = try reader.count("the string count", elementSize: 4)
    let lengths = try reader.slice(count * 4, "the string lengths")
    var strings: [String] = []
    strings.reserveCapacity(count)
    for index in 0..<count {
      let length = Int(
        UInt32(littleEndian: lengths.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
      let start = reader.offset
      let utf8 = try reader.slice(length, "string \(index)")
      guard let string = String(validating: utf8, as: UTF8.self) else {
        throw reader.error(.malformedStore, "string \(index) is not valid UTF-8", at: start)
      }
      strings.append(string)
    }
    values = BinaryValueDecoder(model: model, strings: strings)
  }

  private mutating func readDirectory() throws(StoreError) {
    let count = try reader.count("the entity count", elementSize: 8)
    for _ in 0..<count {
      let start = reader.offset
      let name = try values.string(&reader, "an entity name")
      guard let entity = model.entity(named: name) else {
        throw reader.error(.modelMismatch, "entity \"\(name)\" is not in the model", at: start)
      }
      guard !blocks.contains(where: { $0.entity.name == name }) else {
        throw reader.error(.malformedStore, "entity \"\(name)\" has two blocks", at: start)
      }
      let objectCount = try reader.count("the object count of \(name)", elementSize: 8)
      records.reserveCapacity(records.count + objectCount)
      let first = records.count
      for _ in 0..<objectCount {
        let idOffset = reader.offset
        let id = try reader.int64("an object ID")
        guard id >= 1 else {
          throw reader.error(
            .malformedStore, "object ID \(id) is below 1",
            at: idOffset)
        }
        records.append(StoreRecord(entityName: name, id: id))
      }
      blocks.append((entity, first..<records.count))
    }
    var table = ObjectIndexTable(
      minimum: records.lazy.map(\.id).min() ?? 0, maximum: records.lazy.map(\.id).max() ?? -1,
      count: records.count)
    for (index, record) in records.enumerated()
    where !table.insert(UInt32(truncatingIfNeeded: index), for: record.id) {
      throw reader.error(.malformedStore, "object ID \(record.id) is used twice", at: 0)
    }
  }

  private func located(_ error: StoreError, _ entity: String, _ key: String) -> StoreError {
    var error = error
    error.location = error.location?.naming(entity: entity, property: key)
    return error
  }

  private mutating func readColumns(of block: Int) throws(StoreError) {
    let (entity, range) = blocks[block]
    let count = try reader.count("the attribute column count", elementSize: 5)
    var seen = Set<String>()
    for _ in 0..<count {
      let start = reader.offset
      let name = try values.string(&reader, "an attribute name")
      guard let attribute = entity.attribute(named: name), !attribute.isTransient else {
        throw reader.error(
          .modelMismatch, "entity \"\(entity.name)\" has no stored attribute \"\(name)\"",
          at: start)
      }
      guard seen.insert(name).inserted else {
        throw reader.error(.malformedStore, "attribute \"\(name)\" has two columns", at: start)
      }
      if seen.count == 1 {
        for index in range { records[index].attributes.reserveCapacity(count) }
      }
      let tag = try reader.uint8("a type tag")
      guard tag == attribute.attributeType.binaryTag else {
        let stored = AttributeType(binaryTag: tag)?.xcodeName ?? "unknown tag \(tag)"
        throw located(
          reader.error(
            .typeMismatch,
            "\(entity.name).\(name) is stored as \(stored) but the model says"
              + " \(attribute.attributeType.xcodeName)", at: start + 4), entity.name, name)
      }
      let bitmapOffset = reader.offset
      let bitmap = try reader.slice((range.count + 7) / 8, "a presence bitmap")
      if range.count % 8 != 0, let last = bitmap.last, last >> UInt8(range.count % 8) != 0 {
        throw reader.error(
          .malformedStore, "the presence bitmap of \(name) sets bits past its objects",
          at: bitmapOffset + bitmap.count - 1)
      }
      for index in 0..<range.count where bitmap[index >> 3] & (1 << UInt8(index & 7)) != 0 {
        let value = try values.decode(
          &reader, as: attribute.attributeType, composite: attribute.compositeName)
        records[range.lowerBound + index].attributes[name] = value
      }
    }
    let relationshipCount = try reader.count("the relationship column count", elementSize: 5)
    if relationshipCount > 0 {
      for index in range { records[index].relationships.reserveCapacity(relationshipCount) }
    }
    for _ in 0..<relationshipCount {
      try readRelationship(of: block, seen: &seen)
    }
  }

  private mutating func readRelationship(of block: Int, seen: inout Set<String>)
    throws(StoreError)
  {
    let (entity, range) = blocks[block]
    let start = reader.offset
    let name = try values.string(&reader, "a relationship name")
    guard let relationship = entity.relationship(named: name), !relationship.isTransient else {
      throw reader.error(
        .modelMismatch, "entity \"\(entity.name)\" has no stored relationship \"\(name)\"",
        at: start)
    }
    guard seen.insert(name).inserted else {
      throw reader.error(.malformedStore, "property \"\(name)\" has two columns", at: start)
    }
    let kind = try reader.uint8("a relationship kind")
    guard kind == RelationshipKind(relationship).rawValue else {
      throw located(
        reader.error(
          .typeMismatch,
          "\(entity.name).\(name) is stored as relationship kind \(kind) but the model says"
            + " \(RelationshipKind(relationship).rawValue)", at: start + 4), entity.name, name)
    }
    let countsOffset = reader.offset
    let counts = try reader.slice(range.count * 4, "the target counts")
    var total = 0
    for index in 0..<range.count {
      let count = Int(counts.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self).littleEndian)
      total += count
      guard total <= reader.remaining / 4, kind != 0 || count <= 1 else {
        throw reader.error(
          .malformedStore, "object \(index)'s target count \(count) is impossible",
          at: countsOffset + index * 4)
      }
    }
    let allowed = blocks.map { other in
      model.destination(of: relationship).map { model.entity(other.entity, isKindOf: $0) }
        ?? false
    }
    for index in 0..<range.count {
      let count = Int(counts.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self).littleEndian)
      guard count > 0 else { continue }
      var targets: [Int64] = []
      targets.reserveCapacity(count)
      for _ in 0..<count {
        let targetOffset = reader.offset
        let target = Int(try reader.uint32("a target index"))
        guard target < records.count else {
          throw located(
            reader.error(
              .danglingReference,
              "target index \(target) is past the store's \(records.count) objects",
              at: targetOffset), entity.name, name)
        }
        guard allowed[blockIndex(of: target)] else {
          throw located(
            reader.error(
              .typeMismatch,
              "a target of \(entity.name).\(name) is a \(records[target].entityName), not a"
                + " \(relationship.destinationEntityName)", at: targetOffset), entity.name, name)
        }
        targets.append(records[target].id)
      }
      records[range.lowerBound + index].relationships[name] = targets
    }
  }

  /// The block holding object `index`.
  private func blockIndex(of index: Int) -> Int {
    var low = 0
    var high = blocks.count - 1
    while low < high {
      let middle = (low + high) / 2
      if blocks[middle].range.upperBound <= index { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
