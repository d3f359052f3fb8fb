import Folio
import Foundation

/// The line `--trace` writes under the state summary: the current context's undo and redo
/// stacks, the group being recorded, and where the document's save point is.
///
/// The line reads as the context's history from left to right. The undo stack comes oldest
/// first, so the group `undo` would undo is its last item; the open group, if any, follows;
/// then the redo stack, the group `redo` would redo first. The current state is where the
/// undo list (or the open group) ends, plus the changes no group holds yet (`+ pending
/// changes`), which the end of the turn or `process` registers. The save point — the undo
/// manager's state identifier when the document was last saved, opened or made — is found on
/// that timeline by `UndoHistory.steps(toState:)` and shown as the item `[saved]` at its
/// place, or as `saved: unreachable` when neither undo nor redo gets back to it. It is the
/// document's, and so `main`'s: other contexts show their stacks without it.
extension ScriptRunner {
  /// `undo: "Insert Ada" | [saved] | "Rename"   redo: (empty)`, or `nil` without a document.
  var undoTrace: String? {
    guard let context, let undoManager = context.undoManager else { return nil }
    let history = undoManager.history
    // Where [saved] goes on the timeline: its index among the states, the one under the
    // oldest undo group being 0.
    var savedIndex: Int?
    var isSaveUnreachable = false
    if let document, document.context === context {
      let current = history.undo.count + (history.openGroup?.stateIdentifier == nil ? 0 : 1)
      if let steps = history.steps(toState: document.savePoint) {
        savedIndex = current + steps
      } else {
        isSaveUnreachable = true
      }
    }
    let saved = "[saved]"
    var undoItems: [String] = []
    if savedIndex == 0 { undoItems.append(saved) }
    for (offset, entry) in history.undo.reversed().enumerated() {
      undoItems.append(Self.traceName(entry.actionName))
      if savedIndex == offset + 1 { undoItems.append(saved) }
    }
    var parts = ["undo: " + Self.traceList(undoItems)]
    var redoStart = history.undo.count
    if let open = history.openGroup {
      var text = "open: \(Self.traceName(open.actionName)), level \(open.groupingLevel)"
      // A group that has recorded something is a step of its own: undo closes and undoes it.
      if open.stateIdentifier != nil {
        redoStart += 1
        if savedIndex == redoStart { text += " | " + saved }
      }
      parts.append(text)
    }
    if context.hasUnprocessedChanges { parts.append("+ pending changes") }
    var redoItems: [String] = []
    for (offset, entry) in history.redo.enumerated() {
      redoItems.append(Self.traceName(entry.actionName))
      if savedIndex == redoStart + offset + 1 { redoItems.append(saved) }
    }
    parts.append("redo: " + Self.traceList(redoItems))
    if isSaveUnreachable { parts.append("saved: unreachable") }
    return "     " + parts.joined(separator: "   ")
  }

  /// A group's action name in double quotes, or `(untitled)`.
  private static func traceName(_ name: String) -> String {
    name.isEmpty ? "(untitled)" : Literal.quoted(name)
  }

  private static func traceList(_ items: [String]) -> String {
    items.isEmpty ? "(empty)" : items.joined(separator: " | ")
  }
}
