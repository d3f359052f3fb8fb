import FolioModel
import FolioStores
import Foundation

/// Where a reader's bytes lie: the file, the section, and whether they were inflated, so that
/// every error names the byte it is about.
struct BinaryPlace: Sendable {
  /// The file's path.
  var file: String
  /// The part of the file: `header`, `section table`, or a section's kind (`BODY`).
  var section: String
  /// Where the bytes (or, if inflated, their compressed form) start in the file.
  var fileOffset: Int
  /// Whether the bytes are a section's inflated content rather than the file's own.
  var isInflated = false

  /// An error about the byte at `offset` of these bytes.
  func error(_ code: StoreError.Code, _ message: String, at offset: Int) -> StoreError {
    if isInflated {
      return StoreError(
        code, "\(message) (\(section) section, byte \(offset) of its inflated content)",
        at: InputLocation(file: file, byteOffset: fileOffset))
    }
    let suffix = section.count == 4 ? "\(section) section" : section
    return StoreError(
      code, "\(message) (\(suffix))", at: InputLocation(file: file, byteOffset: fileOffset + offset)
    )
  }
}

/// Reads little-endian values from a byte buffer, checking every read against its end.
///
/// A count read from the file is checked against the bytes left before anything is allocated
/// for it (``count(_:elementSize:)``), so a hostile count cannot make the reader allocate more
/// than the file's size allows.
struct ByteReader {
  let bytes: UnsafeRawBufferPointer
  let place: BinaryPlace
  private(set) var offset = 0

  init(_ bytes: UnsafeRawBufferPointer, place: BinaryPlace) {
    self.bytes = bytes
    self.place = place
  }

  /// The bytes not yet read.
  var remaining: Int { bytes.count - offset }

  /// Moves to `offset`, which must lie within the bytes.
  mutating func seek(to offset: Int) {
    precondition((0...bytes.count).contains(offset), "ByteReader.seek past its bytes")
    self.offset = offset
  }

  /// Whether every byte has been read.
  var isAtEnd: Bool { offset == bytes.count }

  /// An error about the byte at `offset`, the current one by default.
  func error(_ code: StoreError.Code, _ message: String, at offset: Int? = nil) -> StoreError {
    place.error(code, message, at: offset ?? self.offset)
  }

  /// Checks that `count` more bytes are there to read.
  @inline(__always)
  func require(_ count: Int, for what: @autoclosure () -> String) throws(StoreError) {
    guard count <= remaining else {
      throw error(
        .truncated, "\(what()) needs \(count) bytes but only \(remaining) remain")
    }
  }

  @inline(__always)
  private mutating func load<T: FixedWidthInteger>(
    _: T.Type, _ what: @autoclosure () -> String
  ) throws(StoreError) -> T {
    try require(MemoryLayout<T>.size, for: what())
    let value = bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
    offset += MemoryLayout<T>.size
    return T(littleEndian: value)
  }

  @inline(__always)
  mutating func uint8(_ what: @autoclosure () -> String) throws(StoreError) -> UInt8 {
    try load(UInt8.self, what())
  }
  @inline(__always)
  mutating func uint16(_ what: @autoclosure () -> String) throws(StoreError) -> UInt16 {
    try load(UInt16.self, what())
  }
  @inline(__always)
  mutating func uint32(_ what: @autoclosure () -> String) throws(StoreError) -> UInt32 {
    try load(UInt32.self, what())
  }
  @inline(__always)
  mutating func uint64(_ what: @autoclosure () -> String) throws(StoreError) -> UInt64 {
    try load(UInt64.self, what())
  }
  @inline(__always)
  mutating func int64(_ what: @autoclosure () -> String) throws(StoreError) -> Int64 {
    try load(Int64.self, what())
  }

  /// A `UInt64` that must fit an `Int`.
  mutating func length(_ what: String) throws(StoreError) -> Int {
    let start = offset
    let value = try uint64(what)
    guard value <= UInt64(Int.max / 2) else {
      throw error(.malformedStore, "\(what) \(value) is too large", at: start)
    }
    return Int(value)
  }

  /// A `UInt32` count of elements at least `elementSize` bytes each, checked against the
  /// bytes left.
  mutating func count(_ what: @autoclosure () -> String, elementSize: Int) throws(StoreError)
    -> Int
  {
    let start = offset
    let count = Int(try uint32(what()))
    guard count.multipliedReportingOverflow(by: elementSize).partialValue <= remaining,
      count <= remaining
    else {
      throw error(
        .malformedStore,
        "\(what()) \(count) needs at least \(count * elementSize) bytes but only \(remaining) remain",
        at: start)
    }
    return count
  }

  /// The next `count` bytes.
  @inline(__always)
  mutating func slice(_ count: Int, _ what: @autoclosure () -> String) throws(StoreError)
    -> UnsafeRawBufferPointer
  {
    try require(count, for: what())
    let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    offset += count
    return slice
  }

