import FolioModel
import FolioStores
import Foundation

/// What a child context's cache reads its rows from: the parent context.
protocol RowSource: AnyObject {
  /// The parent's object at `row` as a committed row: its values now, pending changes
  /// included; `nil` when the parent has no such object, or it is deleted there.
  func committedRow(_ row: Int32) -> CommittedRow?
  /// The rows of every object the parent holds and has not deleted.
  func liveRows() -> [Int32]
  /// Whether the parent's object at `row` has a permanent ID.
  func isPermanent(_ row: Int32) -> Bool
}

/// The committed state of a store: one ``CommittedRow`` per saved object, by row, with the
/// primary keys that name them. Every context on a coordinator works against its cache (a
/// context with no coordinator has one of its own): contexts read rows from it, keep them as
/// snapshots, and commit their saves into it; the store writes it.
///
/// Rows are numbers the cache gives out and never gives out again: a saved object's row, and
/// a row reserved for each object a context inserts, so an object has the same row in every
/// context and a relationship slot names its target the same way in all of them. A row's
/// primary key is the row plus one as long as the cache made every key itself; a store whose
/// keys are otherwise (gaps left by deleted objects, another program's numbering) keeps the
/// keys in a table by row, and the rows by key, from then on.
final class RowCache {
  let layouts: [EntityLayout]
  let layoutByName: [String: EntityLayout]
  /// The committed rows, by row; `nil` for a row reserved, never committed, or deleted.
  var rows: [CommittedRow?] = []
  /// For a child context's cache: the parent context, which the rows are read from as the
  /// child first needs them (and kept, as the child's snapshots). `nil` for a store's cache.
  private(set) weak var source: (any RowSource)?
  /// For a child context's cache: the root's cache, which gives out rows and keys and names
  /// the store, so an object has one row and one ID in a parent and all its children.
  private let keyOwner: RowCache?
  /// Primary keys by row, once some key is not its row plus one; 0 for a row with no key yet.
  var primaryKeys: [Int64]?
  /// Rows by primary key, kept with `primaryKeys`.
  var rowByPrimaryKey: RowIndex?
  /// The next primary key a commit gives out.
  var nextPrimaryKey: Int64 = 1
  /// The store's UUID: the identifier in its objects' permanent IDs.
  var identifier: String {
    get { keyOwner?.identifier ?? ownIdentifier }
    set {
      if let keyOwner { keyOwner.identifier = newValue } else { ownIdentifier = newValue }
    }
  }
  private var ownIdentifier: String
  /// Temporary IDs are this UUID with the object's row in its last eight bytes.
  var temporaryIDBase: UUID { keyOwner?.temporaryIDBase ?? ownTemporaryIDBase }
  private let ownTemporaryIDBase: UUID
  /// Bumped by every commit and load: a context that registered every row at another
  /// generation looks for new ones.
  var generation = 0
  /// How many rows are committed.
  private(set) var committedCount = 0
  /// The references deletions left behind, by the deleted row: the rows, and their slots,
  /// that still name it, since No Action and Deny leave the other side as it was (as Core
  /// Data's stores do). A context reads such a reference as nothing; a commit that puts a row
  /// at that number again lets them go first, so they do not come back to life.
  var deadReferences: [Int32: [(holder: Int32, slot: Int)]] = [:]
  /// Every holder in `deadReferences` (some may have let go since): a context reading one of
  /// these rows looks for references it cannot reach.
  var deadReferenceHolders: Set<Int32> = []
  /// The rows another writer's save gave objects this cache had, by row, while they are
  /// still the committed rows: a context that changed such an object conflicts with that save
  /// only where both changed the same property (see ``absorb(_:)``).
  var rowsFromOtherWriters: [Int32: CommittedRow] = [:]
  /// Whether the rows' versions are the store's (SQLite's `Z_OPT`), which a save in place
  /// compares, rather than counted from 1 at load.
  var versionsFromStore = false
  /// Rows whose objects were given permanent IDs before they were saved
  /// (``ManagedObjectContext/obtainPermanentIDs(for:)``): the store reserved their keys, so no
  /// writer gives them again, and taking in another writer's save leaves them these keys.
  /// Kept by the root's cache only.
  var reservedRows: Set<Int32> = []

  init(layouts: [EntityLayout]) {
    self.layouts = layouts
    self.layoutByName = Dictionary(uniqueKeysWithValues: layouts.map { ($0.name, $0) })
    let base = UUID()
    self.ownTemporaryIDBase = base
    self.ownIdentifier = base.uuidString
    self.keyOwner = nil
  }

