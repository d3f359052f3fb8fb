import Folio

/// One browser tab's view of the document: its own context on the shared coordinator, with its
/// own undo stack, a fetched results controller per table it has shown, and its live channel.
///
/// A tab belongs to its ``DocumentHub``'s actor, as its context does: nothing here is
/// `Sendable`, and only ``LiveEvent`` values leave the actor.
final class Tab {
  let id: String
  let context: ManagedObjectContext
  /// Where the tab's turns end: after each request's change, so a request is one undo group.
  let eventLoop = ManualEventLoop()
  /// The controller of each table the tab has shown, by entity name.
  var controllers: [String: FetchedResultsController] = [:]
  /// The tasks that read each controller's change stream.
  var watchers: [Task<Void, Never>] = []
  /// The tab's live channel, while a browser listens.
  var live: AsyncStream<LiveEvent>.Continuation?
  /// What the tab's last save committed, for the other tabs to merge.
  var lastSave: ObjectIDChanges?
  /// Bumped by every request that changes the tab's graph, and by each merge into it.
  var revision = 0
  /// The server's clipboard, which the tab's state describes.
  let clipboard: Clipboard
  private var saveObservation: ObservationToken?

  init(
    id: String, coordinator: PersistentStoreCoordinator, mergePolicy: MergePolicy,
    clipboard: Clipboard
  ) throws(GraphError) {
    self.id = id
    self.clipboard = clipboard
    context = try ManagedObjectContext(
      coordinator: coordinator, undoManager: UndoManager(eventLoop: eventLoop))
    context.mergePolicy = mergePolicy
    saveObservation = context.addEventObserver { [weak self] event in
      if case .didSave(let changes) = event { self?.lastSave = changes }
    }
  }

  /// Stops the tab's watchers and its live channel.
  func close() {
    for watcher in watchers { watcher.cancel() }
    watchers.removeAll()
    live?.finish()
    live = nil
    saveObservation?.cancel()
  }

  /// The tab's undo state, and what its Paste would paste.
  var state: StatePayload {
    let undoManager = context.undoManager
    return StatePayload(
      undo: undoManager.flatMap { $0.canUndo ? $0.undoActionName : nil },
      redo: undoManager.flatMap { $0.canRedo ? $0.redoActionName : nil },
      hasChanges: context.hasChanges, revision: revision, clipboard: clipboard.label)
  }
}
