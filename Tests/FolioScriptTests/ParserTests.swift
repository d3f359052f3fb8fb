import Folio
import Foundation
import Testing

@testable import FolioScript

/// A line and the command it parses to.
struct ParseCase: Sendable, CustomTestStringConvertible {
  var text: String
  var kind: ScriptCommand.Kind
  var testDescription: String { text }

  init(_ text: String, _ kind: ScriptCommand.Kind) {
    self.text = text
    self.kind = kind
  }
}

/// A script and the exact syntax error it gives.
struct SyntaxCase: Sendable, CustomTestStringConvertible {
  var id: String
  var text: String
  var message: String
  var testDescription: String { id }

  init(_ id: String, _ text: String, _ message: String) {
    self.id = id
    self.text = text
    self.message = message
  }
}

private let adaDate = Date(timeIntervalSinceReferenceDate: 816_948_000)  // 2026-11-21T10:00:00Z
private let someUUID = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()

@Suite("Parsing undo scripts")
struct ParserTests {
  static let commands: [ParseCase] = [
    // Part G.
    ParseCase("model Expenses.xcdatamodeld", .model(path: "Expenses.xcdatamodeld")),
    ParseCase(
      "model ../Models/E.xcdatamodel  # a comment", .model(path: "../Models/E.xcdatamodel")),
    ParseCase("model \"My Models/E.xcdatamodeld\"", .model(path: "My Models/E.xcdatamodeld")),
    ParseCase("new", .new),
    ParseCase("insert Person $p", .insert(entity: "Person", variable: "p", assignments: [])),
    ParseCase(
      "insert Person $p name=\"Ada\" spendings=[$a, $b]",
      .insert(
        entity: "Person", variable: "p",
        assignments: [
          Assignment(key: "name", value: .string("Ada")),
          Assignment(key: "spendings", value: .list([.variable("a"), .variable("b")])),
        ])),
    ParseCase(
      "insert Spending $s amount = 12.5\tperson=$p",
      .insert(
        entity: "Spending", variable: "s",
        assignments: [
          Assignment(key: "amount", value: .decimal(Decimal(string: "12.5") ?? 0)),
          Assignment(key: "person", value: .variable("p")),
        ])),
    ParseCase(
      "set $p.name = \"A\\u00e9\\n\\\"\\\\\\/\\t\\ud83d\\ude00\"",
      .set(variable: "p", key: "name", value: .string("Aé\n\"\\/\t😀"))),
    ParseCase("set $s.amount = -12", .set(variable: "s", key: "amount", value: .integer(-12))),
    ParseCase(
      "set $s.amount = -1.25e2",
      .set(variable: "s", key: "amount", value: .decimal(Decimal(-125)))),
    ParseCase(
      "set $s.date = @2026-11-21T10:00:00Z", .set(variable: "s", key: "date", value: .date(adaDate))
    ),
    ParseCase(
      "set $s.date = @2026-11-21T12:00:00+02:00",
      .set(variable: "s", key: "date", value: .date(adaDate))),
    ParseCase(
      "set $s.date = @2026-11-21",
      .set(variable: "s", key: "date", value: .date(adaDate.addingTimeInterval(-36_000)))),
    ParseCase(
      "set $b.id = uuid:e621e1f8-c36c-495a-93fc-0c247a3e6e5f",
      .set(variable: "b", key: "id", value: .uuid(someUUID))),
    ParseCase(
      "set $b.cover = base64:AAEC/w==",
      .set(variable: "b", key: "cover", value: .data(Data([0, 1, 2, 255])))),
    ParseCase("set $b.cover = base64:", .set(variable: "b", key: "cover", value: .data(Data()))),
    ParseCase(
      "set $b.inPrint = false", .set(variable: "b", key: "inPrint", value: .boolean(false))),
    ParseCase("set $b.shelf = nil", .set(variable: "b", key: "shelf", value: .null)),
    ParseCase(
      "set $r.favourites = []", .set(variable: "r", key: "favourites", value: .list([]))),
    ParseCase("add $p.spendings $s", .add(variable: "p", key: "spendings", value: .variable("s"))),
    ParseCase(
      "remove $p.spendings [$s,$t]",
      .remove(variable: "p", key: "spendings", value: .list([.variable("s"), .variable("t")]))),
    ParseCase("delete $p", .delete(variable: "p")),
    ParseCase("validate", .validate),
    ParseCase("process", .process),
    ParseCase("dump   # everything", .dump),
    ParseCase(
      "expect $p.spendings.@sum.amount == 42.5",
      .expect(
        .comparison(
          .keyPath(variable: "p", path: "spendings.@sum.amount"), .equal,
          .decimal(Decimal(string: "42.5") ?? 0)))),
    ParseCase(
      "expect $s.person != $p",
      .expect(.comparison(.keyPath(variable: "s", path: "person"), .notEqual, .variable("p")))),
    ParseCase(
      "expect count Person >= 1",
      .expect(.comparison(.count(entity: "Person", predicate: nil), .greaterOrEqual, .integer(1)))
    ),
    ParseCase(
      "expect count Person where \"name == 'Ada'\" < 2",
      .expect(.comparison(.count(entity: "Person", predicate: "name == 'Ada'"), .less, .integer(2)))
    ),
    ParseCase("expect has-changes", .expect(.hasChanges)),
    ParseCase("expect !has-changes", .expect(.not(.hasChanges))),
    ParseCase("expect ! deleted $p", .expect(.not(.deleted(variable: "p")))),
    ParseCase("expect deleted $p", .expect(.deleted(variable: "p"))),
    ParseCase("expect error deny", .expect(.error(code: "deny"))),
    ParseCase("expect error minimum-length", .expect(.error(code: "minimum-length"))),
    ParseCase("print $p", .print(.keyPath(variable: "p", path: nil))),
    ParseCase("print count Person", .print(.count(entity: "Person", predicate: nil))),
    ParseCase(
      "print $p.name <= \"B\"",
      .print(.comparison(.keyPath(variable: "p", path: "name"), .lessOrEqual, .string("B")))),
    // Part U.
    ParseCase("turn", .turn),
    ParseCase("begin", .begin(name: nil)),
    ParseCase("begin \"Typing\"", .begin(name: "Typing")),
    ParseCase("end", .end),
    ParseCase("name \"Rename\"", .name("Rename")),
    ParseCase("undo", .undo),
    ParseCase("redo", .redo),
    ParseCase("undo-nested", .undoNested),
    ParseCase("levels 0", .levels(0)),
    ParseCase("disable", .disable),
    ParseCase("enable", .enable),
    ParseCase("groups-by-event off", .groupsByEvent(false)),
    ParseCase("groups-by-event on", .groupsByEvent(true)),
    ParseCase("rollback", .rollback),
    ParseCase("reset", .reset),
    ParseCase("refresh $p", .refresh(variable: "p", merge: false)),
    ParseCase("refresh $p merge", .refresh(variable: "p", merge: true)),
    ParseCase("refresh-all", .refreshAll),
    ParseCase("expect can-undo", .expect(.canUndo)),
    ParseCase("expect !can-redo", .expect(.not(.canRedo))),
    ParseCase(
      "expect undo-name == \"Typing\"",
      .expect(.comparison(.undoName, .equal, .string("Typing")))),
    ParseCase(
      "expect redo-name != \"\"", .expect(.comparison(.redoName, .notEqual, .string("")))),
    ParseCase(
      "expect grouping-level == 0", .expect(.comparison(.groupingLevel, .equal, .integer(0)))),
    ParseCase("expect error open-group", .expect(.error(code: "open-group"))),
    // Part S.
    ParseCase("open store.xml", .open(path: "store.xml")),
    ParseCase("save", .save(path: nil)),
    ParseCase("save \"copy of store.folio\"", .save(path: "copy of store.folio")),
    ParseCase("close", .close),
    // Part F.
    ParseCase("fetch Person", .fetch(ScriptFetch(entity: "Person"))),
    ParseCase(
      "fetch Employee where \"salary > 10\" sort lastName asc sort department.name desc limit 3 as $e",
      .fetch(
        ScriptFetch(
          entity: "Employee", predicate: "salary > 10",
          sorts: [
            ScriptFetch.Sort(keyPath: "lastName", isAscending: true),
            ScriptFetch.Sort(keyPath: "department.name", isAscending: false),
          ], limit: 3, variable: "e"))),
    // Part C.
    ParseCase("context other", .context(name: "other")),
    ParseCase("context main  # back", .context(name: "main")),
    ParseCase("child edit-sheet", .child(name: "edit-sheet")),
    ParseCase("merge-policy error", .mergePolicy(.error)),
    ParseCase("merge-policy store-trump", .mergePolicy(.mergeByPropertyStoreTrump)),
    ParseCase("merge-policy object-trump", .mergePolicy(.mergeByPropertyObjectTrump)),
    ParseCase("merge-policy overwrite", .mergePolicy(.overwrite)),
    ParseCase("merge-policy rollback", .mergePolicy(.rollback)),
    ParseCase(
      "expect context == \"main\"", .expect(.comparison(.context, .equal, .string("main")))),
    ParseCase("print context", .print(.context)),
    ParseCase("expect error merge-conflict", .expect(.error(code: "merge-conflict"))),
    ParseCase("expect error context-exists", .expect(.error(code: "context-exists"))),
    // Part P.
    ParseCase("copy $a", .copy(variables: ["a"])),
    ParseCase("copy $a $b\t$c  # three", .copy(variables: ["a", "b", "c"])),
    ParseCase("paste", .paste(variable: nil)),
    ParseCase("paste as $copy", .paste(variable: "copy")),
    ParseCase("duplicate $a", .duplicate(variables: ["a"], variable: nil)),
    ParseCase("duplicate $a $b as $c", .duplicate(variables: ["a", "b"], variable: "c")),
    ParseCase("expect error empty-pasteboard", .expect(.error(code: "empty-pasteboard"))),
  ]

