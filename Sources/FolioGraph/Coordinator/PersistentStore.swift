import FolioModel
import FolioStores
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A store a coordinator holds: a file of some ``FolioStores/StoreFormat``, or memory.
public final class PersistentStore {
  /// The store's file; `nil` for an in-memory store.
  public let url: URL?
  /// The store's file format; `nil` for an in-memory store.
  public let format: (any StoreFormat)?
  /// What the store says about itself; a save writes it back with the model's hashes.
  public internal(set) var metadata: StoreMetadata
  /// Whether the file does not hold the coordinator's committed state yet (a store moved to a
  /// new file by "save as"): the next save writes it even with nothing to commit.
  var needsWrite = false
  /// What the file looked like when it was last read or written, to notice changes made by
  /// someone else.
  private(set) var stamp: FileStamp?
  /// The stamp of the file whose objects the committed state holds, which a save's change
  /// journal entry starts from; `nil` once a file was taken as it is, unread.
  private(set) var journalBase: FileStamp?
  /// The file the stamp is of, held open: while it is, no other file can get its inode
  /// number. Saves replace the file by a rename, so without it a file written by another
  /// process in the same clock tick, with the same size, could take the freed number and look
  /// unchanged. Not held for a store SQLite writes: closing a descriptor of a database file
  /// drops the locks its connections hold.
  private var pin: FilePin?
  /// For a store saved in place (SQLite): the connection kept open to it, which every save
  /// writes through, and its change counter when the store last read the file or took in
  /// other writers' changes.
  package var connection: (any IncrementalStoreConnection)?
  var seenChangeCounter: Int64?
  /// Whether a save holds the connection's write lock now.
  var isWritingThroughConnection = false
  /// For a store that keeps persistent history: its last transaction when the store last read
  /// the file or took in other writers' changes, from before that read. What other writers
  /// changed after it is read alone.
  var historyToken: PersistentHistoryToken?
  /// For a store that keeps a commit log: its place when the store last read the file, took in
  /// other writers' changes (from before that read) or committed. What the commits after it
  /// changed is read alone.
  var commitLogPosition: CommitLogPosition?

  init(url: URL?, format: (any StoreFormat)?, metadata: StoreMetadata) {
    self.url = url
    self.format = format
    self.metadata = metadata
  }

  /// The store's UUID: the identifier in its objects' permanent IDs.
  public var identifier: String { metadata.identifier }

  /// Whether the file changed on disk — rewritten, replaced or removed by someone else —
  /// since the store last read or wrote it. A save then refuses to overwrite it
  /// (`StoreError.Code.modifiedOnDisk`) until ``acceptFileOnDisk()``.
  ///
  /// An in-memory store has no file, and never changes on disk.
  public var isChangedOnDisk: Bool {
    guard let url, let stamp else { return false }
    if FileStamp(of: url) != stamp { return true }
    guard let connection, let seenChangeCounter else { return false }
    return (try? connection.changeCounter()) != seenChangeCounter
  }

  /// Takes the file as it is now for the one the store last read or wrote, so the next save
  /// overwrites what someone else wrote: for an editor whose user chose to keep their version.
  public func acceptFileOnDisk() {
    noteFileOnDisk()
    journalBase = nil
    if let connection { seenChangeCounter = try? connection.changeCounter() }
  }

  /// Takes the file at the store's path as the one the store has read or written now.
  func noteFileOnDisk() {
    guard let url else { return }
    let pinned = format is any IncrementalStoreFormat ? nil : FilePin(url)
    noteFileOnDisk(stamp: FileStamp(of: url), pin: pinned)
  }

  /// Takes `stamp` and `pin`, taken before the file was read, as the file the store knows.
  func noteFileOnDisk(stamp: FileStamp?, pin: FilePin?) {
    (self.stamp, self.journalBase) = (stamp, stamp)
    self.pin = pin
  }
}
