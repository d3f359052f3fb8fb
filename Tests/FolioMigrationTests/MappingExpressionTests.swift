import FolioModel
import FolioStores
import FolioTestSupport
import Foundation
import Testing

@testable import FolioMigration

private let source = MappingExpression.variable("source")

/// An expression and its format text, which print and parse into each other.
struct ExpressionText: CustomTestStringConvertible, Sendable {
  var text: String
  var expression: MappingExpression
  var testDescription: String { text }

  init(_ text: String, _ expression: MappingExpression) {
    self.text = text
    self.expression = expression
  }

  static let all: [ExpressionText] = [
    ExpressionText("$source.name", .keyPath(source, "name")),
    ExpressionText(
      "$source.continent.numericISO3166Code", .keyPath(source, "continent.numericISO3166Code")),
    ExpressionText(
      "$source.countries.@distinctUnionOfSets.moods",
      .keyPath(source, "countries.@distinctUnionOfSets.moods")),
    ExpressionText("$destination", .variable("destination")),
    ExpressionText("\"Unknown\"", .constant(.string("Unknown"))),
    ExpressionText(
      "\"say \\\"hi\\\"\\\\\\n\\t\\r\\0\\u0007 é 😀\"",
      .constant(.string("say \"hi\"\\\n\t\r\0\u{7} é 😀"))),
    ExpressionText("0", .constant(.integer(0))),
    ExpressionText("-9223372036854775808", .constant(.integer(.min))),
    ExpressionText("2.5", .constant(.double(2.5))),
    ExpressionText("1e-05", .constant(.double(0.00001))),
    ExpressionText("-32.0", .constant(.double(-32))),
    ExpressionText("CAST(\"inf\", \"NSNumber\")", .constant(.double(.infinity))),
    ExpressionText("YES", .constant(.boolean(true))),
    ExpressionText("NO", .constant(.boolean(false))),
    ExpressionText("nil", .constant(.null)),
    ExpressionText("CAST(726868800.5, \"NSDate\")", .constant(.date(726_868_800.5))),
    ExpressionText("now()", .builtin("now", arguments: [])),
    ExpressionText(
      "uppercase:($source.name)", .builtin("uppercase:", arguments: [.keyPath(source, "name")])),
    ExpressionText(
      "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\","
        + " \"PersonToPerson\", $source.owner)",
      .function(
        receiver: .variable("manager"),
        selector: "destinationInstancesForEntityMappingNamed:sourceInstances:",
        arguments: [.constant(.string("PersonToPerson")), .keyPath(source, "owner")])),
    ExpressionText(
      "FUNCTION($entityPolicy, \"colorFor:\", $source.rating).hexValue",
      .keyPath(
        .function(
          receiver: .variable("entityPolicy"), selector: "colorFor:",
          arguments: [.keyPath(source, "rating")]), "hexValue")),
    ExpressionText(
      "($source.temperature - 32.0) / 1.8",
      .builtin(
        "divide:by:",
        arguments: [
          .builtin(
            "from:subtract:", arguments: [.keyPath(source, "temperature"), .constant(.double(32))]),
          .constant(.double(1.8)),
        ])),
    ExpressionText(
      "1 - (2 - 3)",
      .builtin(
        "from:subtract:",
        arguments: [
          .constant(.integer(1)),
          .builtin("from:subtract:", arguments: [.constant(.integer(2)), .constant(.integer(3))]),
        ])),
    ExpressionText(
      "1 + 2 * -3",
      .builtin(
        "add:to:",
        arguments: [
          .constant(.integer(1)),
          .builtin("multiply:by:", arguments: [.constant(.integer(2)), .constant(.integer(-3))]),
        ])),
    ExpressionText(
      "($source.a + 1).description",
      .keyPath(
        .builtin("add:to:", arguments: [.keyPath(source, "a"), .constant(.integer(1))]),
        "description")),
    ExpressionText("add:to:(1)", .builtin("add:to:", arguments: [.constant(.integer(1))])),
    ExpressionText("foo(1)", .builtin("foo", arguments: [.constant(.integer(1))])),
    ExpressionText(
      "bar:baz:(1, 2)",
      .builtin("bar:baz:", arguments: [.constant(.integer(1)), .constant(.integer(2))])),
    ExpressionText(
      "uppercase($source.name)", .builtin("uppercase", arguments: [.keyPath(source, "name")])),
    ExpressionText("$source.#in.size.@count", .keyPath(source, "in.size.@count")),
    ExpressionText(
      "(now()).timeIntervalSinceNow",
      .keyPath(.builtin("now", arguments: []), "timeIntervalSinceNow")),
    ExpressionText("(5).description", .keyPath(.constant(.integer(5)), "description")),
    ExpressionText("(YES).description", .keyPath(.constant(.boolean(true)), "description")),
    ExpressionText("\"abc\".length", .keyPath(.constant(.string("abc")), "length")),
    ExpressionText(
      "CAST(0.0, \"NSDate\").timeIntervalSinceNow",
      .keyPath(.constant(.date(0)), "timeIntervalSinceNow")),
  ]
}

