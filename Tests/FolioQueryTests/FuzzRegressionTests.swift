import Foundation
import Testing

@testable import FolioQuery

/// Inputs that fuzzing (`make fuzz`, RELIABILITY.md) found, minimised, in `Fixtures/fuzz/`.
@Suite("Fuzz findings: predicates")
struct FuzzRegressionTests {
  static func fixture(_ name: String) throws -> String {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/fuzz/\(name)")
    return try String(contentsOf: url, encoding: .utf8)
  }

  @Test("10,000 opening parentheses are refused at the 101st, not by a stack overflow")
  func deepParentheses() throws {
    let format = try Self.fixture("predicate-deep-parentheses.txt")
    let error = try #require(throws: QueryError.self) { try QueryPredicate(format: format) }
    #expect(error.code == .syntax)
    #expect(error.description == "column 101: \(tooDeep)")
  }

  @Test("depth is the tree's: every predicate within the limit prints text that reads back")
  func depthIsTheTrees() throws {
    // Operands in parentheses, nested: 60 levels of the tree, written with 60 parentheses.
    let nested =
      String(repeating: "1 + (", count: 60) + "1" + String(repeating: ")", count: 60) + " > 2"
    let predicate = try QueryPredicate(format: nested)
    #expect(try QueryPredicate(format: predicate.description) == predicate)
    // A chain in parentheses continued outside them: 98 operators, then 5 more, is a tree
    // 103 levels deep however it is written, and refused where it passes the limit.
    let chain =
      "(" + Array(repeating: "age", count: 99).joined(separator: " + ") + ")"
      + String(repeating: " + 1", count: 5) + " > 2"
    let error = try #require(throws: QueryError.self) { try QueryPredicate(format: chain) }
    #expect(error.description.hasSuffix(tooDeep))
  }

  @Test("lists nested 100 deep on an operator's right fit the fuzzers' 1 MiB stack")
  func deepListsAfterOperator() throws {
    // Found as `(2 ** 3-{{…{ ** 4 == 64`: each level went through the operator functions'
    // frames, and 100 levels overflowed the fuzzers' stack (which `make fuzz-replay` replays
    // this file on). The operators now have frames of their own, entered only at an operator.
    let format = try Self.fixture("predicate-deep-lists-after-operator.txt")
    #expect(format.hasPrefix("(2 ** 3-{{{"))
    let error = try #require(throws: QueryError.self) { try QueryPredicate(format: format) }
    #expect(error.code == .syntax)
    #expect(error.description == "column 107: \(tooDeep)")
  }

  @Test("decimal arithmetic that overflows, or meets an infinite double, goes on in doubles")
  func decimalOverflow() throws {
    // Found as `8<>-price--.2-3…-97-0258e547…`: a decimal minus an infinite double, and
    // Foundation's `Decimal(Double)` and decimal operators trap on what a decimal cannot hold.
    let format = try Self.fixture("predicate-decimal-overflow.txt")
    let predicate = try QueryPredicate(format: format)
    let price = Node("Item", ["price": Decimal(string: "19.99")])
    _ = try predicate.evaluate(with: price)
    #expect(try QueryPredicate(format: "price - 1e400 < 0").evaluate(with: price))
  }

  @Test("a combining mark after a tab is not a key, so nothing prints that does not read back")
  func markAfterTab() throws {
    // Found as `v>` + 90 tabs + U+05BF; it parsed as `v > ֿ`, which printed with the mark
    // joined to the space, a character that is not white space.
    let format = try Self.fixture("predicate-mark-after-tab.txt")
    #expect(format == "v>\t\u{05BF}")
    let error = try #require(throws: QueryError.self) { try QueryPredicate(format: format) }
    #expect(error.code == .syntax)
    #expect(error.description.hasPrefix("column 4: "), "\(error)")
    #expect(throws: QueryError.self) { try QueryPredicate(format: "\u{05BF} == 1") }
    #expect(throws: QueryError.self) { try QueryPredicate(format: "v == 1 OR\n\u{0301}x == 2") }
    // A letter followed by combining marks is still one letter of a key.
    let decomposed = try QueryPredicate(format: "e\u{0301}t\u{05BF} == 1")
    #expect(try QueryPredicate(format: decomposed.description) == decomposed)
  }

