internal import CFolioSupport
import FolioModel
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writes a file so that, whatever happens, the path holds either the old file or the whole
/// new one.
///
/// The bytes go to a temporary file in the same folder (so the final rename cannot cross file
/// systems), which is flushed and `fsync`ed, given the old file's permissions, closed and
/// renamed over the old file; then the folder is `fsync`ed so the rename itself survives a
/// crash. If any step before the rename fails, the temporary file is removed, the old file is
/// untouched, and the error says which step failed and why (`strerror`'s words).
///
/// A path that is a symbolic link is written through: its chain of links, relative and
/// absolute, is followed to the file at its end (the target), and each step above happens to
/// the target, in the target's folder and with the target's permissions, so the links stay
/// links and the file they name gets the new bytes. A link whose target does not exist yet
/// makes the write create the target, as writing through the link in place would.
///
/// A path naming a FIFO or a character device is written to directly, not replaced; a
/// read-only file, a folder and other kinds of file are refused (``WriteAccess``). The new
/// file keeps the old one's mode, owner and group.
///
/// A save killed before its rename leaves its temporary file, `.NAME.folio-UUID.tmp` beside
/// the target. While it writes, a save holds an exclusive `flock(2)` on its temporary file,
/// which the system drops when the process ends, however it ends; before it writes, each save
/// removes the temporary files of its target that are not locked, which are those of saves
/// that are gone (``removeStaleTemporaries(for:)``).
///
/// A failure to `fsync` the folder after the rename is not reported: the new file is then in
/// place and complete, and calling the save failed would tell the caller the old file is
/// still there. `RELIABILITY.md` §4 lists every fault and its outcome.
public enum AtomicFile {
  /// Writes `data` to `url` atomically.
  ///
  /// - Throws: `StoreError.writeFailed` saying which step failed and why.
  public static func write(_ data: Data, to url: URL) throws(StoreError) {
    try write(to: url) { output throws(StoreError) in try output.write(data) }
  }

  /// Writes the file at `url` atomically with `body`, which writes the bytes to the output.
  ///
  /// Where `url` is a symbolic link, the file at the end of its links is replaced and the links
  /// are kept; a link to a file that does not exist yet creates that file. The temporary files
  /// that killed saves of that file left beside it are removed first
  /// (``removeStaleTemporaries(for:)``).
  ///
  /// - Throws: `StoreError.writeFailed` saying which step failed and why (its location is
  ///   `url`, the path as given), or what `body` throws.
  public static func write(to url: URL, _ body: (AtomicOutput) throws(StoreError) -> Void)
    throws(StoreError)
  {
    let path = url.path
    let target = try Target(resolving: path)
    let faults = Self.faults
    if try WriteAccess.check(target.path, reportedAs: path) == .stream {
      return try writeDirectly(to: target.path, reportingAt: path, faults: faults, body)
    }
    removeStaleTemporaries(of: target)
    let temporary = try TemporaryFile(for: target, reportingAt: path, faults: faults)
    var isOpen = true
    var finished = false
    defer {
      if isOpen { close(temporary.descriptor) }
      if !finished { unlink(temporary.path) }
      temporary.releaseLock()
    }
    let output = AtomicOutput(descriptor: temporary.descriptor, path: path, faults: faults)
    try body(output)
    if let error = faults.fsyncError ?? (fsync(temporary.descriptor) == 0 ? nil : errno) {
      throw failure("flush the new file to disk", error, at: path)
    }
    // The new file takes the old one's mode, and its owner and group where the system lets
    // this user give them (the superuser always; others their own file, to a group of theirs).
    var status = stat()
    if stat(target.path, &status) == 0 {
      _ = fchown(temporary.descriptor, status.st_uid, status.st_gid)
      _ = fchmod(temporary.descriptor, status.st_mode & 0o7777)
    }
    isOpen = false
    guard close(temporary.descriptor) == 0 else {
      throw failure("close the new file", errno, at: path)
    }
    let replaced = FileStamp(of: URL(fileURLWithPath: target.path))
    if let error = faults.renameError
      ?? (rename(temporary.path, target.path) == 0 ? nil : errno)
    {
      throw failure("replace the file", error, at: path)
    }
    finished = true
    // A store's change journal learns that its file was replaced (``ChangeJournal``).
    if let replaced, let written = FileStamp(of: URL(fileURLWithPath: target.path)) {
      let journal = target.siblingPath(".\(target.name).folio-journal")
      ChangeJournal.noteReplaced(journal: journal, from: replaced, to: written)
    }
    let folderDescriptor = open(target.folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if folderDescriptor >= 0 {
      _ = fsync(folderDescriptor)
      close(folderDescriptor)
    }
  }

  /// Writes `body`'s bytes straight into the FIFO or character device at `target`: there is
  /// nothing to replace, and a file put in its place would take what its reader waits for.
  private static func writeDirectly(
    to target: String, reportingAt path: String, faults: FaultPlan,
    _ body: (AtomicOutput) throws(StoreError) -> Void
  ) throws(StoreError) {
    let descriptor = open(target, O_WRONLY | O_CLOEXEC | O_NOCTTY)
    guard descriptor >= 0 else { throw failure("open the file for writing", errno, at: path) }
    var isOpen = true
    defer { if isOpen { close(descriptor) } }
    try body(AtomicOutput(descriptor: descriptor, path: path, faults: faults))
    isOpen = false
    guard close(descriptor) == 0 else { throw failure("close the file", errno, at: path) }
  }

  /// The error of a write to `path` whose `step` failed with the system's error `code`.
  package static func failure(_ step: String, _ code: Int32, at path: String) -> StoreError {
    StoreError(
      .writeFailed, "cannot \(step) (\(String(cString: strerror(code))))",
      at: .init(file: path))
  }

  #if FOLIO_TEST_HOOKS
    /// Faults to inject into the atomic writes a task makes: tests set them for one task with
    /// `AtomicFile.$faults.withValue(…)`; otherwise there are none, but for the process-wide
    /// kill a crash-safety test asks of a `folio` it runs (``FaultPlan/killAfterBytes``).
    /// Debug builds only (`FOLIO_TEST_HOOKS`, Package.swift).
    @TaskLocal package static var faults = FaultPlan.process
  #else
    /// A release build injects no faults: every check of the plan folds away.
    package static var faults: FaultPlan { FaultPlan() }
  #endif
}

/// The new file of an atomic write: every byte of it goes through ``write(_:)-(UnsafeRawBufferPointer)``,
/// which writes at most 1 MiB per `write(2)` call, continues after a short write, retries after
/// `EINTR`, and turns any other failure into `StoreError.writeFailed` with `strerror`'s words.
/// Each further MiB written is handed to the system to start writing to disk at once, so the
/// save's closing `fsync` finds most of a large file already there.
public final class AtomicOutput {
  /// The most bytes one `write(2)` call is given.
  package static let chunkSize = 1 << 20

