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
    /// `%@`, `%K`, `%d`, `%i`, `%f`: the letter after `%`.
    case placeholder(Character)
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
    "TRUE", "FALSE", "YES", "NO", "SUBQUERY", "CAST",
  ]

  private let characters: [Character]
  private var index = 0

  init(_ source: String) {
    characters = Array(source)
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

  private func peek(_ offset: Int = 0) -> Character? {
    index + offset < characters.count ? characters[index + offset] : nil
  }

  private func token(_ kind: PredicateToken.Kind, from start: Int) -> PredicateToken {
    PredicateToken(
      kind: kind, text: String(characters[start..<index]), column: start + 1, start: start,
      end: index)
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

  private mutating func readName() -> String {
    let start = index
    while let character = peek(), Self.isIdentifierPart(character) { index += 1 }
    return String(characters[start..<index])
  }

  mutating func next() throws(QueryError) -> PredicateToken {
    while let character = peek(), character.isWhitespace { index += 1 }
    let start = index
    guard let character = peek() else {
      return PredicateToken(kind: .end, text: "", column: start + 1, start: start, end: start)
    }
    if Self.isIdentifierStart(character) {
      let name = readName()
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
    case "#", "$", "@":
      index += 1
      guard let next = peek(), Self.isIdentifierStart(next) else {
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
      index += 1
      guard let letter = peek(), "@Kdif".contains(letter) else {
        let text = peek().map { "%\($0)" } ?? "%"
        throw QueryError.unknownPlaceholder(text, column: start + 1)
      }
      index += 1
      return token(.placeholder(letter), from: start)
    default:
      break
    }
    let pairs = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"]
    if let second = peek(1), pairs.contains(String([character, second])) {
      index += 2
      return token(.symbol(String([character, second])), from: start)
    }
    if "=<>!(){},.[]".contains(character) {
      index += 1
      return token(.symbol(String(character)), from: start)
    }
    throw QueryError.unexpectedCharacter(character, column: start + 1)
  }

  private func isNumberAhead(after sign: Character) -> Bool {
    guard let next = peek(1) else { return false }
    if next.isASCII && next.isNumber { return true }
    if sign == "-", next == ".", let third = peek(2), third.isASCII, third.isNumber { return true }
    return false
  }

  private mutating func readNumber(from start: Int) throws(QueryError) -> PredicateToken {
    if peek() == "-" { index += 1 }
    if peek() == "0", let base = peek(1), "xXoObB".contains(base) {
      index += 2
      let digitsStart = index
      while let character = peek(), character.isHexDigit { index += 1 }
      let radix = "xX".contains(base) ? 16 : "oO".contains(base) ? 8 : 2
      let digits = characters[digitsStart..<index]
      let text = String(characters[start..<index])
      guard !digits.isEmpty, digits.allSatisfy({ ($0.hexDigitValue ?? radix) < radix }) else {
        throw QueryError.badNumber(text, column: start + 1)
      }
      // The sign goes into the conversion, so that -0x8000000000000000 (Int64.min) fits.
      let sign = characters[start] == "-" ? "-" : ""
      guard let value = Int(sign + String(digits), radix: radix) else {
        throw QueryError.integerOutOfRange(text, column: start + 1)
      }
      return token(.integer(value), from: start)
    }
    var isFraction = false
    while let character = peek(), character.isASCII, character.isNumber { index += 1 }
    if peek() == ".", let next = peek(1), next.isASCII, next.isNumber {
      isFraction = true
      index += 1
      while let character = peek(), character.isASCII, character.isNumber { index += 1 }
    }
    if let e = peek(), e == "e" || e == "E" {
      var offset = 1
      if let sign = peek(1), sign == "+" || sign == "-" { offset = 2 }
      if let digit = peek(offset), digit.isASCII, digit.isNumber {
        isFraction = true
        index += offset
        while let character = peek(), character.isASCII, character.isNumber { index += 1 }
      }
    }
    let text = String(characters[start..<index])
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

  private mutating func readString(quote: Character, from start: Int) throws(QueryError)
    -> PredicateToken
  {
    index += 1
    var value = ""
    while true {
      guard let character = peek() else {
        throw QueryError.unterminatedString(column: start + 1)
      }
      index += 1
      if character == quote { break }
      guard character == "\\" else {
        value.append(character)
        continue
      }
      guard let escape = peek() else { throw QueryError.unterminatedString(column: start + 1) }
      index += 1
      switch escape {
      case "\\", "\"", "'": value.append(escape)
      case "n": value.append("\n")
      case "t": value.append("\t")
      case "r": value.append("\r")
      case "0": value.append("\0")
      case "u":
        value.unicodeScalars.append(try readUnicodeEscape())
      default:
        throw QueryError.badEscape(String(escape), column: index - 1)
      }
    }
    return token(.string(value), from: start)
  }

  /// The scalar of a `\uXXXX` escape whose `\u` is read: four hexadecimal digits, or a high
  /// surrogate's four and then `\u` and a low surrogate's four (UTF-16, as JSON writes a
  /// scalar beyond the Basic Multilingual Plane).
  private mutating func readUnicodeEscape() throws(QueryError) -> Unicode.Scalar {
    func hexadecimal(at position: Int) -> UInt32? {
      let digits = characters[position..<min(position + 4, characters.count)]
      guard digits.count == 4, digits.allSatisfy(\.isHexDigit) else { return nil }
      return UInt32(String(digits), radix: 16)
    }
    let column = index - 1
    let bad = QueryError.badEscape(
      "u" + String(characters[index..<min(index + 4, characters.count)]), column: column)
    guard let code = hexadecimal(at: index) else { throw bad }
    index += 4
    if let scalar = Unicode.Scalar(code) { return scalar }
    // A surrogate: only a high one followed by an escaped low one is a scalar.
    guard 0xD800..<0xDC00 ~= code, peek() == "\\", peek(1) == "u",
      let low = hexadecimal(at: index + 2), 0xDC00..<0xE000 ~= low,
      let scalar = Unicode.Scalar(0x10000 + (code - 0xD800) << 10 + (low - 0xDC00))
    else { throw bad }
    index += 6
    return scalar
  }
}
