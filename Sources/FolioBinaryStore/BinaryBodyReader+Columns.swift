internal import CFolioSupport
import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

// The first pass over a block: its attribute and relationship columns, read into arrays.
extension BinaryBodyReader {
  mutating func readAttributeColumns(
    of entity: EntityDescription, objects: Int, seen: inout Set<String>
  ) throws(StoreError) -> AttributeColumns {
    let count = try reader.count("the attribute column count", elementSize: 5)
    var columns = AttributeColumns()
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
      let type = attribute.attributeType
      let tag = try reader.uint8("a type tag")
      guard tag == type.binaryTag else {
        let stored = AttributeType(binaryTag: tag)?.xcodeName ?? "unknown tag \(tag)"
        throw located(
          reader.error(
            .typeMismatch,
            "\(entity.name).\(name) is stored as \(stored) but the model says"
              + " \(type.xcodeName)", at: start + 4), entity.name, name)
      }
      let bitmapOffset = reader.offset
      let bitmap = try reader.slice((objects + 7) / 8, "a presence bitmap")
      if objects % 8 != 0, let last = bitmap.last, last >> UInt8(objects % 8) != 0 {
        throw reader.error(
          .malformedStore, "the presence bitmap of \(name) sets bits past its objects",
          at: bitmapOffset + bitmap.count - 1)
      }
      var present = 0
      for byte in bitmap { present += byte.nonzeroBitCount }
      columns.names.append(name)
      columns.types.append(type)
      columns.composites.append(attribute.compositeName)
      columns.bitmaps.append(bitmap)
      columns.offsets.append(reader.offset)
      var decoded: [AttributeValue] = []
      if let width = type.binaryWidth {
        // Fixed-width values are decoded by the second pass; here they are only stepped over,
        // which proves that all of them lie within the content.
        _ = try reader.slice(present * width, "\(present) values of \(name)")
      } else {
        decoded.reserveCapacity(min(present, reader.remaining))
        for _ in 0..<present {
          decoded.append(try values.decode(&reader, as: type, composite: attribute.compositeName))
        }
      }
      columns.decoded.append(decoded)
      columns.nextDecoded.append(0)
    }
    return columns
  }

  /// The next value of attribute column `column`.
  @inline(__always)
  func value(of columns: inout AttributeColumns, _ column: Int) throws(StoreError)
    -> AttributeValue
  {
    // The first pass proved that the column's fixed-width values lie within the content.
    let bytes = reader.bytes
    let offset = columns.offsets[column]
    func load<T: FixedWidthInteger>(_: T.Type) -> T {
      columns.offsets[column] = offset + MemoryLayout<T>.size
      return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }
    switch columns.types[column] {
    case .string:
      let index = Int(load(UInt32.self))
      guard index < values.strings.count else {
        throw reader.error(
          .malformedStore,
          "string index \(index) is past the string table's \(values.strings.count) strings",
          at: offset)
      }
      return .string(values.strings[index])
    case .double: return .double(Double(bitPattern: load(UInt64.self)))
    case .date:
      return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: load(UInt64.self))))
    case .integer16: return .integer(Int64(Int16(bitPattern: load(UInt16.self))))
    case .integer32: return .integer(Int64(Int32(bitPattern: load(UInt32.self))))
    case .integer64: return .integer(Int64(bitPattern: load(UInt64.self)))
    case .float: return .float(Float(bitPattern: load(UInt32.self)))
    case .binaryData, .transformable, .composite, .undefined:
      let value = columns.decoded[column][columns.nextDecoded[column]]
      columns.nextDecoded[column] += 1
      return value
    case .boolean, .uuid, .decimal, .uri, .objectID:
      var cursor = reader
      cursor.seek(to: offset)
      let value = try values.decode(
        &cursor, as: columns.types[column], composite: columns.composites[column])
      columns.offsets[column] = cursor.offset
      return value
    }
  }

  mutating func readRelationshipColumn(
    of entity: EntityDescription, range: Range<Int>, seen: inout Set<String>,
    into columns: inout RelationshipColumns
  ) throws(StoreError) {
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
    let targetsOffset = reader.offset
    let targets = try reader.slice(total * 4, "the targets of \(name)")
    // The object indices a target may have: the blocks of the destination or its subentities,
    // adjacent blocks merged.
    var allowed: [Range<Int>] = []
    if let destination = model.destination(of: relationship) {
      for block in blocks where model.entity(block.entity, isKindOf: destination) {
        if let last = allowed.last, last.upperBound == block.range.lowerBound {
          allowed[allowed.count - 1] = last.lowerBound..<block.range.upperBound
        } else {
          allowed.append(block.range)
        }
      }
    }
    columns.relationships.append(relationship)
    columns.names.append(name)
    columns.counts.append(counts)
    columns.targets.append(targets)
    columns.targetsOffsets.append(targetsOffset)
    columns.next.append(0)
    columns.firstAllowed.append(allowed.first ?? 0..<0)
    columns.allowed.append(allowed)
  }
}
