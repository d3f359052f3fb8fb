import Dispatch
import FolioUndo

/// A context used through its queue, as Core Data's are: it may be handed to any thread (it is
/// `Sendable`, as `NSManagedObjectContext` is), and is used only inside blocks given to
/// ``perform(_:)`` or ``performAndWait(_:)``, which run one at a time on its queue. Its objects
/// stay on that queue.
extension ManagedObjectContext: @unchecked Sendable {
  /// Where a context's work runs.
  public enum ConcurrencyType: Sendable {
    /// On the thread that uses it, which owns it (the default).
    case confinement
    /// On a serial queue of its own.
    case privateQueue
    /// On the main queue.
    case mainQueue
  }

  /// A context on `coordinator` whose blocks run on a queue of its own or on the main queue.
  public convenience init(
    coordinator: PersistentStoreCoordinator, concurrencyType: ConcurrencyType,
    undoManager: UndoManager? = nil
  ) throws(GraphError) {
    try self.init(coordinator: coordinator, undoManager: undoManager)
    switch concurrencyType {
    case .confinement: queue = nil
    case .privateQueue: queue = DispatchQueue(label: "Folio.ManagedObjectContext")
    case .mainQueue: queue = .main
    }
    if let queue { queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(queue)) }
  }

  private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

  /// Whether the current thread is running a block on the context's queue.
  private var isOnQueue: Bool {
    guard let queue else { return true }
    return DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(queue)
  }

  /// Runs `block` on the context's queue, later, then processes pending changes.
  public func perform(_ block: @escaping @Sendable () -> Void) {
    guard let queue else { return performAndWait(block) }
    queue.async {
      block()
      self.processPendingChanges()
    }
  }

  /// Runs `block` on the context's queue and waits for it; from a block already on the queue,
  /// at once.
  public func performAndWait<T>(_ block: @Sendable () throws -> T) rethrows -> T {
    guard let queue, !isOnQueue else { return try block() }
    return try queue.sync {
      defer { processPendingChanges() }
      return try block()
    }
  }

  /// Runs `block` on the context's queue, and returns what it returns.
  public func perform<T>(_ block: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      perform {
        // The result goes back to the caller only.
        nonisolated(unsafe) let result = Result { try block() }
        continuation.resume(with: result)
      }
    }
  }
}
