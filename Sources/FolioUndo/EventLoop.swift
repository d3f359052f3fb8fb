import Dispatch
import Foundation

/// Where event-loop turns come from: the undo manager groups a turn's changes into one undo
/// group, and needs to hear when the turn ends.
///
/// Cocoa closes its automatic group from a run-loop observer. Folio asks an `UndoEventLoop`
/// to call back at the end of the current turn instead, which lets any loop take part:
///
/// - ``ManualEventLoop``: turns end when ``ManualEventLoop/endTurn()`` is called — deterministic,
///   for the CLI, undo scripts and tests;
/// - ``RunLoopEventLoop``: the end of the current pass of a Foundation `RunLoop`;
/// - ``DispatchMainEventLoop``: when the current work item on the main dispatch queue returns;
/// - ``MainActorEventLoop``: when the main actor next runs a job after the current one.
///
/// An editor with its own loop implements ``scheduleEndOfTurn(_:)`` by running the action
/// once its current event has been handled — after every change the event makes, before the
/// next event starts. Code that crosses executors, where no loop sees a whole edit, wraps it in
/// ``UndoManager/withUndoGroup(named:_:)`` instead.
public protocol UndoEventLoop: AnyObject {
  /// Runs `action` once, when the current turn ends.
  func scheduleEndOfTurn(_ action: @escaping () -> Void)
}

/// Turns that end when you say so.
public final class ManualEventLoop: UndoEventLoop {
  private var pending: [() -> Void] = []

  /// Creates a loop whose first turn is under way.
  public init() {}

  public func scheduleEndOfTurn(_ action: @escaping () -> Void) { pending.append(action) }

  /// Ends the current turn: runs what was scheduled for its end, including anything scheduled
  /// while doing so, in order.
  public func endTurn() {
    var rounds = 0
    while !pending.isEmpty, rounds < 1_000 {
      let actions = pending
      pending.removeAll()
      for action in actions { action() }
      rounds += 1
    }
  }

  /// Whether anything waits for the end of the turn.
  public var hasPendingEndOfTurn: Bool { !pending.isEmpty }
}

/// Turns of a Foundation run loop: the action runs on the loop's next pass.
public final class RunLoopEventLoop: UndoEventLoop {
  private let runLoop: RunLoop

  /// Uses `runLoop` (by default the current thread's).
  public init(runLoop: RunLoop = .current) { self.runLoop = runLoop }

  public func scheduleEndOfTurn(_ action: @escaping () -> Void) {
    nonisolated(unsafe) let action = action
    runLoop.perform { action() }
  }
}

/// Turns of the main dispatch queue: a turn ends when the current work item returns.
///
/// The undo manager, and the context on it, belong to the main queue: a change made anywhere
/// else stops the process at that change (`dispatchPrecondition`), where it would otherwise
/// race the main queue's own changes.
public final class DispatchMainEventLoop: UndoEventLoop {
  /// Creates the loop.
  public init() {}

  public func scheduleEndOfTurn(_ action: @escaping () -> Void) {
    dispatchPrecondition(condition: .onQueue(.main))
    // Checked above: the action is made and run on the main queue alone.
    nonisolated(unsafe) let action = action
    DispatchQueue.main.async { action() }
  }
}

/// Turns of the main actor: a turn ends when the job that made the change finishes.
///
/// The undo manager, and the context on it, belong to the main actor: a change made off it
/// stops the process at that change (`MainActor.preconditionIsolated`), where it would
/// otherwise race the main actor's own changes.
public final class MainActorEventLoop: UndoEventLoop {
  /// Creates the loop.
  public init() {}

  public func scheduleEndOfTurn(_ action: @escaping () -> Void) {
    MainActor.preconditionIsolated(
      "a change under MainActorEventLoop was made off the main actor")
    // Checked above: the action is made and run on the main actor alone.
    nonisolated(unsafe) let action = action
    Task { @MainActor in action() }
  }
}
