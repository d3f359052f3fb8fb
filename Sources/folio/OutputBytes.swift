import CFolioSupport
import Folio
internal import FolioSupport
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Output built as UTF-8 bytes and written to standard output in large pieces: what `dump`
/// prints for a million objects, without a string per value.
struct OutputBytes {
  private(set) var bytes: [UInt8] = []

  init() { bytes.reserveCapacity(Self.chunk + 4096) }

  /// How much is gathered before it is written.
  private static let chunk = 1 << 16

  mutating func append(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  mutating func append(_ other: [UInt8]) { bytes.append(contentsOf: other) }

  mutating func append(byte: UInt8) { bytes.append(byte) }

  /// `text` as it is.
  mutating func append(text: String) {
    if let done: Void = text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) })
    {
      return done
    }
    bytes.append(contentsOf: Array(text.utf8))
  }

  /// `number` in decimal.
  mutating func append(integer number: Int64) { AttributeJSON.appendInteger(number, to: &bytes) }

  /// `text` as a JSON string: in quotes, with `"`, `\` and control characters escaped as the
  /// undo-script language's strings escape them; everything else as it is, in UTF-8.
  mutating func append(jsonString text: String) { Quoting.appendJSON(text, to: &bytes) }

  /// `value` as JSON, in the form `Formats/dump.schema.json` gives: numbers and booleans as
  /// themselves; a Decimal as a string keeping every digit; a date as ISO 8601 in UTC; binary
  /// and transformable data as base64; a Double that JSON cannot hold (NaN, infinities) as the
  /// string "NaN", "Infinity" or "-Infinity".
  mutating func append(jsonValue value: AttributeValue) { AttributeJSON.append(value, to: &bytes) }

  /// Writes what is gathered once there is a chunk of it.
  mutating func writeIfFull() throws {
    if bytes.count >= Self.chunk { try write() }
  }

  /// Writes everything gathered to standard output.
  mutating func write() throws {
    let code = bytes.withUnsafeBytes {
      folio_write_standard_output($0.baseAddress, UInt($0.count))
    }
    bytes.removeAll(keepingCapacity: true)
    guard code == 0 else { throw OutputFailure(code: code) }
  }
}

/// Standard output could not be written.
struct OutputFailure: Error, CustomStringConvertible {
  var code: Int32
  var description: String {
    "cannot write to standard output: \(String(cString: strerror(code)))"
  }
}
