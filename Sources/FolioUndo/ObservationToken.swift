/// An observer's registration: ``cancel()`` ends it, and so does releasing the token, as with
/// Combine's `AnyCancellable`. Keep it for as long as the observer should be called.
///
/// ```swift
/// let observation = undoManager.addObserver { print($0) }
/// …
/// observation.cancel()  // or let it go
/// ```
///
/// A token belongs to the isolation domain of what it observes, and is not `Sendable`.
public final class ObservationToken: Hashable {
  private var cancellation: (() -> Void)?

  /// A token whose cancellation runs `cancellation` once.
  package init(cancellation: @escaping () -> Void) {
    self.cancellation = cancellation
  }

  deinit { cancel() }

  /// Whether the observation has ended.
  public var isCancelled: Bool { cancellation == nil }

  /// Ends the observation: the observer is not called again. Cancelling twice does nothing.
  public func cancel() {
    guard let cancellation else { return }
    self.cancellation = nil
    cancellation()
  }

  /// Whether both are the same token.
  public static func == (lhs: ObservationToken, rhs: ObservationToken) -> Bool { lhs === rhs }

  /// Hashes the token's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
