import FolioModel
import Foundation
import Testing

@testable import FolioQuery

struct ParseErrorCase: Sendable, CustomTestStringConvertible {
  var format: String
  var arguments: [Argument] = []
  var code: QueryError.Code = .syntax
  var message: String
  var testDescription: String { format }

  init(_ format: String, _ message: String) {
    self.format = format
    self.message = message
  }

  init(_ format: String, _ arguments: [Argument], _ code: QueryError.Code, _ message: String) {
    self.format = format
    self.arguments = arguments
    self.code = code
    self.message = message
  }
}

let parseErrors: [ParseErrorCase] = [
  .init("", "column 1: expected a predicate, found end of input"),
  .init("age ==", "column 7: expected a value after \"==\", found end of input"),
  .init("age ==[c]", "column 10: expected a value after \"==[c]\", found end of input"),
  .init("age == AND", "column 8: expected a value after \"==\", found \"AND\""),
  .init("age 30", "column 5: expected an operator after \"age\", found \"30\""),
  .init(
    "friend.name 30", "column 13: expected an operator after \"friend.name\", found \"30\""),
  .init("age == 30 AND", "column 14: expected a predicate after \"AND\", found end of input"),
  .init("age == 30 AND OR", "column 15: expected a predicate after \"AND\", found \"OR\""),
  .init("NOT", "column 4: expected a predicate after \"NOT\", found end of input"),
  .init("age == 30 30", "column 11: expected AND, OR or end of input, found \"30\""),
  .init(
    "(age == 30", "column 11: expected \")\" to close \"(\" at column 1, found end of input"),
  .init("()", "column 2: expected a predicate after \"(\", found \")\""),
  .init("name == \"Ann", "column 9: string has no closing quote"),
  .init(
    "name == \"a\\q\"",
    "column 11: unknown escape \"\\q\" in a string: a backslash is written \"\\\\\""
      + " (a regular expression's \\q as \"\\\\q\"; NSPredicate would drop the backslash)"),
  .init("name == \"\\u+041\"", "column 10: unknown escape \"\\u+041\" in a string"),
  .init("age § 3", "column 5: unexpected character \"§\""),
  .init(
    "name BEGINSWITH[x] \"a\"", "column 16: unknown option \"[x]\", expected [c], [d], [cd] or [n]"),
  .init("name BEGINSWITH[c \"a\"", "column 19: expected \"]\" after \"[c\", found \"\"a\"\""),
  .init("age == %s", "column 8: unknown placeholder \"%s\", expected \(numberSpecifiers)"),
  .init("age == %l@", "column 8: unknown placeholder \"%l@\", expected \(numberSpecifiers)"),
  .init("age == %Ld", "column 8: unknown placeholder \"%Ld\", expected \(numberSpecifiers)"),
  .init("age == %hf", "column 8: unknown placeholder \"%hf\", expected \(numberSpecifiers)"),
  .init("age == %p", "column 8: unknown placeholder \"%p\", expected \(numberSpecifiers)"),
  .init("age + == 3", "column 7: expected a value after \"+\", found \"==\""),
  .init("age == 3 *", "column 11: expected a value after \"*\", found end of input"),
  .init("-", "column 2: expected a value after \"-\", found end of input"),
  .init("(age + 1) > ", "column 13: expected a value after \">\", found end of input"),
  .init("(age + 1 > 2", "column 13: expected \")\" to close \"(\" at column 1, found end of input"),
  .init("(age + ) > 2", "column 8: expected a value after \"+\", found \")\""),
  .init(
    "age " + String(repeating: "+ 1 ", count: 101) + "> 2", "column 405: \(tooDeep)"),
  .init(
    "age " + String(repeating: "** 2 ", count: 101) + "> 2", "column 505: \(tooDeep)"),
  .init("tags[0 == 1", "column 8: expected \"]\" to close \"[\" at column 5, found \"==\""),
  .init("tags[] == 1", "column 6: expected an index, FIRST, LAST or SIZE, found \"]\""),
  .init("foo(age) == 1", "column 1: no function \"foo\" of 1 argument"),
  .init("sum:(1, 2) == 1", "column 1: no function \"sum:\" of 2 arguments"),
  .init("now(1) == 1", "column 1: no function \"now\" of 1 argument"),
  .init("sum: == 1", "column 6: expected \"(\" after \"sum:\", found \"==\""),
  .init(
    "sum:(age == 1", "column 10: expected \",\" or \")\" to close \"(\" at column 5, found \"==\""),
  .init("age == %%", "column 8: unknown placeholder \"%\", expected \(numberSpecifiers)"),
  .init("age == %1$@", "column 8: unknown placeholder \"%1\", expected \(numberSpecifiers)"),
  .init("age == %*d", "column 8: unknown placeholder \"%\", expected \(numberSpecifiers)"),
  .init("age == %l", "column 8: unknown placeholder \"%l\", expected \(numberSpecifiers)"),
  .init("ANY == 3", "column 5: expected a collection after \"ANY\", found \"==\""),
  .init("friend. == 3", "column 9: expected a key, found \"==\""),
  .init(
    "age IN {1, 2",
    "column 13: expected \",\" or \"}\" to close \"{\" at column 8, found end of input"),
  .init(
    "SUBQUERY(spendings, s, TRUEPREDICATE).@count > 0",
    "column 21: expected a $variable in SUBQUERY, found \"s\""),
  .init(
    "SUBQUERY(spendings, $s, TRUEPREDICATE.@count > 0",
    "column 38: expected \")\" to close SUBQUERY, found \".\""),
  .init(
    "birthday > CAST(0, \"NSFoo\")",
    "column 20: cannot CAST to \"NSFoo\", expected \"NSDate\", \"NSNumber\", \"NSDecimalNumber\", "
      + "\"NSString\", \"NSUUID\", \"NSURL\" or \"NSData\""),
  .init(
    "birthday > CAST(\"x\", \"NSDate\")",
    "column 17: cannot CAST \"x\" to \"NSDate\": expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS "
      + "with Z or an offset such as +02:00"),
  .init("birthday > CAST(YES, \"NSDate\")", "column 17: cannot CAST YES to \"NSDate\""),
  .init("age == %@", [], .missingArgument, "column 8: %@ needs argument 1, but 0 were given"),
  .init(
    "age == %@ OR age == %d", [.value(1)], .missingArgument,
    "column 21: %d needs argument 2, but 1 was given"),
  .init(
    "age == 9223372036854775808",
    "column 8: \"9223372036854775808\" does not fit a 64-bit integer "
      + "(write 9223372036854775808.0 for a double)"),
  .init(
    "age > -9223372036854775809",
    "column 7: \"-9223372036854775809\" does not fit a 64-bit integer "
      + "(write -9223372036854775809.0 for a double)"),
  .init(
    "age == 0x10000000000000000",
    "column 8: \"0x10000000000000000\" does not fit a 64-bit integer"),
  .init(
    "age == 0x8000000000000000", "column 8: \"0x8000000000000000\" does not fit a 64-bit integer"),
  .init("age == 0x", "column 8: \"0x\" is not a number"),
  .init("age == -0b12", "column 8: \"-0b12\" is not a number"),
  .init("%K == 1", [.value(3)], .invalidArgument, "column 1: %K needs a key path string, found 3"),
  .init(
    "age == %d", [.value("x")], .invalidArgument, "column 8: %d needs an integer, found \"x\""),
  .init("age == %f", [.value("x")], .invalidArgument, "column 8: %f needs a number, found \"x\""),
  .init(
    "age == %d", [.value(5_000_000_000)], .invalidArgument,
    "column 8: %d takes a 32-bit integer, from -2147483648 to 2147483647, found 5000000000"
      + " (%ld or %lld take 64 bits)"),
  .init(
    "age == %u", [.value(-1)], .invalidArgument,
    "column 8: %u takes an unsigned 32-bit integer, from 0 to 4294967295, found -1"
      + " (%ld or %lld take 64 bits)"),
  .init(
    "age == %lu", [.value(-1)], .invalidArgument,
    "column 8: %lu takes an unsigned 64-bit integer, from 0 to 9223372036854775807, found -1"),
  .init(
    "age == %hd", [.value(40_000)], .invalidArgument,
    "column 8: %hd takes a 16-bit integer, from -32768 to 32767, found 40000"
      + " (%ld or %lld take 64 bits)"),
  .init(
    "age == %hhx", [.value(256)], .invalidArgument,
    "column 8: %hhx takes an unsigned 8-bit integer, from 0 to 255, found 256"
      + " (%ld or %lld take 64 bits)"),
  .init("age == %lf", [.value(true)], .invalidArgument, "column 8: %lf needs a number, found true"),
  .init(
    "%K.%K == 1", [.value("friend"), .value(2)], .invalidArgument,
    "column 4: %K needs a key path string, found 2"),
  // FUNCTION, TERNARY and CAST of a value read at evaluation.
  .init(
    "FUNCTION(name, 'stringByAppendingString:') == 1",
    "column 1: FUNCTION's selector \"stringByAppendingString:\" takes 1 argument (one per colon),"
      + " found 0"),
  .init(
    "FUNCTION(name, 'length', 2) == 1",
    "column 1: FUNCTION's selector \"length\" takes 0 arguments (one per colon), found 1"),
  .init(
    "FUNCTION(name, length) == 1",
    "column 1: FUNCTION takes a receiver, a selector string such as \"name:\", and its arguments"),
  .init(
    "FUNCTION(name) == 1",
    "column 1: FUNCTION takes a receiver, a selector string such as \"name:\", and its arguments"),
  .init(
    "TERNARY(age, 1, 0) == 1", "column 12: expected an operator after \"age\", found \",\""),
  .init(
    "TERNARY(age > 1, 1) == 1",
    "column 19: expected \",\" after the first value in TERNARY, found \")\""),
  .init(
    "CAST(age, 'NSColor') == 1",
    "column 11: cannot CAST to \"NSColor\", expected \"NSDate\", \"NSNumber\", \"NSDecimalNumber\","
      + " \"NSString\", \"NSUUID\", \"NSURL\" or \"NSData\""),
  .init(
    "\"a\" UTI-CONFORMS \"b\"", "column 5: expected an operator after \"\"a\"\", found \"UTI\""),
  // Nesting deeper than 100 levels; the message names the column of the 101st level.
  .init(
    String(repeating: "(", count: 101) + "age == 30" + String(repeating: ")", count: 101),
    "column 101: \(tooDeep)"),
  .init(String(repeating: "NOT ", count: 101) + "age == 30", "column 401: \(tooDeep)"),
  .init(
    String(repeating: "!", count: 50) + String(repeating: "(", count: 60), "column 101: \(tooDeep)"),
  .init(
    "age IN " + String(repeating: "{", count: 101) + "1" + String(repeating: "}", count: 101),
    "column 108: \(tooDeep)"),
  .init("age == " + String(repeating: "CAST(", count: 101), "column 508: \(tooDeep)"),
  .init(
    String(repeating: "SUBQUERY(", count: 101), "column 901: \(tooDeep)"),
]

