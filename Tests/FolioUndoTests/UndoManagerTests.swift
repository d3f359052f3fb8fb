import FolioDiagnostics
import Foundation
import Testing

@testable import FolioUndo

/// A document with one undoable property, set the way an editor would: record the inverse,
/// then change.
final class Document {
  var title: String
  let undo: UndoManager
  init(_ title: String = "A", undo: UndoManager) {
    self.title = title
    self.undo = undo
  }

  func setTitle(_ new: String) throws {
    let old = title
    title = new
    try undo.registerUndo(withTarget: self) { document in try? document.setTitle(old) }
  }
}

func makeDocument() -> (Document, UndoManager, ManualEventLoop) {
  let loop = ManualEventLoop()
  let undo = UndoManager(eventLoop: loop)
  return (Document(undo: undo), undo, loop)
}

func undoError(_ body: () throws -> Void) -> UndoError? {
  do {
    try body()
    return nil
  } catch let error as UndoError {
    return error
  } catch {
    Issue.record("expected an UndoError, got \(error)")
    return nil
  }
}

@Suite("Undo grouping")
struct GroupingTests {
  @Test("changes in one turn undo as one group")
  func turnIsOneGroup() throws {
    let (document, undo, loop) = makeDocument()
    try document.setTitle("B")
    try document.setTitle("C")
    #expect(undo.groupingLevel == 1)
    loop.endTurn()
    #expect(undo.groupingLevel == 0)
    #expect(undo.undoCount == 1)
    try document.setTitle("D")
    loop.endTurn()
    try undo.undo()
    #expect(document.title == "C")
    try undo.undo()
    #expect(document.title == "A")
    #expect(!undo.canUndo)
  }

  @Test("nested groups undo as one step")
  func nestedGroupsUndoAsOne() throws {
    let (document, undo, loop) = makeDocument()
    undo.beginUndoGrouping()
    #expect(undo.groupingLevel == 2)
    try document.setTitle("B")
    undo.beginUndoGrouping()
    try document.setTitle("C")
    try undo.endUndoGrouping()
    try undo.endUndoGrouping()
    loop.endTurn()
    #expect(undo.undoCount == 1)
    try undo.undo()
    #expect(document.title == "A")
    #expect(!undo.canUndo)
  }

  @Test("a change registered at beginUndoGrouping's checkpoint joins the turn's one group")
  func checkpointRegistrationJoinsTurnGroup() throws {
    // A context registers its pending changes when a checkpoint is posted, as Core Data does:
    // that registration opens the turn's group, and begin must not open a second one.
    let (document, undo, loop) = makeDocument()
    var pending: String? = "B"
    let observation = undo.addObserver { notification in
      guard notification == .checkpoint, let title = pending else { return }
      pending = nil
      try? document.setTitle(title)
    }
    defer { observation.cancel() }
    undo.beginUndoGrouping()
    #expect(undo.groupingLevel == 2)
    try document.setTitle("C")
    try undo.endUndoGrouping()
    loop.endTurn()
    #expect(undo.groupingLevel == 0)
    #expect(undo.undoCount == 1)
    try undo.undo()
    #expect(document.title == "A")
  }

  @Test("without grouping by event, explicit groups are the steps")
  func explicitGroups() throws {
    let (document, undo, _) = makeDocument()
    undo.groupsByEvent = false
    undo.beginUndoGrouping()
    #expect(undo.groupingLevel == 1)
    try document.setTitle("B")
    try undo.endUndoGrouping()
    undo.beginUndoGrouping()
    try document.setTitle("C")
    try undo.endUndoGrouping()
    #expect(undo.undoCount == 2)
    try undo.undo()
    #expect(document.title == "B")
  }

  @Test("a top-level group with no actions is not kept")
  func emptyGroupDropped() throws {
    let (_, undo, _) = makeDocument()
    undo.groupsByEvent = false
    undo.beginUndoGrouping()
    try undo.endUndoGrouping()
    #expect(undo.undoCount == 0)
    #expect(!undo.canUndo)
  }

