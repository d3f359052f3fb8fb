import Folio
import Foundation

/// A token of one script line.
struct Token {
  enum Kind: Equatable {
    /// A command, entity, key, error code or keyword: `insert`, `has-changes`, `Person`.
    case word(String)
    /// `$name` with the key path steps after it: `$p.spendings.@sum.amount`.
    case variable(name: String, path: [String])
    case string(String)
    case integer(Int64)
    case decimal(Decimal)
    case date(Date)
    case uuid(UUID)
    case data(Data)
    /// `=`, `==`, `!=`, `<`, `<=`, `>`, `>=`, `!`, `[`, `]` or `,`.
    case symbol(String)
    /// A path written without quotes, after `model`, `open` and `save`.
    case path(String)
    /// The end of the line, or the `#` that starts its comment.
    case end
  }

  var kind: Kind
  /// The 0-based index of the token's first scalar in its line.
  var start: Int
  /// The token as written.
  var text: String

  /// How a message names the token: `"$p"`, a string as written, or `the end of the line`.
  var found: String {
    switch kind {
    case .end: "the end of the line"
    case .string: text
    default: "\"\(text)\""
    }
  }
}

/// Splits one line of a script into tokens, on demand: the parser asks for a path where a
/// command takes one, since a bare path is read differently from other tokens.
///
/// Columns count Unicode scalars from 1, so a tab is one column.
struct Lexer {
  let file: String
  let line: Int
  private var cursor: LexerCursor<Unicode.Scalar>

  init(_ scalars: [Unicode.Scalar], file: String, line: Int) {
    self.cursor = LexerCursor(scalars)
    self.file = file
    self.line = line
  }

  /// The line, scalar by scalar.
  var scalars: [Unicode.Scalar] { cursor.units }

  func location(_ index: Int) -> InputLocation {
    InputLocation(file: file, line: line, column: index + 1)
  }

  /// The text from `start` up to (not including) `end`, without trailing spaces.
  func text(from start: Int, to end: Int) -> String {
    var last = end
    while last > start, Self.isSpace(scalars[last - 1]) { last -= 1 }
    var out = ""
    out.unicodeScalars.append(contentsOf: scalars[start..<last])
    return out
  }

  // MARK: Tokens

  mutating func next() throws(ScriptError) -> Token {
    skipSpaces()
    let start = cursor.index
    guard let scalar = cursor.peek(), scalar != "#" else {
      return Token(kind: .end, start: start, text: "")
    }
    switch scalar {
    case "\"":
      return Token(kind: .string(try string()), start: start, text: text(from: start))
    case "$":
      return try variable()
    case "@":
      return try date()
    case "-", "0"..."9":
      if scalar == "-", !(cursor.peek(1).map { ("0"..."9").contains($0) } ?? false) {
        throw ScriptError.unexpectedCharacter(scalar, at: location(start))
      }
      return try number()
    case "=", "!", "<", ">":
      cursor.index += 1
      if cursor.peek() == "=" { cursor.index += 1 }
      return Token(kind: .symbol(text(from: start)), start: start, text: text(from: start))
    case "[", "]", ",":
      cursor.index += 1
      return Token(kind: .symbol(String(scalar)), start: start, text: String(scalar))
    default:
      guard Self.isWordStart(scalar) else {
        throw ScriptError.unexpectedCharacter(scalar, at: location(start))
      }
      return try word()
    }
  }

  /// A path: a string, or a run of characters up to a space or `#`.
  mutating func nextPath() throws(ScriptError) -> Token {
    skipSpaces()
    let start = cursor.index
    guard let scalar = cursor.peek(), scalar != "#" else {
      return Token(kind: .end, start: start, text: "")
    }
    if scalar == "\"" {
      return Token(kind: .string(try string()), start: start, text: text(from: start))
    }
    cursor.skip { !Self.isSpace($0) && $0 != "#" }
    let path = text(from: start)
    return Token(kind: .path(path), start: start, text: path)
  }

  // MARK: Kinds of token

  private mutating func word() throws(ScriptError) -> Token {
    let start = cursor.index
    cursor.skip(while: Self.isWordPart)
    while cursor.peek() == ".", let after = cursor.peek(1), Self.isWordStart(after) {
      cursor.index += 1
      cursor.skip(while: Self.isWordPart)
    }
    let name = text(from: start)
    if (name == "uuid" || name == "base64"), cursor.peek() == ":" {
      cursor.index += 1
      // Base64 uses `=`, so only spaces, `,`, `]` and `#` end the payload.
      cursor.skip { !Self.isSpace($0) && !",]#".unicodeScalars.contains($0) }
      let whole = text(from: start)
      let payload = String(whole.dropFirst(name.count + 1))
      if name == "uuid" {
        guard let uuid = UUID(uuidString: payload) else {
          throw ScriptError.invalidUUID(whole, at: location(start))
        }
        return Token(kind: .uuid(uuid), start: start, text: whole)
      }
      guard payload.unicodeScalars.allSatisfy(Self.isBase64),
        let data = Data(base64Encoded: payload)
      else { throw ScriptError.invalidBase64(whole, at: location(start)) }
      return Token(kind: .data(data), start: start, text: whole)
    }
    return Token(kind: .word(name), start: start, text: name)
  }

