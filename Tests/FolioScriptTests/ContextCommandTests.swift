import Folio
import Foundation
import Testing

@testable import FolioScript

/// Ada and her tea, saved to `expenses.xml`: every test here starts from it.
private let saved = """
  model \(expensesModel)
  new
  insert Person $ada name="Ada"
  insert Spending $tea amount=3 content="Tea" person=$ada
  save expenses.xml

  """

/// `saved`, then another context renames Ada and changes the tea's amount, saves, and makes
/// main current again: main's copies are now out of date.
private let savedByOther =
  saved + """
    context other
    set $ada.name = "Ada King"
    set $tea.amount = 4
    save
    context main

    """

/// `saved`, then another context inserts Bob and stays current.
private let bobInOther = saved + "context other\ninsert Person $bob name=\"Bob\"\n"

/// A merge policy and what a conflicting save leaves in the file: Ada's name (changed on both
/// sides), the tea's amount (changed by the other context) and its content (changed here).
struct PolicyCase: Sendable, CustomTestStringConvertible {
  var policy: String
  var name: String
  var amount: Int
  var content: String
  var testDescription: String { policy }
}

/// A script that fails, and the code, line and message it stops with.
struct ContextErrorCase: Sendable, CustomTestStringConvertible {
  var id: String
  var text: String
  var code: ScriptError.Code
  var line: Int
  var message: String
  var testDescription: String { id }
}

