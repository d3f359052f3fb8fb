import Foundation

/// A file held open for reading, closed when the pin goes.
package final class FilePin {
  private let descriptor: Int32

  package init?(_ url: URL) {
    let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    self.descriptor = descriptor
  }

  // Closing the last descriptor of a file that was replaced (renamed over, or removed) frees
  // its pages in the kernel: tens of milliseconds for a file of hundreds of megabytes, which a
  // merge or a save should not wait for.
  deinit {
    let descriptor = self.descriptor
    DispatchQueue.global(qos: .utility).async { close(descriptor) }
  }
}

/// A file's identity and last change, to tell whether someone else rewrote it: its inode
/// number, size and modification time as `stat(2)` gives them (following symbolic links).
package struct FileStamp: Equatable, Sendable {
  package var inode: UInt64 = 0
  package var size: Int64 = 0
  /// The modification time: seconds and nanoseconds since 1970, as `st_mtim` holds it.
  package var seconds: Int64 = 0
  package var nanoseconds: Int64 = 0

  /// The stamp of the file at `url` (of the file a symbolic link leads to), or `nil` when there
  /// is no file. A store on a server has no file: its stamp never changes, and its
  /// connection's change counter tells of other writers.
  package init?(of url: URL) {
    guard url.isFileURL else { return }
    var info = stat()
    guard stat(url.path, &info) == 0 else { return nil }
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    seconds = Int64(info.st_mtim.tv_sec)
    nanoseconds = Int64(info.st_mtim.tv_nsec)
  }

  package init(inode: UInt64, size: Int64, seconds: Int64, nanoseconds: Int64) {
    (self.inode, self.size, self.seconds, self.nanoseconds) = (inode, size, seconds, nanoseconds)
  }
}
