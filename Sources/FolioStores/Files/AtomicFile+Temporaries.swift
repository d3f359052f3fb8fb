import Foundation

#if canImport(Glibc)
  import Glibc
#endif

// Each save writes to a temporary file of its own, `.NAME.folio-UUID.tmp` beside its target,
// and renames it over the target at the end. A save killed before the rename leaves that file,
// and only a lock tells whether a file of that name is such a leftover or the bytes of a save
// still under way, possibly in another process: a timestamp cannot (a large save can write for
// minutes), nor can a process ID (it may be reused, or belong to another machine sharing the
// folder). So a save holds an exclusive `flock(2)` on its temporary file from just after
// creating it until the rename, and the system drops that lock when the process ends,
// however it ends. A cleanup takes each candidate's lock without waiting: if it gets it, no
// save holds the file and it is removed, while still locked; if not, it is left.
//
// The writer cannot create its file already locked, so a cleanup may find it unlocked in the
// instant between, and remove it. Once it holds its lock, the writer checks that its file is
// still linked into the folder: a cleanup removes only files whose lock it holds, so that
// answer cannot change afterwards. A writer that lost its file makes another.

extension AtomicFile {
  /// Removes the temporary files that killed saves of the file at `url` left beside it, and
  /// returns them.
  ///
  /// The file is the one at the end of `url`'s symbolic links, as in ``write(to:_:)``, and its
  /// saves' temporary files are `.NAME.folio-UUID.tmp` in its folder, NAME being its name. A
  /// save holds an exclusive `flock(2)` on its temporary file until it renames it, and the
  /// system drops that lock when the process ends, however it ends. So a regular file named
  /// exactly so (this NAME, `folio-`, a UUID in capitals, `.tmp`) whose lock this call can take
  /// is a dead save's and is removed; one whose lock is held, by a save still writing in this
  /// or another process, is left, and so is everything else: other files' temporary files,
  /// links, folders. Every atomic write calls this before it writes; a reader or coordinator
  /// opening a document can call it too.
  ///
  /// Best effort: a folder that cannot be read, or a file that cannot be opened, locked (on a
  /// file system without `flock`) or removed, is left as it is, and nothing is reported.
  ///
  /// - Parameter url: the file, or a symbolic link to it; the file need not exist.
  /// - Returns: The temporary files removed.
  /// - Complexity: O(*n*) in the entries of the file's folder.
  @discardableResult
  public static func removeStaleTemporaries(for url: URL) -> [URL] {
    guard let target = try? Target(resolving: url.path) else { return [] }
    return removeStaleTemporaries(of: target)
  }

  /// The name in a directory entry `readdir` gave, read in place up to its NUL: the entry may
  /// end right after it (the kernel's records are as long as their names), so copying the
  /// whole `d_name` array would read past it.
  static func name(of entry: UnsafeMutablePointer<dirent>) -> [UInt8] {
    guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return [] }
    let start = (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: UInt8.self)
    return Array(
      UnsafeBufferPointer(
        start: start, count: strlen(UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self))))
  }

  @discardableResult
  package static func removeStaleTemporaries(of target: Target) -> [URL] {
    guard let directory = opendir(target.folder) else { return [] }
    defer { closedir(directory) }
    // Every name is read before any file is removed: `readdir` may skip or repeat entries
    // when the folder changes under it.
    var names: [[UInt8]] = []
    var companions: [(name: [UInt8], base: [UInt8])] = []
    while let entry = readdir(directory) {
      let name = Self.name(of: entry)
      if target.isTemporaryName(name) {
        names.append(name)
      } else if let base = sqliteCompanionBase(of: name), target.isTemporaryName(base) {
        companions.append((name, base))
      }
    }
    let folder = URL(fileURLWithPath: target.folder, isDirectory: true)
    var removed: [URL] = []
    for name in names where removeIfUnlocked(name, in: dirfd(directory)) {
      removed.append(folder.appendingPathComponent(String(decoding: name, as: UTF8.self)))
    }
    // A scratch database's journal or log outlives it only when its build was killed: once
    // its database is gone, nothing reads it.
    for (name, base) in companions {
      var status = stat()
      let cBase = base.map { CChar(bitPattern: $0) } + [0]
      guard fstatat(dirfd(directory), cBase, &status, AT_SYMLINK_NOFOLLOW) != 0, errno == ENOENT
      else { continue }
      let cName = name.map { CChar(bitPattern: $0) } + [0]
      if unlinkat(dirfd(directory), cName, 0) == 0 {
        removed.append(folder.appendingPathComponent(String(decoding: name, as: UTF8.self)))
      }
    }
    return removed
  }

  /// The name of the database whose journal, log or shared memory `name` is (`-journal`,
  /// `-wal`, `-shm` after it); `nil` for any other name.
  private static func sqliteCompanionBase(of name: [UInt8]) -> [UInt8]? {
    for suffix in ["-journal", "-wal", "-shm"] {
      let bytes = Array(suffix.utf8)
      if name.count > bytes.count, name.suffix(bytes.count).elementsEqual(bytes) {
        return Array(name.dropLast(bytes.count))
      }
    }
    return nil
  }

  /// Removes the regular file `name` of the folder open as `folder` if its lock is free.
  private static func removeIfUnlocked(_ name: [UInt8], in folder: Int32) -> Bool {
    let cName = name.map { CChar(bitPattern: $0) } + [0]
    let descriptor = openat(folder, cName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var opened = stat()
    var named = stat()
    // The name must still be the file locked when it is removed.
    guard fstat(descriptor, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG,
      tryLock(descriptor) == 0,
      fstatat(folder, cName, &named, AT_SYMLINK_NOFOLLOW) == 0,
      named.st_dev == opened.st_dev, named.st_ino == opened.st_ino
    else { return false }
    return unlinkat(folder, cName, 0) == 0
  }

  /// Takes the exclusive `flock(2)` of `descriptor`'s open file without waiting: 0, or the
  /// `errno` (`EWOULDBLOCK` if another open file holds it).
  package static func tryLock(_ descriptor: Int32) -> Int32 {
    while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
      if errno != EINTR { return errno }
    }
    return 0
  }
}

