/// The stacks as data: for an owner whose actions say what they do with a payload, so that the
/// stacks can be written down when a document closes and set up again when it reopens.
extension UndoManager {
  /// A closed group as its action name and its actions' payloads, in registration order.
  package struct RecordedGroup<Payload> {
    package var actionName: String
    package var payloads: [Payload]

    package init(actionName: String, payloads: [Payload]) {
      self.actionName = actionName
      self.payloads = payloads
    }
  }

  /// Registers an action that carries `payload`, what it does as data; otherwise as
  /// ``registerUndo(withTarget:cost:handler:)``.
  package func registerUndo<Target: AnyObject, Payload>(
    withTarget target: Target, cost: Int, payload: Payload,
    handler: @escaping (Target) -> Void
  ) throws(UndoError) {
    guard disableCount == 0 else { return }
    let action = TargetedAction(
      target: target, cost: cost + UndoAction.baseCost, handler: handler)
    action.payload = payload
    try record(action)
  }

  /// The closed groups of both stacks, oldest first (the redo stack's last is the next
  /// redone), each with its payloads; `nil` for a group with an action of another target or
  /// without a `Payload`. The open group is not included.
  package func recordedStacks<Payload>(of target: AnyObject, as type: Payload.Type) -> (
    undo: [RecordedGroup<Payload>?], redo: [RecordedGroup<Payload>?]
  ) {
    let identifier = ObjectIdentifier(target)
    func record(_ group: UndoGroup) -> RecordedGroup<Payload>? {
      var payloads: [Payload] = []
      for action in group.actions {
        guard action.targetID == identifier, let payload = action.payload as? Payload else {
          return nil
        }
        payloads.append(payload)
      }
      return RecordedGroup(actionName: group.name, payloads: payloads)
    }
    return (undoStack.groups.map(record), redoStack.groups.map(record))
  }

  /// Replaces both stacks with `undo` and `redo` (oldest first), each payload becoming an
  /// action of `target` that runs `handler` with it and costs `cost(payload)`. The state after
  /// is a new one; nothing is open.
  package func replaceStacks<Target: AnyObject, Payload>(
    undo: [RecordedGroup<Payload>], redo: [RecordedGroup<Payload>], target: Target,
    cost: (Payload) -> Int, handler: @escaping (Target, Payload) -> Void
  ) {
    removeAllActions()
    func group(_ record: RecordedGroup<Payload>) -> UndoGroup {
      let group = UndoGroup(id: nextGroupID)
      nextGroupID += 1
      group.name = record.actionName
      for payload in record.payloads {
        let action = TargetedAction(
          target: target, cost: cost(payload) + UndoAction.baseCost
        ) { handler($0, payload) }
        action.payload = payload
        group.append(action)
      }
      return group
    }
    for record in undo { undoStack.push(group(record)) }
    for record in redo { redoStack.push(group(record)) }
  }
}
