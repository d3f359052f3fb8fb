/// Action names, discardability and per-action user info.
///
/// Each applies to the group being recorded: while undoing or redoing, the group collecting
/// the inverse actions; else the outermost open group; else, with nothing open, the last group
/// on the undo stack (so a name set just after an automatic group closed still lands).
extension UndoManager {
  private var namedGroup: UndoGroup? {
    collector ?? openGroups.first ?? undoStack.last
  }

  /// Names the current group's action, for the Undo and Redo menu items.
  public func setActionName(_ name: String) {
    namedGroup?.name = name
  }

  /// The name of the action ``undo()`` would undo; empty when it has none.
  public var undoActionName: String {
    if let open = openGroups.first, !open.actions.isEmpty { return open.name }
    return undoStack.last?.name ?? ""
  }

  /// The name of the action ``redo()`` would redo; empty when it has none.
  public var redoActionName: String { redoStack.last?.name ?? "" }

  /// `"Undo Rename"`, or `"Undo"` when the action has no name.
  public var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }

  /// `"Redo Rename"`, or `"Redo"` when the action has no name.
  public var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

  /// The Undo menu title for an action called `name`.
  public func undoMenuTitle(forUndoActionName name: String) -> String {
    name.isEmpty ? "Undo" : "Undo \(name)"
  }

  /// The Redo menu title for an action called `name`.
  public func redoMenuTitle(forUndoActionName name: String) -> String {
    name.isEmpty ? "Redo" : "Redo \(name)"
  }

  /// Marks the current group's action as discardable (it changes nothing a user would miss,
  /// such as a selection), or not.
  public func setActionIsDiscardable(_ isDiscardable: Bool) {
    namedGroup?.isDiscardable = isDiscardable
  }

  /// Whether the action ``undo()`` would undo is discardable.
  public var undoActionIsDiscardable: Bool { undoStack.last?.isDiscardable ?? false }

  /// Whether the action ``redo()`` would redo is discardable.
  public var redoActionIsDiscardable: Bool { redoStack.last?.isDiscardable ?? false }

  /// Attaches `value` under `key` to the current group's action — say, the selection to
  /// restore when it is undone — or removes it when `value` is `nil`.
  public func setActionUserInfoValue(_ value: Any?, forKey key: String) {
    namedGroup?.userInfo[key] = value
  }

  /// The value under `key` of the action ``undo()`` would undo.
  public func undoActionUserInfoValue(forKey key: String) -> Any? {
    undoStack.last?.userInfo[key]
  }

  /// The value under `key` of the action ``redo()`` would redo.
  public func redoActionUserInfoValue(forKey key: String) -> Any? {
    redoStack.last?.userInfo[key]
  }
}
