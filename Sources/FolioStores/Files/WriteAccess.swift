import FolioModel
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What stands at a path a save is about to write, and whether the save may write there.
///
/// A regular file is replaced (``AtomicFile``) or written in place (SQLite) only when the user
/// may write it: one its owner made read-only (no write permission for this user, or, for the
/// superuser, none for anybody) is refused, as Core Data refuses a read-only store, rather
/// than replaced by a rename, which needs only the folder's permission. A FIFO or a character
/// device (`/dev/null`, a terminal) is written to as it is, never replaced by a file; a folder,
/// a socket or a block device is refused.
package enum WriteAccess {
  /// What the path names.
  package enum Kind: Equatable {
    /// Nothing yet: the save creates a file.
    case none
    /// A regular file the save may replace or change.
    case file
    /// A FIFO or character device, written to as it stands.
    case stream
  }

  /// What is at `path` (at the end of its symbolic links) for a save to write.
  ///
  /// - Throws: `StoreError.writeFailed` at `reportedPath` saying why the save may not write
  ///   there: permission denied for a read-only file, or what else stands there.
  package static func check(_ path: String, reportedAs reportedPath: String) throws(StoreError)
    -> Kind
  {
    var status = stat()
    guard stat(path, &status) == 0 else { return .none }
    func refusal(_ message: String) -> StoreError {
      StoreError(.writeFailed, message, at: InputLocation(file: reportedPath))
    }
    switch status.st_mode & S_IFMT {
    case S_IFREG:
      if isWriteProtected(path, status) {
        throw refusal(
          "cannot write the file (Permission denied): it is read-only; make it writable (chmod u+w) to save over it"
        )
      }
      return .file
    case S_IFIFO, S_IFCHR:
      return .stream
    case S_IFDIR:
      throw refusal("cannot write the file: it is a folder")
    default:
      throw refusal("cannot write the file: it is neither a file, a FIFO nor a character device")
    }
  }

  /// Whether the user may not write the file at `path`: the system says so, or, for the
  /// superuser, whom the system lets write anything, its mode lets nobody write it.
  static func isWriteProtected(_ path: String, _ status: stat) -> Bool {
    if access(path, W_OK) != 0 { return true }
    return geteuid() == 0 && status.st_mode & 0o222 == 0
  }
}
