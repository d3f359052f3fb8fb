import FolioModel
import Foundation

/// A token of the predicate format syntax, with the 1-based column where it starts.
struct PredicateToken {
  enum Kind: Equatable {
    /// A name: a key, or a keyword unless it was escaped with `#`.
    case identifier(String, isEscaped: Bool)
    /// `@count`, `@sum`…
    case collectionOperator(String)
    case string(String)
    case integer(Int)
    case double(Double)
    /// `@2024-05-01`, `@2024-05-01T12:30:00Z`: an ISO 8601 date.
    case date(Date)
    /// `%@`, `%K`, `%d`, `%lld`, `%f`…: a format specifier.
    case placeholder(FormatSpecifier)
    /// `$name`.
    case variable(String)
    /// Operators and punctuation: `==`, `(`, `,`…
    case symbol(String)
    case end
  }

  var kind: Kind
  /// The source text, for messages.
  var text: String
  /// 1-based.
  var column: Int
  /// 0-based character offsets of the token in the source.
  var start: Int
  var end: Int

  /// The keyword this token spells, uppercased, or `nil` when it is not a bare word.
  var keyword: String? {
    guard case .identifier(let name, false) = kind else { return nil }
    return PredicateLexer.isKeyword(name) ? name.uppercased() : nil
  }

  /// How a message quotes this token: `"AND"`, or `end of input`.
  var found: String {
    kind == .end ? "end of input" : "\"\(text)\""
  }
}

/// Splits a format string into tokens.
struct PredicateLexer {
  /// Whether `name` spells a keyword, in any case. Keywords are ASCII, so a word that only
  /// Unicode upper-casing turns into one (`ın` with a dotless i, `ſelf` with a long s) is not.
  static func isKeyword(_ name: some StringProtocol) -> Bool {
    name.utf8.allSatisfy { $0 < 0x80 } && keywords.contains(name.uppercased())
  }

  /// Words that cannot be keys unless escaped with `#`.
  static let keywords: Set<String> = [
    "AND", "OR", "NOT", "ANY", "ALL", "NONE", "SOME", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH",
    "CONTAINS", "LIKE", "MATCHES", "TRUEPREDICATE", "FALSEPREDICATE", "NIL", "NULL", "SELF",
    "TRUE", "FALSE", "YES", "NO", "SUBQUERY", "CAST", "UTI-CONFORMS-TO", "UTI-EQUALS",
  ]

  /// The operators spelled with hyphens, read as one word after `UTI`.
  private static let hyphenatedOperators = ["-CONFORMS-TO", "-EQUALS"]

  private var cursor: LexerCursor<Character>

  init(_ source: String) {
    cursor = LexerCursor(Array(source))
  }

  static func tokens(of source: String) throws(QueryError) -> [PredicateToken] {
    var lexer = PredicateLexer(source)
    var tokens: [PredicateToken] = []
    while true {
      let token = try lexer.next()
      tokens.append(token)
      if token.kind == .end { return tokens }
    }
  }

  private func token(_ kind: PredicateToken.Kind, from start: Int) -> PredicateToken {
    PredicateToken(
      kind: kind, text: String(cursor.units[start..<cursor.index]), column: start + 1, start: start,
      end: cursor.index)
  }

  /// Whether `text` reads as one name: a key, a key path's step, a variable's name after `$`.
  static func isName(_ text: some StringProtocol) -> Bool {
    guard let first = text.first, isIdentifierStart(first) else { return false }
    return text.dropFirst().allSatisfy(isIdentifierPart)
  }

  /// `_` or a letter that does not start with a combining mark. A mark stands alone as a
  /// character only after a control character (a tab, a line break); printed back after the
  /// space that replaces that white space, it would join the space and not read back.
  private static func isIdentifierStart(_ character: Character) -> Bool {
    guard character != "_" else { return true }
    guard character.isLetter, let first = character.unicodeScalars.first else { return false }
    switch first.properties.generalCategory {
    case .nonspacingMark, .spacingMark, .enclosingMark: return false
    default: return true
    }
  }