extension AtomicFile {
  /// The temporary file of one atomic write, created and locked.
  ///
  /// The lock is held through ``lockHolder``, a second descriptor of the same open file, so that
  /// the write can close ``descriptor`` before its rename (and report a failing `close`) and
  /// still hold the lock until the rename is done; ``releaseLock()`` closes it.
  package struct TemporaryFile {
    /// The most temporary files one write creates: it makes another only when another
    /// process's cleanup took the last in the instant before its lock.
    static let maximumAttempts = 3

    let path: String
    /// The descriptor the bytes are written through.
    let descriptor: Int32
    /// The descriptor that holds the lock, or -1 if none could be made (the lock then ends with
    /// ``descriptor``).
    private let lockHolder: Int32

    /// Creates a temporary file for `target` and takes its lock.
    ///
    /// - Throws: `StoreError.writeFailed` at `path` if the file cannot be created, or if each
    ///   one created was removed by another process's cleanup before its lock was taken.
    init(for target: Target, reportingAt path: String, faults: FaultPlan)
      throws(StoreError)
    {
      for attempt in 1...Self.maximumAttempts {
        let temporary = target.temporaryPath(UUID())
        let descriptor =
          faults.failsCreation.map { _ in Int32(-1) }
          ?? open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
          throw AtomicFile.failure(
            "create a temporary file in \(target.folder)", faults.failsCreation ?? errno,
            at: path)
        }
        if attempt <= faults.temporariesTakenByCleanup {
          AtomicFile.removeStaleTemporaries(of: target)
        }
        if Self.holdsLock(descriptor) {
          self.path = temporary
          self.descriptor = descriptor
          lockHolder = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
          return
        }
        close(descriptor)
      }
      throw StoreError(
        .writeFailed,
        "cannot keep a temporary file in \(target.folder) (another save's cleanup removed each)",
        at: .init(file: path))
    }

    /// Whether the file open as `descriptor` is this write's to keep: its lock is now held, or
    /// the file system has no locks (so no cleanup can take the file either), and the file is
    /// still in its folder. `EWOULDBLOCK` means a cleanup holds the lock and is removing it.
    private static func holdsLock(_ descriptor: Int32) -> Bool {
      let lockError = AtomicFile.tryLock(descriptor)
      guard lockError != EWOULDBLOCK else { return false }
      var status = stat()
      return fstat(descriptor, &status) == 0 && status.st_nlink > 0
    }

    /// Closes the descriptor holding the lock; call once the file is renamed or removed.
    func releaseLock() {
      if lockHolder >= 0 { close(lockHolder) }
    }
  }
}

/// A file to build something in beside the file at a path, before it replaces that file: a
/// new SQLite database, a migration's steps. It is `.NAME.folio-UUID.tmp` in the folder of
/// the file at the end of the path's links, locked as an atomic write's temporary file is, so
/// a process killed while building leaves it to the next write's cleanup
/// (``AtomicFile/removeStaleTemporaries(for:)``), and never in the system's temporary folder.
/// ``discard()``, or the end of the object, removes it.
package final class ScratchFile {
  /// The scratch file's path.
  package let url: URL
  private let temporary: AtomicFile.TemporaryFile
  private var isDiscarded = false

  /// Makes an empty scratch file beside the file at `url` (which need not exist).
  ///
  /// - Throws: `StoreError.writeFailed` at `url` when the folder takes no new file.
  package init(besides url: URL) throws(StoreError) {
    let target = try AtomicFile.Target(resolving: url.path)
    AtomicFile.removeStaleTemporaries(of: target)
    temporary = try AtomicFile.TemporaryFile(
      for: target, reportingAt: url.path, faults: FaultPlan())
    // The lock stays with the temporary file's second descriptor.
    close(temporary.descriptor)
    self.url = URL(fileURLWithPath: temporary.path)
  }

  /// Removes the file, and whatever SQLite left beside it, and lets go of its lock.
  package func discard() {
    guard !isDiscarded else { return }
    isDiscarded = true
    for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary.path + suffix) }
    temporary.releaseLock()
  }

  deinit { discard() }
}
