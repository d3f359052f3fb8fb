import FolioModel
import Foundation

/// What a save changed, for a store that writes only that (``IncrementalStoreFormat``).
public struct StoreChanges {
  /// The objects the save inserted.
  public var inserted: [StoreRecord] = []
  /// The objects the save changed: each as the store held it before, and as it is now.
  public var updated: [(old: StoreRecord, new: StoreRecord)] = []
  /// The objects the save deleted, as the store held them.
  public var deleted: [StoreRecord] = []
  /// The next object ID the store would give out, above every record's ID.
  public var nextObjectID: Int64
  /// Who made the save, for a store that keeps persistent history: the saving context's
  /// `transactionAuthor` and name. The defaults are `nil`.
  public var author: String?
  public var contextName: String?
  /// Any object's record as it is after the save, by ID; `nil` for an object not in the store.
  /// What a change needs beyond the changed objects: the order of a list another object holds.
  public var record: (Int64) -> StoreRecord?

  public init(nextObjectID: Int64, record: @escaping (Int64) -> StoreRecord?) {
    self.nextObjectID = nextObjectID
    self.record = record
  }

  /// Whether the save changed nothing.
  public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// A store format that saves a change by writing what changed, in place, rather than the
/// whole store anew: Core Data's SQLite store.
///
/// A coordinator saves a store of such a format that exists already with
/// ``save(_:metadata:model:to:)``; a new file, or a store moved to another file ("save as"),
/// is written whole with ``StoreFormat/write(_:model:to:)``.
public protocol IncrementalStoreFormat: StoreFormat {
  /// Applies `changes` to the store in the file at `url`, whose objects fit `model`, all or
  /// nothing: an interrupted save leaves the store as it was before or as it is after, never
  /// a mix. `metadata` is the store's, as the coordinator holds it.
  ///
  /// - Throws: `StoreError.writeFailed` and format errors; the store is then as it was.
  func save(
    _ changes: StoreChanges, metadata: StoreMetadata, model: ManagedObjectModel, to url: URL
  ) throws(StoreError)

  /// A connection to the store at `url` that a coordinator keeps while the store is open: it
  /// tells whether another connection changed the store, and its saves hold the store's write
  /// lock from before the coordinator looks for such changes until they are written.
  ///
  /// The default has none (`nil`): the coordinator then compares the file's stamp.
  ///
  /// - Throws: `StoreError` when the store cannot be opened for writing.
  func connect(to url: URL) throws(StoreError) -> (any IncrementalStoreConnection)?
}

extension IncrementalStoreFormat {
  public func connect(to url: URL) throws(StoreError) -> (any IncrementalStoreConnection)? {
    nil
  }
}

/// What a save through an ``IncrementalStoreConnection`` did.
public enum IncrementalSaveResult: Sendable, Equatable {
  /// The changes are written, for the caller to commit.
  case written
  /// Nothing is written: another writer changed or deleted the objects with these IDs, or
  /// gave their keys, since the save's records were read (their rows' versions moved, as
  /// Core Data's optimistic locking says). The caller reads them again and merges.
  case stale([Int64])
}

/// A connection to a store that saves in place, kept open by a coordinator: see
/// ``IncrementalStoreFormat/connect(to:)``. `Formats/shared-writers.md` says how a save uses it.
public protocol IncrementalStoreConnection: AnyObject {
  /// A number that changes whenever another connection, in this process or another, commits
  /// a change to the store, and not when this one does (SQLite's `PRAGMA data_version`).
  func changeCounter() throws(StoreError) -> Int64

  /// Takes the store's write lock, waiting a while for another writer to finish.
  ///
  /// - Throws: `StoreError.busy` when another writer kept it.
  func beginWriting() throws(StoreError)

  /// Writes `changes` inside the write begun, as ``IncrementalStoreFormat/save(_:metadata:model:to:)``
  /// does, changing and deleting each object's row only at the version its record was read
  /// with (optimistic locking). When another writer moved one, nothing is written and the
  /// result names the objects; the write lock is still held.
  func save(_ changes: StoreChanges, metadata: StoreMetadata, model: ManagedObjectModel)
    throws(StoreError) -> IncrementalSaveResult

  /// Records, inside the write begun, that `keys` are given to objects of the entities named,
  /// so no writer gives them again (each entity hierarchy's `Z_MAX` raised past them), though
  /// the objects are not saved yet.
  ///
  /// - Throws: `StoreError.malformedStore` when an entity is not a concrete entity of the
  ///   store's model.
  func reserveKeys(_ keys: [(entityName: String, key: Int64)], model: ManagedObjectModel)
    throws(StoreError)

  /// Ends the write begun, keeping what it wrote.
  func commitWriting() throws(StoreError)

  /// Ends the write begun, if any, dropping what it wrote.
  func rollBackWriting()

  /// Where the connection hears that another writer committed, for a watch to wait on rather
  /// than ask ``changeCounter()`` at intervals; `nil` (the default) when it hears of nothing.
  var changeNotifier: ChangeNotifier? { get }
}

extension IncrementalStoreConnection {
  public var changeNotifier: ChangeNotifier? { nil }
}

/// A connection whose commit may write the save again, on a new connection to a server that
/// went away (a restart), and then find, as a save does, objects another writer changed
/// meanwhile.
package protocol ResumingStoreConnection: IncrementalStoreConnection {
  /// Ends the write begun, keeping what it wrote, as ``IncrementalStoreConnection/commitWriting()``
  /// does; `.stale` when the write, made again, found objects another writer changed or keys
  /// it gave since the write began: nothing is written, and the write lock is still held.
  func commitSave() throws(StoreError) -> IncrementalSaveResult
}

/// A file descriptor that becomes readable when another writer may have committed: a
/// PostgreSQL connection's socket, on which the server sends the notifications it listens for.
/// Readable says only that something arrived: ``IncrementalStoreConnection/changeCounter()``
/// tells whether another writer committed, and reads what arrived.
public struct ChangeNotifier: Equatable, Sendable {
  /// The descriptor, the connection's own: a watch waits on a duplicate of it.
  public var descriptor: Int32
  /// A number that changes each time the connection is made again (a restart of the server),
  /// whose descriptor is then another socket, whatever its number.
  public var connection: Int

  public init(descriptor: Int32, connection: Int) {
    (self.descriptor, self.connection) = (descriptor, connection)
  }
}
