import FolioModel

// The tokens of a value expression's format text (the lexical grammar is in
// `Formats/xcmappingmodel.md` §7.1). The text is read one Unicode scalar at a time, so that a
// column counts scalars and no escape or quote can join a character with what follows it.

/// A token of the format text, with the 1-based column where it starts.
struct MappingExpressionToken {
  enum Kind: Equatable {
    /// A name: a key, a keyword, or the name of a built-in function without colons.
    case name(String)
    /// A built-in function name with colons: `uppercase:`, `add:to:`.
    case functionName(String)
    /// `$name`.
    case variable(String)
    /// `@count`, `@distinctUnionOfSets`.
    case collectionOperator(String)
    case string(String)
    /// A number without its sign, as written; `isFraction` when it has a `.` or an exponent.
    case number(String, isFraction: Bool)
    /// `(`, `)`, `,`, `.`, `+`, `-`, `*`, `/`.
    case symbol(Character)
    case end
  }

  var kind: Kind
  var text: String
  var column: Int

  /// The keyword this token spells, upper-cased, or `nil` when it is not one.
  var keyword: String? {
    guard case .name(let name) = kind, name.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
    let upper = name.uppercased()
    return MappingExpressionLexer.keywords.contains(upper) ? upper : nil
  }

  /// How a message quotes this token: `"FUNCTION"`, or `end of input`.
  var found: String { kind == .end ? "end of input" : "\"\(text)\"" }
}

/// Splits format text into tokens.
struct MappingExpressionLexer {
  static let keywords: Set<String> = [
    "YES", "NO", "TRUE", "FALSE", "NIL", "NULL", "FUNCTION", "CAST",
  ]

  private var cursor: LexerCursor<Unicode.Scalar>

  init(_ text: String) {
    cursor = LexerCursor(Array(text.unicodeScalars))
  }

  private static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
    scalar == "_" || scalar.properties.isAlphabetic
  }

  private static func isNamePart(_ scalar: Unicode.Scalar) -> Bool {
    isNameStart(scalar) || scalar.properties.numericType != nil
  }

  private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
    scalar.properties.isWhitespace
  }

  private func token(_ kind: MappingExpressionToken.Kind, from start: Int)
    -> MappingExpressionToken
  {
    var text = ""
    text.unicodeScalars.append(contentsOf: cursor.units[start..<cursor.index])
    return MappingExpressionToken(kind: kind, text: text, column: start + 1)
  }

  private mutating func readName() -> String {
    let start = cursor.index
    cursor.skip(while: Self.isNamePart)
    var name = ""
    name.unicodeScalars.append(contentsOf: cursor.units[start..<cursor.index])
    return name
  }

  mutating func next() throws(MappingModelError) -> MappingExpressionToken {
    cursor.skip(while: Self.isWhitespace)
    let start = cursor.index
    guard let scalar = cursor.peek() else {
      return MappingExpressionToken(kind: .end, text: "", column: start + 1)
    }
    if Self.isNameStart(scalar) {
      var name = readName()
      guard cursor.peek() == ":" else { return token(.name(name), from: start) }
      // A built-in's name: parts each ending in a colon, `add:to:`.
      while cursor.peek() == ":" {
        cursor.index += 1
        name += ":"
        if let next = cursor.peek(), Self.isNameStart(next) { name += readName() }
      }
      return token(.functionName(name), from: start)
    }
    if scalar.isASCIIDigit || (scalar == "." && cursor.peek(1)?.isASCIIDigit == true) {
      let isFraction = cursor.skipDecimalNumber()
      let text = token(.end, from: start).text
      // A trailing `.` with a name after it is a key path step, not a fraction.
      if cursor.peek()?.isASCIIDigit == true || (cursor.peek().map(Self.isNameStart) ?? false) {
        cursor.skip(while: Self.isNamePart)
        throw MappingModelError.badNumber(token(.end, from: start).text, column: start + 1)
      }
      return token(.number(text, isFraction: isFraction), from: start)
    }
    switch scalar {
    case "\"", "'":
      return try readString(quote: scalar, from: start)
    case "$", "@":
      cursor.index += 1
      guard let next = cursor.peek(), Self.isNameStart(next) else {
        throw MappingModelError.unexpectedCharacter(scalar, column: start + 1)
      }
      let name = readName()
      return token(scalar == "$" ? .variable(name) : .collectionOperator("@" + name), from: start)
    case "(", ")", ",", ".", "+", "-", "*", "/":
      cursor.index += 1
      return token(.symbol(Character(scalar)), from: start)
    default:
      throw MappingModelError.unexpectedCharacter(scalar, column: start + 1)
    }
  }

  private mutating func readString(quote: Unicode.Scalar, from start: Int)
    throws(MappingModelError) -> MappingExpressionToken
  {
    cursor.index += 1
    var value = ""
    while true {
      guard let scalar = cursor.peek() else {
        throw MappingModelError.unterminatedString(column: start + 1)
      }
      cursor.index += 1
      if scalar == quote { break }
      guard scalar == "\\" else {
        value.unicodeScalars.append(scalar)
        continue
      }
      guard let escape = cursor.peek() else {
        throw MappingModelError.unterminatedString(column: start + 1)
      }
      cursor.index += 1
      switch escape {
      case "\\", "\"", "'": value.unicodeScalars.append(escape)
      case "n": value += "\n"
      case "t": value += "\t"
      case "r": value += "\r"
      case "0": value += "\0"
      case "u": value.unicodeScalars.append(try readUnicodeEscape())
      default:
        throw MappingModelError.badEscape(String(escape), column: cursor.index - 1)
      }
    }
    return token(.string(value), from: start)
  }

  /// The scalar of a `\uXXXX` escape whose `\u` is read: four hexadecimal digits, or a high
  /// surrogate's four and then `\u` and a low surrogate's four.
  private mutating func readUnicodeEscape() throws(MappingModelError) -> Unicode.Scalar {
    func hexadecimal(at position: Int) -> UInt32? {
      guard position + 4 <= cursor.units.count else { return nil }
      var value: UInt32 = 0
      for scalar in cursor.units[position..<position + 4] {
        guard let digit = Character(scalar).hexDigitValue else { return nil }
        value = value * 16 + UInt32(digit)
      }
      return value
    }
    let column = cursor.index - 1
    var written = "u"
    written.unicodeScalars.append(
      contentsOf: cursor.units[cursor.index..<min(cursor.index + 4, cursor.units.count)])
    let bad = MappingModelError.badEscape(written, column: column)
    guard let code = hexadecimal(at: cursor.index) else { throw bad }
    cursor.index += 4
    if let scalar = Unicode.Scalar(code) { return scalar }
    guard cursor.peek() == "\\", cursor.peek(1) == "u",
      let low = hexadecimal(at: cursor.index + 2),
      let scalar = Unicode.Scalar(surrogatePairHigh: code, low: low)
    else { throw bad }
    cursor.index += 6
    return scalar
  }
}
