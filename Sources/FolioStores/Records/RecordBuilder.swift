import FolioModel

/// Makes many records of one entity as the store readers make theirs: attribute values in rows
/// of shared blocks, named by one ``RecordNames`` per set of attributes present, and
/// relationships copied from a template per set of relationships present, so that no
/// dictionary is hashed per record. For code outside the readers that makes records by the
/// million (a migration).
package struct RecordBuilder {
  package let entityName: String
  private var rowNames: RowNamesCache
  private var templates: TemplateCache<[Int64]>
  private var rowBlock: RowBlock?
  private let attributeCount: Int
  private let relationshipCount: Int

  /// The most attributes, and relationships, a builder takes: one bit each in a mask. Every
  /// store reader shares rows and templates up to this many columns, and reads an entity with
  /// more into dictionaries.
  package static let maximumColumns = UInt64.bitWidth

  /// A builder for records of `entityName` with attributes `attributeNames` and relationships
  /// `relationshipNames`, each at most ``maximumColumns``.
  package init(entityName: String, attributeNames: [String], relationshipNames: [String]) {
    precondition(
      attributeNames.count <= Self.maximumColumns
        && relationshipNames.count <= Self.maximumColumns,
      "a record builder takes at most 64 attributes and 64 relationships")
    self.entityName = entityName
    rowNames = RowNamesCache(names: attributeNames)
    templates = TemplateCache(keys: relationshipNames, placeholder: [])
    attributeCount = attributeNames.count
    relationshipCount = relationshipNames.count
  }

  /// The record `id` whose attribute `i` is `values[i]` (left out when `nil`) and whose
  /// relationship `j` holds `targets[j]` (left out when empty).
  package mutating func record(id: Int64, values: [AttributeValue?], targets: [[Int64]])
    -> StoreRecord
  {
    var relationships: [String: [Int64]] = [:]
    var targetMask: UInt64 = 0
    for column in 0..<relationshipCount where !targets[column].isEmpty {
      targetMask |= 1 << UInt64(column)
    }
    if targetMask != 0 {
      templates.select(targetMask)
      relationships = templates.current.dictionary
      var rest = targetMask
      while rest != 0 {
        let column = rest.trailingZeroBitCount
        rest &= rest - 1
        relationships.values[templates.current.slots[column]] = targets[column]
      }
    }
    var attributeMask: UInt64 = 0
    for column in 0..<attributeCount where values[column] != nil {
      attributeMask |= 1 << UInt64(column)
    }
    guard attributeMask != 0 else {
      return StoreRecord(entityName: entityName, id: id, relationships: relationships)
    }
    let block = RowBlock.room(for: attributeMask.nonzeroBitCount, in: rowBlock)
    rowBlock = block
    let start = block.end
    for column in 0..<attributeCount {
      if let value = values[column] { block.append(value) }
    }
    return StoreRecord(
      entityName: entityName, id: id, names: rowNames.names(for: attributeMask), block: block,
      start: start, links: .dictionary(relationships))
  }
}
