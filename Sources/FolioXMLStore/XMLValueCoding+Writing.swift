import FolioModel
import FolioStores
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writing values: each appends the text of a value, already escaped for XML content, to a
/// byte buffer.
extension XMLValueCoding {
  /// Appends the text of `value` (not a composite) to `output`.
  static func encode(_ value: AttributeValue, into output: inout [UInt8]) {
    switch value {
    case .integer(let number):
      output.append(contentsOf: String(number).utf8)
    case .double(let number):
      appendShortest(number.description, into: &output)
    case .float(let number):
      appendShortest(number.description, into: &output)
    case .decimal(let number):
      output.append(contentsOf: number.description.utf8)
    case .boolean(let flag):
      output.append(flag ? UInt8(ascii: "1") : UInt8(ascii: "0"))
    case .date(let date):
      appendSeconds(date.timeIntervalSinceReferenceDate, into: &output)
    case .string(let text), .objectID(let text):
      escape(text, into: &output)
    case .uri(let url):
      escape(url.absoluteString, into: &output)
    case .uuid(let uuid):
      output.append(contentsOf: uuid.uuidString.utf8)
    case .binaryData(let data), .transformable(let data):
      appendBase64(data, into: &output)
    case .composite:
      break
    }
  }

  /// The type of the value's case, to check it against the attribute's type before writing.
  static func fits(_ value: AttributeValue, _ type: AttributeType) -> Bool {
    switch (value, type) {
    case (.integer(let number), _):
      return type.integerRange?.contains(number) ?? false
    case (.double, .double), (.float, .float), (.decimal, .decimal), (.boolean, .boolean),
      (.date, .date), (.string, .string), (.string, .undefined), (.uri, .uri), (.uuid, .uuid),
      (.binaryData, .binaryData), (.transformable, .transformable), (.objectID, .objectID),
      (.composite, .composite):
      return true
    default:
      return false
    }
  }

  /// A number's shortest round-trip form, without Swift's `.0` on whole numbers (Apple writes
  /// `200`, not `200.0`).
  private static func appendShortest(_ text: String, into output: inout [UInt8]) {
    var bytes = Array(text.utf8)
    if bytes.count > 2, bytes[bytes.count - 2] == UInt8(ascii: "."),
      bytes[bytes.count - 1] == UInt8(ascii: "0")
    {
      bytes.removeLast(2)
    }
    output.append(contentsOf: bytes)
  }

  /// Seconds with 20 fractional digits, as Core Data writes dates; the shortest form instead
  /// when 20 digits would not read back to the same value (only for |t| < 0.001 s).
  private static func appendSeconds(_ seconds: Double, into output: inout [UInt8]) {
    guard seconds.isFinite else {
      appendShortest(seconds.description, into: &output)
      return
    }
    var buffer = [CChar](repeating: 0, count: 400)
    let length = buffer.withUnsafeMutableBufferPointer { pointer -> Int in
      withVaList([seconds]) { arguments in
        Int(vsnprintf(pointer.baseAddress, 400, "%.20f", arguments))
      }
    }
    guard length > 0, length < 400, strtod(buffer, nil) == seconds else {
      appendShortest(seconds.description, into: &output)
      return
    }
    buffer.withUnsafeBufferPointer { pointer in
      pointer.baseAddress?.withMemoryRebound(to: UInt8.self, capacity: length) { start in
        output.append(contentsOf: UnsafeBufferPointer(start: start, count: length))
      }
    }
  }

  /// Base64 with a newline after every 76 characters and after the last, as Core Data writes.
  static func appendBase64(_ data: Data, into output: inout [UInt8]) {
    let encoded = data.base64EncodedData()
    var start = encoded.startIndex
    while start < encoded.endIndex {
      let end = min(start + 76, encoded.endIndex)
      output.append(contentsOf: encoded[start..<end])
      output.append(0x0A)
      start = end
    }
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

  /// Appends `text` with Core Data's `\uXXXX` escape for `<`, `>`, `&`, and Folio's for `\`,
  /// control characters other than tab and newline, U+FFFE and U+FFFF.
  static func escape(_ text: String, into output: inout [UInt8]) {
    var text = text
    text.withUTF8 { bytes in
      var index = 0
      let count = bytes.count
      while index < count {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"), UInt8(ascii: "\\"),
          0x00...0x08, 0x0B...0x1F, 0x7F:
          appendEscape(low: byte, high: 0, into: &output)
          index += 1
        case 0xEF where index + 2 < count && bytes[index + 1] == 0xBF && bytes[index + 2] >= 0xBE:
          appendEscape(low: bytes[index + 2] == 0xBE ? 0xFE : 0xFF, high: 0xFF, into: &output)
          index += 3
        default:
          output.append(byte)
          index += 1
        }
      }
    }
  }

  private static func appendEscape(low: UInt8, high: UInt8, into output: inout [UInt8]) {
    output.append(UInt8(ascii: "\\"))
    output.append(UInt8(ascii: "u"))
    output.append(hexDigits[Int(low >> 4)])
    output.append(hexDigits[Int(low & 0xF)])
    output.append(hexDigits[Int(high >> 4)])
    output.append(hexDigits[Int(high & 0xF)])
  }
}
