import FolioData
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

@ModelActor actor TripImporter {
  /// Inserts `count` trips and saves; returns the identifiers of every trip, and whether the
  /// work ran on the main queue (marked by the test).
  func importTrips(_ count: Int) throws -> (ids: [PersistentIdentifier], onMain: Bool) {
    let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
    for index in 0..<count {
      let trip = Trip(name: "Imported \(index)", code: "I\(index)", start: start)
      trip.stops = [Stop(place: "Stop \(index)")]
      modelContext.insert(trip)
    }
    try modelContext.save()
    let onMain = DispatchQueue.getSpecific(key: ModelActorTests.mainQueueMark) == true
    return (try modelContext.fetchIdentifiers(FetchDescriptor<Trip>()), onMain)
  }

  /// Renames the trip `id` names, read in the actor's own context, and saves.
  func rename(_ id: PersistentIdentifier, to name: String) throws -> Bool {
    guard let trip = self[id, as: Trip.self] else { return false }
    trip.name = name
    try modelContext.save()
    return true
  }
}

@Suite("@ModelActor: a context of its own, its saves merged into the main context")
struct ModelActorTests {
  /// Set on the main queue, where the main actor's jobs run.
  static let mainQueueMark = DispatchSpecificKey<Bool>()

  @Test(
    "an actor's inserts and changes, on a store file, reach the main context",
    arguments: [true, false])
  @MainActor
  func actorSavesMerge(inMemory: Bool) async throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let configuration =
      inMemory
      ? ModelConfiguration(isStoredInMemoryOnly: true)
      : ModelConfiguration(url: folder.appendingPathComponent("trips.store"))
    DispatchQueue.main.setSpecific(key: Self.mainQueueMark, value: true)
    #expect(DispatchQueue.getSpecific(key: Self.mainQueueMark) == true)
    let container = try ModelContainer(for: Trip.self, configurations: configuration)
    let main = container.mainContext
    let trip = Trip(name: "Alps", code: "A1", start: .now)
    main.insert(trip)
    try main.save()
    let importer = TripImporter(modelContainer: container)
    let (ids, onMain) = try await importer.importTrips(20)
    #expect(ids.count == 21)
    // On a store file the actor works on a queue of its own; in memory, on the main actor.
    #expect(onMain == inMemory)
    #expect(try main.fetchCount(FetchDescriptor<Trip>()) == 21)
    #expect(try main.fetchCount(FetchDescriptor<Stop>()) == 20)
    #expect(try await importer.rename(trip.persistentModelID, to: "Alps, renamed"))
    _ = try main.fetchCount(FetchDescriptor<Trip>())
    #expect(trip.name == "Alps, renamed")
    #expect(container.mergeProblem == nil)
  }

  @Test("the main context's save made while an actor saved keeps both saves' changes")
  @MainActor
  func overlappingSaves() async throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("trips.store")
    let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
    let main = container.mainContext
    main.autosaveEnabled = false
    let trip = Trip(name: "Alps", code: "A1", start: .now)
    main.insert(trip)
    try main.save()
    // Unsaved in the main context while the actor, on its own coordinator, saves.
    trip.name = "Alps, renamed"
    main.insert(Trip(name: "Coast", code: "C1", start: .now))
    _ = try await TripImporter(modelContainer: container).importTrips(5)
    try main.save()
    let reread = ModelContext(
      try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
    let trips = try reread.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.code)]))
    #expect(trips.count == 7)
    #expect(trips.first?.name == "Alps, renamed")
  }

  @Test("two contexts of one container merge each other's saves")
  func siblingContextsMerge() throws {
    let container = try ModelContainer(
      for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let first = ModelContext(container)
    let second = ModelContext(container)
    let trip = Trip(name: "Alps", code: "A1", start: .now)
    first.insert(trip)
    try first.save()
    let seen = try #require(try second.fetch(FetchDescriptor<Trip>()).first)
    trip.name = "Alps, renamed"
    try first.save()
    #expect(seen.name == "Alps, renamed")
    second.delete(seen)
    try second.save()
    #expect(try first.fetchCount(FetchDescriptor<Trip>()) == 0)
  }
}

@Suite(
  "FolioData on a PostgreSQL document",
  .enabled(if: PostgresTestServer.isAvailable, "needs FOLIO_TEST_POSTGRES_URL"))
struct PostgresModelTests {
  @Test("a container on a document's URL saves, and an actor's save reaches the main context")
  @MainActor
  func serverDocument() async throws {
    let url = PostgresTestServer.document("folio_data")
    defer { try? PostgresStore.dropSchema(at: url) }
    let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
    let main = container.mainContext
    main.autosaveEnabled = false
    let trip = Trip(name: "Alps", code: "A1", start: .now)
    trip.stops = [Stop(place: "Chamonix")]
    main.insert(trip)
    try main.save()
    let (ids, _) = try await TripImporter(modelContainer: container).importTrips(3)
    #expect(ids.count == 4)
    #expect(try main.fetchCount(FetchDescriptor<Trip>()) == 4)
    let reopened = ModelContext(
      try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
    let stops = try reopened.fetch(
      FetchDescriptor<Stop>(predicate: #Predicate { $0.trip?.code == "A1" }))
    #expect(stops.map(\.place) == ["Chamonix"])
  }
}