/// Format text that does not parse, and the error's description.
struct BadExpressionText: CustomTestStringConvertible, Sendable {
  var text: String
  var message: String
  var testDescription: String { text }

  init(_ text: String, _ message: String) {
    self.text = text
    self.message = message
  }

  static let all: [BadExpressionText] = [
    BadExpressionText("", "column 1: expected an expression, found end of input"),
    BadExpressionText(
      "name",
      "column 1: the key path \"name\" starts from no variable; write it from one, as in"
        + " \"$source.name\""),
    BadExpressionText("$source.", "column 9: expected a key, found end of input"),
    BadExpressionText("$source.name #", "column 14: unexpected character \"#\""),
    BadExpressionText(
      "$source.a $source.b", "column 11: expected an operator or end of input, found \"$source\""),
    BadExpressionText("\"open", "column 1: string has no closing quote"),
    BadExpressionText(
      "\"a\\qb\"",
      "column 3: unknown escape \"\\q\" in a string: a backslash is written \"\\\\\" (a regular"
        + " expression's \\q as \"\\\\q\"; NSPredicate would drop the backslash)"),
    BadExpressionText("\"\\u12\"", "column 2: unknown escape \"\\u12\"\" in a string"),
    BadExpressionText("12abc", "column 3: expected an operator or end of input, found \"abc\""),
    BadExpressionText(
      "99999999999999999999",
      "column 1: \"99999999999999999999\" does not fit a 64-bit integer (write"
        + " 99999999999999999999.0 for a double)"),
    BadExpressionText("1 +", "column 4: expected a value after \"+\", found end of input"),
    BadExpressionText("-", "column 2: expected a value after \"-\", found end of input"),
    BadExpressionText(
      "(1 + 2", "column 7: expected \")\" to close \"(\" at column 1, found end of input"),
    BadExpressionText(
      "FUNCTION($manager)",
      "column 1: FUNCTION takes a receiver, a selector string such as \"name:\", and its"
        + " arguments"),
    BadExpressionText(
      "FUNCTION($manager, $source)",
      "column 1: FUNCTION takes a receiver, a selector string such as \"name:\", and its"
        + " arguments"),
    BadExpressionText(
      "now(1 2)", "column 7: expected \",\" or \")\" to close \"(\" at column 4, found \"2\""),
    BadExpressionText(
      "uppercase:", "column 11: expected \"(\" after \"uppercase:\", found end of input"),
    BadExpressionText(
      "CAST(1, \"NSColor\")",
      "column 9: cannot CAST to \"NSColor\", expected \"NSDate\", \"NSNumber\", \"NSDecimalNumber\","
        + " \"NSString\", \"NSUUID\", \"NSURL\" or \"NSData\""),
    BadExpressionText(
      "CAST(\"soon\", \"NSDate\")",
      "column 6: cannot CAST \"soon\" to \"NSDate\": expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS"
        + " with Z or an offset such as +02:00"),
    BadExpressionText("$", "column 1: unexpected character \"$\""),
    BadExpressionText(
      String(repeating: "(", count: 101) + "1" + String(repeating: ")", count: 101),
      "column 101: the expression nests more than 100 levels deep"),
    BadExpressionText(
      Array(repeating: "1", count: 102).joined(separator: " + "),
      "column 403: the expression nests more than 100 levels deep"),
    // 99 operators in parentheses, then two more: 101 levels of the value, though the text
    // nests no more than 100 at any token.
    BadExpressionText(
      "(" + Array(repeating: "1", count: 100).joined(separator: " + ") + ") + 1 + 1",
      "column 405: the expression nests more than 100 levels deep"),
    // What a mapping expression cannot hold.
    BadExpressionText(
      "SELF",
      "column 1: SELF is not a mapping expression, which has no object of its own; start"
        + " from a variable, as in \"$source\""),
    BadExpressionText(
      "SELF.name",
      "column 1: SELF is not a mapping expression, which has no object of its own; start"
        + " from a variable, as in \"$source\""),
    BadExpressionText(
      "1 + #in.b",
      "column 5: the key path \"#in.b\" starts from no variable; write it from one, as in"
        + " \"$source.#in.b\""),
    BadExpressionText("{1, 2}", "column 1: a list \"{…}\" is not a mapping expression"),
    BadExpressionText(
      "SUBQUERY($source.tags, $t, $t.name == 'a')", "column 1: SUBQUERY is not a mapping expression"
    ),
    BadExpressionText(
      "TERNARY($source.age > 17, 'adult', 'minor')",
      "column 1: TERNARY is not a mapping expression"),
    BadExpressionText("$source.tags[0]", "column 13: an index \"[…]\" is not a mapping expression"),
    BadExpressionText(
      "CAST($source.age, \"NSString\")",
      "column 1: a CAST of a value that is not a constant is not a mapping expression"),
    BadExpressionText(
      "1 + CAST(\"12.5\", \"NSDecimalNumber\")",
      "column 5: a decimal number (NSDecimalNumber) is not a mapping expression, whose constants"
        + " are nil, strings, numbers, Booleans and dates"),
    BadExpressionText(
      "CAST(\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\", \"NSUUID\")",
      "column 1: a UUID (NSUUID) is not a mapping expression, whose constants are nil, strings,"
        + " numbers, Booleans and dates"),
    BadExpressionText(
      "CAST(\"https://example.com\", \"NSURL\")",
      "column 1: a URL (NSURL) is not a mapping expression, whose constants are nil, strings,"
        + " numbers, Booleans and dates"),
    BadExpressionText(
      "CAST(\"AAEC\", \"NSData\")",
      "column 1: data (NSData) is not a mapping expression, whose constants are nil, strings,"
        + " numbers, Booleans and dates"),
    BadExpressionText(
      "now().timeIntervalSinceNow",
      "column 6: expected an operator or end of input, found \".\""),
    BadExpressionText(
      "5.description", "column 2: expected an operator or end of input, found \".\""),
    BadExpressionText(
      "$source.name == 1", "column 14: expected an operator or end of input, found \"==\""),
    BadExpressionText(
      "$source.%K", "column 9: a placeholder \"%K\" is not a mapping expression"),
    BadExpressionText("%@", "column 1: a placeholder \"%@\" is not a mapping expression"),
  ]
}