  private static func isIdentifierPart(_ character: Character) -> Bool {
    character == "_" || character.isLetter || character.isNumber
  }

  /// Whether the source continues with `text`, in any case, and no name character follows it.
  private func startsHere(_ text: String) -> Bool {
    let units = cursor.units
    let end = cursor.index + text.count
    guard end <= units.count else { return false }
    let word = String(units[cursor.index..<end])
    guard word.utf8.allSatisfy({ $0 < 0x80 }), word.uppercased() == text else { return false }
    return end == units.count || !Self.isIdentifierPart(units[end])
  }

  private mutating func readName() -> String {
    let start = cursor.index
    cursor.skip(while: Self.isIdentifierPart)
    return String(cursor.units[start..<cursor.index])
  }

  mutating func next() throws(QueryError) -> PredicateToken {
    cursor.skip(while: \.isWhitespace)
    let start = cursor.index
    guard let character = cursor.peek() else {
      return PredicateToken(kind: .end, text: "", column: start + 1, start: start, end: start)
    }
    if Self.isIdentifierStart(character) {
      var name = readName()
      if name.utf8.count == 3, name.uppercased() == "UTI" {
        for rest in Self.hyphenatedOperators where startsHere(rest) {
          cursor.index += rest.count
          name += rest
          break
        }
      }
      return token(.identifier(name, isEscaped: false), from: start)
    }
    if character.isASCII,
      character.isNumber
        || ((character == "-" || character == ".") && isNumberAhead(after: character))
    {
      return try readNumber(from: start)
    }
    switch character {
    case "\"", "'":
      return try readString(quote: character, from: start)
    case "@" where cursor.peek(1)?.isASCIIDigit == true:
      return try readDate(from: start)
    case "#", "$", "@":
      cursor.index += 1
      guard let next = cursor.peek(), Self.isIdentifierStart(next) else {
        throw QueryError.unexpectedCharacter(character, column: start + 1)
      }
      let name = readName()
      let kind: PredicateToken.Kind =
        switch character {
        case "#": .identifier(name, isEscaped: true)
        case "$": .variable(name)
        default: .collectionOperator("@" + name)
        }
      return token(kind, from: start)
    case "%":
      cursor.index += 1
      cursor.skip(while: FormatSpecifier.isInside)
      if let letter = cursor.peek(), letter.isASCII, letter.isLetter || letter == "@" {
        cursor.index += 1
      }
      let text = String(cursor.units[start..<cursor.index])
      guard let specifier = FormatSpecifier(text) else {
        throw QueryError.unknownPlaceholder(text, column: start + 1)
      }
      return token(.placeholder(specifier), from: start)
    default:
      break
    }
    let pairs = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**", "<<", ">>"]
    if let second = cursor.peek(1), pairs.contains(String([character, second])) {
      cursor.index += 2
      return token(.symbol(String([character, second])), from: start)
    }
    if "=<>!(){},.[]+-*/&|^~:".contains(character) {
      cursor.index += 1
      return token(.symbol(String(character)), from: start)
    }
    throw QueryError.unexpectedCharacter(character, column: start + 1)
  }

  private func isNumberAhead(after sign: Character) -> Bool {
    guard let next = cursor.peek(1) else { return false }
    if next.isASCII && next.isNumber { return true }
    if sign == "-", next == ".", let third = cursor.peek(2), third.isASCII, third.isNumber {
      return true
    }
    return false
  }