  /// The cache of a child context of the context `source`, whose cache is `parent`.
  init(childOf parent: RowCache, source: any RowSource) {
    self.layouts = parent.layouts
    self.layoutByName = parent.layoutByName
    let owner = parent.keyOwner ?? parent
    self.keyOwner = owner
    self.ownTemporaryIDBase = owner.temporaryIDBase
    self.ownIdentifier = owner.identifier
    self.source = source
  }

  /// The cache that gives out rows and keys: the root's.
  var keys: RowCache { keyOwner ?? self }

  var isEmpty: Bool { committedCount == 0 }

  /// Forgets every row and key; a child's cache forgets its snapshots only.
  func clear() {
    guard keyOwner == nil else {
      rows = []
      committedCount = 0
      return
    }
    rows = []
    deadReferences = [:]
    deadReferenceHolders = []
    rowsFromOtherWriters = [:]
    primaryKeys = nil
    rowByPrimaryKey = nil
    nextPrimaryKey = 1
    keysAreSpaced = false
    keySpaceOfEntity = [:]
    reservedRows = []
    committedCount = 0
    generation &+= 1
  }

  /// The committed row `row`, if any; a child's cache reads it from the parent the first
  /// time.
  @inline(__always)
  func row(_ row: Int32) -> CommittedRow? {
    let index = Int(row)
    if index < rows.count, let found = rows[index] { return found }
    guard let source, let read = source.committedRow(row) else { return nil }
    set(read, at: row)
    return read
  }

  /// Forgets a child's snapshot of `row`, so the next read takes the parent's values again.
  func forget(_ row: Int32) {
    guard source != nil, Int(row) < rows.count else { return }
    set(nil, at: row)
  }

  /// A row for an object a context inserts: never committed yet, never given to another.
  func reserveRow() -> Int32 {
    if let keyOwner { return keyOwner.reserveRow() }
    precondition(rows.count < Int(Int32.max), "a store holds at most \(Int32.max) objects")
    rows.append(nil)
    primaryKeys?.append(0)
    return Int32(rows.count - 1)
  }

  /// Every row committed, or, for a child's cache, every row its parent holds.
  func committedRowNumbers() -> [Int32] {
    if let source { return source.liveRows() }
    return rows.indices.compactMap { rows[$0] == nil ? nil : Int32($0) }
  }

  /// Takes the rows and keys a load built, in place of none.
  func adoptLoadedRows(
    _ rows: [CommittedRow?], primaryKeys: [Int64]?, rowByPrimaryKey: RowIndex?,
    committedCount: Int
  ) {
    precondition(self.rows.isEmpty, "a cache adopts rows only while empty")
    self.rows = rows
    self.primaryKeys = primaryKeys
    self.rowByPrimaryKey = rowByPrimaryKey
    self.committedCount = committedCount
  }

  /// Puts `committed` (or nothing) at `row`.
  func set(_ committed: CommittedRow?, at row: Int32) {
    let index = Int(row)
    if index >= rows.count {
      rows.append(contentsOf: repeatElement(nil, count: index + 1 - rows.count))
    }
    if rows[index] == nil, committed != nil { committedCount += 1 }
    if rows[index] != nil, committed == nil { committedCount -= 1 }
    rows[index] = committed
  }

  // MARK: Keys

  /// The primary key of `row`, given or the one it will have.
  func primaryKey(ofRow row: Int32) -> Int64 {
    if let keyOwner { return keyOwner.primaryKey(ofRow: row) }
    if let primaryKeys, Int(row) < primaryKeys.count, primaryKeys[Int(row)] > 0 {
      return primaryKeys[Int(row)]
    }
    return Int64(row) + 1
  }

  /// Whether `row` has been given its primary key.
  func hasPrimaryKey(_ row: Int32) -> Bool {
    if let keyOwner { return keyOwner.hasPrimaryKey(row) }
    guard let primaryKeys else { return true }
    return Int(row) < primaryKeys.count && primaryKeys[Int(row)] > 0
  }

  /// The row whose primary key is `key`, if any.
  func row(forPrimaryKey key: Int64) -> Int32? {
    if let keyOwner { return keyOwner.row(forPrimaryKey: key) }
    if let rowByPrimaryKey { return rowByPrimaryKey[key] }
    guard key >= 1, key <= Int64(rows.count) else { return nil }
    return Int32(key - 1)
  }

  /// The committed row of a primary key with its version and entity, read from the cache's
  /// tables as they are now, for a pass over every row of a store (the lookup keeps them, so
  /// it should be gone before the cache changes); `nil` for a child's cache, which reads through
  /// its parent.
  func committedRowLookup() -> ((Int64) -> (row: Int32, version: UInt32, entity: Int)?)? {
    guard keyOwner == nil, source == nil else { return nil }
    let (rows, index) = (self.rows, rowByPrimaryKey)
    return { key in
      let row: Int32? =
        if let index { index[key] } else { key >= 1 && key <= rows.count ? Int32(key - 1) : nil }
      guard let row, Int(row) < rows.count, let committed = rows[Int(row)] else { return nil }
      return (row, committed.version, Int(committed.entity))
    }
  }

