import FolioModel

/// One object as a store keeps it: its entity, its store-local ID, its persistent attribute
/// values and its relationships' targets by ID.
///
/// Stores speak records, never managed objects: a context hands a store the full set of
/// records to write, and turns the records a store reads back into objects. Transient
/// properties never appear in a record.
///
/// A record that a store reads may keep its attribute values in a row whose names it shares
/// with the other records of its entity, rather than in a dictionary of its own: a dictionary
/// of three values takes about 240 bytes, a row about 110. ``attributes`` builds the dictionary
/// when asked; ``attribute(_:)``, ``attributeCount`` and ``forEachAttribute(_:)`` read either
/// form as it is.
public struct StoreRecord: Sendable, Hashable {
  /// The name of the object's entity.
  public var entityName: String
  /// The object's ID in its store, unique in the store and at least 1.
  public var id: Int64
  /// The IDs of each persistent relationship's targets, by name; in order for an ordered
  /// relationship, at most one for a to-one; an empty relationship is left out.
  public var relationships: [String: [Int64]]
  private var values: RecordValues

  /// The values of the object's persistent attributes, by name; an empty value is left out.
  public var attributes: [String: AttributeValue] {
    get { values.dictionary }
    _modify {
      var dictionary = values.dictionary
      values = .dictionary([:])
      defer { values = .dictionary(dictionary) }
      yield &dictionary
    }
  }

  /// Creates a record.
  public init(
    entityName: String, id: Int64, attributes: [String: AttributeValue] = [:],
    relationships: [String: [Int64]] = [:]
  ) {
    self.entityName = entityName
    self.id = id
    self.values = .dictionary(attributes)
    self.relationships = relationships
  }

  /// A record whose attribute values are `row`, named in order by `names`, in a block of
  /// their own.
  init(
    entityName: String, id: Int64, names: RecordNames, row: [AttributeValue],
    relationships: [String: [Int64]]
  ) {
    precondition(row.count == names.names.count, "a row's values and names differ in number")
    let block = RowBlock.room(for: row.count, in: nil)
    for value in row { block.append(value) }
    self.init(
      entityName: entityName, id: id, names: names, block: block, start: 0,
      relationships: relationships)
  }

  /// A record whose attribute values are in `block` from `start` on, named in order by
  /// `names`; the caller has written them.
  init(
    entityName: String, id: Int64, names: RecordNames, block: RowBlock, start: Int,
    relationships: [String: [Int64]]
  ) {
    precondition(start + names.names.count <= block.end, "a row's values are not all written")
    self.entityName = entityName
    self.id = id
    self.values = .shared(names, block, start)
    self.relationships = relationships
  }

  /// The value of attribute `name`, or `nil` when the record has none.
  public func attribute(_ name: String) -> AttributeValue? {
    switch values {
    case .dictionary(let dictionary): dictionary[name]
    case .shared(let names, let block, let start):
      names.position(of: name).map { block[start + $0] }
    }
  }

  /// The number of attribute values the record holds.
  public var attributeCount: Int {
    switch values {
    case .dictionary(let dictionary): dictionary.count
    case .shared(let names, _, _): names.names.count
    }
  }

  /// Calls `body` with each attribute's name and value, in no particular order.
  @inline(__always)
  public func forEachAttribute<Failure: Error>(
    _ body: (String, AttributeValue) throws(Failure) -> Void
  ) throws(Failure) {
    switch values {
    case .dictionary(let dictionary):
      for (name, value) in dictionary { try body(name, value) }
    case .shared(let names, let block, let start):
      for (offset, name) in names.names.enumerated() { try body(name, block[start + offset]) }
    }
  }

  public static func == (left: StoreRecord, right: StoreRecord) -> Bool {
    guard left.entityName == right.entityName, left.id == right.id,
      left.relationships == right.relationships
    else { return false }
    if case .shared(let leftNames, let leftBlock, let leftStart) = left.values,
      case .shared(let rightNames, let rightBlock, let rightStart) = right.values,
      leftNames === rightNames
    {
      return leftNames.names.indices.allSatisfy {
        leftBlock[leftStart + $0] == rightBlock[rightStart + $0]
      }
    }
    return left.attributes == right.attributes
  }

  /// Whether `self` and `other` are the same record to the bit: as `==`, but with attribute
  /// values compared by ``FolioModel/AttributeValue/isIdentical(to:)``, so that a record
  /// holding a NaN is identical to a copy of itself (`==` says it differs from itself).
  package func isIdentical(to other: StoreRecord) -> Bool {
    guard entityName == other.entityName, id == other.id, relationships == other.relationships,
      attributeCount == other.attributeCount
    else { return false }
    var same = true
    forEachAttribute { name, value in
      if same, !(other.attribute(name).map { value.isIdentical(to: $0) } ?? false) {
        same = false
      }
    }
    return same
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(entityName)
    hasher.combine(id)
    hasher.combine(attributes)
    hasher.combine(relationships)
  }
}

/// The names of the attribute values in rows that several records share, in row order.
final class RecordNames: Sendable {
  let names: [String]
  private let positions: [String: Int]

  init(_ names: [String]) {
    self.names = names
    // A few names are found faster by comparing them in turn than by hashing.
    positions =
      names.count > 8
      ? Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
      : [:]
  }

  /// The position of `name` in a row.
  func position(of name: String) -> Int? {
    names.count > 8 ? positions[name] : names.firstIndex(of: name)
  }
}

/// A record's attribute values: a dictionary of its own, or a row with shared names in a block
/// of values that many records share, from its start.
private enum RecordValues: Sendable {
  case dictionary([String: AttributeValue])
  case shared(RecordNames, RowBlock, Int)

  var dictionary: [String: AttributeValue] {
    switch self {
    case .dictionary(let dictionary): return dictionary
    case .shared(let names, let block, let start):
      return Dictionary(
        names.names.enumerated().map { ($1, block[start + $0]) },
        uniquingKeysWith: { first, _ in first })
    }
  }
}
