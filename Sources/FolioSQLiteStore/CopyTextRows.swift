import CSQLite
import FolioModel
import FolioStores
import Foundation

/// A connection that streams a query's rows in PostgreSQL's `COPY … TO STDOUT` text format: one
/// row per buffer, fields separated by tabs, `\N` for NULL, backslash escapes.
package protocol CopyTextSource: AnyObject {
  /// The store, as errors name it.
  var path: String { get }
  /// The SQLite storage class that each column of `sql`'s rows reads as.
  func storageClasses(of sql: String, at place: String) throws(StoreError) -> [Int32]
  /// Starts streaming `sql`'s rows.
  func startCopy(of sql: String, at place: String) throws(StoreError)
  /// The next row and its length, in a buffer that ends in a NUL after the row, which the
  /// reader gives back with ``freeCopyRow(_:)``; `nil` after the last.
  func nextCopyRow(at place: String) throws(StoreError) -> (UnsafeMutablePointer<CChar>, Int)?
  func freeCopyRow(_ row: UnsafeMutablePointer<CChar>)
  /// Reads and drops the rest of the rows.
  func finishCopy(at place: String) throws(StoreError)
}

/// A database whose queries' rows arrive in COPY text format, as a record reader queries it.
package struct CopyTextDatabase: RecordDatabase {
  package let source: any CopyTextSource
  package let listedKeysTable: String

  package init(_ source: any CopyTextSource, listedKeysTable: String) {
    (self.source, self.listedKeysTable) = (source, listedKeysTable)
  }

  package var path: String { source.path }

  package func rows(_ sql: String, at place: String?) throws(StoreError) -> CopyTextRows {
    try CopyTextRows(source, sql: sql, at: place ?? "query")
  }
}

extension SQLiteRecordReader where Database == CopyTextDatabase {
  /// Reads every record into `batcher`, on a read-ahead thread: compiled here, for these rows
  /// and this consumer, so that the reading runs specialised rather than through generics.
  package func read(intoBatches batcher: inout SQLiteReadAhead.Batcher) throws(StoreError) {
    try read(into: &batcher)
  }
}

