import FolioModel
import Foundation

/// What other writers changed in a store since a point of its persistent history, read from
/// the store as it is now: the objects their transactions inserted and updated, as records,
/// and the IDs of those they deleted. What a coordinator takes in instead of the whole store.
package struct StoreChangesSince {
  /// The records of the objects inserted or updated since, as the store holds them now. A
  /// record gives the relationships ``givenRelationships`` names for its entity, and no others.
  package var records: [StoreRecord] = []
  /// The IDs of objects deleted since, not in the store any more.
  package var deleted: [Int64] = []
  /// By entity, the relationships a record gives (empty targets when it has none); the others
  /// follow from their inverses.
  package var givenRelationships: [String: Set<String>] = [:]
  /// The next object ID the store would give out.
  package var nextObjectID: Int64 = 1
  /// The history's last transaction, to read the changes after next time.
  package var token: PersistentHistoryToken?
  /// The store's metadata as read with the changes, when the reader reads it: its identifier
  /// tells the store is still the one the caller knows.
  package var metadata: StoreMetadata?

  package init() {}
}

/// A store format whose persistent history tells a coordinator what other writers changed,
/// so that it reads those objects only.
package protocol HistoryChangesReading: StoreFormat {
  func historyPosition(of url: URL) throws(StoreError) -> PersistentHistoryToken?
  func changes(after token: PersistentHistoryToken, from url: URL, model: ManagedObjectModel)
    throws(StoreError) -> StoreChangesSince?
}

/// A store format that tells a coordinator what other writers changed by the versions of its
/// rows (SQLite's `Z_OPT`, which every writer moves one on when it changes a row), for a store
/// whose history cannot tell: it reads every row's version, then the records of the rows whose
/// version the coordinator does not know.
package protocol RowVersionScanning: StoreFormat {
  /// The records of the objects in the store at `url` that are new to `known`, or whose
  /// version differs from the one `known` gives, read in one read transaction. `known` is
  /// asked once for each object of the store, by its ID and the name of its hierarchy's root
  /// entity; objects it knows that it was not asked about were deleted (the caller fills
  /// ``StoreChangesSince/deleted``).
  func changes(
    comparedWith known: (_ id: Int64, _ root: String) -> UInt32?, from url: URL,
    model: ManagedObjectModel
  ) throws(StoreError) -> StoreChangesSince
}
