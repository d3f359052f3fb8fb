import Foundation

/// A file held open for reading, closed when the pin goes.
package final class FilePin {
  private let descriptor: Int32

  package init?(_ url: URL) {
    let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    self.descriptor = descriptor
  }

  deinit { close(descriptor) }
}

/// A file's identity and last change, to tell whether someone else rewrote it.
package struct FileStamp: Equatable {
  package var modification: Date?
  package var size: Int?
  package var inode: Int?

  /// The stamp of the file at `url` (of the file a symbolic link leads to), or `nil` when there
  /// is no file. A store on a server has no file: its stamp never changes, and its
  /// connection's change counter tells of other writers.
  package init?(of url: URL) {
    guard url.isFileURL else { return }
    let path = url.resolvingSymlinksInPath().path
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
      return nil
    }
    modification = attributes[.modificationDate] as? Date
    size = (attributes[.size] as? NSNumber)?.intValue
    inode = (attributes[.systemFileNumber] as? NSNumber)?.intValue
  }
}
