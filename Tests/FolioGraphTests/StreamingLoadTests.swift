import FolioBinaryStore
import FolioStores
import FolioTestSupport
import FolioXMLStore
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

/// Records as a consumer sees them, and a consumer that fails on cue.
private struct RecordingConsumer: StoreRecordConsumer {
  var events: [String] = []
  var records: [StoreRecord] = []
  var failsAt: Int?

  mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?)
    throws(StoreError)
  {
    events.append("begin \(nextObjectID) \(recordCount.map(String.init) ?? "?")")
  }

  mutating func consume(_ record: StoreRecord) throws(StoreError) {
    if records.count == failsAt {
      throw StoreError(.malformedStore, "stopped at record \(records.count)")
    }
    records.append(record)
  }

  mutating func finish() throws(StoreError) { events.append("finish \(records.count)") }
}

@Suite("Loading a store record by record")
struct StreamingLoadTests {
  /// A saved Track/Playlist graph in `format`, in `folder`.
  func savedStore(in folder: URL, format: any StoreFormat, name: String) throws -> URL {
    let url = folder.appendingPathComponent(name)
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try graphModel())
    try coordinator.addPersistentStore(at: url, format: format)
    let context = try ManagedObjectContext(coordinator: coordinator)
    for number in 0..<3 {
      let mix = try context.insertNewObject(forEntityName: "Playlist")
      try mix.setValue("mix \(number)", forKey: "name")
      for track in 0..<4 {
        let object = try context.insertNewObject(forEntityName: "Track")
        try object.setValue("track \(number).\(track)", forKey: "title")
        try mix.add(object, toKey: "tracks")
      }
    }
    try context.save()
    return url
  }

  @Test(
    "each format hands over every record once, between begin and finish, as read(from:) has them",
    arguments: [("xml", 0), ("folio", 1)])
  func streams(name: String, formatIndex: Int) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let format: any StoreFormat = [XMLStore(), BinaryStore()][formatIndex]
    let url = try savedStore(in: folder, format: format, name: "music.\(name)")
    let model = try graphModel()
    var consumer = RecordingConsumer()
    try format.read(from: url, model: model, into: &consumer)
    let whole = try format.read(from: url, model: model)
    #expect(consumer.records.count == 15)
    #expect(Set(consumer.records) == Set(whole.records))
    #expect(consumer.events.first?.hasPrefix("begin \(whole.nextObjectID) ") == true)
    #expect(consumer.events.last == "finish 15")
    #expect(consumer.events.count == 2)
  }

  @Test("a consumer's error stops the read and comes back as it was thrown")
  func consumerError() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let formats: [any StoreFormat] = [XMLStore(), BinaryStore(), TestFormat()]
    for (index, format) in formats.enumerated() {
      let url = try savedStore(in: folder, format: format, name: "s\(index)")
      var consumer = RecordingConsumer(failsAt: 5)
      let error = try #require(
        storeError { try format.read(from: url, model: try graphModel(), into: &consumer) })
      #expect(error.message == "stopped at record 5")
      #expect(consumer.records.count == 5)
      #expect(!consumer.events.contains { $0.hasPrefix("finish") })
    }
  }

  @Test("the first context takes the graph read at add; a later one reads the file again")
  func firstContextTakesTheGraph() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let formats: [any StoreFormat] = [XMLStore(), BinaryStore(), TestFormat()]
    for (index, format) in formats.enumerated() {
      let url = try savedStore(in: folder, format: format, name: "s\(index)")
      let coordinator = PersistentStoreCoordinator(managedObjectModel: try graphModel())
      try coordinator.addPersistentStore(at: url, format: format)
      let first = try ManagedObjectContext(coordinator: coordinator)
      let second = try ManagedObjectContext(coordinator: coordinator)
      #expect(first.registeredObjects.count == 15)
      #expect(Set(first.persistentRecords()) == Set(second.persistentRecords()))
      for object in first.registeredObjects {
        #expect(object.managedObjectContext === first)
        let other = try #require(second.object(with: object.objectID))
        #expect(other !== object && other.managedObjectContext === second)
      }
      #expect(first.brokenInvariants().isEmpty && second.brokenInvariants().isEmpty)
      // Each context edits and saves on its own graph.
      let mix = try #require(try first.objects(ofEntity: "Playlist").first)
      try mix.setValue("renamed", forKey: "name")
      #expect(try second.object(with: mix.objectID)?.value(forKey: "name") as? String != "renamed")
    }
  }

  @Test("a store that does not open fails when it is added, before any context")
  func failsAtAdd() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try savedStore(in: folder, format: BinaryStore(), name: "music.folio")
    var bytes = try Data(contentsOf: url)
    bytes[bytes.count - 5] ^= 0x40
    try bytes.write(to: url)
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try graphModel())
    let error = try #require(
      storeError { try coordinator.addPersistentStore(at: url, format: BinaryStore()) })
    #expect(error.code == .badChecksum)
    #expect(coordinator.persistentStores.isEmpty)
  }

  func load(_ records: [StoreRecord], next: Int64? = nil) throws -> ManagedObjectContext {
    let context = ManagedObjectContext(model: try graphModel())
    try context.load(
      StoreContents(
        metadata: StoreMetadata(storeType: "InMemory"), records: records, nextObjectID: next))
    return context
  }

  func key(_ object: ManagedObject) -> Int64 {
    Int64(object.objectID.uriRepresentation.lastPathComponent.dropFirst()) ?? -1
  }

  @Test(
    "huge, sparse or forward-referenced IDs keep their keys, and new objects never reuse one",
    arguments: [
      [1_000_000_000_000, 5, 7] as [Int64], [7, 5, 1_000_000_000_000], [3, 2, 1], [200_000, 1, 2],
    ])
  func idLayouts(ids: [Int64]) throws {
    // The playlist names its tracks before their records come.
    let records = [
      StoreRecord(
        entityName: "Playlist", id: ids[0], relationships: ["tracks": [ids[2], ids[1]]]),
      StoreRecord(entityName: "Track", id: ids[1], attributes: ["title": .string("b")]),
      StoreRecord(entityName: "Track", id: ids[2], attributes: ["title": .string("c")]),
    ]
    let context = try load(records)
    let mix = try #require(try context.objects(ofEntity: "Playlist").first)
    #expect(key(mix) == ids[0])
    let tracks = try #require(try mix.value(forKey: "tracks") as? [ManagedObject])
    #expect(tracks.map(key) == [ids[2], ids[1]])
    #expect(tracks.allSatisfy { (try? $0.value(forKey: "playlist") as? ManagedObject) === mix })
    #expect(context.brokenInvariants().isEmpty)
    let fresh = try context.insertNewObject(forEntityName: "Track")
    try context.save()
    #expect(key(fresh) == ids.max()! + 1)
    #expect(context.object(with: fresh.objectID) === fresh)
    #expect(context.object(with: mix.objectID) === mix)
  }

  @Test("a next object ID far above the records' keeps new keys above it")
  func farNextID() throws {
    for next: Int64 in [10, 1_000_000_000] {
      let context = try load([StoreRecord(entityName: "Track", id: 2)], next: next)
      let fresh = try context.insertNewObject(forEntityName: "Track")
      try context.save()
      #expect(key(fresh) == next)
    }
  }

  @Test(
    "a target never loaded, of the wrong entity, or an ID loaded twice is refused, leaving the context empty",
    arguments: [
      (
        [StoreRecord(entityName: "Playlist", id: 1, relationships: ["tracks": [9]])],
        GraphError.Code.objectNotFound,
        "Playlist.tracks: Playlist.tracks names object 9, which is not a Track in the store"
      ),
      (
        [
          StoreRecord(entityName: "Playlist", id: 1, relationships: ["tracks": [2]]),
          StoreRecord(entityName: "Playlist", id: 2),
        ], .objectNotFound,
        "Playlist.tracks: Playlist.tracks names object 2, which is not a Track in the store"
      ),
      (
        [
          StoreRecord(entityName: "Playlist", id: 1, relationships: ["tracks": [2]]),
          StoreRecord(entityName: "Track", id: 2), StoreRecord(entityName: "Track", id: 2),
        ], .typeMismatch, "Track: object ID 2 is not positive, or appears twice"
      ),
      (
        [
          StoreRecord(entityName: "Playlist", id: 1, relationships: ["tracks": [1 << 50]]),
          StoreRecord(entityName: "Track", id: 1 << 50),
          StoreRecord(entityName: "Track", id: 1 << 50),
        ], .typeMismatch, "Track: object ID 1125899906842624 is not positive, or appears twice"
      ),
    ])
  func refuses(records: [StoreRecord], code: GraphError.Code, message: String) throws {
    let context = ManagedObjectContext(model: try graphModel())
    let error = try #require(
      graphError {
        try context.load(
          StoreContents(metadata: StoreMetadata(storeType: "InMemory"), records: records))
      })
    #expect(error.code == code)
    #expect(error.description == message)
    #expect(context.registeredObjects.isEmpty)
    // The context is empty again, and loads a good store afterwards.
    try context.load(
      StoreContents(
        metadata: StoreMetadata(storeType: "InMemory"),
        records: [StoreRecord(entityName: "Track", id: 1)]))
    #expect(context.registeredObjects.count == 1)
  }
}

