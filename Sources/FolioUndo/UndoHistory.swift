/// A read-only view of what an undo manager holds: the groups on each stack with their action
/// names, the group being built, and the state each step leads to.
///
/// For an Undo History list, or a trace of what an editor's commands did to its undo stack.
/// The view is a copy: it does not change as the manager does.
///
/// The stacks read as a timeline. ``undo`` lists the groups `undo()` would undo, the next one
/// first; ``redo`` lists those `redo()` would redo, the next one first. The current state is
/// between the two (after ``openGroup`` when that has recorded something). Each step has a
/// state identifier, the value ``UndoManager/stateIdentifier`` has when the step is the last
/// one done, so a state remembered at a save can be found on the timeline with
/// ``steps(toState:)``.
///
/// ```swift
/// let history = undoManager.history
/// history.undo.map(\.actionName)        // ["Rename", "Insert Ada"]: Undo Rename is next
/// history.steps(toState: savePoint)     // -1: one undo gets back to the saved state
/// ```
public struct UndoHistory: Sendable, Hashable {
  /// A closed group on the undo or redo stack.
  public struct Entry: Sendable, Hashable {
    /// The group's action name; empty when it has none.
    public var actionName: String
    /// Whether the group is marked discardable.
    public var isDiscardable: Bool
    /// The ``UndoManager/stateIdentifier`` once the group's change is done: while it is the
    /// group `undo()` would undo next.
    public var stateIdentifier: Int
  }

  /// The group being recorded: the outermost open group, which nested groups join when they
  /// close.
  public struct OpenGroup: Sendable, Hashable {
    /// The action name it will have on the undo stack; empty when it has none yet.
    public var actionName: String
    /// How many groups are open, this one and those nested in it
    /// (``UndoManager/groupingLevel``).
    public var groupingLevel: Int
    /// The state its recorded actions lead to, or `nil` while it has recorded none (a nested
    /// group's actions count once that group has closed into it).
    public var stateIdentifier: Int?
  }

  /// The undo stack, the group `undo()` undoes next first.
  public var undo: [Entry]
  /// The redo stack, the group `redo()` redoes next first.
  public var redo: [Entry]
  /// The group being recorded; `nil` when no group is open.
  public var openGroup: OpenGroup?
  /// The state under the oldest group on the undo stack, reached by undoing every group:
  /// `nil` when the stack reaches back to where recording started (the manager's creation or
  /// its last `removeAllActions()`), else the identifier of the newest group that
  /// ``UndoManager/levelsOfUndo`` or ``UndoManager/maximumUndoBytes`` dropped.
  public var baseStateIdentifier: Int?

  /// The state identifiers of the timeline, oldest first, and the index of the current one.
  private var timeline: (states: [Int?], current: Int) {
    var states: [Int?] = [baseStateIdentifier]
    states += undo.reversed().map(\.stateIdentifier)
    if let open = openGroup?.stateIdentifier { states.append(open) }
    let current = states.count - 1
    states += redo.map(\.stateIdentifier)
    return (states, current)
  }

  /// How far the state `identifier` (a value ``UndoManager/stateIdentifier`` had) is from the
  /// current one: 0 when it is the current state, -*n* when *n* undos reach it, *n* when *n*
  /// redos do; `nil` when neither does (the groups leading there were dropped, or discarded
  /// with the redo stack by a new change).
  ///
  /// A document remembers the identifier when it saves; this says where that save point is.
  /// The open group counts as one step when it has recorded something, as `undo()` closes it
  /// and undoes it.
  ///
  /// - Complexity: O(*n*) in the groups on both stacks.
  public func steps(toState identifier: Int?) -> Int? {
    let (states, current) = timeline
    return states.firstIndex(of: identifier).map { $0 - current }
  }
}

extension UndoManager {
  /// A copy of the undo and redo stacks, the open group and the state identifiers of each
  /// step.
  ///
  /// - Complexity: O(*n*) in the groups on both stacks.
  public var history: UndoHistory {
    func entry(_ group: UndoGroup) -> UndoHistory.Entry {
      UndoHistory.Entry(
        actionName: group.name, isDiscardable: group.isDiscardable, stateIdentifier: group.id)
    }
    let open = openGroups.first.map { group in
      UndoHistory.OpenGroup(
        actionName: group.name, groupingLevel: groupingLevel,
        stateIdentifier: group.actions.isEmpty ? nil : group.id)
    }
    return UndoHistory(
      undo: undoStack.groups.reversed().map(entry), redo: redoStack.groups.reversed().map(entry),
      openGroup: open, baseStateIdentifier: baseStateIdentifier)
  }

  /// The action names of the groups on the undo stack, the one ``undo()`` undoes next first;
  /// an empty string for a group with no name.
  ///
  /// Only closed groups are on the stack: the group being recorded joins it when it closes
  /// (``undoActionName`` already names it once it has recorded something).
  public var undoActionNames: [String] { undoStack.groups.reversed().map(\.name) }

  /// The action names of the groups on the redo stack, the one ``redo()`` redoes next first;
  /// an empty string for a group with no name.
  public var redoActionNames: [String] { redoStack.groups.reversed().map(\.name) }
}