  package let descriptor: Int32
  package let path: String
  private let faults: FaultPlan
  /// The `write(2)` calls made so far, counting retries.
  private(set) var writeCalls = 0
  /// The first failure: libxml2, which writes through ``write(_:)-(UnsafeRawBufferPointer)``
  /// from C, reports only that something failed.
  package private(set) var failure: StoreError?
  /// The bytes written so far, and how many of them the system was asked to start writing to
  /// disk (see ``startWriteback()``).
  private var byteCount = 0
  private var writebackStart = 0
  /// How many written bytes make the system start writing them to disk.
  package static let writebackChunk = 1 << 20

  package init(descriptor: Int32, path: String, faults: FaultPlan) {
    self.descriptor = descriptor
    self.path = path
    self.faults = faults
  }

  /// Writes all of `bytes`.
  ///
  /// - Throws: `StoreError.writeFailed`, naming the file and the system's reason.
  public func write(_ bytes: UnsafeRawBufferPointer) throws(StoreError) {
    guard let base = bytes.baseAddress else { return }
    var offset = 0
    while offset < bytes.count {
      writeCalls += 1
      faults.log?.recordWrite()
      var request = min(bytes.count - offset, faults.chunkSize ?? Self.chunkSize)
      if faults.shortWriteCall == writeCalls { request = max(1, request / 2) }
      let written: Int
      if faults.failingWriteCall == writeCalls {
        written = -1
        errno = faults.writeError
      } else {
        written = Glibc.write(descriptor, base + offset, request)
      }
      if written < 0 {
        let code = errno
        if code == EINTR { continue }
        let error = StoreError(
          .writeFailed, "cannot write the new file (\(String(cString: strerror(code))))",
          at: InputLocation(file: path))
        failure = failure ?? error
        throw error
      }
      offset += written
      byteCount += written
      if let limit = faults.killAfterBytes, byteCount >= limit { kill(getpid(), SIGKILL) }
      if byteCount - writebackStart >= Self.writebackChunk { startWriteback() }
    }
  }

