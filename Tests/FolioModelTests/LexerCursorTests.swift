import Testing

@testable import FolioModel

/// The cursor both lexers read with, over characters and over Unicode scalars.
@Suite("Lexer cursor")
struct LexerCursorTests {
  @Test(
    "a decimal number ends where its grammar does, the same over characters and scalars",
    arguments: [
      ("12", 2, false), ("12.5", 4, true), ("12.", 2, false), ("1e5", 3, true),
      ("1E+5x", 4, true), ("1e-", 1, false), ("3.25e-7,", 7, true), (".5", 2, true),
      ("7é", 1, false),
    ])
  func decimalNumbers(text: String, end: Int, isFraction: Bool) {
    var characters = LexerCursor(Array(text))
    #expect(characters.skipDecimalNumber() == isFraction)
    #expect(characters.index == end)
    var scalars = LexerCursor(Array(text.unicodeScalars))
    #expect(scalars.skipDecimalNumber() == isFraction)
    #expect(scalars.index == end)
  }

  @Test("a surrogate pair decodes only as high then low")
  func surrogatePairs() {
    #expect(Unicode.Scalar(surrogatePairHigh: 0xD83D, low: 0xDE00) == "😀")
    #expect(Unicode.Scalar(surrogatePairHigh: 0xDE00, low: 0xD83D) == nil)
    #expect(Unicode.Scalar(surrogatePairHigh: 0x0041, low: 0xDC00) == nil)
  }

  @Test("peeking past the end is nil, and skipping stops at the end")
  func ends() {
    var cursor = LexerCursor(Array("ab"))
    #expect(cursor.peek(2) == nil)
    cursor.skip { _ in true }
    #expect(cursor.index == 2 && cursor.peek() == nil)
  }
}
