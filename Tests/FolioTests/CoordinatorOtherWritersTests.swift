import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

/// A coordinator with two contexts on a shared store, as a server with a context per client
/// has it, taking in another writer's save once and merging it into both.
@Suite("A coordinator's contexts and other writers")
struct CoordinatorOtherWritersTests {
  static func title(_ object: ManagedObject) throws -> String? {
    try object.value(forKey: "title") as? String
  }

  @Test("another writer's save is taken in once and reaches every context that merges it")
  func takeInReachesEveryContext() throws {
    for format in OtherWriterTests.writerFormats {
      let fixture = try DocumentFixture()
      defer { fixture.remove() }
      let url = try OtherWriterTests.sharedFile(format, in: fixture)
      defer { if !url.isFileURL { try? PostgresStore.dropSchema(at: url) } }
      let coordinator = PersistentStoreCoordinator(managedObjectModel: try musicModel())
      try coordinator.addPersistentStore(at: url, format: format)
      let contexts = try (0..<2).map { _ in
        try ManagedObjectContext(coordinator: coordinator, undoManager: nil)
      }
      let sunrises = try contexts.map { context in
        try #require(try context.objects(ofEntity: "Track").first)
      }
      #expect(coordinator.persistentStores.first?.isChangedOnDisk == false, "\(format)")
      #expect(try coordinator.takeInChangesFromOtherWriters().isEmpty, "\(format)")

      let other = try OtherWriterTests.open(url, fixture)
      try OtherWriterTests.track("Sunrise", in: other).setValue(150, forKey: "seconds")
      try other.context.insertNewObject(forEntityName: "Track").setValue("Dusk", forKey: "title")
      fixture.loop.endTurn()
      try other.save()

      #expect(coordinator.persistentStores.first?.isChangedOnDisk == true, "\(format)")
      let changes = try coordinator.takeInChangesFromOtherWriters()
      #expect(changes.inserted.count == 1 && changes.deleted.isEmpty, "\(format)")
      #expect(changes.updated == [sunrises[0].objectID], "\(format)")
      #expect(coordinator.persistentStores.first?.isChangedOnDisk == false, "\(format)")
      #expect(try coordinator.takeInChangesFromOtherWriters().isEmpty, "\(format)")
      for (context, sunrise) in zip(contexts, sunrises) {
        #expect(try sunrise.value(forKey: "seconds") as? Int == 120, "\(format)")
        context.mergeChanges(fromContextDidSave: changes)
        #expect(try sunrise.value(forKey: "seconds") as? Int == 150, "\(format)")
        let titles = try context.objects(ofEntity: "Track").compactMap(Self.title).sorted()
        #expect(titles == ["Dusk", "Sunrise"], "\(format)")
      }
    }
  }

  @Test("another writer's save that one context's save takes in reaches the other contexts")
  func saveTakesInForEveryContext() throws {
    for format in OtherWriterTests.writerFormats {
      let fixture = try DocumentFixture()
      defer { fixture.remove() }
      let url = try OtherWriterTests.sharedFile(format, in: fixture)
      defer { if !url.isFileURL { try? PostgresStore.dropSchema(at: url) } }
      let coordinator = PersistentStoreCoordinator(managedObjectModel: try musicModel())
      try coordinator.addPersistentStore(at: url, format: format)
      let saving = try ManagedObjectContext(coordinator: coordinator, undoManager: nil)
      let watching = try ManagedObjectContext(coordinator: coordinator, undoManager: nil)
      let sunrise = try #require(try watching.objects(ofEntity: "Track").first)

      let other = try OtherWriterTests.open(url, fixture)
      try OtherWriterTests.track("Sunrise", in: other).setValue(150, forKey: "seconds")
      try other.context.insertNewObject(forEntityName: "Track").setValue("Dusk", forKey: "title")
      fixture.loop.endTurn()
      try other.save()

      // The first context's save takes the other writer's save in, under the store's lock.
      try saving.insertNewObject(forEntityName: "Track").setValue("Noon", forKey: "title")
      try saving.save()
      #expect(try sunrise.value(forKey: "seconds") as? Int == 150, "\(format)")
      let titles = try watching.objects(ofEntity: "Track").compactMap(Self.title).sorted()
      #expect(titles == ["Dusk", "Noon", "Sunrise"], "\(format)")
      #expect(try coordinator.takeInChangesFromOtherWriters().isEmpty, "\(format)")
    }
  }
}
