import FolioStores
import FolioTestSupport
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

/// The Track/Playlist part of the test model is all strings, integers and links.
@Suite("The coordinator and saving to a store")
struct CoordinatorTests {
  func openContext(_ url: URL, format: TestFormat = TestFormat()) throws -> ManagedObjectContext {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try graphModel())
    try coordinator.addPersistentStore(at: url, format: format)
    return try ManagedObjectContext(coordinator: coordinator)
  }

  @Test("a missing file is a new store; save writes it; reopening gives the same graph")
  func saveAndReopen() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("music.test")
    let context = try openContext(url)
    let mix = try context.insertNewObject(forEntityName: "Playlist")
    try mix.setValue("Mix", forKey: "name")
    let track = try context.insertNewObject(forEntityName: "Track")
    try track.setValue("Intro", forKey: "title")
    try track.setValue(90, forKey: "seconds")
    try mix.add(track, toKey: "tracks")
    try context.save()
    #expect(FileManager.default.fileExists(atPath: url.path))
    let storeID = try PersistentStoreCoordinator.metadataForPersistentStore(
      at: url, formats: [TestFormat()]
    ).identifier
    #expect(storeID == context.storeIdentifier)
    #expect(
      track.objectID.uriRepresentation.absoluteString.hasPrefix("x-coredata://\(storeID)/Track/p"))

    let reopened = try openContext(url)
    let again = try #require(reopened.object(with: track.objectID))
    #expect(try again.value(forKeyPath: "playlist.name") as? String == "Mix")
    #expect(try again.value(forKey: "seconds", as: Int.self) == 90)
    #expect(!reopened.hasChanges)
  }

  @Test("a save that cannot write changes nothing, in the context or on disk")
  func failedWrite() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("music.test")
    let context = try openContext(url)
    try context.insertNewObject(forEntityName: "Track").setValue("A", forKey: "title")
    try context.save()
    let before = try Data(contentsOf: url)

    let failing = try openContext(url, format: TestFormat(failsWrites: true))
    let track = try failing.insertNewObject(forEntityName: "Track")
    let error = try #require(graphError { try failing.save() })
    #expect(error.code == .store)
    #expect(error.message.hasSuffix("no space left on device"))
    #expect(track.isInserted && track.objectID.isTemporaryID && failing.hasChanges)
    #expect(try Data(contentsOf: url) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["music.test"])
  }

  @Test("a file another coordinator saved since this one opened it keeps both saves")
  func modifiedOnDisk() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("music.test")
    let first = try openContext(url)
    try first.insertNewObject(forEntityName: "Track").setValue("A", forKey: "title")
    try first.save()
    let second = try openContext(url)
    try second.insertNewObject(forEntityName: "Track").setValue("B", forKey: "title")
    try second.save()
    try first.insertNewObject(forEntityName: "Track").setValue("C", forKey: "title")
    try first.save()
    let reopened = try openContext(url)
    let titles = try reopened.objects(ofEntity: "Track").map {
      try $0.value(forKey: "title") as? String
    }
    #expect(Set(titles) == ["A", "B", "C"])
    // The first context merged the second's object at its save.
    #expect(try first.objects(ofEntity: "Track").count == 3)
  }

  @Test("files are recognised by content, not by name")
  func sniffing() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let misnamed = folder.appendingPathComponent("music.xml")
    try (TestFormat.magic + Data("{}".utf8)).write(to: misnamed)
    #expect(
      try PersistentStoreCoordinator.format(of: misnamed, among: [TestFormat()]).typeName == "Test")
    let other = folder.appendingPathComponent("notes.test")
    try Data("hello".utf8).write(to: other)
    do {
      _ = try PersistentStoreCoordinator.format(of: other, among: [TestFormat()])
      Issue.record("an unknown format was accepted")
    } catch {
      #expect(error.code == .unknownFormat)
      #expect(error.description == "\(other.path): not a store of any known format (Test)")
    }
  }

  @Test("an in-memory store saves without a file, and a coordinator holds one store")
  func inMemory() throws {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try graphModel())
    try coordinator.addInMemoryStore()
    #expect(throws: StoreError.self) { try coordinator.addInMemoryStore() }
    let context = try ManagedObjectContext(coordinator: coordinator)
    try context.insertNewObject(forEntityName: "Track").setValue("A", forKey: "title")
    try context.save()
    let second = try ManagedObjectContext(coordinator: coordinator)
    #expect(try second.objects(ofEntity: "Track").count == 1)
  }
}