@Suite("Context commands")
struct ContextCommandTests {
  @Test("another context reads what is committed, not main's pending changes, and back")
  func contextsAreSeparate() throws {
    let result = try replayInFolder(
      saved + """
        set $ada.name = "Augusta"
        context other
        expect context == "other"
        expect $ada.name == "Ada"
        expect $tea.person == $ada
        expect !has-changes
        insert Person $bob name="Bob"
        expect has-changes
        context main
        expect context == "main"
        expect $ada.name == "Augusta"
        print $bob
        """)
    #expect(result.error?.code == .objectNotFound)
    #expect(result.error?.location?.line == 17)
    #expect(
      result.error?.message
        == "$bob names no object in context \"main\" (an object reaches other contexts when it "
        + "is saved)")
  }

  @Test("a variable names an object ID: once saved, its object is found in every context")
  func variablesFollowIDs() throws {
    let result = try replayInFolder(
      bobInOther + """
        save
        context main
        expect $bob.name == "Bob"
        print $bob
        print $tea.person
        """)
    #expect(result.failure == nil)
    #expect(result.output == ["$bob", "$ada"])
  }

  @Test("a conflicting save under error fails with merge-conflict, one line per conflict")
  func conflictUnderError() throws {
    let stopped = try replayInFolder(
      saved + """
        context other
        set $ada.name = "Ada King"
        delete $tea
        save
        context main
        set $ada.name = "Augusta"
        set $tea.amount = 5
        save
        """)
    let error = try #require(stopped.error)
    #expect(error.code == .mergeConflict)
    #expect(error.location?.line == 13)
    #expect(error.message == "the save conflicts with changes another context saved (2 objects)")
    #expect(
      error.details == [
        "Person $ada (version 1 read, 2 committed): name read \"Ada\", committed \"Ada King\", "
          + "pending \"Augusta\"; spendings read [$tea], committed [], pending [$tea]",
        "Spending $tea (version 1 read, 0 committed): deleted by another context; amount read "
          + "3.0, committed deleted, pending 5.0; content read \"Tea\", committed deleted, "
          + "pending \"Tea\"; person read $ada, committed deleted, pending $ada",
      ])
    let expected = try replayInFolder(
      savedByOther + """
        set $ada.name = "Augusta"
        save
        expect error merge-conflict
        expect has-changes
        expect $ada.name == "Augusta"
        """)
    #expect(expected.failure == nil)
  }

  static let policies: [PolicyCase] = [
    PolicyCase(policy: "store-trump", name: "Ada King", amount: 4, content: "Green tea"),
    PolicyCase(policy: "object-trump", name: "Augusta", amount: 4, content: "Green tea"),
    PolicyCase(policy: "overwrite", name: "Augusta", amount: 3, content: "Green tea"),
    PolicyCase(policy: "rollback", name: "Ada King", amount: 4, content: "Tea"),
  ]

  @Test("merge-policy resolves a conflicting save as Core Data's policies do", arguments: policies)
  func mergePolicies(_ policyCase: PolicyCase) throws {
    let result = try replayInFolder(
      savedByOther + """
        set $ada.name = "Augusta"
        set $tea.content = "Green tea"
        merge-policy \(policyCase.policy)
        save
        close
        open expenses.xml
        expect count Person where "name == '\(policyCase.name)'" == 1
        expect count Spending where "amount == \(policyCase.amount)" == 1
        expect count Spending where "content == '\(policyCase.content)'" == 1
        """)
    #expect(result.failure == nil)
  }

  @Test("refresh and refresh-all read what another context saved, keeping unsaved changes")
  func refreshing() throws {
    let result = try replayInFolder(
      savedByOther + """
        expect $ada.name == "Ada"
        refresh $ada
        expect $ada.name == "Ada King"
        expect $tea.amount == 3
        set $tea.content = "Green tea"
        refresh-all
        expect $tea.amount == 4
        expect $tea.content == "Green tea"
        save
        expect !has-changes
        """)
    #expect(result.failure == nil)
  }

  @Test("undo commands act on the current context's undo manager; turn ends every turn")
  func undoPerContext() throws {
    let result = try replayInFolder(
      saved + """
        set $ada.name = "A"
        context other
        set $ada.name = "B"
        turn
        undo
        expect $ada.name == "Ada"
        expect !can-undo
        expect can-redo
        begin "Rename"
        expect grouping-level == 2
        context main
        expect grouping-level == 0
        expect can-undo
        expect !can-redo
        expect $ada.name == "A"
        undo
        expect $ada.name == "Ada"
        """)
    #expect(result.failure == nil)
  }

  @Test("a child's changes reach its parent when it saves; the parent's save writes the file")
  func childContexts() throws {
    let result = try replayInFolder(
      saved + """
        child sheet
        expect context == "sheet"
        set $ada.name = "Ada King"
        insert Spending $pie amount=5 person=$ada
        context main
        expect $ada.name == "Ada"
        expect $ada.spendings == [$tea]
        expect !has-changes
        context sheet
        rollback
        expect $ada.name == "Ada"
        child edit
        set $ada.name = "Augusta"
        insert Spending $pie amount=5 person=$ada
        context sheet
        expect $ada.name == "Ada"
        context edit
        save
        expect !has-changes
        context sheet
        expect $ada.name == "Augusta"
        save
        context main
        expect $ada.name == "Augusta"
        expect $ada.spendings == [$tea, $pie]
        context reader
        expect $ada.name == "Ada"
        context main
        save
        close
        open expenses.xml
        expect count Person where "name == 'Augusta'" == 1
        expect count Spending == 2
        """)
    #expect(result.failure == nil)
  }

  static let errors: [ContextErrorCase] = [
    ContextErrorCase(
      id: "context without a document", text: "model \(expensesModel)\ncontext other",
      code: .noDocument, line: 2,
      message: "\"context\" needs a document: start one with \"new\" first"),
    ContextErrorCase(
      id: "child without a document", text: "model \(expensesModel)\nchild sheet",
      code: .noDocument, line: 2,
      message: "\"child\" needs a document: start one with \"new\" first"),
    ContextErrorCase(
      id: "merge-policy without a document", text: "merge-policy overwrite", code: .noDocument,
      line: 1, message: "\"merge-policy\" needs a document: start one with \"new\" first"),
    ContextErrorCase(
      id: "refresh-all without a document", text: "refresh-all", code: .noDocument, line: 1,
      message: "\"refresh-all\" needs a document: start one with \"new\" first"),
    ContextErrorCase(
      id: "child with a name in use", text: saved + "context other\nchild main",
      code: .contextExists, line: 7,
      message:
        "the document already has a context named \"main\": choose another name, or make it "
        + "current with \"context main\""),
    ContextErrorCase(
      id: "save as from another context", text: saved + "context other\nsave copy.xml",
      code: .store, line: 7,
      message:
        "\"save PATH\" saves the document as another file from context \"main\", not from "
        + "\"other\": switch with \"context main\" first"),
    ContextErrorCase(
      id: "save in another context of an untitled document",
      text: "model \(expensesModel)\nnew\ncontext other\ninsert Person $p\nsave",
      code: .store, line: 5,
      message:
        "context \"other\" cannot save an untitled document: save it to a file from context "
        + "\"main\" first (\"save PATH\")"),
  ]

  @Test("context commands fail with their codes and messages", arguments: errors)
  func contextErrors(_ errorCase: ContextErrorCase) throws {
    let result = try replayInFolder(errorCase.text)
    #expect(result.error?.code == errorCase.code)
    #expect(result.error?.location?.line == errorCase.line)
    #expect(result.error?.message == errorCase.message)
  }

  @Test("close closes every context, and the next new starts again in main")
  func closeClosesAll() throws {
    let result = try replayInFolder(
      saved + """
        context other
        close
        new
        expect context == "main"
        expect $ada.name == "Ada"
        """)
    #expect(result.error?.code == .unknownVariable)
    #expect(result.error?.location?.line == 10)
  }

  @Test("reset forgets the variables bound in the current context only")
  func resetPerContext() throws {
    let result = try replayInFolder(
      bobInOther + """
        reset
        expect $ada.name == "Ada"
        expect count Person == 1
        print $bob
        """)
    #expect(result.error?.code == .unknownVariable)
    #expect(result.error?.location?.line == 11)
  }

  @Test("the trace names the current context unless it is main; dump lists what it holds")
  func traceAndDump() throws {
    let result = try replayInFolder(
      saved + """
        context other
        set $tea.amount = 4
        dump
        context main
        """, trace: true)
    #expect(result.failure == nil)
    // The undo lines are the subject of the trace's own tests.
    let lines = result.output.filter { !$0.hasPrefix("/") && !$0.hasPrefix("     undo: ") }
    #expect(
      Array(lines.suffix(13)) == [
        "  -> 2 objects (0 inserted, 0 updated, 0 deleted), no changes, in context other",
        "  -> 2 objects (0 inserted, 1 updated, 0 deleted), has changes, in context other",
        "2 objects (0 inserted, 1 updated, 0 deleted), has changes, in context other",
        "Person $ada",
        "  name = \"Ada\"",
        "  spendings = [$tea]",
        "Spending $tea (updated)",
        "  amount = 4.0",
        "  content = \"Tea\"",
        "  date = nil",
        "  person = $ada",
        "  -> 2 objects (0 inserted, 1 updated, 0 deleted), has changes, in context other",
        "  -> 2 objects (0 inserted, 0 updated, 0 deleted), no changes",
      ])
  }

  @Test("object(named:) and context give the current context's objects")
  func runnerState() throws {
    let result = try replayInFolder(saved + "context other")
    #expect(result.failure == nil)
    let other = try #require(result.runner.context)
    let ada = try #require(result.runner.object(named: "ada"))
    #expect(ada.managedObjectContext === other)
    #expect(other !== result.runner.document?.context)
    #expect(result.runner.object(named: "nobody") == nil)
  }
}
