import Folio
import FolioTestSupport
import Foundation
import Testing

@testable import FolioScript

/// Cards own the cards they link to (Cascade), so links make cycles in what a card owns.
private let cardsModelXML = """
  <model>
    <entity name="Card">
      <attribute name="text" optional="YES" attributeType="String"/>
      <relationship name="links" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Card" inverseName="linkedFrom" inverseEntity="Card"/>
      <relationship name="linkedFrom" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Card" inverseName="links" inverseEntity="Card"/>
    </entity>
  </model>
  """

/// `xml` written to a temporary `contents` file, as a quoted absolute path for `model`.
private func modelFile(_ xml: String) throws -> String {
  let file = try makeTemporaryFolder().appendingPathComponent("contents")
  try Data(xml.utf8).write(to: file)
  return "\"\(file.path)\""
}

/// Ada with two spendings, which she owns (Cascade), at the end of a turn.
private let adaWithSpendings = """
  model \(expensesModel)
  new
  insert Person $ada name="Ada"
  insert Spending $tea amount=3 content="Tea" person=$ada
  insert Spending $cake amount=4 content="Cake" person=$ada
  turn

  """

/// Research with Grace, and Ada who reports to her.
private let research = """
  model \(companyModel)
  new
  insert Department $rd name="Research"
  insert Employee $grace firstName="Grace" lastName="Hopper" department=$rd
  insert Employee $ada firstName="Ada" lastName="Lovelace" department=$rd manager=$grace
  turn

  """

@Suite("Pasteboard commands")
struct PasteboardCommandTests {
  @Test("copy and paste in one document: what a person owns comes along, one undo step")
  func copyPasteUndoRedo() throws {
    let result = replay(
      adaWithSpendings + """
        copy $ada
        expect count Person == 1          # copying changes nothing
        paste as $copy
        expect $copy != $ada
        expect $copy.name == "Ada"
        expect $copy.spendings.content == ["Cake", "Tea"]
        expect $copy.spendings.@sum.amount == 7
        expect $ada.spendings == [$tea, $cake]
        expect count Spending == 4
        turn
        expect undo-name == "Paste"
        undo
        expect count Person == 1
        expect count Spending == 2
        expect deleted $copy
        expect redo-name == "Paste"
        redo
        expect !deleted $copy
        expect count Spending == 4
        expect $copy.spendings.@sum.amount == 7
        undo
        undo
        expect count Person == 0
        """)
    #expect(result.failure == nil)
    #expect(result.output.isEmpty)
  }

