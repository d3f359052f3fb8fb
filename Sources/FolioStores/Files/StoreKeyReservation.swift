import FolioModel
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The primary keys writers of an atomic store have reserved for objects not saved yet, so
/// that an object can have its permanent ID before its first save and keep it through that
/// save while other processes save the same store.
///
/// The reservation is the file `.NAME.folio-keys` beside the store's file (the file at the end
/// of its symbolic links, as for ``StoreLock``), holding one line: the least key no writer has
/// reserved, in decimal (`1042` and a line feed). It is read and written only under the store's
/// lock, and written whole (``AtomicFile``), so it is never seen half written. A writer gives
/// new keys at or above it as well as above the store's own next key; a save, whose file then
/// records a next key past every reservation, removes it. `Formats/shared-writers.md` §4a
/// describes it for other implementations.
public enum StoreKeyReservation {
  /// The path of the reservation file of the store at `url`.
  ///
  /// - Throws: `StoreError.writeFailed` when the path's symbolic links cannot be followed.
  public static func path(for url: URL) throws(StoreError) -> String {
    let target = try AtomicFile.Target(resolving: url.path)
    return target.siblingPath(".\(target.name).folio-keys")
  }

  /// The least key no writer has reserved for the store at `url`, or `nil` when there is no
  /// reservation.
  ///
  /// - Throws: `StoreError.malformedStore` when the file is not a regular file holding a key,
  ///   naming it: a writer cannot know which keys are free until it is removed.
  public static func nextKey(for url: URL) throws(StoreError) -> Int64? {
    let path = try path(for: url)
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      if errno == ENOENT { return nil }
      throw AtomicFile.failure("read the key reservation \"\(path)\"", errno, at: path)
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
      status.st_size <= 64
    else { throw malformed(path, "is not a small regular file") }
    var bytes = [UInt8](repeating: 0, count: 64)
    let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 64) }
    guard count > 0 else { throw malformed(path, "is empty") }
    let text = String(decoding: bytes[0..<count], as: UTF8.self)
    guard text.last == "\n", let key = Int64(text.dropLast()), key >= 1 else {
      throw malformed(path, "does not hold a key (a decimal number and a line feed)")
    }
    return key
  }

  /// Records that keys below `next` are reserved for the store at `url`; a reservation already
  /// past it stays. Call it under the store's lock.
  ///
  /// - Throws: `StoreError.writeFailed` when the file cannot be written (the step and the
  ///   system's reason); `.malformedStore` when the file there is not a reservation.
  public static func reserve(below next: Int64, for url: URL) throws(StoreError) {
    let known = try nextKey(for: url) ?? 0
    guard next > known else { return }
    let path = try path(for: url)
    try AtomicFile.write(Data("\(next)\n".utf8), to: URL(fileURLWithPath: path))
  }

  /// Removes the reservation of the store at `url` once a store file recording `next` as its
  /// next key is in place, if no key at or past `next` is reserved. Call it under the store's
  /// lock. A reservation that cannot be read or removed stays: it only makes keys skip.
  public static func release(below next: Int64, for url: URL) {
    guard let path = try? path(for: url), let known = try? nextKey(for: url), known <= next
    else { return }
    unlink(path)
  }

  private static func malformed(_ path: String, _ what: String) -> StoreError {
    StoreError(
      .malformedStore,
      "the key reservation \"\(path)\" \(what); remove it once no other program has the store open",
      at: InputLocation(file: path))
  }
}