  @Test("undo() closes the only open group first, then undoes it")
  func undoClosesTopLevelGroup() throws {
    let (document, undo, _) = makeDocument()
    try document.setTitle("B")
    #expect(undo.groupingLevel == 1)
    #expect(undo.canUndo)
    try undo.undo()
    #expect(document.title == "A")
    #expect(undo.groupingLevel == 0)
    #expect(undo.canRedo)
  }

  @Test("withUndoGroup makes one step of work spread over turns")
  func withUndoGroup() throws {
    let (document, undo, loop) = makeDocument()
    try undo.withUndoGroup(named: "Retitle") {
      try document.setTitle("B")
      loop.endTurn()
      try document.setTitle("C")
      loop.endTurn()
    }
    #expect(undo.groupingLevel == 0)
    #expect(undo.undoCount == 1)
    #expect(undo.undoMenuItemTitle == "Undo Retitle")
    try undo.undo()
    #expect(document.title == "A")
  }

  @Test("withUndoGroup works across an await")
  func withUndoGroupAsync() async throws {
    let (document, undo, loop) = makeDocument()
    try await undo.withUndoGroup(named: "Fetch title") {
      try document.setTitle("B")
      await Task.yield()
      loop.endTurn()
      try document.setTitle("C")
    }
    #expect(undo.undoCount == 1)
    try undo.undo()
    #expect(document.title == "A")
  }
}

@Suite("Undo misuse")
struct MisuseTests {
  @Test("undo with nested groups open is an open-group error")
  func undoWithNestedGroups() throws {
    let (document, undo, _) = makeDocument()
    undo.beginUndoGrouping()
    try document.setTitle("B")
    let error = try #require(undoError { try undo.undo() })
    #expect(error.code == .openGroup)
    #expect(
      error.message == "undo() with 2 undo groups open: close them with endUndoGrouping() first")
  }

  @Test("undoNestedGroup with a group open is an open-group error")
  func undoNestedWithGroupOpen() throws {
    let (document, undo, _) = makeDocument()
    try document.setTitle("B")
    let error = try #require(undoError { try undo.undoNestedGroup() })
    #expect(error.code == .openGroup)
    #expect(
      error.message
        == "undoNestedGroup() with 1 undo group open: close it with endUndoGrouping() first")
  }

  @Test("ending a group that is not open is a no-open-group error")
  func endWithoutBegin() throws {
    let (_, undo, _) = makeDocument()
    let error = try #require(undoError { try undo.endUndoGrouping() })
    #expect(error.code == .noOpenGroup)
    #expect(error.message == "endUndoGrouping() with no undo group open")
  }

  @Test("registering outside a group while not grouping by event is a no-open-group error")
  func registerOutsideGroup() throws {
    let (document, undo, _) = makeDocument()
    undo.groupsByEvent = false
    let error = try #require(undoError { try document.setTitle("B") })
    #expect(error.code == .noOpenGroup)
  }

  @Test("enabling more often than disabling is an error; disabling nests")
  func enableWithoutDisable() throws {
    let (document, undo, loop) = makeDocument()
    #expect(undoError { try undo.enableUndoRegistration() }?.code == .enableWithoutDisable)
    undo.disableUndoRegistration()
    undo.disableUndoRegistration()
    try document.setTitle("B")
    try undo.enableUndoRegistration()
    #expect(!undo.isUndoRegistrationEnabled)
    try document.setTitle("C")
    try undo.enableUndoRegistration()
    #expect(undo.isUndoRegistrationEnabled)
    loop.endTurn()
    #expect(!undo.canUndo)
    #expect(document.title == "C")
  }

  @Test("undo or redo from inside an undo action is an open-group error")
  func reentrant() throws {
    let (document, undo, loop) = makeDocument()
    var caught: UndoError?
    try undo.registerUndo(withTarget: document) { _ in
      caught = undoError { try undo.undo() }
    }
    loop.endTurn()
    try undo.undo()
    #expect(caught?.code == .openGroup)
    #expect(caught?.message == "undo() called while undoing")
  }
}

