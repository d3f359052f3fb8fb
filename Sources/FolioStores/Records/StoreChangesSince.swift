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

  package init() {}
}

/// A store format whose persistent history tells a coordinator what other writers changed,
/// so that it reads those objects only.
package protocol HistoryChangesReading: StoreFormat {
  func historyPosition(of url: URL) throws(StoreError) -> PersistentHistoryToken?
  func changes(after token: PersistentHistoryToken, from url: URL, model: ManagedObjectModel)
    throws(StoreError) -> StoreChangesSince?
}
