import FolioModel

/// One object as a store keeps it: its entity, its store-local ID, its persistent attribute
/// values and its relationships' targets by ID.
///
/// Stores speak records, never managed objects: a context hands a store the full set of
/// records to write, and turns the records a store reads back into objects. Transient
/// properties never appear in a record.
public struct StoreRecord: Sendable, Hashable {
  /// The name of the object's entity.
  public var entityName: String
  /// The object's ID in its store, unique in the store and at least 1.
  public var id: Int64
  /// The values of the object's persistent attributes, by name; an empty value is left out.
  public var attributes: [String: AttributeValue]
  /// The IDs of each persistent relationship's targets, by name; in order for an ordered
  /// relationship, at most one for a to-one; an empty relationship is left out.
  public var relationships: [String: [Int64]]

  /// Creates a record.
  public init(
    entityName: String, id: Int64, attributes: [String: AttributeValue] = [:],
    relationships: [String: [Int64]] = [:]
  ) {
    self.entityName = entityName
    self.id = id
    self.attributes = attributes
    self.relationships = relationships
  }
}
