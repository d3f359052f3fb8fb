import Foundation

/// Reading attribute values from the text of a model file, the way Core Data reads them.
///
/// Xcode's model compiler turns `defaultValueString` (and numeric `minValueString` /
/// `maxValueString`) into values with Foundation's lenient string conversions. Real models rely
/// on that: `"0.0"` as the default of an Integer 16, `"NO"` on an Integer 64 whose type was once
/// Boolean, `"100"` on a Boolean. Folio reads those the same way and reports each one as a
/// ``ModelDiagnostic`` (a *coercion*), so nothing is changed silently. Text that no such rule
/// reads — `"abc"` for a number, `"1.5"` for an integer, a value outside the type's range — is an
/// error. A UUID or URI default that is not one is ignored by Core Data; Folio ignores it too
/// and reports it.
enum ValueText {
  /// The outcome of reading a text as a value of some type.
  enum Reading: Equatable {
    /// The text is the value's canonical spelling.
    case exact(AttributeValue)
    /// The text is read as Core Data reads it, but not canonically; `note` says how.
    case coerced(AttributeValue, note: String)
    /// Core Data ignores the text; `note` says why.
    case ignored(note: String)
  }

  /// Reads `text` as a value of `type`.
  ///
  /// - Throws: a reason, as a plain sentence fragment, when the text does not parse.
  static func read(_ text: String, as type: AttributeType) throws(ReadFailure) -> Reading {
    switch type {
    case .integer16, .integer32, .integer64:
      return try readInteger(text, as: type)
    case .boolean:
      return try readBoolean(text)
    case .double:
      guard isDecimalNumber(text), let value = Double(text), value.isFinite else {
        throw ReadFailure("expected a decimal number")
      }
      return .exact(.double(value))
    case .float:
      guard isDecimalNumber(text), let value = Float(text) else {
        throw ReadFailure("expected a decimal number")
      }
      guard value.isFinite else { throw ReadFailure("outside the range of Float") }
      return .exact(.float(value))
    case .decimal:
      guard isDecimalNumber(text), let value = Decimal(string: text, locale: posix) else {
        throw ReadFailure("expected a decimal number")
      }
      return .exact(.decimal(value))
    case .string:
      return .exact(.string(text))
    case .date:
      guard isDecimalNumber(text), let seconds = Double(text), seconds.isFinite else {
        throw ReadFailure(
          "expected seconds since 2001-01-01 (Xcode writes defaultDateTimeInterval)")
      }
      return .exact(.date(Date(timeIntervalSinceReferenceDate: seconds)))
    case .uuid:
      guard let value = UUID(uuidString: text) else {
        return .ignored(note: "not a UUID, so Core Data ignores it")
      }
      return .exact(.uuid(value))
    case .uri:
      guard !text.isEmpty, let value = URL(string: text) else {
        return .ignored(note: "not a URI, so Core Data ignores it")
      }
      return .exact(.uri(value))
    case .binaryData, .transformable, .objectID, .composite, .undefined:
      throw ReadFailure("\(type.xcodeName) attributes take no default value")
    }
  }

  private static func readInteger(_ text: String, as type: AttributeType) throws(ReadFailure)
    -> Reading
  {
    guard let range = type.integerRange else { preconditionFailure("\(type) is not an integer") }
    func checked(_ value: Int64) throws(ReadFailure) -> Int64 {
      guard range.contains(value) else {
        throw ReadFailure("outside \(range.lowerBound)...\(range.upperBound)")
      }
      return value
    }
    if isInteger(text) {
      guard let value = Int64(text) else {
        throw ReadFailure("outside \(range.lowerBound)...\(range.upperBound)")
      }
      return .exact(.integer(try checked(value)))
    }
    if text == "YES" || text == "NO" {
      return .coerced(
        .integer(text == "YES" ? 1 : 0),
        note: "the Boolean \"\(text)\" is read as \(text == "YES" ? 1 : 0), as Core Data does")
    }
    if isDecimalNumber(text), let number = Double(text), number.isFinite {
      guard number == number.rounded(.towardZero) else {
        throw ReadFailure("expected a whole number")
      }
      guard let whole = Int64(exactly: number) else {
        throw ReadFailure("outside \(range.lowerBound)...\(range.upperBound)")
      }
      let value = try checked(whole)
      return .coerced(.integer(value), note: "\"\(text)\" is read as \(value), as Core Data does")
    }
    throw ReadFailure("expected a whole number")
  }

  private static func readBoolean(_ text: String) throws(ReadFailure) -> Reading {
    switch text {
    case "YES", "1": return .exact(.boolean(true))
    case "NO", "0": return .exact(.boolean(false))
    default: break
    }
    switch text.lowercased() {
    case "yes", "true":
      return .coerced(.boolean(true), note: "\"\(text)\" is read as YES, as Core Data does")
    case "no", "false":
      return .coerced(.boolean(false), note: "\"\(text)\" is read as NO, as Core Data does")
    default: break
    }
    if isDecimalNumber(text), let number = Double(text) {
      let value = number != 0
      return .coerced(
        .boolean(value),
        note: "the number \"\(text)\" is read as \(value ? "YES" : "NO"), as Core Data does")
    }
    throw ReadFailure("expected YES or NO")
  }

  /// An optional sign and ASCII digits.
  static func isInteger(_ text: String) -> Bool {
    var body = Substring(text)
    if body.first == "-" || body.first == "+" { body = body.dropFirst() }
    return !body.isEmpty && body.allSatisfy { $0.isASCII && $0.isNumber }
  }

  /// A plain decimal number: optional sign, digits with at most one point, optional exponent.
  /// (Swift's `Double(_:)` also takes `nan`, `inf` and hexadecimal, which a model never means.)
  static func isDecimalNumber(_ text: String) -> Bool {
    var scalars = Substring(text)
    if scalars.first == "-" || scalars.first == "+" { scalars = scalars.dropFirst() }
    var digits = 0
    var sawPoint = false
    while let character = scalars.first {
      if character.isASCII, character.isNumber {
        digits += 1
      } else if character == ".", !sawPoint {
        sawPoint = true
      } else {
        break
      }
      scalars = scalars.dropFirst()
    }
    guard digits > 0 else { return false }
    if scalars.first == "e" || scalars.first == "E" {
      scalars = scalars.dropFirst()
      if scalars.first == "-" || scalars.first == "+" { scalars = scalars.dropFirst() }
      guard !scalars.isEmpty, scalars.allSatisfy({ $0.isASCII && $0.isNumber }) else {
        return false
      }
      return true
    }
    return scalars.isEmpty
  }

  static let posix = Locale(identifier: "en_US_POSIX")
}

/// Why a text did not read as a value: a sentence fragment such as `expected YES or NO`.
struct ReadFailure: Error, Equatable {
  var reason: String
  init(_ reason: String) { self.reason = reason }
}
