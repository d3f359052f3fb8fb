import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioGraph
@testable import FolioModel
@testable import FolioStores
@testable import FolioUndo
@testable import FolioXMLStore

@Suite("Records for stores")
struct RecordTests {
  @Test("records hold persistent values and relationships by ID, never transient ones")
  func records() throws {
    let context = try makeContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    let ada = try context.insertNewObject(forEntityName: "Employee")
    try ada.setValue(acme, forKey: "company")
    try ada.setValue("kept in memory only", forKey: "scratch")
    let mix = try context.insertNewObject(forEntityName: "Playlist")
    let tracks = try (0..<3).map { _ in try context.insertNewObject(forEntityName: "Track") }
    try mix.setValue([tracks[2], tracks[0], tracks[1]], forKey: "tracks")
    let gone = try context.insertNewObject(forEntityName: "Note")
    try context.delete(gone)
    try context.save()
    let records = context.persistentRecords()
    #expect(records.count == 6)
    let byID = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
    let adaRecord = try #require(records.first { $0.entityName == "Employee" })
    #expect(adaRecord.attributes["scratch"] == nil)
    #expect(adaRecord.attributes["lastName"] == .string("Doe"))
    #expect(adaRecord.attributes["nickname"] == nil)
    let companyID = try #require(adaRecord.relationships["company"]?.first)
    #expect(byID[companyID]?.attributes["name"] == .string("Acme"))
    #expect(byID[companyID]?.relationships["employees"] == [adaRecord.id])
    let mixRecord = try #require(records.first { $0.entityName == "Playlist" })
    let ids = tracks.map { Int64($0.row) + 1 }
    #expect(mixRecord.relationships["tracks"] == [ids[2], ids[0], ids[1]])
    #expect(tracks[0].objectID.uriRepresentation.lastPathComponent == "p\(ids[0])")
    #expect(!records.contains { $0.entityName == "Note" })
  }
}

@Suite("Loading records")
struct LoadTests {
  /// Records compared by content, ignoring dictionary and array order where order is not part
  /// of the data.
  func sameRecords(_ a: [StoreRecord], _ b: [StoreRecord]) -> Bool {
    Set(a) == Set(b)
  }

