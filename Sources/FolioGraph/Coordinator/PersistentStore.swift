import FolioModel
import FolioStores
import Foundation

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
  var stamp: FileStamp?

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
    return FileStamp(of: url) != stamp
  }

  /// Takes the file as it is now for the one the store last read or wrote, so the next save
  /// overwrites what someone else wrote: for an editor whose user chose to keep their version.
  public func acceptFileOnDisk() {
    guard let url else { return }
    stamp = FileStamp(of: url)
  }
}

/// A file's identity and last change, to tell whether someone else rewrote it.
struct FileStamp: Equatable {
  var modification: Date?
  var size: Int?
  var inode: Int?

  /// The stamp of the file at `url` (of the file a symbolic link leads to), or `nil` when there
  /// is no file.
  init?(of url: URL) {
    let path = url.resolvingSymlinksInPath().path
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
      return nil
    }
    modification = attributes[.modificationDate] as? Date
    size = (attributes[.size] as? NSNumber)?.intValue
    inode = (attributes[.systemFileNumber] as? NSNumber)?.intValue
  }
}
