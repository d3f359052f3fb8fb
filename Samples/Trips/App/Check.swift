import FolioData  // With SwiftData: import SwiftData
import Foundation

// `check`: builds a small travel log, checks what it reads back at each step, and leaves the
// store at the path it is given, which `folio info` opens without a model.

@MainActor var failures = 0

@MainActor func check(_ condition: Bool, _ what: String) {
  print(condition ? "ok      \(what)" : "FAILED  \(what)")
  if !condition { failures += 1 }
}

private let day: TimeInterval = 86_400
private let start = Date(timeIntervalSinceReferenceDate: 820_000_000)

/// Runs every check on a new store at `url`; returns how many failed.
@MainActor func runChecks(at url: URL) async throws -> Int {
  for suffix in ["", "-wal", "-shm"] {
    try? FileManager.default.removeItem(atPath: url.path + suffix)
  }
  failures = 0
  try await buildAndCheck(at: url)
  try reopenAndCheck(at: url)
  return failures
}

@MainActor private func buildAndCheck(at url: URL) async throws {
  let container = try ModelContainer(
    for: Trip.self, BusinessTrip.self, Person.self, configurations: ModelConfiguration(url: url))
  let context = container.mainContext
  context.undoManager = UndoManager()

  // People: a self-relationship (mentor, mentees).
  let ada = Person(email: "ada@example.com", name: "Ada")
  let grace = Person(email: "grace@example.com", name: "Grace")
  grace.mentor = ada
  context.insert(grace)  // Ada comes with her
  check(ada.mentees.map(\.name) == ["Grace"], "a mentor's mentees follow the mentor")

  // Trips: a many-to-many relationship (travelers, trips), a Codable enumeration, cascade.
  let alps = Trip(code: "ALP", name: "Alps", start: start, transport: .train(line: "TGV Lyria"))
  alps.rating = 5
  alps.stops = [Stop(place: "Chamonix", nights: 3), Stop(place: "Zermatt", nights: 2)]
  alps.travelers = [ada, grace]
  let coast = Trip(
    code: "CST", name: "Atlantic coast", start: start + 40 * day, transport: .car)
  coast.stops = [Stop(place: "Biarritz", nights: 4)]
  coast.travelers = [grace]
  let fjords = Trip(
    code: "FJD", name: "Fjords", start: start + 90 * day, transport: .flight(number: "SK 4711"))
  context.insert(alps)
  context.insert(coast)
  context.insert(fjords)
  try context.save()
  check(grace.trips.count == 2 && ada.trips.map(\.code) == ["ALP"], "travelers' trips follow")

  // Fetches with #Predicate: contains, comparisons, optionals, relationships.
  let named = try context.fetch(
    FetchDescriptor<Trip>(predicate: #Predicate { $0.name.contains("o") }))
  check(Set(named.map(\.code)) == ["CST", "FJD"], "name contains \"o\"")
  let cutoff = start + 60 * day
  let soon = try context.fetch(
    FetchDescriptor<Trip>(
      predicate: #Predicate { $0.start < cutoff }, sortBy: [SortDescriptor(\.start)]))
  check(soon.map(\.code) == ["ALP", "CST"], "trips starting before a date, in order")
  // A forced unwrap after a test for nil, as predicates write one.
  // swift-format-ignore: NeverForceUnwrap
  let rated = try context.fetch(
    FetchDescriptor<Trip>(predicate: #Predicate { $0.rating != nil && $0.rating! >= 4 }))
  check(rated.map(\.code) == ["ALP"], "an optional compared when present")
  let unrated = try context.fetchCount(
    FetchDescriptor<Trip>(predicate: #Predicate { $0.rating == nil }))
  check(unrated == 2, "an optional that is empty")
  let inAlps = try context.fetch(
    FetchDescriptor<Stop>(
      predicate: #Predicate { $0.trip?.code == "ALP" }, sortBy: [SortDescriptor(\.place)]))
  check(inAlps.map(\.place) == ["Chamonix", "Zermatt"], "through a to-one relationship")
  let withAda = try context.fetch(
    FetchDescriptor<Trip>(predicate: #Predicate { $0.travelers.contains { $0.name == "Ada" } }))
  check(withAda.map(\.code) == ["ALP"], "through a to-many relationship")
  let long = try context.fetch(
    FetchDescriptor<Trip>(
      predicate: #Predicate { $0.stops.count >= 1 }, sortBy: [SortDescriptor(\.code)]))
  check(long.map(\.code) == ["ALP", "CST"], "a to-many relationship's count")
  check(alps.transport == .train(line: "TGV Lyria"), "a Codable enumeration reads back")

  // Upsert: a person inserted with a saved person's unique email updates that person.
  context.insert(Person(email: "ada@example.com", name: "Ada Lovelace"))
  try context.save()
  let people = try context.fetch(FetchDescriptor<Person>(sortBy: [SortDescriptor(\.email)]))
  check(people.map(\.name) == ["Ada Lovelace", "Grace"], "a unique email inserted again updates")

  // Undo.
  alps.name = "Alps and lakes"
  context.undoManager?.undo()
  check(alps.name == "Alps", "undo puts a changed name back")
  context.undoManager?.redo()
  check(alps.name == "Alps and lakes", "redo changes it again")
  try context.save()

  // A background actor adds stops; the main context sees them.
  let importer = StopImporter(modelContainer: container)
  let count = try await importer.addStops(toTrip: "FJD", places: ["Bergen", "Flåm", "Ålesund"])
  check(count == 3, "the actor added three stops")
  let fjordStops = try context.fetchCount(
    FetchDescriptor<Stop>(predicate: #Predicate { $0.trip?.code == "FJD" }))
  check(fjordStops == 3 && fjords.stops.count == 3, "the main context merged the actor's save")

  // Cascade: deleting a trip deletes its stops.
  context.delete(coast)
  try context.save()
  check(try context.fetchCount(FetchDescriptor<Stop>()) == 5, "a deleted trip's stops are gone")
  check(grace.trips.map(\.code) == ["ALP"], "and it left its travelers")

  // A subclass: its objects are trips too.
  let visit = BusinessTrip(
    code: "WRK", name: "Client visit", start: start + 10 * day, company: "Acme")
  visit.perDiem = 80
  visit.travelers = [ada]
  context.insert(visit)
  try context.save()
  let allTrips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.code)]))
  check(allTrips.map(\.code) == ["ALP", "FJD", "WRK"], "a fetch of trips includes business trips")
  let paid = try context.fetch(
    FetchDescriptor<BusinessTrip>(predicate: #Predicate { $0.perDiem > 50 && $0.name != "" }))
  check(paid.map(\.company) == ["Acme"], "a business trip's own and inherited properties")
}

@MainActor private func reopenAndCheck(at url: URL) throws {
  let container = try ModelContainer(
    for: Trip.self, BusinessTrip.self, Person.self, configurations: ModelConfiguration(url: url))
  let context = ModelContext(container)
  let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.code)]))
  check(trips.map(\.code) == ["ALP", "FJD", "WRK"], "reopened: the trips")
  check(
    (trips.last as? BusinessTrip)?.company == "Acme" && trips.last?.travelers.count == 1,
    "reopened: a business trip, as one")
  check(trips.first?.name == "Alps and lakes" && trips.first?.nights == 5, "reopened: values")
  check(trips[1].transport == .flight(number: "SK 4711"), "reopened: a Codable value")
  let grace = try context.fetch(
    FetchDescriptor<Person>(predicate: #Predicate { $0.name == "Grace" })
  ).first
  check(grace?.mentor?.name == "Ada Lovelace", "reopened: the self-relationship")
}