  /// Gives `rows` (reserved, not committed yet) their primary keys.
  func assignPrimaryKeys(toRows rows: some Sequence<Int32>) {
    if let keyOwner { return keyOwner.assignPrimaryKeys(toRows: rows) }
    guard primaryKeys != nil else {
      for row in rows { nextPrimaryKey = max(nextPrimaryKey, Int64(row) + 2) }
      return
    }
    for row in rows.sorted() where !hasPrimaryKey(row) {
      let key = nextPrimaryKey
      nextPrimaryKey += 1
      primaryKeys?[Int(row)] = key
      rowByPrimaryKey?[key] = row
    }
  }

  /// Whether the store numbers each entity hierarchy on its own: its keys carry their space
  /// (``StoreKeySpace``), and URIs show the key within it.
  var keysAreSpaced = false
  /// The key space of each entity's loaded objects, for a store whose keys are spaced.
  var keySpaceOfEntity: [String: Int] = [:]

  /// The number the URI of the object with primary key `key` shows.
  func uriNumber(forKey key: Int64) -> Int64 {
    keysAreSpaced ? StoreKeySpace.key(of: key) : key
  }

  /// The primary key of the object of `entity` whose URI shows `number`: the key itself for an
  /// object numbered in this session, or the key in its entity's space for one a spaced store
  /// gave; `entityOfRow` tells which entity a row's object is.
  func primaryKey(
    forURINumber number: Int64, entity: String, entityOfRow: (Int32) -> String?
  ) -> Int64 {
    guard keysAreSpaced else { return number }
    if let row = row(forPrimaryKey: number), entityOfRow(row) == entity { return number }
    guard let space = keySpaceOfEntity[entity], number <= StoreKeySpace.maximumKey else {
      return number
    }
    return StoreKeySpace.id(space: space, key: number)
  }

  /// The keys' state, to put back when a commit fails.
  var keyState: (primaryKeys: [Int64]?, rowByPrimaryKey: RowIndex?, next: Int64) {
    get {
      if let keyOwner { return keyOwner.keyState }
      return (primaryKeys, rowByPrimaryKey, nextPrimaryKey)
    }
    set {
      if let keyOwner {
        keyOwner.keyState = newValue
      } else {
        (primaryKeys, rowByPrimaryKey, nextPrimaryKey) = newValue
      }
    }
  }

  // MARK: Records

  /// Every committed row as a record, in row order: what a store writes.
  ///
  /// - Complexity: O(*n*) in the rows and their relationships.
  func records() -> [StoreRecord] {
    var records: [StoreRecord] = []
    records.reserveCapacity(committedCount)
    for (index, committed) in rows.enumerated() {
      guard let committed else { continue }
      records.append(record(of: committed, at: Int32(index)))
    }
    return records
  }

  /// The committed row `committed`, at `row`, as a record: its persistent attributes and the
  /// relationships' targets that are committed (every target, with `allTargets`: a row as it
  /// was before a commit, whose targets may have gone since).
  func record(of committed: CommittedRow, at row: Int32, allTargets: Bool = false)
    -> StoreRecord
  {
    let layout = layouts[committed.entity]
    let slots = committed.slots
    var record = StoreRecord(entityName: layout.name, id: primaryKey(ofRow: row))
    record.version = committed.version
    for (slot, property) in layout.properties.enumerated() {
      switch property.kind {
      case .attribute(let attribute):
        guard !attribute.isTransient,
          let value = slots[slot].attributeValue(as: attribute.attributeType)
        else { continue }
        record.attributes[attribute.name] = value
      case .relationship(let relationship):
        guard !relationship.description.isTransient else { continue }
        var targets: [Int64] = []
        switch slots[slot] {
        case .object(let target) where allTargets || self.row(target) != nil:
          targets = [primaryKey(ofRow: target)]
        case .objects(let set):
          targets.reserveCapacity(set.count)
          for target in set.rows where allTargets || self.row(target) != nil {
            targets.append(primaryKey(ofRow: target))
          }
        default:
          break
        }
        if !targets.isEmpty { record.relationships[relationship.name] = targets }
      case .fetched:
        continue
      }
    }
    return record
  }

  /// The next primary key to write in the store's metadata: past every key given out.
  var nextObjectID: Int64 {
    if primaryKeys == nil { return max(nextPrimaryKey, Int64(rows.count) + 1) }
    return nextPrimaryKey
  }
}