  @Test("pasted objects get numbers in the pasteboard's order, the root's copy first")
  func pastedNumbers() throws {
    let result = replay(adaWithSpendings + "copy $ada\npaste\ndump")
    #expect(result.failure == nil)
    #expect(
      result.output.filter { !$0.hasPrefix("  ") } == [
        "6 objects (6 inserted, 0 updated, 0 deleted), has changes",
        "Person $ada (inserted)", "Spending $tea (inserted)", "Spending $cake (inserted)",
        "Person#4 (inserted)", "Spending#5 (inserted)", "Spending#6 (inserted)",
      ])
  }

  @Test("pasting twice makes two independent sets of copies")
  func pasteTwice() throws {
    let result = replay(
      adaWithSpendings + """
        copy $ada
        paste as $first
        paste as $second
        expect $first != $second
        expect count Person == 3
        expect count Spending == 6
        set $first.name = "Ada King"
        expect $second.name == "Ada"
        delete $first
        process
        expect count Spending == 4
        expect $second.spendings.@count == 2
        """)
    #expect(result.failure == nil)
  }

  @Test("across documents: the pasteboard outlives close, new and open")
  func acrossDocuments() throws {
    let result = try replayInFolder(
      research + """
        save research.xml
        copy $ada
        close
        open research.xml
        paste as $ada2                    # the same store: Research and Grace re-attach
        expect count Employee == 3
        expect $ada2.department.name == "Research"
        expect $ada2.manager.firstName == "Grace"
        expect $ada2.manager.reports.@count == 2
        new
        paste as $ada3                    # another store: both references dropped
        expect count Employee == 1
        expect $ada3.firstName == "Ada"
        expect $ada3.department == nil
        expect $ada3.manager == nil
        open research.xml
        fetch Employee where "firstName == 'Grace'" as $g
        delete $g
        save
        paste as $ada4                    # Grace is gone from the file: not found
        expect $ada4.department.name == "Research"
        expect $ada4.manager == nil
        """)
    #expect(result.failure == nil)
    #expect(
      result.output == [
        "dropped $ada3.department -> $rd (other-store)",
        "dropped $ada3.manager -> $grace (other-store)",
        "dropped $ada4.manager -> $grace (not-found)",
      ])
  }

  @Test("duplicate binds the copy and leaves the pasteboard as it was")
  func duplicate() throws {
    let result = replay(
      research + """
        copy $ada
        duplicate $grace as $grace2
        expect $grace2 != $grace
        expect $grace2.firstName == "Grace"
        expect $grace2.department == $rd
        expect $rd.employees.@count == 3
        expect $grace2.reports == []      # Ada keeps her manager: dropped, reported
        expect $grace.reports == [$ada]
        turn
        expect undo-name == "Paste"
        paste as $ada2                    # still Ada, not Grace
        expect $ada2.firstName == "Ada"
        expect $ada2.manager == $grace
        turn
        undo
        undo
        expect deleted $grace2
        expect count Employee == 2
        duplicate $ada $grace as $ada3    # Ada's copy reports to Grace's
        expect count Employee == 4
        expect $ada3.manager.reports == [$ada3]
        expect $ada3.manager != $grace
        expect $grace.reports == [$ada]
        """)
    #expect(result.failure == nil)
    #expect(result.output == ["dropped $grace2.reports -> $ada (inverse-held)"])
  }

  @Test("a cycle in the owned subgraph is copied once, cycle and all")
  func cycle() throws {
    let result = replay(
      """
      model \(try modelFile(cardsModelXML))
      new
      insert Card $a text="a"
      insert Card $b text="b"
      add $a.links $b
      add $b.links $a
      copy $a
      paste as $a2
      expect count Card == 4
      expect $a2.links.text == ["b"]
      expect $a2.links.links == [$a2]
      expect $a2.linkedFrom.text == ["b"]
      expect $a2.links.linkedFrom == [$a2]
      expect $a.links == [$b]
      """)
    #expect(result.failure == nil)
    #expect(result.output.isEmpty)
  }

  @Test("paste with nothing copied fails with empty-pasteboard, at its line")
  func emptyPasteboard() throws {
    let result = replay("model \(expensesModel)\nnew\n\npaste")
    #expect(result.error?.code == .emptyPasteboard)
    #expect(
      result.failure
        == "t.undo:4: \"paste\" needs objects on the pasteboard: put some there with \"copy $var\" first"
    )
    #expect(
      replay("model \(expensesModel)\nnew\npaste\nexpect error empty-pasteboard").failure == nil)
    #expect(
      replay("paste").failure
        == "t.undo:1: \"paste\" needs a document: start one with \"new\" first")
  }

  @Test("each script starts with an empty pasteboard")
  func scriptsStartEmpty() throws {
    let runner = ScriptRunner(output: { _ in })
    try runner.run(Script(parsing: adaWithSpendings + "copy $ada", file: "a.undo"))
    #expect(throws: ScriptError.self) {
      try runner.run(Script(parsing: "model \(expensesModel)\nnew\npaste", file: "b.undo"))
    }
  }

  @Test("a paste into another version of the model migrates the copies, one undo step")
  func otherVersion() throws {
    let cards = try modelFile(cardsModelXML)
    // Version 2 renames text to body and adds a colour with a default.
    let newer = try modelFile(
      cardsModelXML.replacingOccurrences(
        of: "<attribute name=\"text\" optional=\"YES\" attributeType=\"String\"/>",
        with: """
          <attribute name="body" optional="YES" attributeType="String" elementID="text"/>\
          <attribute name="colour" optional="YES" attributeType="String" defaultValueString="red"/>
          """))
    let result = replay(
      """
      model \(cards)
      new
      insert Card $a text="a"
      insert Card $b text="b"
      add $a.links $b
      add $b.links $a
      copy $a
      model \(newer)
      new
      paste as $a2
      turn
      expect count Card == 2
      expect $a2.body == "a"
      expect $a2.colour == "red"
      expect $a2.links.body == ["b"]
      expect $a2.links.links == [$a2]
      expect undo-name == "Paste"
      undo
      expect count Card == 0
      redo
      expect count Card == 2
      insert Card $c body="c" colour="blue"
      copy $c
      model \(cards)
      new
      paste as $c1
      expect $c1.text == "c"
      """)
    #expect(result.failure == nil)
    #expect(result.output.isEmpty)
  }

  @Test("a pasteboard from a model sharing nothing with the document's is refused")
  func otherModels() throws {
    let cards = try modelFile(cardsModelXML)
    let result = replay(
      """
      model \(cards)
      new
      insert Card $a text="a"
      copy $a
      model \(companyModel)
      new
      paste
      """)
    #expect(result.error?.code == .unknownEntity)
    #expect(result.error?.location?.line == 7)
    #expect(
      result.error?.message
        == "the pasteboard holds objects of entity \"Card\", which the model lacks")
    // Nothing was inserted: the refusal changes nothing.
    #expect(
      replay(
        "model \(cards)\nnew\ninsert Card $a\ncopy $a\nmodel \(companyModel)\nnew\n"
          + "paste\nexpect error unknown-entity\nexpect !has-changes"
      ).failure == nil)
  }

  @Test("copy and duplicate of a deleted or unknown object fail naming the line")
  func badObjects() throws {
    let result = replay(
      adaWithSpendings + """
        copy $nobody
        expect error unknown-variable
        delete $tea
        copy $ada $tea
        expect error not-registered
        duplicate $tea
        expect error not-registered
        duplicate $ada $nobdy
        """)
    #expect(result.failure == "t.undo:14: unknown variable $nobdy")
    let deleted = replay(adaWithSpendings + "delete $tea\ncopy $ada $tea")
    #expect(deleted.failure == "t.undo:8: $tea is deleted and cannot be copied")
    let saved = try replayInFolder(adaWithSpendings + "save a.xml\ndelete $ada\nduplicate $ada")
    #expect(saved.error?.code == .notRegistered)
    #expect(saved.error?.location?.line == 9)
    #expect(saved.error?.message == "$ada is deleted and cannot be copied")
  }

  @Test(
    "a typo in each command is a syntax error at its place",
    arguments: [
      SyntaxCase(
        "copy nothing", "copy", "t.undo:1:5: expected a $variable, found the end of the line"),
      SyntaxCase(
        "copy a key path", "copy $a.name", "t.undo:1:6: expected a $variable, found \"$a.name\""),
      SyntaxCase(
        "copy a word", "copy $a name", "t.undo:1:9: expected the end of the line, found \"name\""),
      SyntaxCase(
        "copy as", "copy $a as $b", "t.undo:1:9: expected the end of the line, found \"as\""),
      SyntaxCase(
        "paste an object", "paste $a",
        "t.undo:1:7: expected \"as\" or the end of the line, found \"$a\""),
      SyntaxCase(
        "paste as nothing", "paste as",
        "t.undo:1:9: expected a $variable, found the end of the line"),
      SyntaxCase("paste as a word", "paste as a", "t.undo:1:10: expected a $variable, found \"a\""),
      SyntaxCase(
        "paste twice as", "paste as $a $b",
        "t.undo:1:13: expected the end of the line, found \"$b\""),
      SyntaxCase(
        "duplicate nothing", "duplicate",
        "t.undo:1:10: expected a $variable, found the end of the line"),
      SyntaxCase(
        "duplicate sa", "duplicate $a sa $b",
        "t.undo:1:14: expected \"as\" or the end of the line, found \"sa\""),
      SyntaxCase(
        "duplicate as nothing", "duplicate $a as",
        "t.undo:1:16: expected a $variable, found the end of the line"),
      SyntaxCase(
        "copy misspelt", "cpy $a", "t.undo:1:1: unknown command \"cpy\" (did you mean \"copy\"?)"),
      SyntaxCase(
        "paste misspelt", "pste", "t.undo:1:1: unknown command \"pste\" (did you mean \"paste\"?)"),
      SyntaxCase(
        "duplicate misspelt", "dupliate $a",
        "t.undo:1:1: unknown command \"dupliate\" (did you mean \"duplicate\"?)"),
      SyntaxCase(
        "unknown code", "copy $a\nexpect error empty-pastebord",
        "t.undo:2:14: unknown error code \"empty-pastebord\" (did you mean \"empty-pasteboard\"?)"),
    ])
  func syntaxErrors(_ syntaxCase: SyntaxCase) {
    #expect(syntaxError(syntaxCase.text) == syntaxCase.message)
  }

  @Test("a paste in a child context reaches its parent when the child saves")
  func pasteInChild() throws {
    let result = replay(
      adaWithSpendings + """
        copy $ada
        child sheet
        paste as $copy
        expect count Person == 2
        save
        context main
        expect count Person == 2
        expect count Spending == 4
        """)
    #expect(result.failure == nil)
  }
}
