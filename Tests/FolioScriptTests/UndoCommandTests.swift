import Foundation
import Testing

@testable import FolioScript

/// A document with a shelf, whose title changes are the edits to undo.
private let shelf = """
  model \(libraryModel)
  new
  insert Shelf $s name="Fiction"
  turn

  """

@Suite("Undo commands")
struct UndoCommandTests {
  @Test("a turn's edits undo together, and redo restores them")
  func turnsAndUndo() {
    let result = replay(
      shelf + """
        set $s.name = "A"
        set $s.name = "B"
        turn
        set $s.name = "C"
        turn
        undo
        expect $s.name == "B"
        undo
        expect $s.name == "Fiction"
        expect can-redo
        redo
        redo
        expect $s.name == "C"
        expect !can-redo
        """)
    #expect(result.failure == nil)
  }

  @Test("explicit groups with names nest, and undo-name and grouping-level report them")
  func groups() {
    let result = replay(
      shelf + """
        begin "Rename"
        expect grouping-level == 2
        set $s.name = "A"
        begin
        set $s.name = "B"
        end
        end
        turn
        expect grouping-level == 0
        expect undo-name == "Rename"
        undo
        expect $s.name == "Fiction"
        expect redo-name == "Rename"
        """)
    #expect(result.failure == nil)
  }

  @Test("misuse is reported with the undo manager's codes")
  func misuse() {
    let result = replay(
      shelf + """
        end
        expect error no-open-group
        enable
        expect error enable-without-disable
        begin
        set $s.name = "A"
        undo
        expect error open-group
        undo-nested
        expect error open-group
        """)
    #expect(result.failure == nil)
    let stopped = replay(shelf + "end\n")
    #expect(stopped.failure == "t.undo:5: endUndoGrouping() with no undo group open")
    #expect(stopped.error?.code == .noOpenGroup)
  }

  @Test("levels limit the undo stack; disabled changes stay but cannot be undone")
  func levelsAndDisabling() {
    let result = replay(
      shelf + """
        levels 2
        set $s.name = "A"
        turn
        set $s.name = "B"
        turn
        set $s.name = "C"
        turn
        undo
        undo
        expect !can-undo
        expect $s.name == "A"
        disable
        set $s.name = "D"
        turn
        enable
        expect !can-undo
        expect $s.name == "D"
        """)
    #expect(result.failure == nil)
  }

  @Test("without grouping by event, a change outside a group is refused")
  func groupsByEventOff() {
    let result = replay(
      shelf + """
        groups-by-event off
        set $s.name = "A"
        process
        expect error no-open-group
        begin "Named"
        set $s.name = "B"
        end
        undo
        expect $s.name == "A"
        """)
    #expect(result.failure == nil)
  }

  @Test("rollback, reset and refresh")
  func rollbackResetRefresh() {
    // Nothing is saved, so rollback returns to the empty document.
    let rollback = replay(
      shelf + """
        set $s.name = "A"
        insert Shelf $t name="New"
        rollback
        expect count Shelf == 0
        expect !has-changes
        expect !can-undo
        """)
    #expect(rollback.failure == nil)
    let refresh = replay(
      shelf + """
        set $s.name = "A"
        refresh $s merge
        expect $s.name == "A"
        """)
    #expect(refresh.failure == nil)
    let reset = replay(
      shelf + """
        reset
        expect count Shelf == 0
        expect !has-changes
        expect $s.name == "x"
        """)
    #expect(reset.error?.code == .unknownVariable)
  }
}
