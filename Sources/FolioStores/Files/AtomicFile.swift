import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writes a file so that, whatever happens, the path holds either the old file or the whole
/// new one.
///
/// The bytes go to a temporary file in the same folder (so the final rename cannot cross file
/// systems), which is flushed and `fsync`ed, given the old file's permissions, and renamed over
/// the old file; then the folder is `fsync`ed so the rename itself survives a crash. If any step
/// fails the temporary file is removed and the old file is untouched.
public enum AtomicFile {
  /// Writes `data` to `url` atomically.
  ///
  /// - Throws: `StoreError.writeFailed` saying which step failed and why.
  public static func write(_ data: Data, to url: URL) throws(StoreError) {
    try write(to: url) { handle throws(StoreError) in
      do {
        try handle.write(contentsOf: data)
      } catch {
        throw StoreError(
          .writeFailed, "cannot write the new file (\(error.localizedDescription))",
          at: .init(file: url.path))
      }
    }
  }

  /// Writes the file at `url` atomically with `body`, which writes the bytes to the handle.
  ///
  /// - Throws: `StoreError.writeFailed`, or what `body` throws.
  public static func write(to url: URL, _ body: (FileHandle) throws(StoreError) -> Void)
    throws(StoreError)
  {
    let folder = url.deletingLastPathComponent()
    let temporary = folder.appendingPathComponent(
      ".\(url.lastPathComponent).folio-\(UUID().uuidString).tmp")
    let path = url.path
    func failure(_ step: String, _ detail: String) -> StoreError {
      StoreError(.writeFailed, "cannot \(step) (\(detail))", at: .init(file: path))
    }
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw failure("create a temporary file in \(folder.path)", String(cString: strerror(errno)))
    }
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    var finished = false
    defer {
      if !finished { unlink(temporary.path) }
    }
    try body(handle)
    guard fsync(descriptor) == 0 else {
      throw failure("flush the new file to disk", String(cString: strerror(errno)))
    }
    var status = stat()
    if stat(path, &status) == 0 {
      _ = fchmod(descriptor, status.st_mode & 0o7777)
    }
    guard rename(temporary.path, path) == 0 else {
      throw failure("replace the file", String(cString: strerror(errno)))
    }
    finished = true
    let folderDescriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if folderDescriptor >= 0 {
      _ = fsync(folderDescriptor)
      close(folderDescriptor)
    }
  }
}