  /// Asks the system to start writing the bytes written since the last call to disk, without
  /// waiting: a large file is then mostly on disk when the save's `fsync` comes, which waits
  /// only for the rest (the disk works while the next bytes are formatted). Advisory: a
  /// failure here is ignored, and the `fsync` reports any real one.
  private func startWriteback() {
    faults.log?.recordWriteback(writebackStart..<byteCount)
    _ = folio_start_writeback(
      descriptor, Int64(writebackStart), Int64(byteCount - writebackStart))
    writebackStart = byteCount
  }

  /// Writes all of `data`.
  public func write(_ data: Data) throws(StoreError) {
    var failure: StoreError?
    data.withUnsafeBytes { raw in
      do throws(StoreError) { try write(raw) } catch { failure = error }
    }
    if let failure { throw failure }
  }

  /// Writes all of `bytes`.
  public func write(_ bytes: [UInt8]) throws(StoreError) {
    var failure: StoreError?
    bytes.withUnsafeBytes { raw in
      do throws(StoreError) { try write(raw) } catch { failure = error }
    }
    if let failure { throw failure }
  }
}

/// Faults for ``AtomicFile`` to inject, for tests of what a failed save leaves behind.
package struct FaultPlan: Sendable {
  /// Creating the temporary file fails with this `errno`.
  package var failsCreation: Int32?
  /// The `write(2)` call with this 1-based number fails with ``writeError``.
  package var failingWriteCall: Int?
  /// The `errno` of ``failingWriteCall``.
  package var writeError: Int32 = EIO
  /// The `write(2)` call with this 1-based number writes only half of what it is given.
  package var shortWriteCall: Int?
  /// `fsync` of the new file fails with this `errno`.
  package var fsyncError: Int32?
  /// Renaming the new file over the old one fails with this `errno`.
  package var renameError: Int32?
  /// The first this many temporary files a write creates are removed between their creation
  /// and their lock, by a cleanup run there as another process's could.
  package var temporariesTakenByCleanup = 0
  /// Counts the `write(2)` calls, so a test can fail each in turn.
  package var log: FaultLog?
  /// The most bytes one `write(2)` call is given instead of 1 MiB, so that a small file takes
  /// many calls.
  package var chunkSize: Int?
  /// The process kills itself with `SIGKILL` once a save has written this many bytes of its
  /// new file: a crash at a chosen point, for the tests that a killed save loses nothing.
  package var killAfterBytes: Int?

  #if FOLIO_TEST_HOOKS
    /// The faults of a process started with `FOLIO_TEST_KILL_AFTER_BYTES=N` in its
    /// environment (a debug `folio` that a crash-safety test runs): killed once a save has
    /// written N bytes, in writes of at most 4 KiB so the kill lands within 4 KiB of N. None
    /// otherwise.
    package static let process: FaultPlan = {
      guard let text = ProcessInfo.processInfo.environment["FOLIO_TEST_KILL_AFTER_BYTES"],
        let bytes = Int(text), bytes > 0
      else { return FaultPlan() }
      var plan = FaultPlan(chunkSize: 4096)
      plan.killAfterBytes = bytes
      return plan
    }()
  #endif

  package init(
    failsCreation: Int32? = nil, failingWriteCall: Int? = nil, writeError: Int32 = EIO,
    shortWriteCall: Int? = nil, fsyncError: Int32? = nil, renameError: Int32? = nil,
    log: FaultLog? = nil, chunkSize: Int? = nil, temporariesTakenByCleanup: Int = 0
  ) {
    self.failsCreation = failsCreation
    self.failingWriteCall = failingWriteCall
    self.writeError = writeError
    self.shortWriteCall = shortWriteCall
    self.fsyncError = fsyncError
    self.renameError = renameError
    self.log = log
    self.chunkSize = chunkSize
    self.temporariesTakenByCleanup = temporariesTakenByCleanup
  }
}

/// How many `write(2)` calls the atomic writes under a ``FaultPlan`` made, and which byte
/// ranges they asked the system to start writing to disk.
package final class FaultLog: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  private var ranges: [Range<Int>] = []

  package init() {}

  /// The calls so far.
  package var writeCalls: Int { lock.withLock { count } }
  /// The ranges of the new file whose writing to disk was started early, in order.
  package var writebackRanges: [Range<Int>] { lock.withLock { ranges } }

  func recordWrite() { lock.withLock { count += 1 } }
  func recordWriteback(_ range: Range<Int>) { lock.withLock { ranges.append(range) } }
}
