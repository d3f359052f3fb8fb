import Folio
import FolioTestSupport
import Foundation
import Testing

@testable import FolioScript

/// An expression that must hold (or fail with a message) in a document.
struct ExpectCase: Sendable, CustomTestStringConvertible {
  var line: String
  var message: String?
  var testDescription: String { line }

  init(_ line: String, _ message: String? = nil) {
    self.line = line
    self.message = message
  }
}

/// A script opening Expenses with Ada, her lunch (12.5) and books (30), and a lone coffee.
let adaExpenses = """
  model \(expensesModel)
  new
  insert Person $ada name="Ada"
  insert Spending $lunch amount=12.5 content="Lunch" person=$ada date=@2026-11-21T12:30:00Z
  insert Spending $books amount=30 content="Books" person=$ada
  insert Spending $coffee amount=2.5 content="Coffee"

  """

/// The library model with a book, a magazine on a shelf, and a reader.
private let library = """
  model \(libraryModel)
  new
  insert Book $b title="Dune" small=12 pages=412 big=9223372036854775807 price=9.99 weight=0.1 rating=0.1 inPrint=true published=@1965-08-01 cover=base64:AAEC id=uuid:e621e1f8-c36c-495a-93fc-0c247a3e6e5f homepage="https://example.com/dune"
  insert Magazine $m title="Wired" issue=3
  insert Shelf $s name="Fiction" items=[$b, $m]

  """

@Suite("Running undo scripts")
struct ScriptRunnerTests {
  // MARK: Commands

