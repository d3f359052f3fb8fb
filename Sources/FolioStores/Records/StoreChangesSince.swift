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
  /// The commit log's place after the changes, to read the changes after next time.
  package var logPosition: CommitLogPosition?
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

/// A place in a store's commit log: the store's commit counter when a coordinator last read it
/// or took changes in, and the newest commit the log had recorded below it, which must still be
/// there (with its random token) for the changes after the place to be read from the log.
package struct CommitLogPosition: Equatable, Sendable {
  /// The store's commit counter (SQLite's file change counter).
  package var counter: Int64
  /// The newest commit recorded below ``counter``, and its token.
  package var anchor: Anchor

  package struct Anchor: Equatable, Sendable {
    package var counter: Int64
    package var token: Int64

    package init(counter: Int64, token: Int64) { (self.counter, self.token) = (counter, token) }
  }

  package init(counter: Int64, anchor: Anchor) { (self.counter, self.anchor) = (counter, anchor) }
}

/// A store format that records, with each of Folio's commits, the objects it changed, so that a
/// coordinator reads those objects only (a SQLite store Folio made: its commit log).
package protocol CommitLogReading: StoreFormat {
  /// The place of the store at `url` in its log now; `nil` when it keeps no log it can follow.
  func commitLogPosition(of url: URL) throws(StoreError) -> CommitLogPosition?
  /// What the commits after `position` changed, read in one read transaction.
  func changes(since position: CommitLogPosition, from url: URL, model: ManagedObjectModel)
    throws(StoreError) -> CommitLogChanges
}

/// What a commit log says about the commits after a place in it.
package enum CommitLogChanges {
  /// What they changed.
  case changes(StoreChangesSince)
  /// The log cannot tell: it lacks a commit (another program's), holds one too large to list,
  /// was trimmed past the place, or the store keeps its changes in a write-ahead log. The
  /// store's history is the one the place is in, so its row versions can tell.
  case cannotTell
  /// The store's history is not the one the place is in: its counter went back, or the commit
  /// the place follows was replaced (a copy written over the store in place, whose history went
  /// on apart from this one). Row versions could agree by chance: only a whole read tells.
  case otherHistory
}

/// A connection whose commits the store's commit log records.
package protocol CommitLoggingConnection: IncrementalStoreConnection {
  /// The store's place in its log just after the connection's last commit, when the log
  /// recorded it; `nil` otherwise.
  var commitLogPosition: CommitLogPosition? { get }
}