  @Test("every command of the language parses", arguments: commands)
  func parsesCommand(_ parseCase: ParseCase) throws {
    #expect(try parsed(parseCase.text) == parseCase.kind)
  }

  @Test("commands belong to the parts G, U, S, F, C and P")
  func parts() throws {
    let script = try Script(
      parsing:
        "dump\nundo\nrefresh-all\nsave\nfetch Person\ncontext a\nchild b\nmerge-policy error"
        + "\ncopy $a\npaste\nduplicate $a",
      file: "t.undo")
    #expect(
      script.commands.map(\.part) == [
        .graph, .undo, .undo, .stores, .fetching, .contexts, .contexts, .contexts, .pasteboard,
        .pasteboard, .pasteboard,
      ])
    #expect(ScriptCommand.Part.allCases.map(\.rawValue) == ["G", "U", "S", "F", "C", "P"])
    #expect(
      script.commands.map(\.name) == [
        "dump", "undo", "refresh-all", "save", "fetch", "context", "child", "merge-policy",
        "copy", "paste", "duplicate",
      ])
  }

  static let syntaxErrors: [SyntaxCase] = [
    SyntaxCase(
      "lists nested 33 deep",
      "set $a.b = " + String(repeating: "[", count: 33) + String(repeating: "]", count: 33),
      "t.undo:1:44: lists nest more than 32 levels deep"),
    SyntaxCase(
      "unknown command", "new\n\ninser Person $p",
      "t.undo:3:1: unknown command \"inser\" (did you mean \"insert\"?)"),
    SyntaxCase(
      "unknown command far from any", "frobnicate",
      "t.undo:1:1: unknown command \"frobnicate\""),
    SyntaxCase(
      "no command", "$p.name = 3", "t.undo:1:1: expected a command, found \"$p.name\""),
    SyntaxCase(
      "indented line", "  # notes\n\t  validate now",
      "t.undo:2:13: expected the end of the line, found \"now\""),
    SyntaxCase(
      "insert without entity", "insert",
      "t.undo:1:7: expected an entity name, found the end of the line"),
    SyntaxCase(
      "insert without variable", "insert Person name=\"Ada\"",
      "t.undo:1:15: expected a $variable, found \"name\""),
    SyntaxCase(
      "insert with a key path variable", "insert Person $p.name",
      "t.undo:1:15: expected a $variable, found \"$p.name\""),
    SyntaxCase(
      "assignment without =", "insert Person $p name \"Ada\"",
      "t.undo:1:23: expected \"=\" after \"name\", found \"Ada\""),
    SyntaxCase(
      "assignment without value", "insert Person $p name=",
      "t.undo:1:23: expected a value, found the end of the line"),
    SyntaxCase(
      "set without key", "set $p = 3", "t.undo:1:5: expected $variable.key, found \"$p\""),
    SyntaxCase(
      "set with a key path", "set $p.spendings.amount = 3",
      "t.undo:1:5: expected $variable.key, found \"$p.spendings.amount\""),
    SyntaxCase(
      "set with an operator", "set $p.@count = 3",
      "t.undo:1:5: expected $variable.key, found \"$p.@count\""),
    SyntaxCase(
      "set without =", "set $p.name \"Ada\"",
      "t.undo:1:13: expected \"=\", found \"Ada\""),
    SyntaxCase(
      "value that is a key path", "set $s.person = $p.name",
      "t.undo:1:17: expected a value, found \"$p.name\""),
    SyntaxCase(
      "bare word value", "set $p.name = Ada", "t.undo:1:15: expected a value, found \"Ada\""),
    SyntaxCase(
      "list without comma", "add $p.spendings [$a $b]",
      "t.undo:1:22: expected \",\" or \"]\", found \"$b\""),
    SyntaxCase(
      "unclosed list", "add $p.spendings [$a,",
      "t.undo:1:22: expected a value, found the end of the line"),
    SyntaxCase(
      "unterminated string", "set $p.name = \"Ada",
      "t.undo:1:15: unterminated string (a string ends with \" on its own line)"),
    SyntaxCase(
      "invalid escape", "set $p.name = \"a\\qb\"",
      "t.undo:1:17: invalid escape \"\\q\" in a string"),
    SyntaxCase(
      "short unicode escape", "set $p.name = \"\\u12\"",
      "t.undo:1:16: invalid escape \"\\u12\" in a string"),
    SyntaxCase(
      "lone surrogate", "set $p.name = \"\\ud83d!\"",
      "t.undo:1:16: invalid escape \"\\ud83d\" in a string"),
    SyntaxCase(
      "control character", "set $p.name = \"a\tb\"",
      "t.undo:1:17: control character U+0009 in a string (write it as \\u0009)"),
    SyntaxCase(
      "invalid number", "set $s.amount = 12abc", "t.undo:1:17: invalid number \"12abc\""),
    SyntaxCase(
      "number with a trailing dot", "set $s.amount = 12.", "t.undo:1:17: invalid number \"12.\""),
    SyntaxCase(
      "integer out of range", "set $s.amount = 9223372036854775808",
      "t.undo:1:17: number 9223372036854775808 is out of range"),
    SyntaxCase(
      "decimal out of range", "set $s.amount = 1e400",
      "t.undo:1:17: number 1e400 is out of range"),
    SyntaxCase(
      "minus alone", "set $s.amount = -", "t.undo:1:17: unexpected character \"-\""),
    SyntaxCase(
      "invalid month", "set $s.date = @2026-13-01",
      "t.undo:1:15: invalid date \"@2026-13-01\" (expected @YYYY-MM-DD or @YYYY-MM-DDTHH:MM:SSZ)"),
    SyntaxCase(
      "no leap day", "set $s.date = @2025-02-29",
      "t.undo:1:15: invalid date \"@2025-02-29\" (expected @YYYY-MM-DD or @YYYY-MM-DDTHH:MM:SSZ)"),
    SyntaxCase(
      "time without zone", "set $s.date = @2026-11-21T10:00:00",
      "t.undo:1:15: invalid date \"@2026-11-21T10:00:00\" (expected @YYYY-MM-DD or @YYYY-MM-DDTHH:MM:SSZ)"
    ),
    SyntaxCase(
      "invalid UUID", "set $b.id = uuid:nope", "t.undo:1:13: invalid UUID \"uuid:nope\""),
    SyntaxCase(
      "invalid base64", "set $b.cover = base64:*!", "t.undo:1:16: invalid base64 data \"base64:*!\""
    ),
    SyntaxCase(
      "unexpected character", "set $p.name = %", "t.undo:1:15: unexpected character \"%\""),
    SyntaxCase(
      "non-ASCII name", "insert Pérson $p", "t.undo:1:9: unexpected character \"é\""),
    SyntaxCase(
      "dollar alone", "delete $", "t.undo:1:8: \"$\" must be followed by a variable name"),
    SyntaxCase(
      "dot without key", "set $p. = 3", "t.undo:1:5: expected a key after \".\" in \"$p.\""),
    SyntaxCase(
      "unknown error code", "new\nexpect error valdation",
      "t.undo:2:14: unknown error code \"valdation\" (did you mean \"validation\"?)"),
    SyntaxCase(
      "error without code", "expect error",
      "t.undo:1:13: expected an error code, found the end of the line"),
    SyntaxCase(
      "expect without comparison", "expect $p.name",
      "t.undo:1:15: expected a comparison (==, !=, <, <=, >, >=), found the end of the line"),
    SyntaxCase(
      "expect with =", "expect $p.name = \"Ada\"",
      "t.undo:1:16: expected a comparison (==, !=, <, <=, >, >=), found \"=\""),
    SyntaxCase(
      "expect nothing", "expect",
      "t.undo:1:7: expected an expression to check, found the end of the line"),
    SyntaxCase(
      "negated count", "expect !count Person == 1",
      "t.undo:1:9: expected has-changes, can-undo, can-redo or deleted after \"!\", found \"count\""
    ),
    SyntaxCase(
      "print error", "print error deny", "t.undo:1:7: \"error\" can only follow \"expect\""),
    SyntaxCase(
      "print nothing", "print",
      "t.undo:1:6: expected an expression to print, found the end of the line"),
    SyntaxCase(
      "count where without string", "expect count Person where name == 1",
      "t.undo:1:27: expected a predicate in quotes, found \"name\""),
    SyntaxCase(
      "model without path", "model   # later",
      "t.undo:1:9: expected a path, found the end of the line"),
    SyntaxCase(
      "negative levels", "levels -1",
      "t.undo:1:8: expected a number of levels (0 or more), found \"-1\""),
    SyntaxCase(
      "groups-by-event maybe", "groups-by-event maybe",
      "t.undo:1:17: expected \"on\" or \"off\", found \"maybe\""),
    SyntaxCase(
      "name without quotes", "name Typing",
      "t.undo:1:6: expected an undo action name, found \"Typing\""),
    SyntaxCase(
      "refresh with junk", "refresh $p now",
      "t.undo:1:12: expected the end of the line, found \"now\""),
    SyntaxCase(
      "fetch clauses out of order", "fetch Person limit 3 where \"x\"",
      "t.undo:1:22: expected \"as\" or the end of the line, found \"where\""),
    SyntaxCase(
      "having before group-by", "fetch Person having \"n > 1\"",
      "t.undo:1:14: expected \"where\", \"group-by\", \"keys\", \"sort\", \"limit\", \"as\" or the"
        + " end of the line, found \"having\""),
    SyntaxCase(
      "rows bind no object", "fetch Person group-by \"name\" as $p",
      "t.undo:1:30: expected the end of the line (a fetch with group-by or keys prints rows and"
        + " binds no object), found \"as\""),
    SyntaxCase(
      "fetch sort without direction", "fetch Person sort name",
      "t.undo:1:23: expected \"asc\" or \"desc\", found the end of the line"),
    SyntaxCase(
      "merge policy with a typo", "merge-policy stor-trump",
      "t.undo:1:14: unknown merge policy \"stor-trump\" (did you mean \"store-trump\"?)"),
    SyntaxCase(
      "unknown merge policy", "merge-policy newest",
      "t.undo:1:14: unknown merge policy \"newest\" (expected error, store-trump, object-trump, "
        + "overwrite or rollback)"),
    SyntaxCase(
      "merge policy in quotes", "merge-policy \"error\"",
      "t.undo:1:14: expected a merge policy, found \"error\""),
    SyntaxCase(
      "context without a name", "context",
      "t.undo:1:8: expected a context name, found the end of the line"),
    SyntaxCase(
      "context named by a variable", "context $main",
      "t.undo:1:9: expected a context name, found \"$main\""),
    SyntaxCase(
      "child with two names", "child a b",
      "t.undo:1:9: expected the end of the line, found \"b\""),
    SyntaxCase(
      "refresh-all with a variable", "refresh-all $p",
      "t.undo:1:13: expected the end of the line, found \"$p\""),
    SyntaxCase(
      "unknown command near refresh-all", "refresh-al",
      "t.undo:1:1: unknown command \"refresh-al\" (did you mean \"refresh-all\"?)"),
    SyntaxCase(
      "CRLF lines", "new\r\nbogus\r\n", "t.undo:2:1: unknown command \"bogus\""),
    SyntaxCase(
      "first error wins", "new\nbogus\nalso bogus",
      "t.undo:2:1: unknown command \"bogus\""),
    SyntaxCase(
      "expect error of another code", "bogus\nexpect error validation",
      "t.undo:1:1: unknown command \"bogus\""),
  ]

  @Test("each syntax error names the file, line and column", arguments: syntaxErrors)
  func reportsSyntaxError(_ syntaxCase: SyntaxCase) {
    #expect(syntaxError(syntaxCase.text) == syntaxCase.message)
  }

  @Test("a line of 1 MiB parses; a longer one is refused at its first byte past the limit")
  func lineLength() throws {
    // `name "ééé…x"`: 6 bytes before the letters, and two bytes per "é".
    let longest = "name \"" + String(repeating: "é", count: 524_284) + "x\""
    #expect(longest.utf8.count == 1_048_576)
    let script = try Script(parsing: "new\n\(longest)\r\nundo", file: "t.undo")
    #expect(script.commands.count == 3)
    let tooLong = "name \"" + String(repeating: "é", count: 524_285) + "\""
    #expect(tooLong.utf8.count == 1_048_577)
    let error = try #require(throws: ScriptError.self) {
      try Script(parsing: "new\n\(tooLong)\nundo", file: "t.undo")
    }
    #expect(error.code == .syntax)
    // Byte 1,048,577 is the closing quote, the 524,292nd character.
    #expect(
      error.description == "t.undo:2:524292: the line is longer than the limit of 1048576 bytes")
    // `expect error syntax` after it lets the script run, as after any syntax error.
    let allowed = try Script(
      parsing: "new\n\(tooLong)\nexpect error syntax\nundo", file: "t.undo")
    #expect(allowed.commands.count == 4)
  }

  @Test("blank lines and comments are not commands, and commands keep their lines and text")
  func linesAndText() throws {
    let script = try Script(
      parsing: "\u{FEFF}# header\n\nmodel E.xcdatamodeld   # the model\n  new\n", file: "x/t.undo")
    #expect(script.commands.map(\.location.line) == [3, 4])
    #expect(script.commands.map(\.location.column) == [1, 3])
    #expect(script.commands.map(\.text) == ["model E.xcdatamodeld", "new"])
    #expect(script.commands.map(\.name) == ["model", "new"])
  }

  @Test("a string may hold a #, which does not start a comment there")
  func hashInString() throws {
    #expect(
      try parsed("set $p.name = \"#1\" # first")
        == .set(variable: "p", key: "name", value: .string("#1")))
  }

  @Test("a syntax error followed by expect error syntax is kept as a command")
  func keptSyntaxError() throws {
    let script = try Script(parsing: "bogus 1\nexpect error syntax", file: "t.undo")
    guard case .invalid(let syntax) = script.commands[0].kind else {
      Issue.record("expected an invalid command")
      return
    }
    #expect(syntax.error.description == "t.undo:1:1: unknown command \"bogus\"")
    #expect(script.commands[0].text == "bogus 1")
  }

  @Test("relative paths start in the script's folder")
  func resolvesPaths() throws {
    #expect(
      try Script(parsing: "", file: "Samples/E/t.undo").resolve("E.xcdatamodeld")
        == "Samples/E/E.xcdatamodeld")
    #expect(try Script(parsing: "", file: "t.undo").resolve("E.xcdatamodeld") == "E.xcdatamodeld")
    #expect(try Script(parsing: "", file: "a/t.undo").resolve("/abs/E") == "/abs/E")
  }

  @Test("expressions and values print back as scripts write them")
  func expressionText() throws {
    let line =
      "expect $p.spendings.amount == [1, 2.5, \"a\\\"\", true, nil, @2026-11-21T10:00:00.25Z, uuid:E621E1F8-C36C-495A-93FC-0C247A3E6E5F, base64:AAE=, $q]"
    guard case .expect(let expression) = try parsed(line) else {
      Issue.record("expected an expect command")
      return
    }
    #expect("expect \(expression.text)" == line)
    #expect(ScriptExpression.not(.deleted(variable: "p")).text == "!deleted $p")
    #expect(
      ScriptExpression.count(entity: "P", predicate: "a == 1").text == "count P where \"a == 1\"")
  }
}
