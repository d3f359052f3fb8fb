import FolioSupport
import Foundation

/// Attribute values as JSON: `folio dump`'s form (`Formats/dump.schema.json`) and the exact
/// form the pasteboard writes (`Formats/pasteboard.md`), which reads back bit for bit.
///
/// Both write integers and Booleans as JSON numbers and booleans; Double and Float as the
/// shortest number that reads back as the same Double (a Float widened first), or the strings
/// `"NaN"`, `"Infinity"`, `"-Infinity"`; Decimal as a string keeping every digit; String as
/// itself; Binary Data and Transformable as base64; UUID as its uppercase text; URI and Object
/// ID as their text. They differ in two types. The dump writes a Date as ISO 8601 in UTC to the
/// microsecond and a Composite as its model text; the exact form writes the ISO text only when
/// it reads back as the same Double, else the seconds since 2001-01-01 as a number, and a
/// Composite as an object of its members in the exact form.
package enum AttributeJSON {
  /// Appends `value` in `folio dump`'s form.
  package static func append(_ value: AttributeValue, to bytes: inout [UInt8]) {
    append(value, exact: false, to: &bytes)
  }

  /// Appends `value` in the exact form, which ``value(from:of:in:)`` reads back unchanged
  /// (``AttributeValue/isIdentical(to:)``; a NaN's payload aside).
  package static func appendExact(_ value: AttributeValue, to bytes: inout [UInt8]) {
    append(value, exact: true, to: &bytes)
  }

  private static func append(_ value: AttributeValue, exact: Bool, to bytes: inout [UInt8]) {
    switch value {
    case .integer(let number): appendInteger(number, to: &bytes)
    case .boolean(let flag): bytes += (flag ? "true" : "false").utf8
    case .double(let number): appendReal(number, to: &bytes)
    case .float(let number): appendReal(Double(number), to: &bytes)
    case .decimal(let number): Quoting.appendJSON("\(number)", to: &bytes)
    case .date(let date):
      if exact {
        appendExact(date, to: &bytes)
      } else {
        bytes.append(UInt8(ascii: "\""))
        ISODate.appendText(of: date, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
      }
    case .string(let text): Quoting.appendJSON(text, to: &bytes)
    case .uri(let url): Quoting.appendJSON(url.absoluteString, to: &bytes)
    case .uuid(let uuid): Quoting.appendJSON(uuid.uuidString, to: &bytes)
    case .binaryData(let data), .transformable(let data):
      Quoting.appendJSON(data.base64EncodedString(), to: &bytes)
    case .composite(let members) where exact:
      bytes.append(UInt8(ascii: "{"))
      for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        Quoting.appendJSON(member.key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(member.value, exact: true, to: &bytes)
      }
      bytes.append(UInt8(ascii: "}"))
    case .objectID, .composite: Quoting.appendJSON(value.modelText, to: &bytes)
    }
  }

  /// `number` in decimal, without a string of its own.
  package static func appendInteger(_ number: Int64, to bytes: inout [UInt8]) {
    if number < 0 { bytes.append(UInt8(ascii: "-")) }
    var magnitude = number.magnitude
    var divisor: UInt64 = 1
    while magnitude / divisor >= 10 { divisor *= 10 }
    while divisor > 0 {
      bytes.append(UInt8(48 + magnitude / divisor))
      magnitude %= divisor
      divisor /= 10
    }
  }

  private static func appendReal(_ number: Double, to bytes: inout [UInt8]) {
    if number.isNaN {
      bytes += "\"NaN\"".utf8
    } else if number.isInfinite {
      bytes += (number < 0 ? "\"-Infinity\"" : "\"Infinity\"").utf8
    } else {
      bytes += number.description.utf8
    }
  }

  /// A date as its ISO text when that reads back as the same Double, else as its seconds.
  private static func appendExact(_ date: Date, to bytes: inout [UInt8]) {
    let interval = date.timeIntervalSinceReferenceDate
    guard interval.isFinite else { return appendReal(interval, to: &bytes) }
    var text: [UInt8] = []
    ISODate.appendText(of: date, to: &text)
    if let back = try? ISODate.date(from: String(decoding: text, as: UTF8.self)),
      back.timeIntervalSinceReferenceDate.bitPattern == interval.bitPattern
    {
      bytes.append(UInt8(ascii: "\""))
      bytes += text
      bytes.append(UInt8(ascii: "\""))
    } else {
      bytes += interval.description.utf8
    }
  }

  // MARK: Reading

  /// Why a JSON value is not a value of an attribute: `reason` is a sentence fragment
  /// (`"abc" is not an integer`), `path` the way into a composite (`.street`), empty for the
  /// attribute itself.
  package struct Failure: Error, Sendable, Equatable {
    package var reason: String
    package var path: String
  }

  /// The value of `attribute` (of `model`) that `json` holds in the exact form, or `nil` for
  /// JSON's `null`. The dump's forms of a Date (ISO text to the microsecond) read too.
  package static func value(
    from json: JSONValue, of attribute: AttributeDescription, in model: ManagedObjectModel
  ) throws(Failure) -> AttributeValue? {
    try value(from: json, of: attribute, in: model, level: 1)
  }

  private static func value(
    from json: JSONValue, of attribute: AttributeDescription, in model: ManagedObjectModel,
    level: Int
  ) throws(Failure) -> AttributeValue? {
    let type = attribute.attributeType
    func mismatch(_ what: String) -> Failure {
      Failure(reason: "\(describe(json)) is not \(what)", path: "")
    }
    switch (type, json) {
    case (_, .null):
      return nil
    case (.integer16, .number(let text)), (.integer32, .number(let text)),
      (.integer64, .number(let text)):
      guard let number = Int64(text) else { throw mismatch("an integer") }
      guard type.integerRange?.contains(number) ?? false else {
        throw Failure(reason: "\(text) is outside the range of \(type.xcodeName)", path: "")
      }
      return .integer(number)
    case (.double, _):
      return .double(try real(json, as: "a Double") { Double($0) })
    case (.float, _):
      return .float(try real(json, as: "a Float") { Float($0) })
    case (.decimal, .string(let text)), (.decimal, .number(let text)):
      guard let number = decimal(text) else { throw mismatch("a decimal number") }
      return .decimal(number)
    case (.string, .string(let text)):
      return .string(text)
    case (.boolean, .bool(let flag)):
      return .boolean(flag)
    case (.date, .string(let text)):
      if let special = specialReal(text) {
        return .date(Date(timeIntervalSinceReferenceDate: special))
      }
      do {
        return .date(try ISODate.date(from: text))
      } catch {
        throw Failure(reason: "\"\(text)\" is not a date: \(error.reason)", path: "")
      }
    case (.date, .number(let text)):
      guard let seconds = Double(text), seconds.isFinite else { throw mismatch("a date") }
      return .date(Date(timeIntervalSinceReferenceDate: seconds))
    case (.binaryData, .string(let text)), (.transformable, .string(let text)):
      guard let data = Data(base64Encoded: text) else { throw mismatch("base64") }
      return type == .binaryData ? .binaryData(data) : .transformable(data)
    case (.uuid, .string(let text)):
      guard let uuid = UUID(uuidString: text) else { throw mismatch("a UUID") }
      return .uuid(uuid)
    case (.uri, .string(let text)):
      guard let url = URL(string: text) else { throw mismatch("a URI") }
      return .uri(url)
    case (.objectID, .string(let text)):
      return .objectID(text)
    case (.composite, .object(let members)):
      return try composite(members, of: attribute, in: model, level: level)
    default:
      throw mismatch("a value of type \(type.xcodeName)")
    }
  }

  private static func composite(
    _ members: [JSONMember], of attribute: AttributeDescription, in model: ManagedObjectModel,
    level: Int
  ) throws(Failure) -> AttributeValue {
    guard let name = attribute.compositeName, let composite = model.composite(named: name) else {
      throw Failure(reason: "the model has no composite for \"\(attribute.name)\"", path: "")
    }
    guard level <= CompositeDescription.maximumNestingLevels else {
      throw Failure(
        reason: "composites nest deeper than \(CompositeDescription.maximumNestingLevels) levels",
        path: "")
    }
    var values: [String: AttributeValue] = [:]
    for member in members {
      guard let element = composite.attributes.first(where: { $0.name == member.name }) else {
        throw Failure(
          reason: "the composite \(name) has no member \"\(member.name)\"", path: "." + member.name)
      }
      do {
        if let value = try value(from: member.value, of: element, in: model, level: level + 1) {
          values[member.name] = value
        }
      } catch {
        throw Failure(reason: error.reason, path: "." + member.name + error.path)
      }
    }
    return .composite(values)
  }

  /// A Double or Float from a number, or from "NaN", "Infinity" or "-Infinity"; a number too
  /// large for the type is refused rather than read as an infinity.
  private static func real<T: BinaryFloatingPoint>(
    _ json: JSONValue, as what: String, _ parse: (String) -> T?
  ) throws(Failure) -> T {
    switch json {
    case .number(let text):
      guard let number = parse(text) else { break }
      guard number.isFinite else {
        throw Failure(reason: "\(text) is outside the range of \(what.dropFirst(2))", path: "")
      }
      return number
    case .string(let text):
      if let special = specialReal(text) { return T(special) }
    default:
      break
    }
    throw Failure(reason: "\(describe(json)) is not \(what)", path: "")
  }

  private static func specialReal(_ text: String) -> Double? {
    switch text {
    case "NaN": .nan
    case "Infinity": .infinity
    case "-Infinity": -.infinity
    default: nil
    }
  }

  /// A Decimal from its text (`-12.5`, `1e-7`, `NaN`), refusing anything else: Foundation's
  /// parser stops at the first character it cannot read and returns what came before.
  private static func decimal(_ text: String) -> Decimal? {
    if text == "NaN" { return Decimal.nan }
    var scalars = Substring(text).unicodeScalars[...]
    func digits() -> Int {
      var count = 0
      while let first = scalars.first, ("0"..."9").contains(first) {
        scalars.removeFirst()
        count += 1
      }
      return count
    }
    if scalars.first == "-" { scalars.removeFirst() }
    var count = digits()
    if scalars.first == "." {
      scalars.removeFirst()
      count += digits()
    }
    guard count > 0 else { return nil }
    if scalars.first == "e" || scalars.first == "E" {
      scalars.removeFirst()
      if scalars.first == "+" || scalars.first == "-" { scalars.removeFirst() }
      guard digits() > 0 else { return nil }
    }
    guard scalars.isEmpty else { return nil }
    return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
  }

  private static func describe(_ json: JSONValue) -> String {
    switch json {
    case .string(let text): "\"\(text.count > 40 ? text.prefix(40) + "…" : text)\""
    case .number(let text): text
    case .bool(let flag): "\(flag)"
    default: json.kindDescription
    }
  }
}