  /// A string: a `UInt32` byte length, then that many bytes of UTF-8.
  mutating func string(_ what: String) throws(StoreError) -> String {
    let start = offset
    let length = try count("length of \(what)", elementSize: 1)
    let utf8 = try slice(length, what)
    guard let string = String(validating: utf8, as: UTF8.self) else {
      throw error(.malformedStore, "\(what) is not valid UTF-8", at: start)
    }
    return string
  }
}

/// Appends little-endian values to a pre-sized byte buffer that doubles when full.
///
/// Values are stored straight into the buffer's spare bytes, so an append is a bounds check, a
/// store and an add; ``finished()`` hands the bytes over without copying them.
struct ByteWriter {
  /// The bytes written, then spare zeros.
  private var storage: [UInt8]
  /// How many bytes have been written.
  private(set) var count = 0

  init(capacity: Int = 0) { storage = [UInt8](repeating: 0, count: capacity) }

  /// Makes room for `extra` more bytes.
  @inline(__always)
  mutating func reserve(_ extra: Int) {
    if count + extra > storage.count { grow(toHold: count + extra) }
  }

  private mutating func grow(toHold needed: Int) {
    let size = max(needed, storage.count * 2, 64)
    let old = storage
    // Copied and zeroed in bulk: appending a run of zeros goes element by element in a debug
    // build, where it made writing a few MiB take seconds.
    storage = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
      let raw = UnsafeMutableRawBufferPointer(buffer)
      old.withUnsafeBytes { raw.copyMemory(from: $0) }
      raw.baseAddress.map { _ = memset($0 + old.count, 0, size - old.count) }
      initialized = size
    }
  }

  @inline(__always)
  mutating func append<T: FixedWidthInteger>(_ value: T) {
    let size = MemoryLayout<T>.size
    reserve(size)
    let offset = count
    storage.withUnsafeMutableBytes {
      $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
    }
    count += size
  }

  /// Appends raw bytes.
  @inline(__always)
  mutating func append(_ raw: UnsafeRawBufferPointer) {
    guard let source = raw.baseAddress, !raw.isEmpty else { return }
    reserve(raw.count)
    let offset = count
    storage.withUnsafeMutableBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      (base + offset).copyMemory(from: source, byteCount: raw.count)
    }
    count += raw.count
  }

  mutating func append(_ data: some Collection<UInt8>) {
    if data.withContiguousStorageIfAvailable({ append(UnsafeRawBufferPointer($0)) }) == nil {
      let bytes = Array(data)
      bytes.withUnsafeBytes { append($0) }
    }
  }

  /// Appends another writer's bytes.
  mutating func append(_ other: ByteWriter) {
    other.withUnsafeBytes { append($0) }
  }

  /// Appends each count as a `UInt32`.
  mutating func append(counts: [UInt32]) {
    counts.withUnsafeBytes { raw in
      #if _endian(little)
        append(raw)
      #else
        for count in counts { append(count) }
      #endif
    }
  }

  /// A `UInt32` length, then the bytes.
  mutating func appendCounted(_ data: some Collection<UInt8>) {
    append(UInt32(truncatingIfNeeded: data.count))
    append(data)
  }

  /// A `UInt32` byte length, then the UTF-8.
  mutating func append(string: String) {
    var string = string
    string.withUTF8 { appendCounted($0) }
  }

  /// Appends `string`'s UTF-8 and returns its length.
  mutating func append(utf8Of string: String) -> Int {
    let length = string.utf8.withContiguousStorageIfAvailable { utf8 in
      append(UnsafeRawBufferPointer(utf8))
      return utf8.count
    }
    if let length { return length }
    var copy = string
    return copy.withUTF8 { utf8 in
      append(UnsafeRawBufferPointer(utf8))
      return utf8.count
    }
  }

  /// Overwrites the `UInt32` at `offset`, which must have been written.
  mutating func set(_ value: UInt32, at offset: Int) {
    precondition(offset + 4 <= count, "ByteWriter.set past the bytes written")
    storage.withUnsafeMutableBytes {
      $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
    }
  }

  /// Runs `body` over the bytes written.
  func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
  }

  /// The bytes written, the spare capacity dropped.
  consuming func finished() -> [UInt8] {
    storage.removeLast(storage.count - count)
    return storage
  }
}

/// Runs `body` over the bytes of `data`, passing its typed error through.
func withBytes<R>(
  of data: Data, _ body: (UnsafeRawBufferPointer) throws(StoreError) -> R
) throws(StoreError) -> R {
  let result = data.withUnsafeBytes { buffer in
    Result { () throws(StoreError) -> R in try body(buffer) }
  }
  return try result.get()
}

/// Runs `body` over the bytes of `array`, passing its typed error through.
func withBytes<R>(
  of array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(StoreError) -> R
) throws(StoreError) -> R {
  let result = array.withUnsafeBytes { buffer in
    Result { () throws(StoreError) -> R in try body(buffer) }
  }
  return try result.get()
}