@Suite("Redo")
struct RedoTests {
  @Test("undo then redo restores the change, carrying the action name")
  func redoRestores() throws {
    let (document, undo, loop) = makeDocument()
    try document.setTitle("B")
    undo.setActionName("Rename")
    loop.endTurn()
    try undo.undo()
    #expect(document.title == "A")
    #expect(undo.redoActionName == "Rename")
    #expect(undo.redoMenuItemTitle == "Redo Rename")
    try undo.redo()
    #expect(document.title == "B")
    #expect(undo.undoMenuItemTitle == "Undo Rename")
    #expect(!undo.canRedo)
    try undo.undo()
    try undo.redo()
    #expect(document.title == "B")
  }

  @Test("a fresh change clears the redo stack")
  func freshChangeClearsRedo() throws {
    let (document, undo, loop) = makeDocument()
    try document.setTitle("B")
    loop.endTurn()
    try undo.undo()
    #expect(undo.redoCount == 1)
    try document.setTitle("Z")
    #expect(undo.redoCount == 0)
    #expect(!undo.canRedo)
  }

  @Test("redo of nothing does nothing")
  func redoNothing() throws {
    let (_, undo, _) = makeDocument()
    try undo.redo()
    try undo.undo()
    #expect(undo.undoCount == 0 && undo.redoCount == 0)
  }

  @Test("an action whose target is gone is skipped")
  func releasedTarget() throws {
    let loop = ManualEventLoop()
    let undo = UndoManager(eventLoop: loop)
    var document: Document? = Document(undo: undo)
    try document?.setTitle("B")
    loop.endTurn()
    document = nil
    try undo.undo()
    #expect(undo.redoCount == 0)
  }
}

@Suite("Limits and removal")
struct LimitTests {
  @Test("levelsOfUndo drops the oldest groups, and lowering it trims at once")
  func levels() throws {
    let (document, undo, loop) = makeDocument()
    undo.levelsOfUndo = 3
    for title in ["B", "C", "D", "E", "F"] {
      try document.setTitle(title)
      loop.endTurn()
    }
    #expect(undo.undoCount == 3)
    undo.levelsOfUndo = 2
    #expect(undo.undoCount == 2)
    try undo.undo()
    try undo.undo()
    #expect(document.title == "D")
    #expect(!undo.canUndo)
    #expect(undo.redoCount == 2)
    undo.levelsOfUndo = 1
    #expect(undo.redoCount == 1)
  }

  @Test("a byte budget drops the oldest groups, keeping the newest")
  func byteBudget() throws {
    let (document, undo, loop) = makeDocument()
    for title in ["B", "C", "D", "E"] {
      try undo.registerUndo(withTarget: document, cost: 1_000) { _ in }
      try document.setTitle(title)
      loop.endTurn()
    }
    #expect(undo.undoCount == 4)
    let perGroup = undo.recordedBytes / 4
    undo.maximumUndoBytes = perGroup * 2
    #expect(undo.undoCount == 2)
    #expect(undo.recordedBytes <= perGroup * 2)
    undo.maximumUndoBytes = 1
    #expect(undo.undoCount == 1)
  }

  @Test("removeAllActions empties both stacks; withTarget removes only that target's actions")
  func removal() throws {
    let (document, undo, loop) = makeDocument()
    let other = Document("X", undo: undo)
    try document.setTitle("B")
    try other.setTitle("Y")
    loop.endTurn()
    try other.setTitle("Z")
    loop.endTurn()
    undo.removeAllActions(withTarget: other)
    #expect(undo.undoCount == 1)
    try undo.undo()
    #expect(document.title == "A" && other.title == "Z")
    undo.removeAllActions()
    #expect(!undo.canUndo && !undo.canRedo)
  }
}

