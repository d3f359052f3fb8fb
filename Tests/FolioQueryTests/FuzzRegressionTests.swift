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

  @Test("100 levels of nesting parse, print back and evaluate")
  func deepestAllowedNesting() throws {
    let format =
      String(repeating: "NOT (", count: 50) + "age == 30" + String(repeating: ")", count: 50)
    let predicate = try QueryPredicate(format: format)
    #expect(try QueryPredicate(format: predicate.description) == predicate)
    #expect(try predicate.evaluate(with: Node("Person", ["age": 30])))
  }
}
