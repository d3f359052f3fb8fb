/// What an undo manager announces, in the order GNUstep documents as macOS's:
///
/// - opening a group: `checkpoint`, `didOpenGroup`;
/// - closing one: `checkpoint`, `willCloseGroup`, `didCloseGroup`;
/// - undoing: (closing the open top-level group, as above), `checkpoint`, then `willUndo` and
///   `didUndo` only when there is something to undo; redoing likewise with `willRedo`,
///   `didRedo`;
/// - ``UndoManager/canRedo`` posts a `checkpoint`.
public enum UndoNotification: String, Sendable, Hashable, CaseIterable {
  case checkpoint
  case didOpenGroup
  case willCloseGroup
  case didCloseGroup
  case willUndo
  case didUndo
  case willRedo
  case didRedo
}

extension UndoManager {
  /// Calls `handler` with every notification, synchronously, in order, until the returned
  /// token is cancelled or released.
  public func addObserver(_ handler: @escaping (UndoNotification) -> Void) -> ObservationToken {
    nextObserver += 1
    let key = nextObserver
    observers[key] = handler
    return ObservationToken { [weak self] in self?.observers[key] = nil }
  }

  /// The notifications from now on, as an asynchronous sequence. It ends when the manager is
  /// released; the observation ends with the stream, at the first notification after its
  /// consumer stopped.
  public func notifications() -> AsyncStream<UndoNotification> {
    let (stream, continuation) = AsyncStream<UndoNotification>.makeStream()
    let observation = StreamObservation(continuation)
    observation.token = addObserver { notification in
      // Cancelled here, on the manager's own thread: the stream's termination handler may
      // run on any thread.
      if case .terminated = continuation.yield(notification) { observation.token?.cancel() }
    }
    return stream
  }

  func post(_ notification: UndoNotification) {
    guard !observers.isEmpty else { return }
    for key in observers.keys.sorted() { observers[key]?(notification) }
  }
}

/// The observation behind an asynchronous stream of notifications or events: the observer's
/// handler holds it, so it lives as long as the observed object keeps the handler, and when
/// that object is released it finishes the stream.
package final class StreamObservation<Element> {
  package var token: ObservationToken?
  private let continuation: AsyncStream<Element>.Continuation

  package init(_ continuation: AsyncStream<Element>.Continuation) {
    self.continuation = continuation
  }

  deinit { continuation.finish() }
}