@Suite("Action names and user info")
struct ActionNameTests {
  @Test("menu titles say Undo and Redo alone when the action has no name")
  func menuTitles() throws {
    let (document, undo, loop) = makeDocument()
    #expect(undo.undoMenuItemTitle == "Undo")
    try document.setTitle("B")
    loop.endTurn()
    #expect(undo.undoMenuItemTitle == "Undo")
    try document.setTitle("C")
    undo.setActionName("Rename")
    #expect(undo.undoActionName == "Rename")
    loop.endTurn()
    #expect(undo.undoMenuItemTitle == "Undo Rename")
    #expect(undo.undoMenuTitle(forUndoActionName: "Paste") == "Undo Paste")
  }

  @Test("user info and discardability travel with the action to the redo stack")
  func userInfo() throws {
    let (document, undo, loop) = makeDocument()
    try document.setTitle("B")
    undo.setActionUserInfoValue(NSRange(location: 2, length: 3), forKey: "selection")
    undo.setActionIsDiscardable(true)
    loop.endTurn()
    #expect(
      undo.undoActionUserInfoValue(forKey: "selection") as? NSRange
        == NSRange(location: 2, length: 3))
    #expect(undo.undoActionIsDiscardable)
    try undo.undo()
    #expect(
      undo.redoActionUserInfoValue(forKey: "selection") as? NSRange
        == NSRange(location: 2, length: 3))
    #expect(undo.redoActionIsDiscardable)
  }
}

@Suite("Undo notifications")
struct NotificationOrderTests {
  func record(_ undo: UndoManager) -> () -> [UndoNotification] {
    final class Log { var entries: [UndoNotification] = [] }
    let log = Log()
    let observation = undo.addObserver { log.entries.append($0) }
    return {
      _ = observation
      defer { log.entries.removeAll() }
      return log.entries
    }
  }

  @Test("opening, closing, undoing and redoing post in GNUstep's documented order")
  func order() throws {
    let (document, undo, loop) = makeDocument()
    let log = record(undo)
    try document.setTitle("B")
    #expect(log() == [.checkpoint, .didOpenGroup])
    loop.endTurn()
    #expect(log() == [.checkpoint, .willCloseGroup, .didCloseGroup])
    try undo.undo()
    #expect(log() == [.checkpoint, .willUndo, .didUndo])
    try undo.redo()
    #expect(log() == [.checkpoint, .willRedo, .didRedo])
    try document.setTitle("C")
    _ = log()
    try undo.undo()
    #expect(
      log() == [.checkpoint, .willCloseGroup, .didCloseGroup, .checkpoint, .willUndo, .didUndo])
  }

  @Test("will/did undo are posted only when something is undone; canRedo posts a checkpoint")
  func nothingToUndo() throws {
    let (_, undo, _) = makeDocument()
    let log = record(undo)
    try undo.undo()
    #expect(log() == [.checkpoint])
    _ = undo.canRedo
    #expect(log() == [.checkpoint])
  }

  @Test("notifications also arrive as an AsyncStream")
  func stream() async throws {
    let (document, undo, loop) = makeDocument()
    let stream = undo.notifications()
    try document.setTitle("B")
    loop.endTurn()
    var received: [UndoNotification] = []
    for await notification in stream {
      received.append(notification)
      if received.count == 5 { break }
    }
    #expect(received == [.checkpoint, .didOpenGroup, .checkpoint, .willCloseGroup, .didCloseGroup])
  }

  @Test("an observer is called until its token is cancelled or released")
  func observationTokens() throws {
    let (document, undo, loop) = makeDocument()
    var kept = 0
    var cancelled = 0
    var released = 0
    let keptToken = undo.addObserver { _ in kept += 1 }
    let cancelledToken = undo.addObserver { _ in cancelled += 1 }
    var releasedToken: ObservationToken? = undo.addObserver { _ in released += 1 }
    try document.setTitle("B")
    #expect([kept, cancelled, released] == [Int](repeating: 2, count: 3))
    cancelledToken.cancel()
    cancelledToken.cancel()
    #expect(cancelledToken.isCancelled)
    #expect(releasedToken?.isCancelled == false)
    releasedToken = nil
    loop.endTurn()
    #expect(kept == 5)
    #expect([cancelled, released] == [Int](repeating: 2, count: 2))
    #expect(!keptToken.isCancelled)
  }

  @Test("a notification stream ends when its manager is released, and stops observing when dropped")
  func streamEnds() async throws {
    var undo: UndoManager? = UndoManager(eventLoop: ManualEventLoop())
    let stream = try #require(undo).notifications()
    undo?.beginUndoGrouping()
    undo = nil
    var received: [UndoNotification] = []
    for await notification in stream { received.append(notification) }
    #expect(received.prefix(2) == [.checkpoint, .didOpenGroup])

    let (document, kept, loop) = makeDocument()
    do {
      let dropped = kept.notifications()
      _ = dropped
    }
    try document.setTitle("B")
    loop.endTurn()
    #expect(kept.observers.isEmpty)
  }
}

