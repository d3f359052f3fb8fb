import FolioModel
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The lock a writer of an atomic store holds while it saves, so that two processes saving one
/// document take turns: each checks what the file holds, merges, writes and renames while the
/// other waits.
///
/// The lock is an exclusive `flock(2)` on `.NAME.folio-lock`, a file beside the store's file
/// (the file at the end of its symbolic links, where the save's temporary file and rename
/// happen too). The system drops it when the holder's process ends, however it ends, so a
/// writer killed while saving never leaves the store locked. The holder removes the file
/// before it lets go; a waiter that then gets the lock on the removed file sees that the path
/// no longer names the file it locked, and locks the path's file again. `Formats/README.md`
/// ("Several writers") describes the protocol for other implementations.
///
/// Readers take no lock: every save replaces the file with one rename, so a reader always
/// sees an old file or a whole new one.
public final class StoreLock {
  /// The lock file's path.
  public let path: String
  private var descriptor: Int32

  /// How long ``acquire(for:timeout:)`` waits for another writer by default: 10 seconds.
  public static let defaultTimeout: Duration = .seconds(10)

  private init(path: String, descriptor: Int32) {
    self.path = path
    self.descriptor = descriptor
  }

  deinit { release() }

  /// The path of the lock file of the store at `url`.
  ///
  /// - Throws: `StoreError.writeFailed` when the path's symbolic links cannot be followed.
  public static func lockPath(for url: URL) throws(StoreError) -> String {
    let target = try AtomicFile.Target(resolving: url.path)
    return target.siblingPath(".\(target.name).folio-lock")
  }

  /// Takes the lock of the store at `url`, waiting up to `timeout` while another writer holds
  /// it.
  ///
  /// - Throws: `StoreError.busy` when another writer held it all along, naming the lock file;
  ///   `.writeFailed` when the lock file cannot be made (a read-only folder, permissions).
  public static func acquire(for url: URL, timeout: Duration = defaultTimeout)
    throws(StoreError) -> StoreLock
  {
    let path = try lockPath(for: url)
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    var pause = Duration.milliseconds(1)
    while true {
      let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
      guard descriptor >= 0 else {
        throw AtomicFile.failure("make the lock file \"\(path)\"", errno, at: url.path)
      }
      var result: Int32
      repeat { result = flock(descriptor, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
      if result == 0 {
        // The holder before may have removed the file after this one opened it: the lock is
        // only ours if the path still names the file locked.
        if isSameFile(descriptor, path) { return StoreLock(path: path, descriptor: descriptor) }
        close(descriptor)
        continue
      }
      let code = errno
      close(descriptor)
      guard code == EWOULDBLOCK else {
        throw AtomicFile.failure("lock the lock file \"\(path)\"", code, at: url.path)
      }
      guard clock.now < deadline else { throw busy(url: url, lock: path, timeout: timeout) }
      Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18)
      pause = min(pause * 2, .milliseconds(50))
    }
  }

  /// Lets go of the lock, removing the lock file first. Releasing twice does nothing.
  public func release() {
    guard descriptor >= 0 else { return }
    if isSameFile(descriptor, path) { unlink(path) }
    close(descriptor)
    descriptor = -1
  }

  /// The error of a lock another writer held for all of `timeout`.
  static func busy(url: URL, lock: String, timeout: Duration) -> StoreError {
    StoreError(
      .busy,
      "another process has been saving the store for \(timeout.components.seconds) s (it holds \"\(lock)\"); try again when it is done",
      at: InputLocation(file: url.path))
  }
}

/// Whether the open file `descriptor` is the file `path` names now.
private func isSameFile(_ descriptor: Int32, _ path: String) -> Bool {
  var open = stat()
  var named = stat()
  guard fstat(descriptor, &open) == 0, stat(path, &named) == 0 else { return false }
  return open.st_dev == named.st_dev && open.st_ino == named.st_ino
}
