import Folio
import FolioData
import FolioModel
import FolioTestSupport
import Foundation
import Testing

@Suite("ModelContainer and ModelContext over a store")
struct ModelContextTests {
  static let day = Date(timeIntervalSinceReferenceDate: 800_000_000)

  /// A trip with two stops and a traveler, none of them in a context.
  static func sampleTrip() -> Trip {
    let trip = Trip(name: "Alps", code: "A1", start: day, kind: .business)
    trip.budget = 1200
    trip.notes = ["skis", "maps"]
    trip.fare = Fare(amount: 89.5, currency: "EUR")
    trip.stops = [Stop(place: "Chamonix", nights: 3), Stop(place: "Zermatt", nights: 2)]
    trip.traveler = Traveler(name: "Ada")
    return trip
  }

  @Test("values set before insertion read back, from the object and from the store")
  func detachedValues() throws {
    let trip = Self.sampleTrip()
    #expect(trip.name == "Alps" && trip.kind == .business && trip.budget == 1200)
    #expect(trip.notes == ["skis", "maps"] && trip.fare == Fare(amount: 89.5, currency: "EUR"))
    #expect(trip.stops.map(\.place) == ["Chamonix", "Zermatt"])
    #expect(trip.modelContext == nil && trip.persistentModelID.isTemporary)
  }

  @Test(
    "inserting a trip inserts what it refers to; saved to each format and reopened, everything reads back",
    arguments: ["trips.store", "trips.xml", "trips.folio"])
  func saveAndReopen(file: String) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent(file)
    do {
      let container = try ModelContainer(
        for: Trip.self, configurations: ModelConfiguration(url: url))
      let context = ModelContext(container)
      let trip = Self.sampleTrip()
      context.insert(trip)
      #expect(trip.modelContext === context)
      #expect(context.insertedModelsArray.count == 4)
      // The inverses follow once the objects are in the context.
      #expect(trip.stops.allSatisfy { $0.trip === trip })
      #expect(trip.traveler?.trips.first === trip)
      try context.save()
      #expect(!context.hasChanges && !trip.persistentModelID.isTemporary)
    }
    let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
    let context = ModelContext(container)
    let trips = try context.fetch(FetchDescriptor<Trip>())
    try #require(trips.count == 1)
    let trip = trips[0]
    #expect(trip.name == "Alps" && trip.code == "A1" && trip.start == Self.day)
    #expect(trip.kind == .business && trip.budget == 1200 && trip.notes == ["skis", "maps"])
    #expect(trip.fare == Fare(amount: 89.5, currency: "EUR"))
    #expect(trip.stops.map(\.place).sorted() == ["Chamonix", "Zermatt"])
    #expect(trip.traveler?.name == "Ada")
    // One instance per object: a fetch gives back the instances relationships lead to.
    let stops = try context.fetch(FetchDescriptor<Stop>(sortBy: [SortDescriptor(\.place)]))
    #expect(stops.map(\.place) == ["Chamonix", "Zermatt"])
    #expect(stops.allSatisfy { $0.trip === trip })
    #expect(context.model(for: trip.persistentModelID) as? Trip === trip)
  }

  @Test("deleting a trip deletes its stops (cascade) and takes it from its traveler (nullify)")
  func deleteRules() throws {
    let container = try ModelContainer(
      for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = ModelContext(container)
    let trip = Self.sampleTrip()
    context.insert(trip)
    try context.save()
    let traveler = try #require(trip.traveler)
    context.delete(trip)
    try context.save()
    #expect(try context.fetchCount(FetchDescriptor<Stop>()) == 0)
    #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 0)
    #expect(traveler.trips.isEmpty)
  }

  @Test("inserting a trip with a saved trip's unique code updates that trip (an upsert)")
  func upsert() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("trips.store")
    let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
    let context = ModelContext(container)
    context.insert(Self.sampleTrip())
    try context.save()
    let id = try #require(try context.fetch(FetchDescriptor<Trip>()).first?.persistentModelID)
    context.insert(Trip(name: "Alps again", code: "A1", start: Self.day))
    context.insert(Trip(name: "Coast", code: "C1", start: Self.day))
    try context.save()
    let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.code)]))
    #expect(trips.map(\.name) == ["Alps again", "Coast"])
    #expect(trips.first?.persistentModelID == id)
    // The store holds the same.
    let reopened = ModelContext(
      try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
    #expect(
      try reopened.fetch(FetchDescriptor<Trip>()).map(\.name).sorted() == ["Alps again", "Coast"])
  }

  @Test("rollback forgets the inserted objects; changed values go back")
  func rollback() throws {
    let container = try ModelContainer(
      for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = ModelContext(container)
    let trip = Self.sampleTrip()
    context.insert(trip)
    try context.save()
    trip.name = "Pyrenees"
    context.insert(Trip(name: "Coast", code: "C1", start: Self.day))
    #expect(context.hasChanges)
    context.rollback()
    #expect(!context.hasChanges && trip.name == "Alps")
    #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1)
  }
}