@Suite("Event loops")
struct EventLoopTests {
  @Test("a Foundation run loop closes the turn's group on its next pass")
  func runLoop() throws {
    let undo = UndoManager(eventLoop: RunLoopEventLoop())
    let document = Document(undo: undo)
    try document.setTitle("B")
    #expect(undo.groupingLevel == 1)
    // Each pass runs what is scheduled on the loop; the first one ends the turn.
    for _ in 0..<1_000 where undo.groupingLevel > 0 {
      _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.001))
    }
    #expect(undo.groupingLevel == 0)
    #expect(undo.undoCount == 1)
  }

  @Test("a manual loop runs actions scheduled while ending the turn")
  func manualLoopCascades() {
    let loop = ManualEventLoop()
    var order: [Int] = []
    loop.scheduleEndOfTurn {
      order.append(1)
      loop.scheduleEndOfTurn { order.append(2) }
    }
    loop.endTurn()
    #expect(order == [1, 2])
    #expect(!loop.hasPendingEndOfTurn)
  }
}

@Suite("Main-thread event loops")
struct MainThreadLoopTests {
  @Test("the main actor closes the turn's group once the current job is done")
  @MainActor
  func mainActor() async throws {
    let undo = UndoManager(eventLoop: MainActorEventLoop())
    let document = Document(undo: undo)
    try document.setTitle("B")
    try document.setTitle("C")
    #expect(undo.groupingLevel == 1)
    // The end of the turn is a main-actor job queued behind this one: yielding runs it.
    for _ in 0..<1_000 where undo.groupingLevel > 0 { await Task.yield() }
    #expect(undo.groupingLevel == 0)
    #expect(undo.undoCount == 1)
  }

  @Test("a change under the main actor's loop made off the main actor stops the process")
  func mainActorLoopOffMainActor() async {
    await #expect(processExitsWith: .failure) {
      // Handed to another isolation domain on purpose: the misuse the check stops.
      nonisolated(unsafe) let document = Document(
        undo: UndoManager(eventLoop: MainActorEventLoop()))
      // Off the main actor: a detached task runs on the global executor.
      await Task.detached { try? document.setTitle("B") }.value
    }
  }

  @Test("a change under the main queue's loop made off the main queue stops the process")
  func dispatchMainLoopOffMainQueue() async {
    await #expect(processExitsWith: .failure) {
      // Handed to another thread on purpose: the misuse the check stops.
      nonisolated(unsafe) let document = Document(
        undo: UndoManager(eventLoop: DispatchMainEventLoop()))
      let done = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        try? document.setTitle("B")
        done.signal()
      }
      done.wait()
    }
  }

  @Test("the main dispatch queue closes the turn's group when the work item returns")
  @MainActor
  func dispatchMain() async throws {
    let undo = UndoManager(eventLoop: DispatchMainEventLoop())
    let document = Document(undo: undo)
    try document.setTitle("B")
    #expect(undo.groupingLevel == 1)
    // The main queue runs its work items in order: once one enqueued after the change has
    // run, so has the loop's end of the turn, however busy the machine.
    await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume() }
    }
    #expect(undo.groupingLevel == 0)
    #expect(undo.undoCount == 1)
  }
}
