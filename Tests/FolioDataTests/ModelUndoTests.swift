import FolioData
import FolioTestSupport
import Foundation
import Observation
import Testing

@Suite("@Model objects: undo and observation")
struct ModelUndoTests {
  static let day = Date(timeIntervalSinceReferenceDate: 800_000_000)

  @Test("with an undo manager set, as SwiftData code sets one, changes undo and redo")
  func undoAndRedo() throws {
    let container = try ModelContainer(
      for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = ModelContext(container)
    context.undoManager = UndoManager()
    let trip = Trip(name: "Alps", code: "A1", start: Self.day)
    context.insert(trip)
    context.undoManager?.undo()
    #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 0)
    context.undoManager?.redo()
    #expect(try context.fetch(FetchDescriptor<Trip>()).map(\.name) == ["Alps"])
    try context.save()
    trip.name = "Pyrenees"
    trip.stops.append(Stop(place: "Gavarnie"))
    context.undoManager?.undo()
    #expect(trip.name == "Alps" && trip.stops.isEmpty)
    context.undoManager?.redo()
    #expect(trip.name == "Pyrenees" && trip.stops.map(\.place) == ["Gavarnie"])
  }

  @Test("reading a property inside withObservationTracking is tracked; a change notifies")
  @MainActor
  func observation() throws {
    let container = try ModelContainer(
      for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = container.mainContext
    #expect(context.tracksObservation)
    let trip = Trip(name: "Alps", code: "A1", start: Self.day)
    context.insert(trip)
    let stop = Stop(place: "Chamonix")
    context.insert(stop)
    final class Flag: @unchecked Sendable { var raised = 0 }
    let flag = Flag()
    withObservationTracking {
      _ = trip.name
      _ = trip.stops.count
    } onChange: {
      flag.raised += 1
    }
    trip.budget = 10  // not read: no notification
    #expect(flag.raised == 0)
    stop.trip = trip  // the inverse, trip.stops, changes
    #expect(flag.raised == 1)
    withObservationTracking {
      _ = trip.name
    } onChange: {
      flag.raised += 1
    }
    trip.name = "Pyrenees"
    #expect(flag.raised == 2)
  }

  @Test("an object no context holds is observed too, and its insertion notifies")
  @MainActor
  func detachedObservation() throws {
    final class Flag: @unchecked Sendable { var raised = 0 }
    let flag = Flag()
    let trip = Trip(name: "Alps", code: "A1", start: Self.day)
    func track() {
      withObservationTracking {
        _ = trip.budget  // never set: tracked all the same
      } onChange: {
        flag.raised += 1
      }
    }
    track()
    trip.budget = 900
    #expect(flag.raised == 1)
    track()
    trip.stops.append(Stop(place: "Chamonix"))
    #expect(flag.raised == 2)
    // Inserted: the observers hear of it, and from then on the context notifies them.
    let container = try ModelContainer(
      for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    track()
    container.mainContext.insert(trip)
    #expect(flag.raised == 3)
    track()
    trip.budget = 950
    #expect(flag.raised == 4)
    // A subclass's own properties, detached, as well.
    let car = Car(name: "Estate", seats: 5)
    withObservationTracking {
      _ = car.seats
    } onChange: {
      flag.raised += 1
    }
    car.seats = 7
    #expect(flag.raised == 5)
  }
}

@Suite("autosave")
struct AutosaveTests {
  @Test("the main context saves at the main actor's next turn after a change; others do not")
  @MainActor
  func mainContextAutosaves() async throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("trips.store")
    let container = try ModelContainer(
      for: Trip.self, configurations: ModelConfiguration(url: url))
    let main = container.mainContext
    #expect(main.autosaveEnabled)
    let trip = Trip(name: "Alps", code: "A1", start: .now)
    main.insert(trip)
    #expect(main.hasChanges)
    await Task.yield()
    #expect(!main.hasChanges && main.autosaveProblem == nil)
    trip.name = "Alps, renamed"
    await Task.yield()
    #expect(!main.hasChanges)
    // Another context holds its changes until it saves.
    let other = ModelContext(container)
    #expect(!other.autosaveEnabled)
    other.insert(Trip(name: "Coast", code: "C1", start: .now))
    await Task.yield()
    #expect(other.hasChanges)
    // What reached the file: a new container reads both of the main context's changes.
    let reread = ModelContext(
      try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
    #expect(try reread.fetch(FetchDescriptor<Trip>()).map(\.name) == ["Alps, renamed"])
  }
}
