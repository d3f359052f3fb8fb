import FolioModel
import FolioStores
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

// Where a binary store's bytes come from while it is read whole: a file, read front to back a
// piece at a time, or bytes already in memory. The reader asks for the next `count` bytes and
// uses them before it asks again, so a file is never held whole: its body is checked and
// inflated a piece at a time as it arrives (`Formats/binary-store.md`, "What a reader checks").
// Memory that a process touches for the first time is dear (on this project's machines, a
// fresh 14 MB buffer cost 70 ms to fill where reading into a reused one cost 3 ms), so one
// reused piece beats a buffer as large as the file.

/// The bytes of a binary store, in order.
protocol BinarySource: ~Copyable {
  /// The name errors give the file.
  var path: String { get }
  /// The number of bytes, as the file reported it when opened.
  var size: Int { get }
  /// How many bytes `next` hands over at most without copying them first.
  var pieceSize: Int { get }

  /// Runs `body` over the next `count` bytes, which are valid only during the call.
  ///
  /// - Throws: `.truncated` when fewer than `count` bytes are left, `.unreadable` when they
  ///   cannot be read; whatever `body` throws.
  mutating func next<R>(
    _ count: Int, _ body: (UnsafeRawBufferPointer) throws(StoreError) -> R
  ) throws(StoreError) -> R
}

/// Bytes already in memory.
struct MemorySource: BinarySource {
  let bytes: UnsafeRawBufferPointer
  let path: String
  var size: Int { bytes.count }
  var pieceSize: Int { 1 << 20 }
  private var offset = 0

  init(_ bytes: UnsafeRawBufferPointer, path: String) {
    self.bytes = bytes
    self.path = path
  }

  mutating func next<R>(
    _ count: Int, _ body: (UnsafeRawBufferPointer) throws(StoreError) -> R
  ) throws(StoreError) -> R {
    guard count <= bytes.count - offset else {
      throw StoreError(
        .truncated, "the file ended while reading \(count) bytes from byte \(offset)",
        at: InputLocation(file: path, byteOffset: bytes.count))
    }
    let start = offset
    offset += count
    return try body(UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]))
  }
}

/// A file, read front to back through one buffer of ``pieceSize`` bytes.
struct FileSource: BinarySource, ~Copyable {
  let path: String
  let size: Int
  var pieceSize: Int { Self.pieceBytes }
  private static let pieceBytes = 1 << 18
  private let descriptor: Int32
  private let buffer: UnsafeMutableRawBufferPointer
  private var offset = 0

  /// Opens the file at `url`.
  ///
  /// - Throws: `.notFound`, `.unreadable`.
  init(url: URL) throws(StoreError) {
    let descriptor = try StoreError.openForReading(url.path)
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let reason = String(cString: strerror(errno))
      close(descriptor)
      throw StoreError.unreadable(url.path, reason)
    }
    self.path = url.path
    self.descriptor = descriptor
    self.size = Int(status.st_size)
    self.buffer = .allocate(byteCount: Self.pieceBytes, alignment: 64)
  }

  deinit {
    close(descriptor)
    buffer.deallocate()
  }

  mutating func next<R>(
    _ count: Int, _ body: (UnsafeRawBufferPointer) throws(StoreError) -> R
  ) throws(StoreError) -> R {
    guard count > buffer.count else {
      let target = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
      try fill(target)
      return try body(UnsafeRawBufferPointer(target))
    }
    // More than a piece at once (a large META section): a buffer of its own.
    let large = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 64)
    defer { large.deallocate() }
    try fill(large)
    return try body(UnsafeRawBufferPointer(large))
  }

  /// Reads exactly `target.count` bytes at the current offset, retrying after a signal.
  private mutating func fill(_ target: UnsafeMutableRawBufferPointer) throws(StoreError) {
    guard let base = target.baseAddress else { return }
    var filled = 0
    while filled < target.count {
      let count = read(descriptor, base + filled, target.count - filled)
      if count < 0, errno == EINTR { continue }
      guard count >= 0 else {
        throw StoreError.unreadable(path, String(cString: strerror(errno)))
      }
      guard count > 0 else {
        throw StoreError(
          .truncated,
          "the file ended at byte \(offset + filled) while reading \(target.count) bytes from"
            + " byte \(offset)", at: InputLocation(file: path, byteOffset: offset + filled))
      }
      filled += count
    }
    offset += filled
  }
}
