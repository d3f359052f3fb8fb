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

  /// A record whose attribute values are `row`, named in order by `names`.
  init(
    entityName: String, id: Int64, names: RecordNames, row: [AttributeValue],
    relationships: [String: [Int64]]
  ) {
    precondition(row.count == names.names.count, "a row's values and names differ in number")
    self.entityName = entityName
    self.id = id
    self.values = .row(names, row)
    self.relationships = relationships
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
    case .row(let names, let row): names.position(of: name).map { row[$0] }
    case .shared(let names, let block, let start):
      names.position(of: name).map { block[start + $0] }
    }
  }

  /// The number of attribute values the record holds.
  public var attributeCount: Int {
    switch values {
    case .dictionary(let dictionary): dictionary.count
    case .row(_, let row): row.count
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
    case .row(let names, let row):
      for (name, value) in zip(names.names, row) { try body(name, value) }
    case .shared(let names, let block, let start):
      for (offset, name) in names.names.enumerated() { try body(name, block[start + offset]) }
    }
  }

  public static func == (left: StoreRecord, right: StoreRecord) -> Bool {
    guard left.entityName == right.entityName, left.id == right.id,
      left.relationships == right.relationships
    else { return false }
    if let (leftNames, leftValues) = left.values.sharedNames,
      let (rightNames, rightValues) = right.values.sharedNames, leftNames === rightNames
    {
      return leftNames.names.indices.allSatisfy { leftValues($0) == rightValues($0) }
    }
    return left.attributes == right.attributes
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

/// A record's attribute values: a dictionary of its own, or a row with shared names.
private enum RecordValues: Sendable {
  case dictionary([String: AttributeValue])
  case row(RecordNames, [AttributeValue])
  /// A row in a block that many records share, from its start.
  case shared(RecordNames, RowBlock, Int)

  var dictionary: [String: AttributeValue] {
    switch self {
    case .dictionary(let dictionary): return dictionary
    case .row(let names, let row):
      return Dictionary(
        zip(names.names, row).map { ($0, $1) }, uniquingKeysWith: { first, _ in first })
    case .shared(let names, let block, let start):
      return Dictionary(
        names.names.enumerated().map { ($1, block[start + $0]) },
        uniquingKeysWith: { first, _ in first })
    }
  }

  /// A row's names, and its value at each position.
  var sharedNames: (RecordNames, (Int) -> AttributeValue)? {
    switch self {
    case .dictionary: nil
    case .row(let names, let row): (names, { row[$0] })
    case .shared(let names, let block, let start): (names, { block[start + $0] })
    }
  }
}