/// The rows of one query, read a row at a time from `COPY (…) TO STDOUT` in text format, each
/// value with the SQLite storage class of its PostgreSQL type (`bigint` an integer, `double
/// precision` a real, `bytea` a blob, `numeric` and `text` text), so that the SQLite store's
/// reader reads them as it reads its own.
///
/// Each row is split once, as it arrives: every separator in libpq's buffer becomes a NUL (the
/// buffer ends in one), so a field is a C string read in place, and whether it is NULL (`\N`)
/// or holds an escape is noted then.
package final class CopyTextRows: RecordRows {
  private let source: any CopyTextSource
  private let place: String
  private let kinds: [Int32]
  // Read for every value of every row. The rows are read on one thread, a step at a time,
  // and no access to these overlaps another: the checks of exclusive access, made at each
  // read otherwise, are left out.
  @exclusivity(unchecked) private var row: UnsafeMutablePointer<CChar>?
  @exclusivity(unchecked) private var isDone = false
  /// Where each field of the row starts and ends: `bounds[2 * column]` and the next.
  private let bounds: UnsafeMutableBufferPointer<Int>
  /// Each field's storage class in this row: its column's, or `SQLITE_NULL`.
  private let types: UnsafeMutableBufferPointer<Int32>
  /// Whether each field of this row holds a backslash escape.
  private let escaped: UnsafeMutableBufferPointer<Bool>

  init(_ source: any CopyTextSource, sql: String, at place: String) throws(StoreError) {
    self.source = source
    self.place = place
    kinds = try source.storageClasses(of: sql, at: place)
    let width = max(kinds.count, 1)
    bounds = .allocate(capacity: 2 * width)
    bounds.initialize(repeating: 0)
    types = .allocate(capacity: width)
    types.initialize(repeating: SQLITE_NULL)
    escaped = .allocate(capacity: width)
    escaped.initialize(repeating: false)
    try source.startCopy(of: sql, at: place)
  }

  deinit {
    bounds.deallocate()
    types.deallocate()
    escaped.deallocate()
    if let row { source.freeCopyRow(row) }
    // A reader that stopped early leaves the rest of the rows: they are read and dropped, so
    // the connection can run its next statement.
    if !isDone { try? source.finishCopy(at: place) }
  }

  package func nextRow() throws(StoreError) -> Bool {
    if let row { source.freeCopyRow(row) }
    row = nil
    guard !isDone else { return false }
    guard let (text, length) = try source.nextCopyRow(at: place) else {
      isDone = true
      return false
    }
    row = text
    // The buffer ends in a NUL after the row's newline.
    let bytes = UnsafeMutableRawPointer(text).assumingMemoryBound(to: UInt8.self)
    var end = length
    if end > 0, bytes[end - 1] == 10 { end -= 1 }
    // Most rows hold no escape at all: one search of the row tells.
    let rowHasEscape = memchr(bytes, 92, end) != nil
    let width = kinds.count
    var column = 0
    var start = 0
    while column < width {
      let stop = Self.tab(in: bytes, from: start, to: end)
      bounds[2 * column] = start
      bounds[2 * column + 1] = stop
      let isNull = stop - start == 2 && bytes[start] == 92 && bytes[start + 1] == 78
      types[column] = isNull ? SQLITE_NULL : kinds[column]
      escaped[column] = rowHasEscape && memchr(bytes + start, 92, stop - start) != nil
      column += 1
      guard stop < end else { break }
      bytes[stop] = 0
      start = stop + 1
    }
    // The last field ends at the row's end (its newline, which becomes its NUL); a tab after
    // the last column's field is one field too many.
    bytes[end] = 0
    let tooMany = column == width && width > 0 && bounds[2 * width - 1] != end
    guard column == width, !tooMany else {
      throw StoreError(
        .malformedStore,
        "\(place): a row of \(tooMany ? "more than \(width)" : "\(column)") values for \(width) columns",
        at: InputLocation(file: source.path))
    }
    return true
  }

  /// The position of the first tab in `bytes[start..<end]`, or `end`: eight bytes at a time,
  /// a byte equal to 9 being the first whose XOR with 9 is zero.
  @inline(__always)
  private static func tab(in bytes: UnsafeMutablePointer<UInt8>, from start: Int, to end: Int)
    -> Int
  {
    var index = start
    while index + 8 <= end {
      let word = UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt64.self)
      let tabs = word ^ 0x0909_0909_0909_0909
      let zero = (tabs &- 0x0101_0101_0101_0101) & ~tabs & 0x8080_8080_8080_8080
      if zero != 0 { return index + zero.littleEndian.trailingZeroBitCount / 8 }
      index += 8
    }
    while index < end, bytes[index] != 9 { index += 1 }
    return index
  }

  /// Field `index` of the row, without its terminating NUL.
  @inline(__always)
  private func field(_ index: Int) -> UnsafeBufferPointer<UInt8> {
    guard let row else { return UnsafeBufferPointer(start: nil, count: 0) }
    let base = UnsafeRawPointer(row).assumingMemoryBound(to: UInt8.self)
    let start = bounds[2 * index]
    return UnsafeBufferPointer(start: base + start, count: bounds[2 * index + 1] - start)
  }

  /// Field `index` as the C string it is after ``nextRow()``.
  @inline(__always)
  private func cString(_ index: Int) -> UnsafePointer<CChar>? {
    row.map { UnsafePointer($0) + bounds[2 * index] }
  }

  package func type(_ index: Int) -> Int32 { types[index] }

  package func int64(_ index: Int) -> Int64 {
    guard kinds[index] == SQLITE_INTEGER else { return Int64(double(index)) }
    let bytes = field(index)
    var value: Int64 = 0
    var negative = false
    for (position, byte) in bytes.enumerated() {
      if position == 0, byte == 45 {
        negative = true
        continue
      }
      value = value &* 10 &+ Int64(byte &- 48)
    }
    return negative ? 0 &- value : value
  }

  package func double(_ index: Int) -> Double {
    if kinds[index] == SQLITE_INTEGER { return Double(int64(index)) }
    return cString(index).map { strtod($0, nil) } ?? 0
  }

  private func unescaped(_ index: Int) -> [UInt8]? {
    guard types[index] != SQLITE_NULL else { return nil }
    return CopyText.unescaped(ArraySlice(field(index)))
  }

  /// Whether `field` is plain ASCII, which reads as its bytes whatever is asked.
  @inline(__always)
  private func isASCII(_ field: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = field.baseAddress else { return true }
    var index = 0
    let count = field.count
    while index + 8 <= count {
      let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
      if word & 0x8080_8080_8080_8080 != 0 { return false }
      index += 8
    }
    while index < count {
      if field[index] >= 0x80 { return false }
      index += 1
    }
    return true
  }

  package func text(_ index: Int) -> String? {
    guard types[index] != SQLITE_NULL else { return nil }
    guard !escaped[index] else {
      return unescaped(index).map { String(decoding: $0, as: UTF8.self) }
    }
    return String(decoding: field(index), as: UTF8.self)
  }

  package func validatedText(_ index: Int) -> String? {
    guard types[index] != SQLITE_NULL else { return nil }
    guard !escaped[index] else {
      return unescaped(index).flatMap { String(validating: $0, as: UTF8.self) }
    }
    let bytes = field(index)
    // ASCII is valid UTF-8: decoding it is exact. Text in PostgreSQL holds no NUL, so the
    // field's C string is all of it.
    if isASCII(bytes) { return String(decoding: bytes, as: UTF8.self) }
    return cString(index).flatMap { String(validatingCString: $0) }
  }

  package func blob(_ index: Int) -> Data? {
    guard let bytes = unescaped(index) else { return nil }
    return kinds[index] == SQLITE_BLOB ? CopyText.bytea(bytes) : Data(bytes)
  }
}