  @Test("model and new start an empty document")
  func modelAndNew() throws {
    let result = replay("model \(expensesModel)\nnew")
    #expect(result.failure == nil)
    let context = try #require(result.runner.context)
    #expect(context.model.entities.map(\.name) == ["Person", "Spending"])
    #expect(context.registeredObjects.isEmpty)
    #expect(
      result.runner.stateSummary == "0 objects (0 inserted, 0 updated, 0 deleted), no changes")
  }

  @Test("insert binds the variable and sets every property, keeping inverses")
  func insert() throws {
    let result = replay(adaExpenses)
    #expect(result.failure == nil)
    let ada = try #require(result.runner.object(named: "ada"))
    let lunch = try #require(result.runner.object(named: "lunch"))
    #expect(ada.entityName == "Person")
    #expect(try ada.value(forKey: "name") as? String == "Ada")
    #expect(try lunch.value(forKey: "amount") as? Double == 12.5)
    #expect(try lunch.value(forKey: "person") as? ManagedObject === ada)
    #expect((try ada.value(forKey: "spendings") as? Set<ManagedObject>)?.contains(lunch) == true)
    #expect(
      result.runner.stateSummary == "4 objects (4 inserted, 0 updated, 0 deleted), has changes")
  }

  @Test("every literal sets the attribute type it names, and prints back the same")
  func literals() {
    let result = replay(
      library + """
        print $b.small
        print $b.pages
        print $b.big
        print $b.price
        print $b.weight
        print $b.rating
        print $b.inPrint
        print $b.published
        print $b.cover
        print $b.id
        print $b.homepage
        print $b.shout
        print $b.title
        set $b.title = "Tab\\tquote\\" \\u00e9 \\ud83d\\ude00"
        print $b.title
        set $b.published = @2026-11-21T10:00:00.125+01:00
        print $b.published
        set $b.weight = 1e-5
        print $b.weight
        set $b.pages = nil
        print $b.pages
        """)
    #expect(result.failure == nil)
    #expect(
      result.output == [
        "12", "412", "9223372036854775807", "9.99", "0.1", "0.1", "true",
        "@1965-08-01T00:00:00Z", "base64:AAEC", "uuid:E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
        "\"https://example.com/dune\"", "nil", "\"Dune\"", "\"Tab\\tquote\\\" é 😀\"",
        "@2026-11-21T09:00:00.125Z", "1e-05", "nil",
      ])
  }

  @Test("set changes attributes and to-one relationships, and the inverse follows")
  func set() throws {
    let result = replay(
      adaExpenses + """
        insert Person $bob name="Bob"
        set $books.person = $bob
        expect $ada.spendings == [$lunch]
        expect $bob.spendings == [$books]
        set $lunch.person = nil
        expect $ada.spendings == []
        set $bob.name = "Robert"
        set $bob.spendings = [$lunch, $coffee]
        expect $books.person == nil
        expect $coffee.person == $bob
        """)
    #expect(result.failure == nil)
    let bob = try #require(result.runner.object(named: "bob"))
    #expect(try bob.value(forKey: "name") as? String == "Robert")
  }

  @Test("add and remove take an object or a list of objects")
  func addAndRemove() {
    let result = replay(
      """
      model \(messagingModel)
      new
      insert Conversation $c
      insert Message $a text="a" date=@2026-01-01
      insert Message $b text="b" date=@2026-01-01
      insert Message $z text="z" date=@2026-01-01
      add $c.messages [$z, $a]
      add $c.messages $b
      expect $c.messages == [$z, $a, $b]
      remove $c.messages [$z, $b]
      expect $c.messages == [$a]
      expect $z.conversation == nil
      add $c.messages 3
      expect error type-mismatch
      remove $c.messages [$a, "b"]
      expect error type-mismatch
      add $c.messages $nobody
      expect error unknown-variable
      add $a.text $b
      """)
    #expect(
      result.failure == "t.undo:19: Message.text: Message.text is not a to-many relationship")
  }

  @Test("add names what it takes when given something else")
  func addNotObject() {
    let result = replay(adaExpenses + "add $ada.spendings 3")
    #expect(
      result.failure == "t.undo:7: \"add\" takes an object or a list of objects, found 3")
    #expect(result.error?.code == .typeMismatch)
  }

  @Test("delete applies the delete rules when pending changes are processed")
  func delete() {
    let result = replay(
      adaExpenses + """
        delete $ada
        expect deleted $ada
        expect !deleted $lunch
        expect count Spending == 3
        process
        expect deleted $lunch
        expect deleted $books
        expect !deleted $coffee
        expect count Spending == 1
        delete $ada
        expect error not-registered
        """)
    #expect(result.failure == nil)
  }

  @Test("validate reports every failure, naming the objects by their variables")
  func validate() {
    let result = replay(
      """
      model \(companyModel)
      new
      insert Department $d name=""
      insert Employee $e firstName="Ada" salary=-1
      validate
      """)
    #expect(
      result.failure == """
        t.undo:5: the changes do not validate (3 failures)
          Department.name ($d): length 0 is less than the minimum 1
          Employee.lastName ($e): a value is required
          Employee.salary ($e): -1 is less than the minimum 0
        """)
    #expect(result.error?.code == .validation)
  }

  @Test("process posts the turn's changes and validate leaves the graph as it is")
  func processAndValidate() throws {
    let result = replay(adaExpenses + "validate\nprocess")
    #expect(result.failure == nil)
    #expect(try #require(result.runner.context).insertedObjects.count == 4)
  }

  // MARK: Expressions

  static let holding: [ExpectCase] = [
    // Numbers by value across types.
    ExpectCase("expect $b.small == 12.0"),
    ExpectCase("expect $b.small < 12.5"),
    ExpectCase("expect $b.big == 9223372036854775807"),
    ExpectCase("expect $b.price == 9.99"),
    ExpectCase("expect $b.price > 9"),
    ExpectCase("expect $b.weight == 0.1"),
    ExpectCase("expect $b.rating == 0.1"),
    ExpectCase("expect $b.rating != 0.10000001"),
    ExpectCase("expect $b.rating < 1"),
    ExpectCase("expect $b.pages >= 412"),
    ExpectCase("expect $b.pages <= 412.0"),
    // Other kinds.
    ExpectCase("expect $b.title == \"Dune\""),
    ExpectCase("expect $b.title < \"Dunes\""),
    ExpectCase("expect $b.title != nil"),
    ExpectCase("expect $b.shout == nil"),
    ExpectCase("expect $b.inPrint == true"),
    ExpectCase("expect $b.published == @1965-08-01T02:00:00+02:00"),
    ExpectCase("expect $b.published < @1965-08-01T00:00:01Z"),
    ExpectCase("expect $b.cover == base64:AAEC"),
    ExpectCase("expect $b.id == uuid:E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
    ExpectCase("expect $b.homepage == \"https://example.com/dune\""),
    // Objects and to-many values.
    ExpectCase("expect $b.shelf == $s"),
    ExpectCase("expect $b == $b"),
    ExpectCase("expect $b != $m"),
    ExpectCase("expect $s.items == [$m, $b]"),
    ExpectCase("expect $s.items != [$m]"),
    ExpectCase("expect $s.items != [$m, $b, $b]"),
    ExpectCase("expect $s.items.title == [\"Wired\", \"Dune\"]"),
    ExpectCase("expect $s.items.@count == 2"),
    ExpectCase("expect $s.items.@max.title == \"Wired\""),
    ExpectCase("expect $b.shelf.items.@count == 2"),
    ExpectCase("expect count Item == 2"),
    ExpectCase("expect count Book == 1"),
    ExpectCase("expect count Shelf != 0"),
    ExpectCase("expect has-changes"),
    ExpectCase("expect !deleted $b"),
    // Failures, with the value found.
    ExpectCase("expect $b.title == \"Emma\"", "expected $b.title == \"Emma\", found \"Dune\""),
    ExpectCase("expect $b.pages > 412", "expected $b.pages > 412, found 412"),
    ExpectCase("expect $b.weight == 0.2", "expected $b.weight == 0.2, found 0.1"),
    ExpectCase("expect $b.shout != nil", "expected $b.shout != nil, found nil"),
    ExpectCase("expect $b.shelf == nil", "expected $b.shelf == nil, found $s"),
    ExpectCase(
      "expect $s.items == [$b]", "expected $s.items == [$b], found [$b, $m]"),
    ExpectCase(
      "expect $s.items.title == [\"Dune\"]",
      "expected $s.items.title == [\"Dune\"], found [\"Dune\", \"Wired\"]"),
    ExpectCase("expect count Item == 3", "expected count Item == 3, found 2"),
    ExpectCase(
      "expect !has-changes", "expected !has-changes, but the document has changes"),
    ExpectCase("expect deleted $b", "expected deleted $b, but $b is not deleted"),
    ExpectCase(
      "expect $b.published > @2000-01-01",
      "expected $b.published > @2000-01-01T00:00:00Z, found @1965-08-01T00:00:00Z"),
  ]

  @Test("expressions hold, or fail with what was found", arguments: holding)
  func expectations(_ expectCase: ExpectCase) {
    let result = replay(library + expectCase.line)
    if let message = expectCase.message {
      #expect(result.failure == "t.undo:6: \(message)")
      #expect(result.error?.code == .expectationFailed)
    } else {
      #expect(result.failure == nil)
    }
  }

  static let mismatches: [ExpectCase] = [
    ExpectCase("expect $b.title == 3", "cannot compare \"Dune\" with 3 using =="),
    ExpectCase("expect $b.inPrint < true", "cannot compare true with true using <"),
    ExpectCase("expect $b.shelf > $s", "cannot compare $s with $s using >"),
    ExpectCase("expect $s.items == $b", "cannot compare [$b, $m] with $b using =="),
    ExpectCase("expect $b.shout < 3", "cannot compare nil with 3 using <"),
    ExpectCase("expect count Book == \"one\"", "cannot compare 1 with \"one\" using =="),
  ]

  @Test("values that cannot be compared are a type mismatch", arguments: mismatches)
  func typeMismatch(_ expectCase: ExpectCase) {
    let result = replay(library + expectCase.line)
    #expect(result.failure == "t.undo:6: \(expectCase.message ?? "")")
    #expect(result.error?.code == .typeMismatch)
  }

  @Test("an ordered to-many compares in order, and so does a key path through it")
  func orderedComparison() {
    let result = replay(
      library + """
        insert Book $c title="Emma"
        insert Reader $r name="Ann" favourites=[$c, $b]
        expect $r.favourites == [$c, $b]
        expect $r.favourites != [$b, $c]
        expect $r.favourites.title == ["Emma", "Dune"]
        expect $r.favourites.title != ["Dune", "Emma"]
        expect $r.favourites.readers.name == ["Ann", "Ann"]
        expect $r.favourites.shelf.items.title == ["Wired", "Dune"]
        print $r.favourites.title
        print $r.favourites.shelf.name
        """)
    #expect(result.failure == nil)
    #expect(result.output == ["[\"Emma\", \"Dune\"]", "[\"Fiction\"]"])
  }

  @Test("count where counts the objects a predicate matches")
  func countWhere() {
    let result = replay(
      library + """
        expect count Book where "pages > 3" == 1
        expect count Item where "title BEGINSWITH[c] 'd' OR title == 'Wired'" == 2
        expect count Item where "shelf.name == 'Fiction'" == 2
        """)
    #expect(result.failure == nil)
  }

  @Test("graph errors keep the entity and key they name")
  func graphErrors() {
    let result = replay(adaExpenses + "set $ada.nme = \"Ada\"")
    #expect(
      result.failure
        == "t.undo:7: Person.nme: \"Person\" has no property \"nme\" (did you mean \"name\"?)")
    #expect(result.error?.code == .unknownKey)
    #expect(result.error?.underlying is GraphError)
  }

  static let graphCodes: [ExpectCase] = [
    ExpectCase("insert Item $i", "abstract-entity"),
    ExpectCase("insert Boook $i", "unknown-entity"),
    ExpectCase("set $b.shout = \"X\"", "read-only"),
    ExpectCase("set $b.small = 40000", "type-mismatch"),
    ExpectCase("set $b.small = 1.5", "type-mismatch"),
    ExpectCase("set $b.title = 3", "type-mismatch"),
    ExpectCase("set $b.shelf = $b", "type-mismatch"),
    ExpectCase("set $b.nope = 1", "unknown-key"),
    ExpectCase("print $b.title.@count", "invalid-key-path"),
    ExpectCase("print $s.items.@median.pages", "invalid-key-path"),
    ExpectCase("print $nobody", "unknown-variable"),
    ExpectCase("print count Boook", "unknown-entity"),
  ]

  @Test("each failing command can be expected by its code", arguments: graphCodes)
  func expectedCodes(_ expectCase: ExpectCase) {
    let result = replay(library + "\(expectCase.line)\nexpect error \(expectCase.message ?? "")")
    #expect(result.failure == nil)
  }

  // MARK: Failures and expect error

  @Test("a failing command stops the script unless expect error follows it")
  func failingCommandStops() throws {
    let result = replay(
      adaExpenses + """
        set $ada.name = 3
        # comments and blank lines do not count

        set $ada.name = "Ann"
        """)
    #expect(
      result.failure == "t.undo:7: Person.name: 3 (an integer) is not of type String")
    #expect(result.error?.code == .typeMismatch)
    let ada = try #require(result.runner.object(named: "ada"))
    #expect(try ada.value(forKey: "name") as? String == "Ada")
  }

  @Test("a failing last command fails the script")
  func failingLastCommand() {
    let result = replay(adaExpenses + "delete $nobody")
    #expect(result.failure == "t.undo:7: unknown variable $nobody")
  }

  @Test("expect error matches the code, or a rule of a validation failure")
  func expectErrorMatches() {
    let result = replay(
      """
      model \(companyModel)
      new
      insert Department $d name="R&D"
      insert Employee $e firstName="Ada" department=$d
      delete $d
      validate
      expect error validation
      validate
      expect error deny
      validate
      expect error required
      set $e.lastName = "Lovelace"
      validate
      expect error deny
      validate
      expect error validation
      """)
    #expect(
      result.failure
        == "t.undo:16: expected error validation, but the previous command failed with deny: the changes do not validate (1 failure)"
    )
  }

  @Test("expect error fails when the previous command succeeded")
  func expectErrorAfterSuccess() {
    let result = replay(adaExpenses + "validate\nexpect error validation")
    #expect(
      result.failure == "t.undo:8: expected error validation, but the previous command succeeded")
    #expect(result.error?.code == .expectationFailed)
  }

  @Test("a failed expect can itself be expected, and so can a syntax error")
  func expectedFailures() {
    let result = replay(
      adaExpenses + """
        expect $ada.name == "Bob"
        expect error expectation-failed
        insert Person $bob name=
        expect error syntax
        expect error syntax
        """)
    #expect(
      result.failure == "t.undo:11: expected error syntax, but the previous command succeeded")
  }

  @Test("a kept syntax error that runs reports its column")
  func keptSyntaxErrorRuns() {
    let result = replay("model \(expensesModel)\nnew\n  bogus\nexpect error syntax\n")
    #expect(result.failure == nil)
    let script = try? Script(parsing: "new\n  bogus\nexpect error syntax", file: "t.undo")
    #expect(script?.commands.count == 3)
  }

  @Test("fetch binds the first match, in the order and window asked")
  func fetch() {
    let result = replay(
      library + """
        insert Book $c title="Carrie" pages=199
        fetch Book where "pages > 100" sort pages desc as $big
        expect $big == $b
        fetch Item sort title asc limit 1 as $first
        expect $first == $c
        fetch Book where "title == 'Nothing'" as $none
        expect error object-not-found
        """)
    #expect(result.failure == nil)
  }

  @Test("a predicate that does not parse, or names an unknown key, is an error")
  func badPredicates() {
    let syntax = replay(library + "fetch Book where \"pages >\"")
    #expect(syntax.error?.code == .invalidPredicate)
    #expect(syntax.failure?.hasPrefix("t.undo:6: predicate \"pages >\": column") == true)
    let unknown = replay(library + "expect count Book where \"pags > 1\" == 0")
    #expect(unknown.error?.code == .unknownKey)
    #expect(unknown.failure?.contains("pags") == true)
  }

  @Test("commands need a model and a document")
  func needsModelAndDocument() {
    #expect(
      replay("new").failure == "t.undo:1: \"new\" needs a model: load one with \"model PATH\" first"
    )
    #expect(replay("new").error?.code == .noModel)
    #expect(
      replay("model \(expensesModel)\ninsert Person $p").failure
        == "t.undo:2: \"insert\" needs a document: start one with \"new\" first")
    #expect(replay("validate").error?.code == .noDocument)
    #expect(replay("dump").error?.code == .noDocument)
    #expect(replay("expect has-changes").error?.code == .noDocument)
    #expect(replay("expect count Person == 0").error?.code == .noDocument)
  }

  @Test("an unknown variable is named, with a suggestion")
  func unknownVariable() {
    #expect(
      replay(adaExpenses + "delete $adda").failure
        == "t.undo:7: unknown variable $adda (did you mean \"$ada\"?)")
    #expect(replay(adaExpenses + "expect deleted $x").error?.code == .unknownVariable)
  }

  @Test("new starts over: the old document's variables are gone")
  func newStartsOver() {
    let result = replay(adaExpenses + "new\nexpect count Person == 0\ndelete $ada")
    #expect(result.failure == "t.undo:9: unknown variable $ada")
  }

  @Test("a failing insert leaves the object inserted and bound, with the values before the error")
  func failingInsert() throws {
    let result = replay(
      adaExpenses + """
        insert Person $bob name="Bob" spendings=3 nope=1
        expect error type-mismatch
        expect $bob.name == "Bob"
        expect count Person == 2
        """)
    #expect(result.failure == nil)
  }

  // MARK: Models and files

  @Test("a model path starts in the script's folder, and a bad one is a model error")
  func modelPaths() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let scripts = folder.appendingPathComponent("scripts")
    try FileManager.default.createDirectory(at: scripts, withIntermediateDirectories: true)
    try Data(libraryModelXML.utf8).write(to: folder.appendingPathComponent("contents"))
    let good = scripts.appendingPathComponent("good.undo")
    try Data("model ../contents\nnew\ninsert Book $b\nexpect count Item == 1\n".utf8).write(
      to: good)
    try ScriptRunner(output: { _ in }).run(Script(contentsOfFile: good.path))

    let result = replay("model Nope.xcdatamodeld", file: "scripts/t.undo")
    #expect(
      result.failure == "scripts/t.undo:1: scripts/Nope.xcdatamodeld: no such file or folder")
    #expect(result.error?.code == .model)
    #expect(result.error?.underlying is ModelError)
  }

  @Test("a script that cannot be read is an io error")
  func unreadableScripts() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let missing = folder.appendingPathComponent("missing.undo").path
    #expect(throws: ScriptError.self) { try Script(contentsOfFile: missing) }
    do {
      _ = try Script(contentsOfFile: missing)
    } catch {
      #expect(error.description == "\(missing): no such file")
      #expect(error.code == .io)
    }
    let binary = folder.appendingPathComponent("binary.undo")
    try Data([0x6E, 0x65, 0x77, 0xFF, 0xFE]).write(to: binary)
    do {
      _ = try Script(contentsOfFile: binary.path)
      Issue.record("a non-UTF-8 script parsed")
    } catch {
      #expect(error.description == "\(binary.path): the script is not UTF-8 text")
    }
  }

  // MARK: Output

  @Test("an object with no variable left is named Entity#N, N its place in the script's order")
  func objectNames() {
    let result = replay(
      adaExpenses + """
        insert Person $ada name="Ann"
        print $lunch.person
        expect $lunch.person == $ada
        """)
    #expect(result.output == ["Person#1"])
    #expect(
      result.failure == "t.undo:9: expected $lunch.person == $ada, found Person#1")
  }

  @Test("each run starts from an empty state")
  func runsStartEmpty() throws {
    let runner = ScriptRunner(output: { _ in })
    try runner.run(Script(parsing: "model \(expensesModel)\nnew\ninsert Person $p", file: "a.undo"))
    #expect(runner.object(named: "p") != nil)
    #expect(throws: ScriptError.self) {
      try runner.run(Script(parsing: "delete $p", file: "b.undo"))
    }
    #expect(runner.model == nil)
  }
}
