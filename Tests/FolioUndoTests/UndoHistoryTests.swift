import Testing

@testable import FolioUndo

/// Sets the title to `title` in a turn of its own, named `name`.
private func edit(
  _ document: Document, to title: String, named name: String?, loop: ManualEventLoop
) throws {
  try document.setTitle(title)
  if let name { document.undo.setActionName(name) }
  loop.endTurn()
}

@Suite("Undo history")
struct UndoHistoryTests {
  @Test("action names list each stack, the next undo or redo first, untitled groups as empty")
  func actionNamesInOrder() throws {
    let (document, undo, loop) = makeDocument()
    #expect(undo.undoActionNames.isEmpty && undo.redoActionNames.isEmpty)
    try edit(document, to: "B", named: "Insert Ada", loop: loop)
    try edit(document, to: "C", named: nil, loop: loop)
    try edit(document, to: "D", named: "Rename", loop: loop)
    #expect(undo.undoActionNames == ["Rename", "", "Insert Ada"])
    #expect(undo.undoActionNames.first == undo.undoActionName)
    try undo.undo()
    try undo.undo()
    #expect(undo.undoActionNames == ["Insert Ada"])
    #expect(undo.redoActionNames == ["", "Rename"])
    #expect(undo.redoActionNames.first == undo.redoActionName)
    let history = undo.history
    #expect(history.undo.map(\.actionName) == undo.undoActionNames)
    #expect(history.redo.map(\.actionName) == undo.redoActionNames)
    #expect(history.openGroup == nil)
  }

  @Test("a new edit clears the redo stack from the history")
  func newEditClearsRedo() throws {
    let (document, undo, loop) = makeDocument()
    try edit(document, to: "B", named: "First", loop: loop)
    try edit(document, to: "C", named: "Second", loop: loop)
    try undo.undo()
    #expect(undo.redoActionNames == ["Second"])
    try edit(document, to: "D", named: "Third", loop: loop)
    #expect(undo.undoActionNames == ["Third", "First"])
    #expect(undo.redoActionNames.isEmpty)
    #expect(undo.history.redo.isEmpty)
  }

  @Test("a nested group is no step of the stack until the outermost group closes")
  func nestedGroupNotALevelUntilClosed() throws {
    let (document, undo, loop) = makeDocument()
    undo.beginUndoGrouping()
    undo.setActionName("Outer")
    undo.beginUndoGrouping()
    try document.setTitle("B")
    #expect(undo.groupingLevel == 3)
    #expect(undo.undoActionNames.isEmpty)
    // The nested group's action has not joined the outermost group yet.
    #expect(undo.history.openGroup == .init(actionName: "Outer", groupingLevel: 3))
    try undo.endUndoGrouping()
    #expect(undo.undoActionNames.isEmpty)
    #expect(undo.history.openGroup == .init(actionName: "Outer", groupingLevel: 2))
    // Closing the explicit group brings its actions into the turn's group, the outermost.
    try undo.endUndoGrouping()
    #expect(undo.undoActionNames.isEmpty)
    let open = try #require(undo.history.openGroup)
    #expect(open.groupingLevel == 1)
    #expect(open.stateIdentifier != nil)
    #expect(open.stateIdentifier == undo.stateIdentifier)
    loop.endTurn()
    #expect(undo.undoActionNames == ["Outer"])
    #expect(undo.history.openGroup == nil)
    #expect(undo.history.undo.first?.stateIdentifier == open.stateIdentifier)
  }

  @Test(
    "levelsOfUndo drops the oldest groups from the history, which then starts at the newest dropped"
  )
  func levelsDropOldest() throws {
    let (document, undo, loop) = makeDocument()
    try edit(document, to: "B", named: "One", loop: loop)
    try edit(document, to: "C", named: "Two", loop: loop)
    let afterTwo = undo.stateIdentifier
    try edit(document, to: "D", named: "Three", loop: loop)
    #expect(undo.history.baseStateIdentifier == nil)
    undo.levelsOfUndo = 1
    #expect(undo.undoActionNames == ["Three"])
    #expect(undo.history.baseStateIdentifier == afterTwo)
    try edit(document, to: "E", named: "Four", loop: loop)
    #expect(undo.undoActionNames == ["Four"])
    undo.removeAllActions()
    #expect(undo.history == UndoHistory(undo: [], redo: [], baseStateIdentifier: nil))
  }

  @Test(
    "steps(toState:) finds a saved state by undos (negative) or redos (positive), or not at all")
  func stepsToState() throws {
    let (document, undo, loop) = makeDocument()
    let start = undo.stateIdentifier
    try edit(document, to: "B", named: "One", loop: loop)
    let saved = undo.stateIdentifier
    try edit(document, to: "C", named: "Two", loop: loop)
    #expect(undo.history.steps(toState: saved) == -1)
    #expect(undo.history.steps(toState: start) == -2)
    #expect(undo.history.steps(toState: undo.stateIdentifier) == 0)
    try undo.undo()
    try undo.undo()
    #expect(undo.history.steps(toState: saved) == 1)
    #expect(undo.history.steps(toState: start) == 0)
    // A change in the open group is one step: undo() closes the group and undoes it.
    try document.setTitle("D")
    #expect(undo.history.steps(toState: start) == -1)
    #expect(undo.history.steps(toState: saved) == nil)
    loop.endTurn()
    #expect(undo.history.steps(toState: saved) == nil)
  }

  @Test(
    "a state under groups that levelsOfUndo dropped is reached only if it is the newest dropped")
  func droppedStates() throws {
    let (document, undo, loop) = makeDocument()
    undo.levelsOfUndo = 1
    let start = undo.stateIdentifier
    try edit(document, to: "B", named: "One", loop: loop)
    let afterOne = undo.stateIdentifier
    try edit(document, to: "C", named: "Two", loop: loop)
    #expect(undo.history.steps(toState: afterOne) == -1)
    #expect(undo.history.steps(toState: start) == nil)
    try undo.undo()
    #expect(undo.stateIdentifier == afterOne)
    #expect(document.title == "B")
  }
}
