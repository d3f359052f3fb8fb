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
/// form as it is. Its relationships' targets may likewise be a row in a block of IDs that many
/// records share, which ``relationships`` turns into a dictionary when asked.
public struct StoreRecord: Sendable, Hashable {
  /// The name of the object's entity.
  public var entityName: String
  /// The object's ID in its store, unique in the store and at least 1.
  public var id: Int64
  /// The IDs of each persistent relationship's targets, by name; in order for an ordered
  /// relationship, at most one for a to-one; an empty relationship is left out.
  public var relationships: [String: [Int64]] {
    get { links.dictionary }
    _modify {
      var dictionary = links.dictionary
      links = .dictionary([:])
      defer { links = .dictionary(dictionary) }
      yield &dictionary
    }
  }
  /// The attribute values as the record holds them.
  @usableFromInline package var values: RecordValues
  /// The relationships' targets as the record holds them.
  @usableFromInline package var links: RecordLinks
  /// The row's version where the store keeps one (SQLite's optimistic-locking counter,
  /// `Z_OPT`): the version a save in place expects to find when it changes the row. 0 where
  /// the store keeps none. Not part of the record's equality: two records of one object with
  /// the same values are the same record.
  package var version: UInt32 = 0

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
    self.links = .dictionary(relationships)
  }

  /// A record whose attribute values are `row`, named in order by `names`, in a block of
  /// their own.
  package init(
    entityName: String, id: Int64, names: RecordNames, row: [AttributeValue],
    relationships: [String: [Int64]]
  ) {
    precondition(row.count == names.names.count, "a row's values and names differ in number")
    let block = RowBlock.room(for: row.count, in: nil)
    for value in row { block.append(value) }
    self.init(
      entityName: entityName, id: id, names: names, block: block, start: 0,
      links: .dictionary(relationships))
  }

  /// A record whose attribute values are in `block` from `start` on, named in order by
  /// `names`; the caller has written them.
  @inlinable
  package init(
    entityName: String, id: Int64, names: RecordNames, block: RowBlock, start: Int,
    links: RecordLinks
  ) {
    precondition(start + names.names.count <= block.end, "a row's values are not all written")
    self.entityName = entityName
    self.id = id
    self.values = .shared(SharedNames(names, keptBy: block), block, start)
    self.links = links
  }

  /// A record whose relationships' targets are `targets`, named in order by `names`, in a
  /// block of their own.
  package init(
    entityName: String, id: Int64, attributes: [String: AttributeValue],
    linkNames names: RecordNames,
    targets: [[Int64]]
  ) {
    precondition(targets.count == names.names.count, "targets and names differ in number")
    let block = TargetBlock.room(for: targets.reduce(0) { $0 + 1 + $1.count }, in: nil)
    for list in targets {
      block.append(Int64(list.count))
      for target in list { block.append(target) }
    }
    self.init(entityName: entityName, id: id, attributes: attributes)
    links = .shared(SharedNames(names, keptBy: block), block, 0)
  }

  /// A record with no attribute values and `links` for its relationships.
  @inlinable
  package init(entityName: String, id: Int64, links: RecordLinks) {
    self.entityName = entityName
    self.id = id
    self.values = .dictionary([:])
    self.links = links
  }

  /// The value of attribute `name`, or `nil` when the record has none.
  public func attribute(_ name: String) -> AttributeValue? {
    switch values {
    case .dictionary(let dictionary): dictionary[name]
    case .shared(let names, let block, let start):
      names.position(of: name).map { block[start + $0] }
    }
  }

  /// The IDs of relationship `name`'s targets, or `nil` when the record has none.
  public func targets(of name: String) -> [Int64]? {
    switch links {
    case .dictionary(let dictionary): return dictionary[name]
    case .shared(let names, let block, let start):
      guard let index = names.position(of: name) else { return nil }
      var position = start
      for _ in 0..<index { position += 1 + Int(block[position]) }
      return (0..<Int(block[position])).map { block[position + 1 + $0] }
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
  @inlinable @inline(__always)
  public func forEachAttribute<Failure: Error>(
    _ body: (String, AttributeValue) throws(Failure) -> Void
  ) throws(Failure) {
    switch values {
    case .dictionary(let dictionary):
      for (name, value) in dictionary { try body(name, value) }
    case .shared(let names, let block, let start):
      for (offset, name) in names.names.enumerated() {
        try body(name, block[start + offset])
      }
    }
  }

  public static func == (left: StoreRecord, right: StoreRecord) -> Bool {
    guard left.entityName == right.entityName, left.id == right.id,
      left.relationships == right.relationships
    else { return false }
    if case .shared(let leftNames, let leftBlock, let leftStart) = left.values,
      case .shared(let rightNames, let rightBlock, let rightStart) = right.values,
      leftNames.address == rightNames.address
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

/// The names of the values in rows that several records share, in row order.
@usableFromInline package final class RecordNames: Sendable {
  @usableFromInline package let names: [String]
  private let positions: [String: Int]

  package init(_ names: [String]) {
    self.names = names
    // A few names are found faster by comparing them in turn than by hashing.
    positions =
      names.count > 8
      ? Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
      : [:]
  }

  /// The position of `name` in a row.
  package func position(of name: String) -> Int? {
    names.count > 8 ? positions[name] : names.firstIndex(of: name)
  }
}

/// A record's attribute values: a dictionary of its own, or a row with shared names in a block
/// of values that many records share, from its start.
@usableFromInline package enum RecordValues: Sendable {
  case dictionary([String: AttributeValue])
  case shared(SharedNames, RowBlock, Int)

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

/// A record's relationships' targets: a dictionary of its own, or a row with shared names in a
/// block of IDs that many records share: from its start, for each name in turn, the number of
/// targets and then their IDs.
@usableFromInline package enum RecordLinks: Sendable {
  case dictionary([String: [Int64]])
  case shared(SharedNames, TargetBlock, Int)

  package var dictionary: [String: [Int64]] {
    switch self {
    case .dictionary(let dictionary): return dictionary
    case .shared(let names, let block, let start):
      var dictionary: [String: [Int64]] = [:]
      var position = start
      for name in names.names {
        let count = Int(block[position])
        dictionary[name] = (0..<count).map { block[position + 1 + $0] }
        position += 1 + count
      }
      return dictionary
    }
  }
}

/// The names of a row in a block, held by the block rather than by each record: the records
/// of a store share a few names, and counting every record's reference to them would have the
/// thread reading records and the one taking them contend for one counter.
@usableFromInline package struct SharedNames: @unchecked Sendable {
  @usableFromInline let reference: Unmanaged<RecordNames>

  /// `names`, which `block` keeps for as long as it lives.
  @inlinable
  package init<Element>(_ names: RecordNames, keptBy block: RecordBlock<Element>) {
    block.keep(names)
    reference = .passUnretained(names)
  }

  package var recordNames: RecordNames { reference.takeUnretainedValue() }
  /// The names, in row order. Read, like ``position(of:)``, without counting a reference to
  /// the names object, which the reading thread counts at every record.
  @inlinable
  package var names: [String] { reference._withUnsafeGuaranteedRef { $0.names } }

  /// The position of `name` in the row.
  package func position(of name: String) -> Int? {
    reference._withUnsafeGuaranteedRef { $0.position(of: name) }
  }
  /// The names' address, which no other names take while a record reads them.
  package var address: UnsafeMutableRawPointer { reference.toOpaque() }
}