  @Test("load(records out) gives the same graph, the same IDs and the same records")
  func roundTrip() throws {
    let model = try graphModel()
    let context = ManagedObjectContext(model: model)
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    let ada = try context.insertNewObject(forEntityName: "Employee")
    try ada.setValue(acme, forKey: "company")
    try ada.setValue(Date(timeIntervalSinceReferenceDate: 1_000), forKey: "hired")
    let mix = try context.insertNewObject(forEntityName: "Playlist")
    let tracks = try (0..<3).map { _ in try context.insertNewObject(forEntityName: "Track") }
    try mix.setValue([tracks[2], tracks[0], tracks[1]], forKey: "tracks")
    try context.delete(tracks[1])
    try context.save()
    let records = context.persistentRecords()
    let contents = StoreContents(
      metadata: StoreMetadata(storeType: "InMemory", identifier: context.storeIdentifier),
      records: records)
    let reopened = ManagedObjectContext(model: model)
    try reopened.load(contents)
    #expect(sameRecords(reopened.persistentRecords(), records))
    #expect(!reopened.hasChanges && !(reopened.undoManager?.canUndo ?? true))
    let again = try #require(reopened.object(with: ada.objectID))
    #expect(try again.value(forKeyPath: "company.name") as? String == "Acme")
    #expect(
      try again.value(forKey: "hired", as: Date.self) == Date(timeIntervalSinceReferenceDate: 1_000)
    )
    let mixAgain = try #require(reopened.object(with: mix.objectID))
    let order = try #require(try mixAgain.value(forKey: "tracks") as? [ManagedObject])
    #expect(order.map(\.objectID) == [tracks[2].objectID, tracks[0].objectID])
    // IDs with a gap (the deleted track) stay stable; a new object gets a fresh key.
    let fresh = try reopened.insertNewObject(forEntityName: "Track")
    try reopened.save()
    #expect(!records.map(\.id).contains(primaryKey(fresh)))
    #expect(reopened.object(with: fresh.objectID) === fresh)
  }

  func primaryKey(_ object: ManagedObject) -> Int64 {
    Int64(object.objectID.uriRepresentation.lastPathComponent.dropFirst()) ?? -1
  }

  @Test(
    "records in any ID order keep their IDs and relationships; a new object gets the next key",
    arguments: [
      // IDs 1...n, so each object sits at row ID − 1 with no key maps…
      ([3, 1, 2] as [Int64], 0 as Int64, 4 as Int64),
      // …keys given out before to objects deleted since, so the next key is the store's…
      ([3, 1, 2], 9, 9),
      // …and IDs with gaps.
      ([30, 10, 20], 0, 31),
    ])
  func idOrder(ids: [Int64], nextObjectID: Int64, expectedKey: Int64) throws {
    let model = try graphModel()
    let records = [
      StoreRecord(
        entityName: "Playlist", id: ids[0], attributes: ["name": .string("mix")],
        relationships: ["tracks": [ids[2], ids[1]]]),
      StoreRecord(
        entityName: "Track", id: ids[1], attributes: ["title": .string("one")],
        relationships: ["playlist": [ids[0]]]),
      StoreRecord(
        entityName: "Track", id: ids[2], attributes: ["title": .string("two")],
        relationships: ["playlist": [ids[0]]]),
    ]
    let context = ManagedObjectContext(model: model)
    try context.load(
      StoreContents(
        metadata: StoreMetadata(storeType: "InMemory"), records: records,
        nextObjectID: nextObjectID))
    let mix = try #require(try context.objects(ofEntity: "Playlist").first)
    #expect(primaryKey(mix) == ids[0])
    let tracks = try #require(try mix.value(forKey: "tracks") as? [ManagedObject])
    #expect(tracks.map(primaryKey) == [ids[2], ids[1]])
    #expect(try tracks.map { try $0.value(forKey: "title", as: String.self) } == ["two", "one"])
    #expect(try tracks.map { try $0.value(forKey: "playlist") as? ManagedObject } == [mix, mix])
    #expect(sameRecords(context.persistentRecords(), records))
    let fresh = try context.insertNewObject(forEntityName: "Track")
    try context.save()
    #expect(primaryKey(fresh) == expectedKey)
    #expect(context.object(with: fresh.objectID) === fresh)
    #expect(context.object(with: mix.objectID) === mix)
  }

  @Test("an ID given twice is refused, whether or not the IDs are otherwise 1 through n")
  func duplicateIDs() throws {
    for ids: [Int64] in [[1, 1], [2, 2], [5, 5]] {
      let context = ManagedObjectContext(model: try graphModel())
      let contents = StoreContents(
        metadata: StoreMetadata(storeType: "InMemory"),
        records: ids.map { StoreRecord(entityName: "Track", id: $0) })
      #expect(graphError { try context.load(contents) }?.code == .typeMismatch)
      #expect(context.registeredObjects.isEmpty)
    }
  }

  @Test("a relationship the store gives on one side only is completed on the other")
  func completesInverses() throws {
    let model = try graphModel()
    let contents = StoreContents(
      metadata: StoreMetadata(storeType: "InMemory"),
      records: [
        StoreRecord(entityName: "Company", id: 10, attributes: ["name": .string("Acme")]),
        StoreRecord(entityName: "Employee", id: 20, relationships: ["company": [10]]),
      ])
    let context = ManagedObjectContext(model: model)
    try context.load(contents)
    let acme = try #require(try context.objects(ofEntity: "Company").first)
    #expect(set(try acme.value(forKey: "employees")).count == 1)
    #expect(context.brokenInvariants().isEmpty)
  }

  @Test(
    "records that do not fit the model are refused and leave the context empty",
    arguments: [
      (StoreRecord(entityName: "Nope", id: 1), GraphError.Code.unknownEntity),
      (StoreRecord(entityName: "Track", id: 1, attributes: ["titel": .string("x")]), .unknownKey),
      (StoreRecord(entityName: "Track", id: 1, attributes: ["title": .integer(3)]), .typeMismatch),
      (StoreRecord(entityName: "Track", id: 1, relationships: ["playlist": [99]]), .objectNotFound),
      (StoreRecord(entityName: "Track", id: 0), .typeMismatch),
    ])
  func refuses(record: StoreRecord, code: GraphError.Code) throws {
    let context = ManagedObjectContext(model: try graphModel())
    let contents = StoreContents(metadata: StoreMetadata(storeType: "InMemory"), records: [record])
    #expect(graphError { try context.load(contents) }?.code == code)
    #expect(context.registeredObjects.isEmpty)
  }

  @Test(
    "a relationship given on both sides for some objects and on one side for others is completed where it was left out"
  )
  func partlyGivenInverses() throws {
    let records = [
      StoreRecord(entityName: "Playlist", id: 1, relationships: ["tracks": [2]]),
      StoreRecord(entityName: "Track", id: 2, relationships: ["playlist": [1]]),
      StoreRecord(entityName: "Track", id: 3, relationships: ["playlist": [5]]),
      StoreRecord(entityName: "Track", id: 4, relationships: ["playlist": [5]]),
      StoreRecord(entityName: "Playlist", id: 5),
    ]
    let context = ManagedObjectContext(model: try graphModel())
    try context.load(
      StoreContents(metadata: StoreMetadata(storeType: "InMemory"), records: records))
    let tracks = Dictionary(
      uniqueKeysWithValues: context.persistentRecords().map { ($0.id, $0.relationships) })
    #expect(tracks[1] == ["tracks": [2]])
    #expect(tracks[5] == ["tracks": [3, 4]])
    #expect(tracks[3] == ["playlist": [5]])
    #expect(context.brokenInvariants().isEmpty)
  }

  /// Sides completed for the objects read first must not pass for sides the store gave, when a
  /// record read later gives the inverse side of another object.
  @Test(
    "an inverse given only by a record read later leaves the earlier objects' sides to complete")
  func inverseGivenLater() throws {
    let records = [
      StoreRecord(entityName: "Playlist", id: 1),
      StoreRecord(entityName: "Track", id: 2, relationships: ["playlist": [1]]),
      StoreRecord(entityName: "Playlist", id: 3, relationships: ["tracks": [4]]),
      StoreRecord(entityName: "Track", id: 4, relationships: ["playlist": [3]]),
      StoreRecord(entityName: "Track", id: 5, relationships: ["playlist": [1]]),
    ]
    let context = ManagedObjectContext(model: try graphModel())
    try context.load(
      StoreContents(metadata: StoreMetadata(storeType: "InMemory"), records: records))
    let loaded = Dictionary(
      uniqueKeysWithValues: context.persistentRecords().map { ($0.id, $0.relationships) })
    #expect(loaded[1] == ["tracks": [2, 5]])
    #expect(loaded[3] == ["tracks": [4]])
    #expect(context.brokenInvariants().isEmpty)
  }

  /// A store's reader may hand records whose values sit in a row with shared names and whose
  /// targets sit in a block of IDs: the graph is the same as from their dictionaries.
  @Test("records in rows with shared names load as their dictionaries do")
  func sharedRows() throws {
    let playlist = StoreRecord(
      entityName: "Playlist", id: 1, names: RecordNames(["name"]), row: [.string("mix")],
      relationships: ["tracks": [3, 2]])
    let tracks = [2, 3].map { (id: Int64) in
      StoreRecord(
        entityName: "Track", id: id, attributes: ["title": .string("track \(id)")],
        linkNames: RecordNames(["playlist"]), targets: [[1]])
    }
    let both = StoreRecord(
      entityName: "Playlist", id: 4, attributes: [:], linkNames: RecordNames(["tracks"]),
      targets: [[5]])
    let last = StoreRecord(
      entityName: "Track", id: 5, names: RecordNames(["title"]), row: [.string("five")],
      relationships: [:])
    let records = [playlist] + tracks + [both, last]
    let context = ManagedObjectContext(model: try graphModel())
    try context.load(
      StoreContents(metadata: StoreMetadata(storeType: "InMemory"), records: records))
    let loaded = context.persistentRecords().sorted { $0.id < $1.id }
    #expect(
      loaded.map(\.relationships) == [
        ["tracks": [3, 2]], ["playlist": [1]], ["playlist": [1]], ["tracks": [5]],
        ["playlist": [4]],
      ])
    #expect(
      loaded.map { $0.attributes["name"] ?? $0.attributes["title"] } == [
        .string("mix"), .string("track 2"), .string("track 3"), nil, .string("five"),
      ])
    #expect(context.brokenInvariants().isEmpty)
  }

  @Test(
    "records in rows with shared names that do not fit the model are refused at entity and key",
    arguments: [
      (
        StoreRecord(
          entityName: "Track", id: 1, names: RecordNames(["titel"]), row: [.string("x")],
          relationships: [:]), GraphError.Code.unknownKey, "titel"
      ),
      (
        StoreRecord(
          entityName: "Track", id: 1, names: RecordNames(["title"]), row: [.integer(3)],
          relationships: [:]), .typeMismatch, "title"
      ),
      (
        StoreRecord(
          entityName: "Track", id: 1, names: RecordNames(["playlist"]), row: [.integer(3)],
          relationships: [:]), .unknownKey, "playlist"
      ),
      (
        StoreRecord(
          entityName: "Track", id: 1, attributes: [:], linkNames: RecordNames(["title"]),
          targets: [[1]]), .unknownKey, "title"
      ),
      (
        StoreRecord(
          entityName: "Track", id: 1, attributes: [:], linkNames: RecordNames(["playlist"]),
          targets: [[99]]), .objectNotFound, "playlist"
      ),
    ])
  func sharedRowsRefused(record: StoreRecord, code: GraphError.Code, key: String) throws {
    let context = ManagedObjectContext(model: try graphModel())
    let contents = StoreContents(metadata: StoreMetadata(storeType: "InMemory"), records: [record])
    let error = graphError { try context.load(contents) }
    #expect(error?.code == code)
    #expect(error?.location?.entity == "Track")
    #expect(error?.description.contains(key) == true, "\(error?.description ?? "")")
    #expect(context.registeredObjects.isEmpty)
  }

  @Test("random graphs round-trip through records")
  func randomRoundTrips() throws {
    var stored = 0
    let model = try graphModel()
    for seed in 1...200 {
      var random = SeededGenerator(state: UInt64(seed))
      let (context, undo, loop) = try undoContext(model: model)
      let editor = RandomEditTests()
      for _ in 0..<40 { _ = try editor.randomEdit(context, undo, loop, &random) }
      loop.endTurn()
      while undo.groupingLevel > 0 { try undo.endUndoGrouping() }
      // A random graph that does not validate cannot be saved, so has nothing to store.
      guard (try? context.save()) != nil else { continue }
      stored += 1
      let records = context.persistentRecords()
      let reopened = ManagedObjectContext(model: context.model)
      try reopened.load(
        StoreContents(metadata: StoreMetadata(storeType: "InMemory"), records: records))
      #expect(sameRecords(reopened.persistentRecords(), records), "seed \(seed)")
      #expect(reopened.brokenInvariants().isEmpty, "seed \(seed)")
    }
    #expect(stored >= 40, "only \(stored) of 200 random graphs validated")
  }

}

