import FolioModel
import Foundation

/// A place in a store's persistent history: the transactions after it are those saved since
/// (Core Data's `NSPersistentHistoryToken`). Tokens of one store compare in the order their
/// transactions were saved.
public struct PersistentHistoryToken: Sendable, Hashable, Comparable, Codable,
  CustomStringConvertible
{
  /// The number of the transaction the token is at (its `ATRANSACTION` key).
  public let transactionNumber: Int64

  public init(transactionNumber: Int64) { self.transactionNumber = transactionNumber }

  public static func < (a: Self, b: Self) -> Bool { a.transactionNumber < b.transactionNumber }

  public var description: String { "history token \(transactionNumber)" }
}

/// One save recorded in a store's persistent history (Core Data's
/// `NSPersistentHistoryTransaction`): when, by whom, and which objects it inserted, updated
/// and deleted.
public struct PersistentHistoryTransaction: Sendable, Hashable {
  /// The token at this transaction: ``PersistentHistoryToken`` after it names the ones saved
  /// later.
  public var token: PersistentHistoryToken
  /// When the save was committed.
  public var timestamp: Date
  /// The saving context's `transactionAuthor`, if it had one.
  public var author: String?
  /// The saving context's name, if it had one.
  public var contextName: String?
  /// The saving program's bundle identifier (on Linux, its executable's name).
  public var bundleID: String?
  /// The saving process's name.
  public var processID: String?
  /// What the save changed, one entry per object.
  public var changes: [PersistentHistoryChange]

  public init(
    token: PersistentHistoryToken, timestamp: Date, author: String? = nil,
    contextName: String? = nil, bundleID: String? = nil, processID: String? = nil,
    changes: [PersistentHistoryChange] = []
  ) {
    self.token = token
    self.timestamp = timestamp
    self.author = author
    self.contextName = contextName
    self.bundleID = bundleID
    self.processID = processID
    self.changes = changes
  }
}

/// One object's change in a ``PersistentHistoryTransaction`` (Core Data's
/// `NSPersistentHistoryChange`).
public struct PersistentHistoryChange: Sendable, Hashable {
  /// What happened to the object (Core Data's `NSPersistentHistoryChangeType`, with its raw
  /// values).
  public enum ChangeType: Int, Sendable, Hashable {
    case insert = 0
    case update = 1
    case delete = 2
  }

  /// The change's own number in the store's history.
  public var changeNumber: Int64
  public var changeType: ChangeType
  /// The changed object's entity.
  public var entityName: String
  /// The changed object's ID in its store, as records name it.
  public var objectID: Int64
  /// For an update, the properties it changed, when the store recorded them; `nil` otherwise.
  public var updatedProperties: Set<String>?
  /// For a deletion, the values of the attributes the model keeps after deletion
  /// (`preservesValueInHistoryOnDeletion`), by name: Core Data's `tombstone`; `nil` when the
  /// entity keeps none, or for another change.
  public var tombstone: [String: AttributeValue]?

  public init(
    changeNumber: Int64, changeType: ChangeType, entityName: String, objectID: Int64,
    updatedProperties: Set<String>? = nil, tombstone: [String: AttributeValue]? = nil
  ) {
    self.changeNumber = changeNumber
    self.changeType = changeType
    self.entityName = entityName
    self.objectID = objectID
    self.updatedProperties = updatedProperties
    self.tombstone = tombstone
  }
}

/// A store format that can keep persistent history: Core Data's SQLite store.
public protocol HistoryTrackingStoreFormat: StoreFormat {
  /// Turns persistent history on for the store at `url`, whose objects fit `model`; each save
  /// from then on is recorded.
  func enableHistoryTracking(at url: URL, model: ManagedObjectModel) throws(StoreError)
  /// Whether the store at `url` keeps persistent history.
  func tracksHistory(at url: URL) throws(StoreError) -> Bool
  /// The transactions recorded after `token` (every one without a token), oldest first.
  func fetchHistory(after token: PersistentHistoryToken?, from url: URL, model: ManagedObjectModel)
    throws(StoreError) -> [PersistentHistoryTransaction]
  /// Deletes the history recorded up to and including the transaction at `token`.
  func deleteHistory(before token: PersistentHistoryToken, at url: URL) throws(StoreError)
  /// How many transactions the store at `url` holds and their range, read without their
  /// changes; `nil` when it keeps no history.
  func historySummary(at url: URL) throws(StoreError) -> PersistentHistorySummary?
}

/// What a store's persistent history holds, without what the transactions changed.
public struct PersistentHistorySummary: Sendable, Hashable {
  /// The number of transactions recorded.
  public var transactionCount: Int
  /// The oldest transaction recorded; `nil` with none.
  public var first: PersistentHistoryToken?
  /// The newest transaction recorded; `nil` with none.
  public var last: PersistentHistoryToken?

  public init(
    transactionCount: Int, first: PersistentHistoryToken? = nil,
    last: PersistentHistoryToken? = nil
  ) {
    (self.transactionCount, self.first, self.last) = (transactionCount, first, last)
  }
}