  private mutating func variable() throws(ScriptError) -> Token {
    let start = cursor.index
    cursor.index += 1
    guard let first = cursor.peek(), Self.isNameStart(first) else {
      throw ScriptError.missingVariableName(at: location(start))
    }
    let name = identifier()
    var path: [String] = []
    while cursor.peek() == "." {
      cursor.index += 1
      let operatorSign = cursor.peek() == "@"
      if operatorSign { cursor.index += 1 }
      guard let next = cursor.peek(), Self.isNameStart(next) else {
        throw ScriptError.missingKey(after: text(from: start), at: location(start))
      }
      path.append((operatorSign ? "@" : "") + identifier())
    }
    return Token(kind: .variable(name: name, path: path), start: start, text: text(from: start))
  }

  private mutating func identifier() -> String {
    let start = cursor.index
    cursor.skip(while: Self.isNamePart)
    return text(from: start)
  }

  private mutating func number() throws(ScriptError) -> Token {
    let start = cursor.index
    if cursor.peek() == "-" { cursor.index += 1 }
    let isDecimal = cursor.skipDecimalNumber()
    if let scalar = cursor.peek(), !Self.isSeparator(scalar) {
      cursor.skip { !Self.isSeparator($0) }
      throw ScriptError.invalidNumber(text(from: start), at: location(start))
    }
    let written = text(from: start)
    if isDecimal {
      guard let number = Decimal(string: written), number.isFinite else {
        throw ScriptError.numberOutOfRange(written, at: location(start))
      }
      return Token(kind: .decimal(number), start: start, text: written)
    }
    guard let number = Int64(written) else {
      throw ScriptError.numberOutOfRange(written, at: location(start))
    }
    return Token(kind: .integer(number), start: start, text: written)
  }

  private mutating func date() throws(ScriptError) -> Token {
    let start = cursor.index
    cursor.index += 1
    cursor.skip { !Self.isSeparator($0) }
    let written = text(from: start)
    guard let date = Literal.date(from: String(written.dropFirst())) else {
      throw ScriptError.invalidDate(written, at: location(start))
    }
    return Token(kind: .date(date), start: start, text: written)
  }

  /// A string in JSON's syntax, from its opening quote.
  private mutating func string() throws(ScriptError) -> String {
    let start = cursor.index
    cursor.index += 1
    var out = ""
    while true {
      guard let scalar = cursor.peek() else {
        throw ScriptError.unterminatedString(at: location(start))
      }
      let here = cursor.index
      cursor.index += 1
      switch scalar {
      case "\"":
        return out
      case "\\":
        out.unicodeScalars.append(try escape(at: here))
      default:
        guard scalar.value >= 0x20 else {
          throw ScriptError.controlCharacter(scalar, at: location(here))
        }
        out.unicodeScalars.append(scalar)
      }
    }
  }

  /// The character an escape stands for; `cursor.index` is just after the backslash at `start`.
  private mutating func escape(at start: Int) throws(ScriptError) -> Unicode.Scalar {
    guard let letter = cursor.peek() else {
      throw ScriptError.unterminatedString(at: location(start))
    }
    cursor.index += 1
    switch letter {
    case "\"": return "\""
    case "\\": return "\\"
    case "/": return "/"
    case "b": return "\u{08}"
    case "f": return "\u{0C}"
    case "n": return "\n"
    case "r": return "\r"
    case "t": return "\t"
    case "u":
      guard let high = hexQuad() else {
        throw ScriptError.invalidEscape(text(from: start), at: location(start))
      }
      if (0xD800...0xDBFF).contains(high) {
        guard cursor.peek() == "\\", cursor.peek(1) == "u" else {
          throw ScriptError.invalidEscape(text(from: start), at: location(start))
        }
        cursor.index += 2
        guard let low = hexQuad(), let scalar = Unicode.Scalar(surrogatePairHigh: high, low: low)
        else { throw ScriptError.invalidEscape(text(from: start), at: location(start)) }
        return scalar
      }
      guard let scalar = Unicode.Scalar(high) else {
        throw ScriptError.invalidEscape(text(from: start), at: location(start))
      }
      return scalar
    default:
      throw ScriptError.invalidEscape(text(from: start), at: location(start))
    }
  }

  /// Four hex digits, or `nil` (consuming what was read so far for the message).
  private mutating func hexQuad() -> UInt32? {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let scalar = cursor.peek(), let digit = UInt32(String(scalar), radix: 16),
        scalar.isASCII
      else { return nil }
      value = value * 16 + digit
      cursor.index += 1
    }
    return value
  }

  // MARK: Characters

  private func text(from start: Int) -> String { text(from: start, to: cursor.index) }

  private mutating func skipSpaces() { cursor.skip(while: Self.isSpace) }

  static func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

  static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
  }

  static func isNameStart(_ scalar: Unicode.Scalar) -> Bool { isLetter(scalar) || scalar == "_" }

  static func isNamePart(_ scalar: Unicode.Scalar) -> Bool {
    isNameStart(scalar) || ("0"..."9").contains(scalar)
  }

  static func isWordStart(_ scalar: Unicode.Scalar) -> Bool { isNameStart(scalar) }

  static func isWordPart(_ scalar: Unicode.Scalar) -> Bool { isNamePart(scalar) || scalar == "-" }

  /// What ends a number, date, UUID or data literal.
  static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
    isSpace(scalar) || ",]#=!<>".unicodeScalars.contains(scalar)
  }

  static func isBase64(_ scalar: Unicode.Scalar) -> Bool {
    isNamePart(scalar) && scalar != "_" || "+/=".unicodeScalars.contains(scalar)
  }
}
