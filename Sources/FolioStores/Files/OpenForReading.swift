import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension StoreError {
  /// A descriptor reading the file at `path`.
  ///
  /// - Throws: `.notFound`, `.unreadable`.
  package static func openForReading(_ path: String) throws(StoreError) -> Int32 {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      if errno == ENOENT { throw StoreError.notFound(path) }
      throw StoreError.unreadable(path, String(cString: strerror(errno)))
    }
    return descriptor
  }
}
