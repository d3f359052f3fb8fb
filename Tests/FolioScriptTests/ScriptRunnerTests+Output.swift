import Folio
import FolioTestSupport
import Foundation
import Testing

@testable import FolioScript

// What scripts print: `print`, `dump` and the trace.
extension ScriptRunnerTests {
  @Test("print writes values in script syntax; unordered ones sorted")
  func print() {
    let result = replay(
      adaExpenses + """
        print $ada
        print $ada.spendings
        print $ada.spendings.amount
        print $ada.spendings.content
        print $ada.spendings.date
        print $ada.spendings.@sum.amount
        print $ada.spendings.@avg.amount
        print count Spending
        print has-changes
        print deleted $ada
        print $ada.name == "Ada"
        print $lunch.date
        print $coffee.person
        """)
    #expect(result.failure == nil)
    #expect(
      result.output == [
        "$ada", "[$lunch, $books]", "[12.5, 30.0]", "[\"Books\", \"Lunch\"]",
        "[@2026-11-21T12:30:00Z]", "42.5", "21.25", "3", "true", "false", "true",
        "@2026-11-21T12:30:00Z", "nil",
      ])
  }

  @Test("fetch with group-by or keys prints one row per group or object, values in script syntax")
  func fetchRows() {
    let result = replay(
      adaExpenses + """
        insert Person $bob name="Bob"
        insert Spending $tea amount=4 content="Tea" person=$bob
        fetch Spending group-by "person.name" keys "person.name, total=sum:(amount), n=count:(amount)" sort total desc
        fetch Spending group-by "person.name" having "count > 1"
        fetch Spending where "amount > 10" keys "content, twice=amount * 2" sort amount asc limit 1
        fetch Spending keys "sum:(amount), max:(date)"
        """)
    #expect(result.failure == nil, "\(String(describing: result.failure))")
    #expect(
      result.output == [
        "{person.name: \"Ada\", total: 42.5, n: 2}",
        "{person.name: \"Bob\", total: 4.0, n: 1}",
        "{person.name: nil, total: 2.5, n: 1}",
        "{person.name: \"Ada\", count: 2}",
        "{content: \"Lunch\", twice: 25.0}",
        "{sum:(amount): 49.0, max:(date): @2026-11-21T12:30:00Z}",
      ])
    let refused = replay(
      adaExpenses + """
        fetch Spending group-by "person.name" keys "content"
        """)
    #expect(refused.error?.code == .invalidFetchRequest)
    #expect(
      refused.error?.message
        == "content is neither grouped nor an aggregate: add it to propertiesToGroupBy"
        + " (grouped: person.name)")
    let malformed = replay(
      adaExpenses + """
        fetch Spending keys "content, sum:(amount"
        """)
    #expect(malformed.error?.code == .invalidPredicate)
    #expect(
      malformed.error?.message
        == "keys \"content, sum:(amount\": column 21: expected \",\" or \")\" to close \"(\" at column 14,"
        + " found end of input")
  }

  @Test(
    "dump prints objects in the order they were met, properties in model order; a deletion's rules wait for process"
  )
  func dump() {
    let result = replay(
      adaExpenses + """
        delete $books
        insert Person $bob name="Bob" spendings=[$coffee]
        insert Person $p2 name="Bob's twin"
        insert Person $p2 name="Bob's other twin"
        dump
        """)
    #expect(result.failure == nil)
    #expect(
      result.output.joined(separator: "\n") == """
        6 objects (6 inserted, 0 updated, 0 deleted), has changes
        Person $ada (inserted)
          name = "Ada"
          spendings = [$lunch, $books]
        Spending $lunch (inserted)
          amount = 12.5
          content = "Lunch"
          date = @2026-11-21T12:30:00Z
          person = $ada
        Spending $coffee (inserted)
          amount = 2.5
          content = "Coffee"
          date = nil
          person = $bob
        Person $bob (inserted)
          name = "Bob"
          spendings = [$coffee]
        Person#6 (inserted)
          name = "Bob's twin"
          spendings = []
        Person $p2 (inserted)
          name = "Bob's other twin"
          spendings = []
        """)
  }

  @Test("trace echoes each command, the state it leaves and the undo stacks, errors included")
  func trace() {
    let result = replay(
      """
      model \(expensesModel)   # the model
      new
      insert Person $p name="Ada"
      print $p.name
      set $p.name = 3
      expect error type-mismatch
      """, trace: true)
    #expect(result.failure == nil)
    #expect(
      result.output == [
        "t.undo:1: model \(expensesModel)",
        "  -> model loaded, no document",
        "t.undo:2: new",
        "  -> 0 objects (0 inserted, 0 updated, 0 deleted), no changes",
        "     undo: [saved]   redo: (empty)",
        "t.undo:3: insert Person $p name=\"Ada\"",
        "  -> 1 object (1 inserted, 0 updated, 0 deleted), has changes",
        "     undo: [saved]   + pending changes   redo: (empty)",
        "t.undo:4: print $p.name",
        "\"Ada\"",
        "  -> 1 object (1 inserted, 0 updated, 0 deleted), has changes",
        "     undo: [saved]   + pending changes   redo: (empty)",
        "t.undo:5: set $p.name = 3",
        "  -> error type-mismatch: 3 (an integer) is not of type String",
        "     undo: [saved]   + pending changes   redo: (empty)",
        "t.undo:6: expect error type-mismatch",
        "  -> 1 object (1 inserted, 0 updated, 0 deleted), has changes",
        "     undo: [saved]   + pending changes   redo: (empty)",
      ])
  }

  @Test("trace shows a kept syntax error as its line")
  func traceSyntaxError() {
    let result = replay("  bogus 1 # c\nexpect error syntax", trace: true)
    #expect(result.failure == nil)
    #expect(
      result.output == [
        "t.undo:1: bogus 1 # c", "  -> error syntax: unknown command \"bogus\"",
        "t.undo:2: expect error syntax", "  -> no model",
      ])
  }
}
