/// A JSON value as it was read or is to be written: numbers keep their text, so that a 64-bit
/// integer or a Double's shortest form reads back exactly, and objects keep their members'
/// order, so that what is written is the same bytes every time.
package enum JSONValue: Sendable, Hashable {
  case null
  case bool(Bool)
  /// A number's text, in JSON's grammar (`-12`, `0.5`, `1e-05`).
  case number(String)
  case string(String)
  case array([JSONValue])
  /// An object's members, in order, no name twice.
  case object([JSONMember])

  /// The member called `name`, for an object.
  package subscript(name: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.name == name }?.value
  }

  /// What the value is, for messages: `a string`, `an array`.
  package var kindDescription: String {
    switch self {
    case .null: "null"
    case .bool: "a Boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }

  /// The value as compact JSON, with no space between tokens.
  package func append(to bytes: inout [UInt8]) {
    switch self {
    case .null: bytes += "null".utf8
    case .bool(let flag): bytes += (flag ? "true" : "false").utf8
    case .number(let text): bytes += text.utf8
    case .string(let text): Quoting.appendJSON(text, to: &bytes)
    case .array(let items):
      bytes.append(UInt8(ascii: "["))
      for (index, item) in items.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        item.append(to: &bytes)
      }
      bytes.append(UInt8(ascii: "]"))
    case .object(let members):
      bytes.append(UInt8(ascii: "{"))
      for (index, member) in members.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        Quoting.appendJSON(member.name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        member.value.append(to: &bytes)
      }
      bytes.append(UInt8(ascii: "}"))
    }
  }
}

/// One member of a JSON object.
package struct JSONMember: Sendable, Hashable {
  package var name: String
  package var value: JSONValue

  package init(_ name: String, _ value: JSONValue) {
    self.name = name
    self.value = value
  }
}

