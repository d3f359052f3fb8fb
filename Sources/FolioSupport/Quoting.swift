/// Text quoted for each language Folio writes: Core Data format strings, JSON (and the
/// undo-script language, whose strings are JSON's), Swift, SQL, CSV, TSV and XML.
///
/// Each function's output reads back, in its language, as exactly `text`; where a language
/// cannot hold a character at all, the function says what it writes instead.
package enum Quoting {
  // MARK: Core Data format strings

  /// `text` as a string in an NSPredicate or NSExpression format string: in double quotes,
  /// with `"`, `\` and control characters escaped, and every scalar that would join a
  /// delimiter into one character (and so not read back).
  ///
  /// Format strings are read a character (grapheme cluster) at a time, so a scalar that
  /// clusters with what precedes it (a combining mark, a joiner, an emoji modifier) cannot
  /// print as itself right after the opening quote or an escape, and one that clusters with
  /// what follows it (a prepended concatenation mark such as U+0602) cannot print as itself
  /// anywhere, since a quote or an escape may follow. Such a scalar prints as `\uXXXX`, as a
  /// surrogate pair beyond the Basic Multilingual Plane.
  package static func formatString(_ text: String) -> String {
    var result = "\""
    var isAfterDelimiter = true
    for scalar in text.unicodeScalars {
      var isEscaped = true
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\t": result += "\\t"
      case "\r": result += "\\r"
      case "\0": result += "\\0"
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F || joinsFollowing(scalar)
          || (isAfterDelimiter && joinsPreceding(scalar))
        {
          result += utf16Escapes(scalar, uppercase: true)
        } else {
          result.unicodeScalars.append(scalar)
          isEscaped = false
        }
      }
      isAfterDelimiter = isEscaped
    }
    return result + "\""
  }

  /// Whether `scalar` forms one character with a `"` before it.
  private static func joinsPreceding(_ scalar: Unicode.Scalar) -> Bool {
    var pair = "\""
    pair.unicodeScalars.append(scalar)
    return pair.count == 1
  }

  /// Whether `scalar` forms one character with a `"` after it.
  private static func joinsFollowing(_ scalar: Unicode.Scalar) -> Bool {
    var pair = String(Character(scalar))
    pair += "\""
    return pair.count == 1
  }

  /// `\uXXXX`, or two of them (a surrogate pair) above U+FFFF.
  private static func utf16Escapes(_ scalar: Unicode.Scalar, uppercase: Bool) -> String {
    var result = ""
    for unit in String(Character(scalar)).utf16 {
      let digits = String(unit, radix: 16, uppercase: uppercase)
      result += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
    }
    return result
  }

  // MARK: JSON

  /// `text` as a JSON string: in quotes, with `"`, `\` and the control characters U+0000 to
  /// U+001F escaped (`\n`, `\r`, `\t`, `\b`, `\f`, else `\u00xx`); everything else as it is.
  package static func json(_ text: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count + 2)
    appendJSON(text, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends ``json(_:)`` of `text`, in UTF-8, to `bytes`; runs that need no escape are
  /// copied whole.
  package static func appendJSON(_ text: String, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    let done: Void? = text.utf8.withContiguousStorageIfAvailable {
      appendJSONEscaped($0, to: &bytes)
    }
    if done == nil {
      Array(text.utf8).withUnsafeBufferPointer { appendJSONEscaped($0, to: &bytes) }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  private static func appendJSONEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8])
  {
    var clean = 0
    for index in 0..<utf8.count {
      let byte = utf8[index]
      guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
        continue
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[clean..<index]))
      clean = index + 1
      bytes.append(UInt8(ascii: "\\"))
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
      case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
      case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
      case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
      case 0x08: bytes.append(UInt8(ascii: "b"))
      case 0x0C: bytes.append(UInt8(ascii: "f"))
      default:
        bytes.append(contentsOf: [
          UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigits[Int(byte >> 4)],
          hexDigits[Int(byte & 15)],
        ])
      }
    }
    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[clean..<utf8.count]))
  }

  // MARK: Swift

  /// `text` as a Swift string literal: in double quotes, with `"`, `\` and every control
  /// character escaped (`\n`, `\r`, `\t`, `\0`, else `\u{…}`), since Swift's source may hold
  /// none of them raw.
  package static func swiftString(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case "\0": result += "\\0"
      default:
        if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
          || scalar.properties.generalCategory == .lineSeparator
          || scalar.properties.generalCategory == .paragraphSeparator
        {
          result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result + "\""
  }

  // MARK: SQL

  /// `name` as an SQL identifier: in double quotes, a double quote inside doubled.
  package static func sqlIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  // MARK: CSV and TSV

  /// `text` as a CSV field (RFC 4180): in quotes, quotes doubled, when it holds a comma, a
  /// quote or a line break; as it is otherwise.
  package static func csvField(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  /// `text` as a TSV field: backslash, tab, newline and carriage return escaped (`\\`, `\t`,
  /// `\n`, `\r`), so each row is one line and a tab always separates fields.
  package static func tsvField(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": result += "\\\\"
      case "\t": result += "\\t"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  // MARK: XML

  /// `text` as an XML attribute value (or element text) in double quotes: markup characters
  /// as entities, tab and line breaks as character references (so attribute normalization
  /// keeps them), and the characters XML 1.0 cannot hold at all — the other controls, U+FFFE
  /// and U+FFFF — as U+FFFD.
  package static func xml(_ text: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    appendXML(text, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends ``xml(_:)`` of `text`, in UTF-8, to `bytes`.
  package static func appendXML(_ text: String, to bytes: inout [UInt8]) {
    // U+FFFE and U+FFFF are EF BF BE and EF BF BF: `lead` counts how much of EF BF came last.
    var lead = 0
    for byte in text.utf8 {
      if lead == 2 && byte >= 0xBE {
        bytes.removeLast(2)
        bytes.append(contentsOf: [0xEF, 0xBF, 0xBD])
        lead = 0
        continue
      }
      lead = byte == 0xEF ? 1 : (lead == 1 && byte == 0xBF ? 2 : 0)
      switch byte {
      case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
      case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
      case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
      case UInt8(ascii: "\""): bytes.append(contentsOf: "&quot;".utf8)
      case 0x09: bytes.append(contentsOf: "&#9;".utf8)
      case 0x0A: bytes.append(contentsOf: "&#10;".utf8)
      case 0x0D: bytes.append(contentsOf: "&#13;".utf8)
      case 0x00...0x1F: bytes.append(contentsOf: [0xEF, 0xBF, 0xBD])
      default: bytes.append(byte)
      }
    }
  }
}
