import Foundation

/// What runs a model actor's jobs, and the context they use: SwiftData's `ModelExecutor`.
public protocol ModelExecutor: AnyObject, Sendable {
  /// The context the actor's code uses, on the executor alone.
  var modelContext: ModelContext { get }
}

/// A model executor that runs one job at a time.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// Runs a model actor's jobs one at a time on a queue of its own — or, for a container kept in
/// memory only, on the main actor, whose coordinator the actor's context then shares.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
  /// Used only by the jobs this executor runs, one at a time.
  public let modelContext: ModelContext
  private let queue: DispatchQueue?

  /// An executor for `modelContext`, made for the actor (`ModelContext(_actorOf:)`), or any
  /// context no other code uses.
  public init(modelContext: ModelContext) {
    self.modelContext = modelContext
    queue =
      modelContext.hasOwnCoordinator
      ? DispatchQueue(label: "FolioData.DefaultSerialModelExecutor") : nil
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    guard let queue else {
      // The actor runs on the main actor (``asUnownedSerialExecutor()``): a job sent here all
      // the same runs there.
      Task { @MainActor in job.runSynchronously(on: MainActor.sharedUnownedExecutor) }
      return
    }
    let executor = asUnownedSerialExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }

  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    guard queue != nil else { return MainActor.sharedUnownedExecutor }
    return UnownedSerialExecutor(ordinary: self)
  }

  public func isSameExclusiveExecutionContext(other: DefaultSerialModelExecutor) -> Bool {
    other === self
  }
}

/// An actor with a model context of its own, on its own executor: what `@ModelActor` makes,
/// SwiftData's `ModelActor`. Its saves are merged into the container's other contexts.
public protocol ModelActor: Actor {
  /// The container whose store the actor's context works on.
  nonisolated var modelContainer: ModelContainer { get }
  /// The executor that runs the actor's jobs and holds its context.
  nonisolated var modelExecutor: any ModelExecutor { get }
}

/// The executor that runs a model actor's jobs: its model executor, which must run them one at
/// a time.
public func _serialExecutor(of executor: any ModelExecutor) -> UnownedSerialExecutor {
  guard let serial = executor as? any SerialModelExecutor else {
    fatalError("\(type(of: executor)) does not run a model actor's jobs one at a time")
  }
  return serial.asUnownedSerialExecutor()
}

extension ModelActor {
  public nonisolated var unownedExecutor: UnownedSerialExecutor {
    _serialExecutor(of: modelExecutor)
  }

  /// The actor's context.
  public var modelContext: ModelContext { modelExecutor.modelContext }

  /// The object `id` identifies, as a `T`, read in the actor's context; `nil` when there is
  /// none or it is not a `T`.
  public subscript<T: PersistentModel>(id: PersistentIdentifier, as type: T.Type) -> T? {
    guard id.objectID != nil else { return nil }
    return modelContext.existingModel(for: id)
  }
}

/// Makes an actor a ``ModelActor``: its own model context on a serial executor of its own, and
/// `init(modelContainer:)`.
///
/// ```swift
/// @ModelActor actor Importer {
///   func importTrips(_ names: [String]) throws {
///     for name in names { modelContext.insert(Trip(name: name)) }
///     try modelContext.save()             // merged into the main context
///   }
/// }
/// ```
@attached(
  member, names: named(modelExecutor), named(modelContainer), named(unownedExecutor), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "FolioDataMacros", type: "ModelActorMacro")