@Suite("Fetching @Model objects with Foundation's predicates")
struct FetchDescriptorTests {
  /// A context with `count` random trips, each with random stops.
  static func context(trips count: Int, seed: UInt64) throws -> ModelContext {
    let container = try ModelContainer(
      for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = ModelContext(container)
    var random = SeededGenerator(seed: seed)
    let names = ["Alps", "Coast", "Dunes", "Fjords", "Lakes", "alps"]
    for index in 0..<count {
      let trip = Trip(
        name: names[Int(random.next() % UInt64(names.count))], code: "T\(index)",
        start: Date(timeIntervalSinceReferenceDate: Double(random.next() % 1000) * 86_400),
        kind: random.next() % 2 == 0 ? .leisure : .business)
      trip.budget = random.next() % 3 == 0 ? nil : Double(random.next() % 5000)
      trip.stops = (0..<Int(random.next() % 4)).map { stop in
        Stop(place: "P\(stop)", nights: Int(random.next() % 5))
      }
      context.insert(trip)
    }
    try context.save()
    return context
  }

  /// `descriptor`'s results, and what Foundation's own evaluation and sort of every trip give.
  static func both(_ context: ModelContext, _ descriptor: FetchDescriptor<Trip>) throws -> (
    fetched: [String], evaluated: [String]
  ) {
    var all = try context.fetch(FetchDescriptor<Trip>())
    if let predicate = descriptor.predicate { all = try all.filter { try predicate.evaluate($0) } }
    all.sort(using: descriptor.sortBy + [SortDescriptor(\Trip.code)])
    let start = min(descriptor.fetchOffset ?? 0, all.count)
    let end = descriptor.fetchLimit.map { min(start + $0, all.count) } ?? all.count
    var sorted = descriptor
    sorted.sortBy.append(SortDescriptor(\Trip.code))
    return (try context.fetch(sorted).map(\.code), all[start..<end].map(\.code))
  }

  @Test("translated and untranslated predicates select what Foundation's evaluation selects")
  func agreesWithEvaluation() throws {
    let context = try Self.context(trips: 300, seed: 11)
    let cutoff = Date(timeIntervalSinceReferenceDate: 500 * 86_400)
    let descriptors: [FetchDescriptor<Trip>] = [
      FetchDescriptor(predicate: #Predicate { $0.name == "Alps" }),
      FetchDescriptor(predicate: #Predicate { $0.name.contains("es") && $0.start < cutoff }),
      FetchDescriptor(predicate: #Predicate { $0.budget == nil || $0.budget! > 2500 }),
      FetchDescriptor(predicate: #Predicate { $0.stops.count >= 2 }),
      FetchDescriptor(predicate: #Predicate { $0.stops.contains { $0.nights > 3 } }),
      FetchDescriptor(
        predicate: #Predicate { $0.code.starts(with: "T1") },
        sortBy: [SortDescriptor(\.start, order: .reverse)]),
      // Strings compared by order are not translated: Foundation evaluates them.
      FetchDescriptor(predicate: #Predicate { $0.name < "D" }, sortBy: [SortDescriptor(\.name)]),
    ]
    // All but the last are translated: Folio evaluates them, the last Foundation.
    #expect(descriptors.map(context.isTranslated) == [true, true, true, true, true, true, false])
    for var descriptor in descriptors {
      let (fetched, evaluated) = try Self.both(context, descriptor)
      #expect(fetched == evaluated)
      #expect(try context.fetchCount(descriptor) == evaluated.count)
      descriptor.fetchOffset = 3
      descriptor.fetchLimit = 5
      let (page, evaluatedPage) = try Self.both(context, descriptor)
      #expect(page == evaluatedPage)
    }
  }

  @Test("delete(model:where:) deletes what the predicate selects")
  func deleteWhere() throws {
    let context = try Self.context(trips: 50, seed: 5)
    let before = try context.fetchCount(
      FetchDescriptor<Trip>(predicate: #Predicate { $0.name != "Alps" }))
    try context.delete(model: Trip.self, where: #Predicate { $0.name == "Alps" })
    try context.save()
    #expect(try context.fetchCount(FetchDescriptor<Trip>()) == before)
  }
}

@Suite("PersistentIdentifier: equal across contexts, encoded as the object's URI")
struct PersistentIdentifierTests {
  @Test(
    "an identifier encoded and decoded names the same object, in this store and in another container on it"
  )
  func codable() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("trips.store")
    let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
    let context = ModelContext(container)
    let trip = ModelContextTests.sampleTrip()
    // An object no context holds has no identity to write.
    #expect(throws: EncodingError.self) { try JSONEncoder().encode(trip.persistentModelID) }
    context.insert(trip)
    let temporary = try JSONDecoder().decode(
      PersistentIdentifier.self, from: JSONEncoder().encode(trip.persistentModelID))
    #expect(temporary == trip.persistentModelID && temporary.isTemporary)
    #expect(context.model(for: temporary) as? Trip === trip)
    try context.save()
    let id = trip.persistentModelID
    let data = try JSONEncoder().encode([id])
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.hasPrefix("[\"x-coredata:\\/\\/") && text.hasSuffix("\\/Trip\\/p1\"]"))
    let decoded = try #require(
      try JSONDecoder().decode([PersistentIdentifier].self, from: data).first)
    #expect(decoded == id && decoded.hashValue == id.hashValue && Set([id, decoded]).count == 1)
    #expect(decoded.entityName == "Trip" && !decoded.isTemporary)
    #expect(context.model(for: decoded) as? Trip === trip)
    // Another container on the same file: its own object, equal identifiers.
    let other = ModelContext(
      try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
    let found: Trip? = other.existingModel(for: decoded)
    #expect(found?.name == "Alps" && found !== trip)
    #expect(found?.persistentModelID == id)
    // Text that is not an object URI is refused, naming it.
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(
        [PersistentIdentifier].self, from: Data(#"["x-coredata://S/Trip/q1"]"#.utf8))
    }
  }
}