/// Reads a JSON text (RFC 8259) into a ``JSONValue``, refusing anything outside the grammar
/// with the place it stopped: bytes that are not UTF-8, a lone surrogate escape, an object
/// that names a member twice, or nesting deeper than a bound (so that hostile input cannot
/// exhaust the stack).
package struct JSONReader {
  /// Why a text is not JSON, and where: the byte offset, and its 1-based line and column.
  package struct Failure: Error, Sendable, Equatable {
    package var reason: String
    package var offset: Int
    package var line: Int
    package var column: Int
  }

  private let bytes: [UInt8]
  private var index = 0
  private let maximumDepth: Int

  /// The value `bytes` holds; `maximumDepth` bounds how deep arrays and objects nest.
  package static func parse(_ bytes: [UInt8], maximumDepth: Int = 64) throws(Failure) -> JSONValue {
    var reader = JSONReader(bytes: bytes, maximumDepth: maximumDepth)
    let valid = bytes.withUnsafeBytes { UTF8Check.isValid($0) }
    guard valid else { throw reader.failure("the text is not UTF-8") }
    reader.skipSpace()
    let value = try reader.value(depth: 0)
    reader.skipSpace()
    guard reader.index == bytes.count else {
      throw reader.failure("unexpected text after the JSON value")
    }
    return value
  }

  private init(bytes: [UInt8], maximumDepth: Int) {
    self.bytes = bytes
    self.maximumDepth = maximumDepth
  }

  private func failure(_ reason: String, at offset: Int? = nil) -> Failure {
    let offset = min(offset ?? index, bytes.count)
    var line = 1
    var lineStart = 0
    for position in 0..<offset where bytes[position] == UInt8(ascii: "\n") {
      line += 1
      lineStart = position + 1
    }
    let column = String(decoding: bytes[lineStart..<offset], as: UTF8.self).unicodeScalars.count
    return Failure(reason: reason, offset: offset, line: line, column: column + 1)
  }

  private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func skipSpace() {
    while let byte = current,
      byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    {
      index += 1
    }
  }

  private mutating func value(depth: Int) throws(Failure) -> JSONValue {
    guard let byte = current else { throw failure("expected a value, found the end of the text") }
    switch byte {
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      guard depth < maximumDepth else {
        throw failure("arrays and objects nest deeper than \(maximumDepth) levels")
      }
      return byte == UInt8(ascii: "{") ? try object(depth: depth) : try array(depth: depth)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
    default: throw failure("expected a value")
    }
  }

  private mutating func literal(_ word: String, _ value: JSONValue) throws(Failure) -> JSONValue {
    let expected = Array(word.utf8)
    guard bytes.count - index >= expected.count,
      Array(bytes[index..<index + expected.count]) == expected
    else { throw failure("expected a value") }
    index += expected.count
    return value
  }

  private mutating func object(depth: Int) throws(Failure) -> JSONValue {
    index += 1
    var members: [JSONMember] = []
    var names: Set<String> = []
    skipSpace()
    if current == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipSpace()
      let start = index
      guard current == UInt8(ascii: "\"") else { throw failure("expected a member name in quotes") }
      let name = try string()
      guard names.insert(name).inserted else {
        throw failure("the object names \"\(name)\" twice", at: start)
      }
      skipSpace()
      guard current == UInt8(ascii: ":") else { throw failure("expected \":\" after a name") }
      index += 1
      skipSpace()
      members.append(JSONMember(name, try value(depth: depth + 1)))
      skipSpace()
      if current == UInt8(ascii: ",") {
        index += 1
      } else if current == UInt8(ascii: "}") {
        index += 1
        return .object(members)
      } else {
        throw failure("expected \",\" or \"}\" in an object")
      }
    }
  }

  private mutating func array(depth: Int) throws(Failure) -> JSONValue {
    index += 1
    var items: [JSONValue] = []
    skipSpace()
    if current == UInt8(ascii: "]") {
      index += 1
      return .array(items)
    }
    while true {
      skipSpace()
      items.append(try value(depth: depth + 1))
      skipSpace()
      if current == UInt8(ascii: ",") {
        index += 1
      } else if current == UInt8(ascii: "]") {
        index += 1
        return .array(items)
      } else {
        throw failure("expected \",\" or \"]\" in an array")
      }
    }
  }

  private mutating func string() throws(Failure) -> String {
    index += 1
    var utf8: [UInt8] = []
    while true {
      guard let byte = current else { throw failure("the string is not closed") }
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        return String(decoding: utf8, as: UTF8.self)
      case UInt8(ascii: "\\"):
        index += 1
        try escape(into: &utf8)
      case 0..<0x20:
        throw failure("a control character must be escaped in a string")
      default:
        utf8.append(byte)
        index += 1
      }
    }
  }

  private mutating func escape(into utf8: inout [UInt8]) throws(Failure) {
    guard let byte = current else { throw failure("the string is not closed") }
    index += 1
    if let replacement = Self.simpleEscapes[byte] {
      utf8.append(replacement)
      return
    }
    guard byte == UInt8(ascii: "u") else { throw failure("unknown escape", at: index - 2) }
    let start = index - 2
    var code = try hexQuad()
    if (0xD800...0xDBFF).contains(code) {
      guard current == UInt8(ascii: "\\"), index + 1 < bytes.count,
        bytes[index + 1] == UInt8(ascii: "u")
      else { throw failure("a high surrogate escape without its low half", at: start) }
      index += 2
      let low = try hexQuad()
      guard (0xDC00...0xDFFF).contains(low) else {
        throw failure("a high surrogate escape without its low half", at: start)
      }
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
    } else if (0xDC00...0xDFFF).contains(code) {
      throw failure("a low surrogate escape without its high half", at: start)
    }
    guard let scalar = Unicode.Scalar(code) else { throw failure("not a character", at: start) }
    utf8 += Array(String(Character(scalar)).utf8)
  }

  /// The byte each one-letter escape stands for.
  private static let simpleEscapes: [UInt8: UInt8] = [
    UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F,
    UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A,
    UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
  ]

  private mutating func hexQuad() throws(Failure) -> UInt32 {
    guard bytes.count - index >= 4 else { throw failure("expected four hexadecimal digits") }
    var code: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt32
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 48)
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 87)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 55)
      default: throw failure("expected four hexadecimal digits")
      }
      code = code << 4 | digit
      index += 1
    }
    return code
  }

  /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as its text.
  private mutating func number() throws(Failure) -> String {
    let start = index
    func isDigit(_ byte: UInt8?) -> Bool {
      byte.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false
    }
    if current == UInt8(ascii: "-") { index += 1 }
    guard isDigit(current) else { throw failure("expected a digit") }
    if current == UInt8(ascii: "0") {
      index += 1
      if isDigit(current) { throw failure("a number cannot start with 0", at: start) }
    } else {
      while isDigit(current) { index += 1 }
    }
    if current == UInt8(ascii: ".") {
      index += 1
      guard isDigit(current) else { throw failure("expected a digit after \".\"") }
      while isDigit(current) { index += 1 }
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      index += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
      guard isDigit(current) else { throw failure("expected a digit in the exponent") }
      while isDigit(current) { index += 1 }
    }
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }
}