@Suite("Mapping expressions: format text")
struct MappingExpressionFormatTests {
  @Test(
    "an expression prints as its format text, which parses back to it",
    arguments: ExpressionText.all)
  func roundTrip(_ pair: ExpressionText) throws {
    #expect(pair.expression.description == pair.text)
    #expect(try MappingExpression(format: pair.text) == pair.expression)
  }

  @Test("a string whose marks would join its quote or an escape prints escaped and reads back")
  func joiningScalarsReadBack() throws {
    for text in ["\u{0301}after the quote", "a\"\u{0301}after an escape", "\u{0602}before one"] {
      let expression = MappingExpression.constant(.string(text))
      #expect(expression.description.contains("\\u0"), "\(expression.description)")
      #expect(try MappingExpression(format: expression.description) == expression)
    }
  }

  @Test("format text parses to its canonical form, whatever its spelling")
  func canonicalForms() throws {
    let spellings: [(String, String)] = [
      ("TRUE", "YES"), ("false", "NO"), ("NULL", "nil"), ("'single'", "\"single\""),
      ("add:to:(1, 2)", "1 + 2"), ("function($manager, 'sel:')", "FUNCTION($manager, \"sel:\")"),
      ("CAST(0, \"NSDate\")", "CAST(0.0, \"NSDate\")"), ("CAST(\"2.5\", \"NSNumber\")", "2.5"),
      ("  $source . name  ", "$source.name"), ("((1))", "1"), (".5", "0.5"),
      ("\"\\uD83D\\uDE00\"", "\"😀\""), ("(1 + 2) + 3", "1 + 2 + 3"),
      ("99999999999999999999.0", "1e+20"), ("- $source.a", "0 - $source.a"),
      ("CAST(1, \"NSString\")", "\"1\""), ("CAST(\"2\", \"NSNumber\")", "2"),
      ("2 ** 3", "raise:toPower:(2, 3)"), ("0x1F", "31"),
      ("-$source.a * ~$source.b", "(0 - $source.a) * onesComplement:($source.b)"),
      ("@2001-01-02", "CAST(86400.0, \"NSDate\")"),
      ("FUNCTION($entityPolicy, 'f:g:')", "FUNCTION($entityPolicy, \"f:g:\")"),
      ("($source.a).b", "$source.a.b"), ("$source.#a", "$source.a"),
    ]
    for (text, canonical) in spellings {
      #expect(try MappingExpression(format: text).description == canonical, "\(text)")
    }
  }

