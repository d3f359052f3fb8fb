import Foundation

/// A canonical text of the values transformers and attributes give (`Any`), to compare two of
/// them: equal values give equal texts, in any run.
///
/// Types are matched exactly (an `Int` is never taken for a `Bool`), strings by their Unicode
/// scalars (not by canonical equivalence), numbers and dates by their bits (every NaN alike,
/// as a NaN's payload is not kept), sets and dictionaries by their elements sorted by text
/// (their order depends on the instance).
package enum ValueDescription {
  /// The text of `value`, or `nil` when it holds a type this description does not know.
  package static func describe(_ value: Any?) -> String? {
    guard let value else { return "nil" }
    var text = ""
    return append(value, to: &text) ? text : nil
  }

  private static func append(_ value: Any, to text: inout String) -> Bool {
    let type = type(of: value)
    if type == NSNull.self {
      text += "null"
    } else if type == String.self, let string = value as? String {
      appendString(string, to: &text)
    } else if type == Bool.self, let flag = value as? Bool {
      text += flag ? "true" : "false"
    } else if type == Int.self, let number = value as? Int {
      text += "int \(number)"
    } else if type == Int16.self, let number = value as? Int16 {
      text += "int16 \(number)"
    } else if type == Int32.self, let number = value as? Int32 {
      text += "int32 \(number)"
    } else if type == Int64.self, let number = value as? Int64 {
      text += "int64 \(number)"
    } else if type == Double.self, let number = value as? Double {
      text += "double " + bits(number)
    } else if type == Float.self, let number = value as? Float {
      text += "float " + (number.isNaN ? "nan" : String(number.bitPattern, radix: 16))
    } else if type == Decimal.self, let number = value as? Decimal {
      text += "decimal \(number)"
    } else if type == Date.self, let date = value as? Date {
      text += "date " + bits(date.timeIntervalSinceReferenceDate)
    } else if type == Data.self, let data = value as? Data {
      text += "data " + data.map { String(format: "%02x", $0) }.joined()
    } else if type == UUID.self, let uuid = value as? UUID {
      text += "uuid \(uuid.uuidString)"
    } else if type == URL.self, let url = value as? URL {
      text += "url("
      appendString(url.relativeString, to: &text)
      if let base = url.baseURL {
        text += " base "
        guard append(base, to: &text) else { return false }
      }
      text += ")"
    } else if type == [Any].self, let array = value as? [Any] {
      text += "["
      for (index, element) in array.enumerated() {
        if index > 0 { text += ", " }
        guard append(element, to: &text) else { return false }
      }
      text += "]"
    } else if type == Set<AnyHashable>.self, let set = value as? Set<AnyHashable> {
      guard let elements = sorted(set.map(\.base)) else { return false }
      text += "set{" + elements.joined(separator: ", ") + "}"
    } else if type == [String: Any].self, let dictionary = value as? [String: Any] {
      guard let entries = sorted(dictionary.map { ($0.key as Any, $0.value) }) else { return false }
      text += "strings{" + entries.joined(separator: ", ") + "}"
    } else if type == [AnyHashable: Any].self, let dictionary = value as? [AnyHashable: Any] {
      guard let entries = sorted(dictionary.map { ($0.key.base, $0.value) }) else { return false }
      text += "keys{" + entries.joined(separator: ", ") + "}"
    } else {
      return false
    }
    return true
  }

  private static func sorted(_ elements: [Any]) -> [String]? {
    var texts: [String] = []
    for element in elements {
      guard let text = describe(element) else { return nil }
      texts.append(text)
    }
    return texts.sorted()
  }

  private static func sorted(_ entries: [(Any, Any)]) -> [String]? {
    var texts: [String] = []
    for (key, value) in entries {
      guard let key = describe(key), let value = describe(value) else { return nil }
      texts.append(key + ": " + value)
    }
    return texts.sorted()
  }

  private static func bits(_ number: Double) -> String {
    number.isNaN ? "nan" : String(number.bitPattern, radix: 16)
  }

  /// `string` in quotes, every scalar outside printable ASCII (and `"`, `\`) as `\u{…}`.
  private static func appendString(_ string: String, to text: inout String) {
    text += "\""
    for scalar in string.unicodeScalars {
      if (0x20..<0x7F).contains(scalar.value), scalar != "\"", scalar != "\\" {
        text.unicodeScalars.append(scalar)
      } else {
        text += "\\u{" + String(scalar.value, radix: 16) + "}"
      }
    }
    text += "\""
  }
}