/// The `StoreError` `body` throws, or `nil`.
private func storeError(_ body: () throws -> Void) -> StoreError? {
  do {
    try body()
    return nil
  } catch let error as StoreError {
    return error
  } catch {
    return nil
  }
}

@Suite("Store metadata through the coordinator")
struct CoordinatorMetadataTests {
  @Test(
    "setMetadata at a URL finds the format by content and leaves the objects; an open store notices"
  )
  func setMetadataAtURL() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try StreamingLoadTests().savedStore(in: folder, format: BinaryStore(), name: "m.xml")
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try graphModel())
    try coordinator.addPersistentStore(at: url, format: BinaryStore())
    let context = try ManagedObjectContext(coordinator: coordinator)
    var metadata = try PersistentStoreCoordinator.metadataForPersistentStore(
      at: url, formats: [XMLStore(), BinaryStore()])
    metadata.userInfo["reviewed"] = .boolean(true)
    try PersistentStoreCoordinator.setMetadata(
      metadata, forPersistentStoreAt: url, formats: [XMLStore(), BinaryStore()])
    let read = try PersistentStoreCoordinator.metadataForPersistentStore(
      at: url, formats: [XMLStore(), BinaryStore()])
    #expect(read.userInfo["reviewed"] == .boolean(true))
    #expect(read.storeType == "Binary")
    // The context that had the file open takes the change in when it saves: the new metadata
    // stays, with the context's object.
    try context.insertNewObject(forEntityName: "Track").setValue("new", forKey: "title")
    try context.save()
    let reopened = PersistentStoreCoordinator(managedObjectModel: try graphModel())
    try reopened.addPersistentStore(at: url, format: BinaryStore())
    #expect(try ManagedObjectContext(coordinator: reopened).registeredObjects.count == 16)
    #expect(reopened.persistentStores.first?.metadata.userInfo["reviewed"] == .boolean(true))
  }

  @Test("setMetadata for an open store is written at the next save, keeping the store's UUID")
  func setMetadataForStore() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try StreamingLoadTests().savedStore(in: folder, format: XMLStore(), name: "m.xml")
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try graphModel())
    let store = try coordinator.addPersistentStore(at: url, format: XMLStore())
    let context = try ManagedObjectContext(coordinator: coordinator)
    let identifier = store.identifier
    var metadata = StoreMetadata(storeType: "Other", identifier: "not-used")
    metadata.userInfo["owner"] = .string("Ada")
    coordinator.setMetadata(metadata, for: store)
    #expect(store.metadata.userInfo["owner"] == .string("Ada"))
    #expect(store.identifier == identifier)
    try context.insertNewObject(forEntityName: "Track").setValue("new", forKey: "title")
    try context.save()
    let read = try XMLStore().readMetadata(from: url)
    #expect(read.userInfo["owner"] == .string("Ada"))
    #expect(read.identifier == identifier)
    #expect(read.storeType == "XML")
  }
}
