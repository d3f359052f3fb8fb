import FolioDiagnostics
import Foundation
import Testing

@testable import FolioUndo

@Suite("State identifiers")
struct StateIdentifierTests {
  @Test("a change keeps its identifier through undo and redo; a new change discards the branch")
  func savePoint() throws {
    let (document, undo, loop) = makeDocument()
    #expect(undo.stateIdentifier == nil)
    try document.setTitle("B")
    let open = undo.stateIdentifier
    loop.endTurn()
    let saved = undo.stateIdentifier
    #expect(saved != nil && saved == open)
    try undo.undo()
    #expect(undo.stateIdentifier == nil)
    try undo.redo()
    #expect(undo.stateIdentifier == saved)
    try undo.undo()
    try document.setTitle("C")
    loop.endTurn()
    #expect(undo.stateIdentifier != saved)
    try undo.undo()
    #expect(undo.stateIdentifier == nil)
    #expect(!undo.canRedo || undo.stateIdentifier != saved)
  }
}

@Suite("Undo errors")
struct UndoErrorTests {
  @Test("an undo error has the shape of every Folio error: a code, a message, no place, no cause")
  func diagnosticShape() throws {
    let undo = UndoManager(eventLoop: ManualEventLoop())
    let error = try #require(undoError { try undo.endUndoGrouping() })
    func shape(_ error: some DiagnosticError) -> (String, String, InputLocation?, Bool) {
      ("\(error.code)", error.locatedMessage, error.location, error.underlying == nil)
    }
    let (code, message, location, hasNoCause) = shape(error)
    #expect(code == "noOpenGroup")
    #expect(message == "endUndoGrouping() with no undo group open")
    #expect(message == error.description)
    #expect(location == nil && hasNoCause)
  }
}