@Suite("Random graphs through both store formats")
struct FormatRoundTripTests {
  @Test(
    "a random graph saved as XML or .folio reopens as the same graph", arguments: ["xml", "folio"])
  func randomGraphs(fileExtension: String) throws {
    let format: any StoreFormat = fileExtension == "xml" ? XMLStore() : BinaryStore()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    var stored = 0
    let model = try graphModel()
    for seed in 1...60 {
      var random = SeededGenerator(state: UInt64(seed) &* 7919)
      let url = folder.appendingPathComponent("graph-\(seed).\(fileExtension)")
      let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
      try coordinator.addPersistentStore(at: url, format: format)
      let loop = ManualEventLoop()
      let undo = UndoManager(eventLoop: loop)
      let context = try ManagedObjectContext(coordinator: coordinator, undoManager: undo)
      let editor = RandomEditTests()
      for _ in 0..<40 { _ = try editor.randomEdit(context, undo, loop, &random) }
      loop.endTurn()
      while undo.groupingLevel > 0 { try undo.endUndoGrouping() }
      guard (try? context.save()) != nil else { continue }
      stored += 1
      let reopened = PersistentStoreCoordinator(managedObjectModel: try graphModel())
      try reopened.addPersistentStore(at: url, format: format)
      let again = try ManagedObjectContext(coordinator: reopened)
      #expect(Set(again.persistentRecords()) == Set(context.persistentRecords()), "seed \(seed)")
      #expect(again.brokenInvariants().isEmpty, "seed \(seed)")
    }
    #expect(stored >= 10, "only \(stored) random graphs validated")
  }
}
