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
  /// Calls `handler` with every notification, synchronously, in order.
  ///
  /// - Returns: a token for ``removeObserver(_:)``.
  @discardableResult
  public func addObserver(_ handler: @escaping (UndoNotification) -> Void) -> Int {
    nextObserver += 1
    observers[nextObserver] = handler
    return nextObserver
  }

  /// Stops calling the handler `token` names.
  public func removeObserver(_ token: Int) { observers[token] = nil }

  /// The notifications from now on, as an asynchronous sequence; it ends when the manager is
  /// released.
  public func notifications() -> AsyncStream<UndoNotification> {
    let (stream, continuation) = AsyncStream<UndoNotification>.makeStream()
    let token = addObserver { continuation.yield($0) }
    final class Finisher {
      let finish: () -> Void
      init(_ finish: @escaping () -> Void) { self.finish = finish }
      deinit { finish() }
    }
    let finisher = Finisher { continuation.finish() }
    observers[token] = { notification in
      _ = finisher
      continuation.yield(notification)
    }
    return stream
  }

  func post(_ notification: UndoNotification) {
    guard !observers.isEmpty else { return }
    for key in observers.keys.sorted() { observers[key]?(notification) }
  }
}