let numberSpecifiers =
  "%@, %K or a number's (%d, %ld, %lld, %u, %x, %f, %lf, %e, %g…)"

let tooDeep =
  "the predicate nests more than 100 levels deep (parentheses, NOT, operators, lists, SUBQUERY, CAST)"

struct EvaluationErrorCase: Sendable, CustomTestStringConvertible {
  var format: String
  var code: QueryError.Code
  var message: String
  var testDescription: String { format }

  init(_ format: String, _ code: QueryError.Code, _ message: String) {
    self.format = format
    self.code = code
    self.message = message
  }
}

/// Evaluated on Ann.
let evaluationErrors: [EvaluationErrorCase] = [
  .init("name + 1 > 2", .invalidOperand, "+ needs numbers, found \"Ann\""),
  .init("tags[5] == \"a\"", .invalidOperand, "index 5 is outside a collection of 2 elements"),
  .init("name[0] == \"A\"", .invalidOperand, "[…] needs a collection, found \"Ann\""),
  .init("tags[\"x\"] == 1", .invalidOperand, "[…] needs integers, found \"x\""),
  .init("age * tags > 2", .invalidOperand, "* needs numbers, found a collection"),
  .init("age & 1.5 == 1", .invalidOperand, "& needs integers, found 1.5"),
  .init("~height == 1", .invalidOperand, "~ needs integers, found 1.7"),
  .init("age << 64 == 0", .invalidOperand, "<< shifts by 0 to 63 bits, found 64"),
  .init("age >> -1 == 0", .invalidOperand, ">> shifts by 0 to 63 bits, found -1"),
  .init(
    "balance / 0 > 1", .invalidOperand,
    "cannot divide 1234.5 by 0: a decimal has no infinity"),
  .init(
    "modulus:by:(age, 0) == 1", .invalidOperand,
    "cannot divide 30 by 0: an integer has no infinity"),
  .init("uppercase:(age) == \"A\"", .invalidOperand, "uppercase: needs a string, found 30"),
  .init("sum:(name) > 1", .invalidOperand, "sum: needs a collection, found \"Ann\""),
  .init("sum:(tags) > 1", .invalidOperand, "sum: needs numbers, found \"swift\""),
  .init("sqrt:(name) > 1", .invalidOperand, "sqrt: needs numbers, found \"Ann\""),
  .init("randomn:(0) > 1", .invalidOperand, "randomn: needs integers, found 0"),
  .init(
    "nmae == \"Ann\"", .unknownKey,
    "cannot read \"nmae\" of key path \"nmae\": Person has no key \"nmae\""),
  .init(
    "friend.nmae == \"Ann\"", .unknownKey,
    "cannot read \"nmae\" of key path \"friend.nmae\": Person has no key \"nmae\""),
  .init(
    "ANY spendings.cost > 3", .unknownKey,
    "cannot read \"cost\" of key path \"spendings.cost\": Spending has no key \"cost\""),
  .init(
    "spendings.@sum.cost > 3", .unknownKey,
    "cannot read \"cost\" of key path \"spendings.@sum.cost\": Spending has no key \"cost\""),
  .init(
    "name.length == 3", .invalidKeyPath,
    "\"length\" in key path \"name.length\" follows \"Ann\", which is not an object"),
  .init(
    "spendings.@foo.amount > 1", .invalidKeyPath,
    "unknown collection operator \"@foo\" in key path \"spendings.@foo.amount\", expected "
      + "@count, @sum, @avg, @min, @max, @unionOfObjects or @distinctUnionOfObjects"),
  .init(
    "name.@count > 1", .invalidKeyPath,
    "@count in key path \"name.@count\" applies to a collection, found \"Ann\""),
  .init(
    "spendings.@sum.category > 1", .invalidOperand,
    "@sum in key path \"spendings.@sum.category\" reached \"food\", not a number"),
  .init("name < 3", .invalidOperand, "cannot compare \"Ann\" < 3"),
  .init("spendings.amount > 3", .invalidOperand, "cannot compare a collection > 3"),
  .init("ANY name == \"A\"", .invalidOperand, "ANY needs a collection, found \"Ann\""),
  .init("ALL name == \"A\"", .invalidOperand, "ALL needs a collection, found \"Ann\""),
  .init("NONE name == \"A\"", .invalidOperand, "NONE needs a collection, found \"Ann\""),
  .init("NOT ANY age > 3", .invalidOperand, "NONE needs a collection, found 30"),
  .init("NOT (ALL age > 3)", .invalidOperand, "ALL needs a collection, found 30"),
  .init(
    "age BETWEEN {1}", .invalidOperand,
    "BETWEEN needs two bounds such as {1, 10}, found a collection"),
  .init("age BEGINSWITH \"3\"", .invalidOperand, "BEGINSWITH needs strings, found 30"),
  .init("name MATCHES \"(\"", .invalidRegularExpression, "\"(\" is not a regular expression"),
  .init("age > $x", .unboundVariable, "no value for variable $x"),
  .init(
    "FUNCTION(name, 'mgl_has:', 'x') == 1", .function,
    "no function \"mgl_has:\" is registered: FUNCTION calls the built-in selectors and those"
      + " given to QueryFunctionRegistry.register"),
  .init(
    "FUNCTION(age, 'uppercaseString') == 1", .invalidOperand,
    "uppercaseString needs a string, found 30"),
  .init(
    "FUNCTION(SELF, 'valueForKey:', 'friend.name') == 1", .invalidKeyPath,
    "valueForKey: reads one key, found the key path \"friend.name\" (valueForKeyPath: reads one)"),
  .init(
    "FUNCTION(SELF, 'valueForKey:', 'nmae') == 1", .unknownKey,
    "cannot read \"nmae\" of key path \"nmae\": Person has no key \"nmae\""),
  .init("CAST(name, 'NSNumber') == 1", .invalidOperand, "cannot CAST \"Ann\" to \"NSNumber\""),
  .init("CAST(name, 'NSDate') == 1", .invalidOperand, "cannot CAST \"Ann\" to \"NSDate\""),
  .init("CAST(tags, 'NSString') == 1", .invalidOperand, "cannot CAST a collection to \"NSString\""),
  .init("age UTI-EQUALS 'public.data'", .invalidOperand, "UTI-EQUALS needs strings, found 30"),
]

