import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension Data {
  /// The bytes of the file at `url`, as `Data(contentsOf:)` reads them, for every reader of
  /// whole files (models, binary stores, undo scripts).
  ///
  /// On Linux, swift-foundation's `Data(contentsOf:)` reads a file that reports a size of 0 in
  /// chunks (for `/proc` files), and when the file is really empty it returns empty `Data`
  /// without freeing its first 4 KiB chunk. Fuzzing found the leak (RELIABILITY.md); an empty
  /// regular file is therefore answered here, and everything else still goes to Foundation.
  ///
  /// - Throws: what `Data(contentsOf:)` throws.
  package init(contentsOfFile url: URL) throws {
    var status = stat()
    if stat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size == 0 {
      self.init()
      return
    }
    try self.init(contentsOf: url)
  }
}
