import FolioTestSupport
import Foundation
import Testing

@testable import FolioMigration

/// Inputs that the fuzz target `FuzzMappingModel` (`make fuzz`, RELIABILITY.md) fails on without
/// their fix, minimised, in `Fixtures/fuzz/`. Each starts with the target's mode byte: 0 an
/// `xcmapping.xml`, 1 format text, 2 an archived expression.
@Suite("Fuzz findings: mapping models")
struct FuzzRegressionTests {
  static func fixture(_ name: String) throws -> Data {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/fuzz/\(name)")
    return try Data(contentsOf: url).dropFirst()
  }

  static func text(_ name: String) throws -> String {
    String(decoding: try fixture(name), as: UTF8.self)
  }

  /// `expression` prints as text that parses back to it.
  static func expectRoundTrip(_ expression: MappingExpression) throws {
    #expect(try MappingExpression(format: expression.description) == expression)
  }

  @Test("a key path in parentheses then a step is one key path, as it prints")
  func nestedKeyPath() throws {
    // It parsed as `.keyPath(.keyPath($a, "b"), "c")`, which prints as `$a.b.c`, which parses
    // as `.keyPath($a, "b.c")`.
    let format = try Self.text("mapping-model-nested-key-path.txt")
    #expect(format == "($a.b).c")
    let expression = try MappingExpression(format: format)
    #expect(expression == .keyPath(.variable("a"), "b.c"))
    #expect(expression.description == "$a.b.c")
    try Self.expectRoundTrip(expression)
    let call = try MappingExpression(format: "(FUNCTION($m, \"f:\").x.@count).y")
    #expect(call.description == "FUNCTION($m, \"f:\").x.@count.y")
    try Self.expectRoundTrip(call)
  }

  @Test("built-in calls nested 51 deep print as operators that parse back")
  func deepBuiltinCalls() throws {
    // `add:to:(1, add:to:(1, …))` parsed 51 levels deep; it prints as `1 + (1 + (…))`, where
    // each operator and each pair of parentheses counted a level: 101, past the limit.
    let format = try Self.text("mapping-model-deep-builtin-calls.txt")
    #expect(format.hasPrefix("add:to:(1,add:to:(1,"))
    let expression = try MappingExpression(format: format)
    #expect(expression.description.hasPrefix("1 + (1 + (1 + "))
    try Self.expectRoundTrip(expression)
    // At the limit: 100 calls parse and print as text that parses back; 101 are refused at
    // the 101st.
    func calls(_ count: Int) -> String {
      String(repeating: "add:to:(1,", count: count) + "1" + String(repeating: ")", count: count)
    }
    try Self.expectRoundTrip(try MappingExpression(format: calls(100)))
    let error = try #require(throws: MappingModelError.self) {
      try MappingExpression(format: calls(101))
    }
    #expect(error.description == "column 1001: the expression nests more than 100 levels deep")
  }

  @Test("calls and parentheses nested to the limit fit the fuzzers' 1 MiB stack")
  func deepCallsAndParentheses() throws {
    // Found as calls and parentheses 104 deep: the 100 levels before the limit overflowed the
    // fuzzers' stack, each going through the parser's largest frame. The forms are now read by
    // functions of their own, and the frame nesting goes through stays small.
    let format = try Self.text("mapping-model-deep-calls-and-parentheses.txt")
    #expect(format.hasPrefix("((XDDevMappin(((("))
    let error = try #require(throws: MappingModelError.self) {
      try MappingExpression(format: format)
    }
    #expect(error.description == "column 137: the expression nests more than 100 levels deep")
  }

  @Test("operands in parentheses still nest a level per operator, so a long chain is refused")
  func parenthesisedOperands() throws {
    // Parentheses that are an operator's operand are that operator's level: `1 + (1 + (…))`
    // 100 operators deep reads, as its calls do. A right-associative chain of them still goes
    // a level deeper at each operator, and is refused at the 101st rather than overflowing
    // the stack.
    let deep = String(repeating: "1 + (", count: 99) + "1 + 1" + String(repeating: ")", count: 99)
    #expect(try MappingExpression(format: deep).description == deep)
    let error = try #require(throws: MappingModelError.self) {
      try MappingExpression(format: "2" + String(repeating: " ** (2)", count: 10_000))
    }
    #expect(error.description == "column 703: the expression nests more than 100 levels deep")
  }

  @Test("a literal that prints as a CAST at the deepest level parses back")
  func infinityAtDepth() throws {
    // `1e400` is infinity, which prints as `CAST("inf", "NSNumber")`; the CAST counted a level,
    // so 100 operators on it printed as text 101 levels deep.
    let format = try Self.text("mapping-model-infinity-at-depth.txt")
    #expect(format == "1e400" + String(repeating: "+1", count: 100))
    let expression = try MappingExpression(format: format)
    #expect(expression.description.hasPrefix("CAST(\"inf\", \"NSNumber\") + 1 + 1"))
    try Self.expectRoundTrip(expression)
    // A date of infinity prints as two CASTs, inside 100 calls.
    var deep = MappingExpression.constant(.date(.infinity))
    for _ in 0..<100 { deep = .builtin("uppercase:", arguments: [deep]) }
    #expect(deep.description.contains("(CAST(CAST(\"inf\", \"NSNumber\"), \"NSDate\"))"))
    try Self.expectRoundTrip(deep)
    // Past those two, a CAST's arguments nest no deeper.
    let casts = String(repeating: "uppercase:(", count: 100) + "CAST(CAST(CAST(1"
    let error = try #require(throws: MappingModelError.self) {
      try MappingExpression(format: casts)
    }
    #expect(error.description == "column 1111: the expression nests more than 100 levels deep")
  }

  @Test("an archived expression 51 operators deep prints as text that parses back")
  func deepArchive() throws {
    let archive = try Self.fixture("mapping-model-deep-archive.bplist")
    let url = try MappingFixtures.write(MappingFixtures.storeWithArchive(archive))
    let mapping = try MappingModel(contentsOf: url)
    let expression = try #require(
      mapping.entityMappings.first?.attributeMappings.first?
        .valueExpression)
    #expect(expression.description.hasPrefix("1 + (1 + (1 + "))
    try Self.expectRoundTrip(expression)
  }

  @Test("a relationship row's key path may nest one level less than the FUNCTION it goes in")
  func deepKeyPathRow() throws {
    // A key path 100 operators deep parsed; the FUNCTION the reader puts it in made an
    // expression 101 levels deep, whose text did not parse.
    let text = try Self.text("mapping-model-deep-key-path-row.xml")
    let url = try MappingFixtures.write(text)
    let error = try #require(throws: MappingModelError.self) {
      try MappingModel(contentsOf: url)
    }
    #expect(error.code == .malformedMapping)
    #expect(
      error.message.hasSuffix(
        "does not parse: column 200: the expression nests more than 99 levels deep"),
      "\(error)")
    let shallower = text.replacingOccurrences(
      of: "1" + String(repeating: "+1", count: 100), with: "1" + String(repeating: "+1", count: 99))
    let mapping = try MappingModel(contentsOf: try MappingFixtures.write(shallower))
    let expression = try #require(
      mapping.entityMappings.first?.relationshipMappings.first?
        .valueExpression)
    guard case .function(_, _, let arguments) = expression else {
      Issue.record("not a FUNCTION: \(expression)")
      return
    }
    #expect(arguments.count == 2)
    try Self.expectRoundTrip(expression)
  }
}
