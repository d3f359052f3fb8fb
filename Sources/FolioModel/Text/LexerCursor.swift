/// A unit a lexer reads: a `Character` (the predicate lexer, whose columns count characters)
/// or a `Unicode.Scalar` (the undo-script lexer, whose columns count scalars).
package protocol LexerUnit: Equatable, ExpressibleByUnicodeScalarLiteral {
  /// Whether the unit is one of the ASCII digits 0 to 9.
  var isASCIIDigit: Bool { get }
}

extension Character: LexerUnit {
  package var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Unicode.Scalar: LexerUnit {
  package var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// A position in one line of text being split into tokens: what Folio's two lexers, for
/// predicates and for undo scripts, share. Each keeps its own token kinds, escapes and error
/// messages; the cursor reads units and scans what both grammars spell alike.
package struct LexerCursor<Unit: LexerUnit> {
  /// The line, unit by unit.
  package let units: [Unit]
  /// The 0-based index of the next unit to read.
  package var index = 0

  package init(_ units: [Unit]) {
    self.units = units
  }

  /// The unit `offset` units past the next one, or `nil` past the end.
  package func peek(_ offset: Int = 0) -> Unit? {
    index + offset < units.count ? units[index + offset] : nil
  }

  /// Moves past the units for which `predicate` holds.
  package mutating func skip(while predicate: (Unit) -> Bool) {
    while let unit = peek(), predicate(unit) { index += 1 }
  }

  /// Moves past the rest of a decimal number whose sign, if any, is read: digits, then a
  /// fraction (`.` and at least one digit), then an exponent (`e` or `E`, a sign, at least one
  /// digit). A `.` or `e` not followed by a digit is not part of the number. Returns whether
  /// there was a fraction or an exponent.
  package mutating func skipDecimalNumber() -> Bool {
    var isFraction = false
    skip(while: \.isASCIIDigit)
    if peek() == ".", peek(1)?.isASCIIDigit == true {
      isFraction = true
      index += 1
      skip(while: \.isASCIIDigit)
    }
    if peek() == "e" || peek() == "E" {
      let sign = peek(1) == "+" || peek(1) == "-" ? 1 : 0
      if peek(1 + sign)?.isASCIIDigit == true {
        isFraction = true
        index += 1 + sign
        skip(while: \.isASCIIDigit)
      }
    }
    return isFraction
  }
}

extension Unicode.Scalar {
  /// The scalar a UTF-16 surrogate pair encodes, as a `\uD83D\uDE00` escape spells it: `nil`
  /// unless `high` is a high surrogate and `low` a low one.
  package init?(surrogatePairHigh high: UInt32, low: UInt32) {
    guard 0xD800...0xDBFF ~= high, 0xDC00...0xDFFF ~= low else { return nil }
    self.init(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
  }
}