  private mutating func readNumber(from start: Int) throws(QueryError) -> PredicateToken {
    if cursor.peek() == "-" { cursor.index += 1 }
    if cursor.peek() == "0", let base = cursor.peek(1), "xXoObB".contains(base) {
      cursor.index += 2
      let digitsStart = cursor.index
      cursor.skip(while: \.isHexDigit)
      let radix = "xX".contains(base) ? 16 : "oO".contains(base) ? 8 : 2
      let digits = cursor.units[digitsStart..<cursor.index]
      let text = String(cursor.units[start..<cursor.index])
      guard !digits.isEmpty, digits.allSatisfy({ ($0.hexDigitValue ?? radix) < radix }) else {
        throw QueryError.badNumber(text, column: start + 1)
      }
      // The sign goes into the conversion, so that -0x8000000000000000 (Int64.min) fits.
      let sign = cursor.units[start] == "-" ? "-" : ""
      guard let value = Int(sign + String(digits), radix: radix) else {
        throw QueryError.integerOutOfRange(text, column: start + 1)
      }
      return token(.integer(value), from: start)
    }
    let isFraction = cursor.skipDecimalNumber()
    let text = String(cursor.units[start..<cursor.index])
    if !isFraction {
      // Only digits and a sign: the conversion fails only when the value needs more than 64
      // bits, and a literal does not silently become a double that cannot hold it exactly.
      guard let value = Int(text) else {
        throw QueryError.integerOutOfRange(text, asDouble: text + ".0", column: start + 1)
      }
      return token(.integer(value), from: start)
    }
    guard let value = Double(text) else { throw QueryError.badNumber(text, column: start + 1) }
    return token(.double(value), from: start)
  }

  /// `@` and an ISO 8601 date (FolioModel's `ISODate`): the run of ASCII letters, digits and
  /// `-`, `+`, `:`, `.` after the `@` must be a whole date, so a mistyped one is an error here
  /// rather than a date followed by stray tokens.
  private mutating func readDate(from start: Int) throws(QueryError) -> PredicateToken {
    cursor.index += 1
    cursor.skip { $0.isASCII && ($0.isLetter || $0.isNumber || "-+:.".contains($0)) }
    let text = String(cursor.units[start + 1..<cursor.index])
    do {
      return token(.date(try ISODate.date(from: text)), from: start)
    } catch {
      throw QueryError.badDate("@" + text, reason: error.reason, column: start + 1)
    }
  }

  private mutating func readString(quote: Character, from start: Int) throws(QueryError)
    -> PredicateToken
  {
    cursor.index += 1
    var value = ""
    while true {
      guard let character = cursor.peek() else {
        throw QueryError.unterminatedString(column: start + 1)
      }
      cursor.index += 1
      if character == quote { break }
      guard character == "\\" else {
        value.append(character)
        continue
      }
      guard let escape = cursor.peek() else {
        throw QueryError.unterminatedString(column: start + 1)
      }
      cursor.index += 1
      switch escape {
      case "\\", "\"", "'": value.append(escape)
      case "n": value.append("\n")
      case "t": value.append("\t")
      case "r": value.append("\r")
      case "0": value.append("\0")
      case "u":
        value.unicodeScalars.append(try readUnicodeEscape())
      default:
        throw QueryError.badEscape(String(escape), column: cursor.index - 1)
      }
    }
    return token(.string(value), from: start)
  }

  /// The scalar of a `\uXXXX` escape whose `\u` is read: four hexadecimal digits, or a high
  /// surrogate's four and then `\u` and a low surrogate's four (UTF-16, as JSON writes a
  /// scalar beyond the Basic Multilingual Plane).
  private mutating func readUnicodeEscape() throws(QueryError) -> Unicode.Scalar {
    func hexadecimal(at position: Int) -> UInt32? {
      let digits = cursor.units[position..<min(position + 4, cursor.units.count)]
      guard digits.count == 4, digits.allSatisfy(\.isHexDigit) else { return nil }
      return UInt32(String(digits), radix: 16)
    }
    let column = cursor.index - 1
    let bad = QueryError.badEscape(
      "u" + String(cursor.units[cursor.index..<min(cursor.index + 4, cursor.units.count)]),
      column: column)
    guard let code = hexadecimal(at: cursor.index) else { throw bad }
    cursor.index += 4
    if let scalar = Unicode.Scalar(code) { return scalar }
    // A surrogate: only a high one followed by an escaped low one is a scalar.
    guard cursor.peek() == "\\", cursor.peek(1) == "u", let low = hexadecimal(at: cursor.index + 2),
      let scalar = Unicode.Scalar(surrogatePairHigh: code, low: low)
    else { throw bad }
    cursor.index += 6
    return scalar
  }
}
