import FolioGraph
import FolioModel
import Foundation
import Testing

@Suite("A context on a private queue")
struct ContextQueueTests {
  static func coordinator() throws -> PersistentStoreCoordinator {
    let model = try ManagedObjectModel {
      EntityDescription("Item") { AttributeDescription("name", .string) }
    }
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addInMemoryStore()
    return coordinator
  }

  /// What the blocks saw: whether two ever ran at once, and whether one ran on the main thread.
  final class Watch: @unchecked Sendable {
    let lock = NSLock()
    var running = 0
    var overlapped = false
    var onMainThread = false

    func enter() {
      lock.withLock {
        running += 1
        overlapped = overlapped || running > 1
        onMainThread = onMainThread || Thread.isMainThread
      }
    }

    func leave() { lock.withLock { running -= 1 } }
  }

  @Test("blocks given from many tasks at once run one at a time, off the main thread")
  func privateQueue() async throws {
    let context = try ManagedObjectContext(
      coordinator: Self.coordinator(), concurrencyType: .privateQueue)
    let watch = Watch()
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<50 {
        group.addTask {
          context.perform {
            watch.enter()
            defer { watch.leave() }
            let item = try? context.insertNewObject(forEntityName: "Item")
            try? item?.setValue("item \(index)", forKey: "name")
            usleep(200)
          }
        }
      }
    }
    let count = try await context.perform {
      try context.count(for: FetchRequest<ManagedObject>(entityName: "Item"))
    }
    #expect(count == 50)
    #expect(!watch.overlapped && !watch.onMainThread)
    // performAndWait returns the block's value; called again inside a block, it runs at once.
    let hasChanges = try context.performAndWait {
      try context.performAndWait { try context.save() }
      return context.hasChanges
    }
    #expect(hasChanges == false)
  }

  @Test("a confined context runs blocks where they are given")
  func confinement() throws {
    let context = try ManagedObjectContext(
      coordinator: Self.coordinator(), concurrencyType: .confinement)
    let watch = Watch()
    context.performAndWait { watch.enter() }
    #expect(watch.running == 1)
  }
}
