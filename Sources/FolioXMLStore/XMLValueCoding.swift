import FolioModel
import FolioStores
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// How each attribute type is spelled and encoded in an XML store.
///
/// Apple's type words and encodings are kept exactly: `string`, `int16`, `int32`, `int64`,
/// `decimal`, `double`, `float`, `bool` (`0`/`1`), `date` (seconds since 2001-01-01 with 20
/// fractional digits, `printf("%.20f")`), `binary` (base64, a newline after every 76 characters
/// and after the last). Strings use Core Data's escape: `<`, `>` and `&` are written as `\u`
/// and the character's UTF-16 code unit as four hex digits, low byte first (`<` is `\u3c00`).
/// Folio escapes the backslash (`\u5c00`) and the characters XML cannot carry or would alter
/// (control characters, carriage return, U+FFFE, U+FFFF) the same way, so every string
/// survives. The types Apple's files never show are Folio's own: `uuid` (upper-case 8-4-4-4-12),
/// `uri` (the absolute string, escaped like a string), `transformable` (the bytes, as binary),
/// `objectid` (the URI representation, escaped like a string) and `composite` (nested
/// `<attribute>` elements, one per member that has a value).
enum XMLValueCoding {
  /// Every type word, for suggestions.
  static let typeWords = [
    "string", "int16", "int32", "int64", "decimal", "double", "float", "bool", "date", "binary",
    "uuid", "uri", "transformable", "objectid", "composite",
  ]

  /// The word written in `type="…"` for `type`.
  static func typeWord(for type: AttributeType) -> String {
    switch type {
    case .string, .undefined: "string"
    case .integer16: "int16"
    case .integer32: "int32"
    case .integer64: "int64"
    case .decimal: "decimal"
    case .double: "double"
    case .float: "float"
    case .boolean: "bool"
    case .date: "date"
    case .binaryData: "binary"
    case .uuid: "uuid"
    case .uri: "uri"
    case .transformable: "transformable"
    case .objectID: "objectid"
    case .composite: "composite"
    }
  }

  /// The type a word names, or `nil` for an unknown word.
  static func attributeType(forWord word: String) -> AttributeType? {
    switch word {
    case "string": .string
    case "int16": .integer16
    case "int32": .integer32
    case "int64": .integer64
    case "decimal": .decimal
    case "double": .double
    case "float": .float
    case "bool": .boolean
    case "date": .date
    case "binary": .binaryData
    case "uuid": .uuid
    case "uri": .uri
    case "transformable": .transformable
    case "objectid": .objectID
    case "composite": .composite
    default: nil
    }
  }

  /// Whether a value written as `written` may be read as `expected`: the same type, or another
  /// of the same family (integers; floating-point and decimal numbers; bytes).
  static func isCompatible(_ written: AttributeType, with expected: AttributeType) -> Bool {
    if written == expected { return true }
    func family(_ type: AttributeType) -> Int {
      switch type {
      case .integer16, .integer32, .integer64: 1
      case .float, .double, .decimal: 2
      case .binaryData, .transformable: 3
      default: 0
      }
    }
    return family(written) != 0 && family(written) == family(expected)
  }

  // MARK: Reading

  /// The value `text` (NUL-terminated, `count` bytes) encodes for `type`, or `nil` when it is
  /// not one.
  static func decode(_ text: UnsafePointer<UInt8>, count: Int, as type: AttributeType)
    -> AttributeValue?
  {
    switch type {
    case .integer16, .integer32, .integer64:
      guard let value = integer(text, count: count), let range = type.integerRange,
        range.contains(value)
      else { return nil }
      return .integer(value)
    case .double:
      return real(text, count: count).map { .double($0) }
    case .float:
      return float(text, count: count).map { .float($0) }
    case .date:
      return real(text, count: count).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
    case .boolean:
      guard count == 1 else { return nil }
      return text[0] == UInt8(ascii: "1")
        ? .boolean(true)
        : text[0] == UInt8(ascii: "0") ? .boolean(false) : nil
    case .decimal:
      return decimal(string(text, count: count)).map { .decimal($0) }
    case .string, .undefined:
      return .string(unescapedString(text, count: count))
    case .binaryData:
      return base64(text, count: count).map { .binaryData($0) }
    case .transformable:
      return base64(text, count: count).map { .transformable($0) }
    case .uuid:
      return UUID(uuidString: string(text, count: count)).map { .uuid($0) }
    case .uri:
      let value = unescapedString(text, count: count)
      guard !value.isEmpty, let url = URL(string: value) else { return nil }
      return .uri(url)
    case .objectID:
      return .objectID(unescapedString(text, count: count))
    case .composite:
      return nil
    }
  }

  static func string(_ text: UnsafePointer<UInt8>, count: Int) -> String {
    String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }

  /// A decimal integer: an optional sign and digits, nothing else.
  static func integer(_ text: UnsafePointer<UInt8>, count: Int) -> Int64? {
    var index = 0
    var isNegative = false
    if count > 0, text[0] == UInt8(ascii: "-") || text[0] == UInt8(ascii: "+") {
      isNegative = text[0] == UInt8(ascii: "-")
      index = 1
    }
    guard index < count else { return nil }
    var magnitude: UInt64 = 0
    while index < count {
      let digit = text[index] &- UInt8(ascii: "0")
      guard digit < 10 else { return nil }
      let (times, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times.addingReportingOverflow(UInt64(digit))
      guard !overflow1, !overflow2 else { return nil }
      magnitude = sum
      index += 1
    }
    if isNegative {
      guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
      return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
    }
    guard magnitude <= UInt64(Int64.max) else { return nil }
    return Int64(magnitude)
  }

  static func real(_ text: UnsafePointer<UInt8>, count: Int) -> Double? {
    guard count > 0, !isSpace(text[0]) else { return nil }
    return text.withMemoryRebound(to: CChar.self, capacity: count + 1) { start in
      var end: UnsafeMutablePointer<CChar>?
      let value = strtod(start, &end)
      guard let end, end == UnsafeMutablePointer(mutating: start + count) else { return nil }
      return value
    }
  }

  static func float(_ text: UnsafePointer<UInt8>, count: Int) -> Float? {
    guard count > 0, !isSpace(text[0]) else { return nil }
    return text.withMemoryRebound(to: CChar.self, capacity: count + 1) { start in
      var end: UnsafeMutablePointer<CChar>?
      let value = strtof(start, &end)
      guard let end, end == UnsafeMutablePointer(mutating: start + count) else { return nil }
      return value
    }
  }

  static func decimal(_ text: String) -> Decimal? {
    if text == "NaN" { return Decimal.nan }
    let pattern = #/[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/#
    guard text.wholeMatch(of: pattern) != nil else { return nil }
    return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
  }

  /// Base64 with any ASCII whitespace between the characters.
  static func base64(_ text: UnsafePointer<UInt8>, count: Int) -> Data? {
    var compact = [UInt8]()
    compact.reserveCapacity(count)
    for index in 0..<count where !isSpace(text[index]) { compact.append(text[index]) }
    return Data(base64Encoded: Data(compact))
  }

  static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
  }

  /// The string `text` holds, with Core Data's `\uXXXX` escape undone; the bytes are copied
  /// once when there is no backslash.
  static func unescapedString(_ text: UnsafePointer<UInt8>, count: Int) -> String {
    let bytes = UnsafeBufferPointer(start: text, count: count)
    guard memchr(text, Int32(UInt8(ascii: "\\")), count) != nil else {
      return String(decoding: bytes, as: UTF8.self)
    }
    return unescape(String(decoding: bytes, as: UTF8.self))
  }

  /// Undoes Core Data's `\uXXXX` escape (code unit in hex, low byte first), working on the
  /// UTF-8 bytes; an escaped surrogate pair becomes its character, a lone surrogate U+FFFD.
  static func unescape(_ text: String) -> String {
    let bytes = Array(text.utf8)
    guard bytes.contains(UInt8(ascii: "\\")) else { return text }
    func unit(at index: Int) -> UInt16? {
      guard index + 5 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
        bytes[index + 1] == UInt8(ascii: "u"),
        let low = hexByte(UInt16(bytes[index + 2]), UInt16(bytes[index + 3])),
        let high = hexByte(UInt16(bytes[index + 4]), UInt16(bytes[index + 5]))
      else { return nil }
      return UInt16(high) << 8 | UInt16(low)
    }
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      guard let first = unit(at: index) else {
        result.append(bytes[index])
        index += 1
        continue
      }
      index += 6
      var scalar = Unicode.Scalar(first)
      if (0xD800..<0xDC00).contains(first), let second = unit(at: index),
        (0xDC00..<0xE000).contains(second)
      {
        let value = 0x10000 + (UInt32(first - 0xD800) << 10) + UInt32(second - 0xDC00)
        scalar = Unicode.Scalar(value)
        index += 6
      }
      result.append(contentsOf: String(Character(scalar ?? "\u{FFFD}")).utf8)
    }
    return String(decoding: result, as: UTF8.self)
  }

  private static func hexByte(_ high: UInt16, _ low: UInt16) -> UInt8? {
    func digit(_ unit: UInt16) -> UInt8? {
      switch unit {
      case 0x30...0x39: UInt8(unit - 0x30)
      case 0x41...0x46: UInt8(unit - 0x41 + 10)
      case 0x61...0x66: UInt8(unit - 0x61 + 10)
      default: nil
      }
    }
    guard let high = digit(high), let low = digit(low) else { return nil }
    return high << 4 | low
  }
}