@Suite("Predicate errors")
struct PredicateErrorTests {
  @Test("malformed predicates name the column and what was expected", arguments: parseErrors)
  func malformed(_ row: ParseErrorCase) {
    let arguments = row.arguments.map { $0.resolve(in: []) }
    #expect {
      _ = try QueryPredicate(format: row.format, arguments: arguments)
    } throws: { error in
      guard let error = error as? QueryError else { return false }
      #expect(error.description == row.message)
      #expect(error.code == row.code)
      return true
    }
  }

  @Test("evaluation errors name the key path, never a silent false", arguments: evaluationErrors)
  func evaluation(_ row: EvaluationErrorCase) throws {
    let ann = makePeople()[0]
    let predicate = try QueryPredicate(format: row.format)
    #expect {
      _ = try predicate.evaluate(with: ann)
    } throws: { error in
      guard let error = error as? QueryError else { return false }
      #expect(error.description == row.message)
      #expect(error.code == row.code)
      return true
    }
  }

  @Test("FUNCTION calls what an application registers, reports what it throws, and forgets it")
  func registeredFunctions() throws {
    struct Refused: Error, CustomStringConvertible {
      var description: String { "refused by the test" }
    }
    let selector = "folioTestScale:by:"
    let predicate = try QueryPredicate(format: "FUNCTION(age, %@, 2, 5) == 300", selector)
    let ann = makePeople()[0]
    #expect(throws: QueryError.self) { try predicate.evaluate(with: ann) }
    QueryFunctionRegistry.register(selector) { receiver, arguments in
      guard let value = receiver as? Int, let a = arguments[0] as? Int, let b = arguments[1] as? Int
      else { throw Refused() }
      return value * a * b
    }
    defer { QueryFunctionRegistry.unregister(selector) }
    #expect(try predicate.evaluate(with: ann))
    #expect(predicate.description == "FUNCTION(age, \"folioTestScale:by:\", 2, 5) == 300")
    #expect(try QueryPredicate(format: predicate.description) == predicate)
    let failing = try QueryPredicate(format: "FUNCTION(name, %@, 2, 5) == 1", selector)
    let error = try #require(throws: QueryError.self) { try failing.evaluate(with: ann) }
    #expect(error.code == .function)
    #expect(error.description == "FUNCTION \"folioTestScale:by:\" failed: refused by the test")
    #expect(error.underlying is Refused)
    // A built-in selector may be replaced, and answers again once unregistered.
    let length = try QueryPredicate(format: "FUNCTION(name, 'length') == 3")
    QueryFunctionRegistry.register("length") { _, _ in 0 }
    #expect(try !length.evaluate(with: ann))
    QueryFunctionRegistry.unregister("length")
    #expect(try length.evaluate(with: ann))
  }

  @Test("MATCHES takes a regular expression's escapes written with two backslashes or as %@")
  func regularExpressionEscapes() throws {
    let ann = makePeople()[0]
    for predicate in [
      try QueryPredicate(format: #"email MATCHES '\\w+@\\w+\\.com'"#),
      try QueryPredicate(format: "email MATCHES %@", #"\w+@\w+\.com"#),
    ] {
      #expect(try predicate.evaluate(with: ann))
      #expect(try QueryPredicate(format: predicate.description) == predicate)
    }
    #expect(try !QueryPredicate(format: #"email MATCHES '\\d+@.*'"#).evaluate(with: ann))
  }

  @Test("a format string of 1 MiB parses; one byte more is refused at the column past it")
  func formatLength() throws {
    #expect(QueryPredicate.maximumFormatBytes == 1_048_576)
    // `name == "ééé…"`: 9 bytes of syntax, the closing quote, and two bytes per "é".
    func format(bytes: Int) -> String {
      let letters = bytes - 10
      return "name == \"" + String(repeating: "é", count: letters / 2)
        + String(repeating: "x", count: letters % 2) + "\""
    }
    let longest = format(bytes: 1_048_576)
    #expect(longest.utf8.count == 1_048_576)
    let predicate = try QueryPredicate(format: longest)
    #expect(predicate.description == longest)
    let tooLong = format(bytes: 1_048_577)
    let error = try #require(throws: QueryError.self) { try QueryPredicate(format: tooLong) }
    #expect(error.code == .syntax)
    // Byte 1,048,577 is the closing quote, after 9 characters of syntax, 524,283 "é"s and "x".
    #expect(
      error.description
        == "column 524294: the predicate is 1048577 bytes long, more than the limit of 1048576 bytes"
    )
  }

  @Test("keywords are ASCII: a word that upper-cases to one under Unicode rules is a key")
  func asciiKeywords() throws {
    // "ın" (dotless i) and "ſelf" (long s) upper-case to "IN" and "SELF" in Unicode.
    let dotless = try QueryPredicate(format: "ın == 3")
    #expect(
      dotless == .comparison(QueryComparison(.keyPath("ın"), .equalTo, .constant(.integer(3)))))
    let longS = try QueryPredicate(format: "ſelf == 3")
    #expect(longS.description == "ſelf == 3")
    #expect(try QueryPredicate(format: "x in {1}") == QueryPredicate(format: "x IN {1}"))
  }

  @Test("an unknown key keeps the object's error and names the key")
  func unknownKeyKeepsCause() throws {
    let ann = makePeople()[0]
    let predicate = try QueryPredicate(format: "friend.nmae == 1")
    do {
      _ = try predicate.evaluate(with: ann)
      Issue.record("expected an error")
    } catch {
      #expect(error.location?.property == "nmae")
      #expect((error.underlying as? UnknownKey)?.key == "nmae")
    }
  }

  @Test("an unknown key behind a nil to-one reads as nil, as key-value coding does")
  func unknownKeyBehindNil() throws {
    let cecile = makePeople()[2]
    let predicate = try QueryPredicate(format: "friend.nmae == nil")
    #expect(try predicate.evaluate(with: cecile))
  }
}