  @Test("a string ending in a prepended mark prints escaped and reads back")
  func prependedMarkBeforeQuote() throws {
    // Found as `n>="\u0602"`: U+0602 (ARABIC FOOTNOTE MARKER) clusters with what follows it,
    // so printed as itself it joined the closing quote and the string did not end.
    let format = try Self.fixture("predicate-prepend-before-quote.txt")
    #expect(format == #"n>="\u0602""#)
    let predicate = try QueryPredicate(format: format)
    #expect(predicate.description == #"n >= "\u0602""#)
    #expect(try QueryPredicate(format: predicate.description) == predicate)
  }

  @Test(
    "strings whose scalars would join a quote or an escape print escaped and read back",
    arguments: [
      "\u{0602}", "a\u{0602}", "\u{0602}b", "\u{0301}", "\u{0301}x", "x\n\u{0301}", "\u{200D}",
      "\u{1F3FB}", "\u{1F44D}\u{1F3FB}", "\u{11941}", "\u{0D4E}", "e\u{0301}", "\u{1100}\u{1161}",
      "\u{1F1EB}\u{1F1F7}", "\"\u{0301}", "plain",
    ])
  func joiningScalars(text: String) throws {
    let predicate = try QueryPredicate(format: "name == %@", arguments: [text])
    let printed = predicate.description
    let again = try QueryPredicate(format: printed)
    #expect(again == predicate, "\(printed)")
    // Only what must be escaped is: a letter with its marks stays as it is inside a string.
    if text == "e\u{0301}" || text == "plain" { #expect(!printed.contains("\\u")) }
  }

  @Test("a surrogate pair escape is one scalar; a lone or reversed surrogate is refused")
  func surrogatePairs() throws {
    let pair = try QueryPredicate(format: #"name == "\uD83D\uDC4D""#)
    #expect(pair == (try QueryPredicate(format: "name == %@", arguments: ["\u{1F44D}"])))
    for bad in [#""\uD83D""#, #""\uDC4D\uD83D""#, #""\uD83Dx""#, #""\uD83D\u0041""#] {
      let error = try #require(throws: QueryError.self) {
        try QueryPredicate(format: "name == " + bad)
      }
      #expect(error.description.hasPrefix("column 10: "), "\(bad): \(error)")
    }
  }

  @Test("a MATCHES pattern is compiled once, not once per evaluation")
  func patternCompiledOnce() throws {
    // Found as a 571-byte `city MATCHES[d] "…"`: Foundation's NSRegularExpression loses 2 bytes
    // per UTF-16 unit of a pattern over 256 units each time it compiles one, and every
    // evaluation compiled its pattern anew, so a fetch lost that much per object.
    let pattern = "(ab|cd)" + String(repeating: "x?", count: 50) + "-\(UUID().uuidString)"
    let predicate = try QueryPredicate(format: "name MATCHES[cd] %@", arguments: [pattern])
    let cache = RegularExpressionCache.shared
    #expect(!cache.contains(pattern, options: [.caseInsensitive, .diacriticInsensitive]))
    let compiled = cache.compilationCount
    for index in 0..<1_000 {
      let node = Node("Person", ["name": index.isMultiple(of: 2) ? "AB-x" : "ab"])
      #expect(try predicate.evaluate(with: node) == false)
    }
    // One compilation here; other tests may compile their own patterns meanwhile.
    #expect(cache.compilationCount - compiled < 20)
    #expect(cache.contains(pattern, options: [.caseInsensitive, .diacriticInsensitive]))
    let first = try cache.expression(pattern, options: [.caseInsensitive, .diacriticInsensitive])
    let again = try cache.expression(pattern, options: [.caseInsensitive, .diacriticInsensitive])
    #expect(again === first)
    #expect(
      try cache.expression(pattern, options: []) !== first, "options are part of the key")
    #expect(throws: QueryError.self) { try cache.expression("(", options: []) }
    for index in 0...RegularExpressionCache.capacity {
      _ = try cache.expression("p\(index)", options: [])
    }
    #expect(cache.count <= RegularExpressionCache.capacity)
  }

  @Test("100 levels of nesting parse, print back and evaluate")
  func deepestAllowedNesting() throws {
    let format =
      String(repeating: "NOT (", count: 50) + "age == 30" + String(repeating: ")", count: 50)
    let predicate = try QueryPredicate(format: format)
    #expect(try QueryPredicate(format: predicate.description) == predicate)
    #expect(try predicate.evaluate(with: Node("Person", ["age": 30])))
  }
}