  @Test("format text that does not parse names the column", arguments: BadExpressionText.all)
  func syntaxErrors(_ bad: BadExpressionText) {
    do {
      let expression = try MappingExpression(format: bad.text)
      Issue.record("parsed as \(expression)")
    } catch {
      #expect(error.code == .syntax)
      #expect(error.description == bad.message)
    }
  }

  @Test("every expression of the fixtures prints text that parses back to it")
  func fixtureRoundTrip() throws {
    let files = [
      (MappingFixtures.moody, try MappingFixtures.moodyModel()),
      (MappingFixtures.employees, try MappingFixtures.employeesModel()),
      (MappingFixtures.cars, try MappingFixtures.carsModel()),
    ]
    var count = 0
    for (url, model) in files {
      for mapping in try MappingModel(contentsOf: url, sourceModel: model).entityMappings {
        for row in mapping.attributeMappings + mapping.relationshipMappings {
          guard let expression = row.valueExpression else { continue }
          #expect(try MappingExpression(format: expression.description) == expression)
          count += 1
        }
      }
    }
    #expect(count > 50)
  }
}

@Suite("Mapping expressions: keyed archives")
struct MappingExpressionArchiveTests {
  private func decode(_ build: (inout ArchiveBuilder) -> PropertyListValue) throws
    -> MappingExpression
  {
    var archive = ArchiveBuilder()
    let root = build(&archive)
    return try ExpressionArchive(archive.data(root: root)).expression()
  }

