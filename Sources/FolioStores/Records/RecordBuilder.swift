import FolioModel

/// Makes the records of one entity as every store reader makes them: attribute values in rows
/// of shared blocks, named by one ``RecordNames`` per set of attributes present; relationships
/// either in shared target blocks, named the same way, or in dictionaries copied from a
/// template per set of relationships present. No dictionary is hashed per record.
///
/// A reader writes a record's values itself (each format reads them its own way), into the
/// block ``room(for:in:)`` gives, then asks the builder for the record. Sets of columns are
/// masks, one bit per column, so an entity has at most ``maximumColumns`` attributes and as
/// many relationships for its rows and links to be shared; a reader keeps the records of a
/// wider entity in dictionaries.
package struct RecordBuilder {
  package let entityName: String
  @usableFromInline var rowNames: RowNamesCache
  @usableFromInline var linkNames: RowNamesCache
  @usableFromInline var templates: TemplateCache<[Int64]>
  /// The block ``record(id:values:targets:)`` writes rows in.
  private var ownBlock: RowBlock?

  /// The most attributes, and relationships, whose rows and links the builder shares: one bit
  /// each in a mask.
  package static let maximumColumns = UInt64.bitWidth

  /// A builder for records of `entityName` with attributes `attributeNames` and relationships
  /// `relationshipNames`.
  package init(entityName: String, attributeNames: [String], relationshipNames: [String]) {
    self.entityName = entityName
    rowNames = RowNamesCache(names: attributeNames)
    linkNames = RowNamesCache(names: relationshipNames)
    templates = TemplateCache(keys: relationshipNames, placeholder: [])
  }

  /// The attributes' names, in column order.
  package var attributeNames: [String] { rowNames.names }
  /// The relationships' names, in column order.
  package var relationshipNames: [String] { linkNames.names }

  /// Whether the entity's attribute values can go in shared rows.
  package var sharesRows: Bool { rowNames.names.count <= Self.maximumColumns }
  /// Whether the entity's relationships can go in shared links or templates.
  package var sharesLinks: Bool { linkNames.names.count <= Self.maximumColumns }
  /// Whether both can: the entity is narrow enough for every shared form.
  package var isNarrow: Bool { sharesRows && sharesLinks }

  // MARK: Rows

  /// A block with room for a row of `width` values: `block` when it has room, else a new one,
  /// which becomes `block`.
  @inlinable @inline(__always)
  package static func room(for width: Int, in block: inout RowBlock?) -> RowBlock {
    let room = RowBlock.room(for: width, in: block)
    block = room
    return room
  }

  /// The record `id` whose values are the row from `start` in `block`, one for each attribute
  /// in `mask`, in column order; with no values when `mask` is 0.
  @inlinable @inline(__always)
  package mutating func record(
    id: Int64, mask: UInt64, block: RowBlock?, start: Int, links: RecordLinks
  ) -> StoreRecord {
    guard mask != 0, let block else {
      return StoreRecord(entityName: entityName, id: id, links: links)
    }
    return StoreRecord(
      entityName: entityName, id: id, names: rowNames.names(for: mask), block: block,
      start: start, links: links)
  }

  // MARK: Links

  /// Links kept in `block` (a new one when it has no room): `targets` holds, for each
  /// relationship in `mask` in column order, its number of targets and then their IDs.
  @inlinable @inline(__always)
  package mutating func sharedLinks(mask: UInt64, targets: [Int64], in block: inout TargetBlock?)
    -> RecordLinks
  {
    let room = TargetBlock.room(for: targets.count, in: block)
    block = room
    let start = room.end
    for target in targets { room.append(target) }
    return .shared(SharedNames(linkNames.names(for: mask), keptBy: room), room, start)
  }

  /// The template of the relationship dictionaries of records with the relationships in
  /// `mask`, which is not 0: a record's dictionary is a copy with the targets of each column
  /// set at `slots[column]`.
  @inlinable @inline(__always)
  package mutating func template(for mask: UInt64) -> KeyedTemplate<[Int64]> {
    templates.select(mask)
    return templates.current
  }

  // MARK: Records from arrays

  /// The record `id` whose attribute `i` is `values[i]` (left out when `nil`) and whose
  /// relationship `j` holds `targets[j]` (left out when empty), for code outside the readers
  /// that makes records by the million (a migration). The entity must be narrow.
  package mutating func record(id: Int64, values: [AttributeValue?], targets: [[Int64]])
    -> StoreRecord
  {
    precondition(isNarrow, "a record builder makes records of narrow entities only")
    var relationships: [String: [Int64]] = [:]
    var targetMask: UInt64 = 0
    for column in targets.indices where !targets[column].isEmpty {
      targetMask |= 1 << UInt64(column)
    }
    if targetMask != 0 {
      let template = template(for: targetMask)
      relationships = template.dictionary
      var rest = targetMask
      while rest != 0 {
        let column = rest.trailingZeroBitCount
        rest &= rest - 1
        relationships.values[template.slots[column]] = targets[column]
      }
    }
    var attributeMask: UInt64 = 0
    for column in values.indices where values[column] != nil {
      attributeMask |= 1 << UInt64(column)
    }
    guard attributeMask != 0 else {
      return record(id: id, mask: 0, block: nil, start: 0, links: .dictionary(relationships))
    }
    let block = Self.room(for: attributeMask.nonzeroBitCount, in: &ownBlock)
    let start = block.end
    for value in values {
      if let value { block.append(value) }
    }
    return record(
      id: id, mask: attributeMask, block: block, start: start, links: .dictionary(relationships))
  }
}
