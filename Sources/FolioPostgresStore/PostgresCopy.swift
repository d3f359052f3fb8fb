import FolioModel
import FolioStores
import Foundation

/// Rows for `COPY … FROM STDIN` in PostgreSQL's text format: fields separated by tabs, rows
/// ended by a line feed, `\N` for NULL, and a backslash before a backslash, tab, line feed or
/// carriage return in a value. Bytes are sent a buffer at a time.
struct PostgresCopyWriter {
  private(set) var buffer: [UInt8] = []
  private var fieldsInRow = 0
  /// How many bytes are gathered before they are sent.
  static let flushSize = 1 << 18

  init() { buffer.reserveCapacity(Self.flushSize + 4096) }

  private mutating func separate() {
    if fieldsInRow > 0 { buffer.append(UInt8(ascii: "\t")) }
    fieldsInRow += 1
  }

  mutating func appendNull() {
    separate()
    buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
  }

  mutating func append(_ value: Int64) {
    separate()
    buffer.append(contentsOf: String(value).utf8)
  }

  /// A double as PostgreSQL reads `double precision`: the shortest text that reads back as
  /// the same value, and its own words for infinities and NaN.
  mutating func append(_ value: Double) {
    separate()
    if value.isNaN {
      buffer.append(contentsOf: "NaN".utf8)
    } else if value.isInfinite {
      buffer.append(contentsOf: (value < 0 ? "-Infinity" : "Infinity").utf8)
    } else {
      buffer.append(contentsOf: "\(value)".utf8)
    }
  }

  /// Text, escaped. PostgreSQL's text cannot hold NUL: the caller refuses such text first.
  mutating func append(text: some Collection<UInt8>) {
    separate()
    for byte in text {
      switch byte {
      case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
      case UInt8(ascii: "\t"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
      case UInt8(ascii: "\n"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
      case UInt8(ascii: "\r"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
      default: buffer.append(byte)
      }
    }
  }

  /// Bytes as `bytea`'s hex input (`\x0a1b`), its backslash escaped for COPY.
  mutating func append(bytes: some Collection<UInt8>) {
    separate()
    buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\"), UInt8(ascii: "x")])
    let digits = Array("0123456789abcdef".utf8)
    for byte in bytes {
      buffer.append(digits[Int(byte >> 4)])
      buffer.append(digits[Int(byte & 0xF)])
    }
  }

  /// Ends the row.
  mutating func endRow() {
    buffer.append(UInt8(ascii: "\n"))
    fieldsInRow = 0
  }

  var needsFlush: Bool { buffer.count >= Self.flushSize }

  /// Sends what is gathered.
  mutating func flush(into connection: PostgresConnection, at place: String) throws(StoreError) {
    let pending = buffer
    buffer.removeAll(keepingCapacity: true)
    var failure: StoreError?
    pending.withUnsafeBytes { bytes in
      do throws(StoreError) {
        try connection.sendCopyData(bytes, at: place)
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
  }
}

/// One row of `COPY … TO STDOUT` in text format, its fields read one at a time.
package struct PostgresCopyRow {
  private let bytes: UnsafeRawBufferPointer

  package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  /// Each field's raw bytes (escapes not yet undone), `nil` for NULL.
  package func fields() -> [ArraySlice<UInt8>?] {
    var end = bytes.count
    if end > 0, bytes[end - 1] == UInt8(ascii: "\n") { end -= 1 }
    let all = Array(bytes[0..<end])
    var result: [ArraySlice<UInt8>?] = []
    var start = 0
    for index in 0...all.count where index == all.count || all[index] == UInt8(ascii: "\t") {
      let field = all[start..<index]
      result.append(field.elementsEqual([UInt8(ascii: "\\"), UInt8(ascii: "N")]) ? nil : field)
      start = index + 1
    }
    return result
  }
}