  @Test("constants decode from plist values, NSString objects and NSDate objects")
  func constants() throws {
    #expect(try decode { $0.constant(.boolean(true)) } == .constant(.boolean(true)))
    #expect(try decode { $0.constant(.integer(42)) } == .constant(.integer(42)))
    #expect(try decode { $0.constant(.real(1.8)) } == .constant(.double(1.8)))
    #expect(try decode { $0.constant(.string("Unknown")) } == .constant(.string("Unknown")))
    #expect(try decode { $0.constant(nil) } == .constant(.null))
    #expect(
      try decode { archive in
        let text = archive.object("NSMutableString", ["NS.string": archive.add(.string("Ann"))])
        return archive.object(
          "NSConstantValueExpression", ["NSConstantValue": text, "NSExpressionType": .integer(0)])
      } == .constant(.string("Ann")))
    #expect(
      try decode { archive in
        let date = archive.object("NSDate", ["NS.time": .real(726_868_800)])
        return archive.object(
          "NSConstantValueExpression", ["NSConstantValue": date, "NSExpressionType": .integer(0)])
      } == .constant(.date(726_868_800)))
  }

  @Test("functions decode as FUNCTION calls, or as built-ins on _NSPredicateUtilities")
  func functions() throws {
    #expect(
      try decode { archive in
        let operand = archive.builtinsClass()
        let name = archive.keyPath(archive.variable("source"), "name")
        return archive.function(operand, "uppercase:", [name])
      } == .builtin("uppercase:", arguments: [.keyPath(source, "name")]))
    #expect(
      try decode { archive in
        let receiver = archive.variable("entityPolicy")
        let argument = archive.constant(.string("x"))
        return archive.function(receiver, "colorFor:", [argument])
      }
        == .function(
          receiver: .variable("entityPolicy"), selector: "colorFor:",
          arguments: [.constant(.string("x"))]))
  }

  @Test("a key path from a key path is one key path, as the format text reads it")
  func nestedKeyPaths() throws {
    #expect(
      try decode { archive in
        let inner = archive.keyPath(archive.variable("source"), "country")
        return archive.keyPath(inner, "continent")
      } == .keyPath(source, "country.continent"))
  }

  @Test("a built-in function of a class other than _NSPredicateUtilities is refused")
  func foreignBuiltins() throws {
    var archive = ArchiveBuilder()
    let operand = archive.object(
      "NSConstantValueExpression",
      [
        "NSConstantValueClassName": archive.add(.string("MyFunctions")),
        "NSExpressionType": .integer(0),
      ])
    let root = archive.function(operand, "shout:", [])
    do {
      let expression = try ExpressionArchive(archive.data(root: root)).expression()
      Issue.record("decoded as \(expression)")
    } catch {
      guard case .unsupported(let className, let what) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(className == "MyFunctions")
      #expect(what == "a built-in function")
    }
  }

  @Test("a class constant outside a function, or nil for an expression, is malformed")
  func malformed() throws {
    #expect(throws: ExpressionArchiveProblem.self) { try decode { $0.builtinsClass() } }
    #expect(throws: ExpressionArchiveProblem.self) { try decode { _ in ArchiveBuilder.null } }
  }

  @Test("archives with bytes changed at random decode or throw, never crash")
  func mutatedArchives() {
    var archive = ArchiveBuilder()
    let owner = archive.keyPath(archive.variable("source"), "owner")
    let name = archive.constant(.string("PersonToPerson"))
    let root = archive.function(
      archive.variable("manager"), "destinationInstancesForEntityMappingNamed:sourceInstances:",
      [name, owner])
    let original = [UInt8](archive.data(root: root))
    let seed: UInt64 = 20_261_126
    var generator = SeededGenerator(seed: seed)
    for _ in 0..<2000 {
      var bytes = original
      for _ in 0..<Int.random(in: 1...4, using: &generator) {
        let index = Int.random(in: 0..<bytes.count, using: &generator)
        bytes[index] = UInt8.random(in: 0...255, using: &generator)
      }
      // Either outcome is fine; reaching the next iteration is the test.
      _ = try? ExpressionArchive(Data(bytes)).expression()
    }
  }
}