/// COPY text format's escapes.
package enum CopyText {
  /// `field` with COPY's escapes undone.
  package static func unescaped(_ field: ArraySlice<UInt8>) -> [UInt8] {
    guard field.contains(UInt8(ascii: "\\")) else { return Array(field) }
    var result: [UInt8] = []
    result.reserveCapacity(field.count)
    var index = field.startIndex
    while index < field.endIndex {
      let byte = field[index]
      index += 1
      guard byte == UInt8(ascii: "\\"), index < field.endIndex else {
        result.append(byte)
        continue
      }
      let next = field[index]
      index += 1
      switch next {
      case UInt8(ascii: "b"): result.append(8)
      case UInt8(ascii: "f"): result.append(12)
      case UInt8(ascii: "n"): result.append(10)
      case UInt8(ascii: "r"): result.append(13)
      case UInt8(ascii: "t"): result.append(9)
      case UInt8(ascii: "v"): result.append(11)
      case UInt8(ascii: "0")...UInt8(ascii: "7"):
        var value = Int(next - UInt8(ascii: "0"))
        for _ in 0..<2 {
          guard index < field.endIndex,
            (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(field[index])
          else { break }
          value = value * 8 + Int(field[index] - UInt8(ascii: "0"))
          index += 1
        }
        result.append(UInt8(truncatingIfNeeded: value))
      default: result.append(next)
      }
    }
    return result
  }

  /// A `bytea` field's bytes, from its hex output (`\x0a1b`, after COPY's escapes).
  package static func bytea(_ text: [UInt8]) -> Data? {
    guard text.count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x"),
      text.count % 2 == 0
    else { return nil }
    var data = Data(capacity: (text.count - 2) / 2)
    var index = 2
    while index < text.count {
      guard let high = hexValue(text[index]), let low = hexValue(text[index + 1]) else {
        return nil
      }
      data.append(high << 4 | low)
      index += 2
    }
    return data
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
