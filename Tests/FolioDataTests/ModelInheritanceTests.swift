import Folio
import FolioData
import FolioModel
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

@Model class Vehicle {
  var name: String
  var wheels: Int = 4
  var garage: Garage?

  init(name: String) { self.name = name }
}

@Model class Car: Vehicle {
  var seats: Int
  var plate: String?

  init(name: String, seats: Int) {
    self.seats = seats
    super.init(name: name)
  }
}

@Model final class SportsCar: Car {
  var topSpeed: Double = 250

  init(name: String, topSpeed: Double) {
    self.topSpeed = topSpeed
    super.init(name: name, seats: 2)
  }
}

@Model final class Garage {
  var city: String
  @Relationship(deleteRule: .cascade) var vehicles: [Vehicle] = []

  init(city: String) { self.city = city }
}

@Suite("@Model subclasses: subentities of their superclass's entity")
struct ModelInheritanceTests {
  @Test("a subclass is a subentity with its own properties; it inherits the rest")
  func entities() throws {
    let model = try Schema(SportsCar.self).managedObjectModel()
    // The superclasses, and what they refer to, come with the subclass.
    #expect(model.entities.map(\.name).sorted() == ["Car", "Garage", "SportsCar", "Vehicle"])
    let car = try #require(model.entity(named: "Car"))
    #expect(car.parentEntityName == "Vehicle")
    #expect(Set(car.attributes.map(\.name)) == ["plate", "seats"])
    let sports = try #require(model.entity(named: "SportsCar"))
    #expect(sports.parentEntityName == "Car")
    #expect(sports.attribute(named: "topSpeed")?.defaultValue == .double(250))
    let garage = try #require(model.entity(named: "Garage"))
    #expect(garage.relationship(named: "vehicles")?.inverseName == "garage")
    #expect(model.entity(named: "Vehicle")?.parentEntityName == nil)
  }

  @Test("the version hashes are those of the same hierarchy made in Xcode")
  func versionHashes() throws {
    let xcode = try ManagedObjectModel(
      contentsOf: FolioTestSupport.packageRoot.appendingPathComponent(
        "Tests/FolioDataTests/Fixtures/Garage.xcdatamodel"))
    let hashes = try Schema(Garage.self, SportsCar.self).managedObjectModel()
      .entityVersionHashesByName
    #expect(hashes == xcode.entityVersionHashesByName)
    #expect(hashes.count == 4)
  }

  @Test("values a subclass's initializer sets before super.init read back, detached and inserted")
  func initializerValues() throws {
    let fast = SportsCar(name: "Spider", topSpeed: 310)
    #expect(fast.name == "Spider" && fast.seats == 2 && fast.topSpeed == 310 && fast.wheels == 4)
    let car = Car(name: "Estate", seats: 5)
    car.seats = 7
    #expect(car.seats == 7)
    // Never read before insertion: the values still reach the context.
    let unread = SportsCar(name: "Coupe", topSpeed: 280)
    let container = try ModelContainer(
      for: Garage.self, SportsCar.self,
      configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = ModelContext(container)
    context.insert(unread)
    context.insert(car)
    #expect(unread.topSpeed == 280 && unread.seats == 2 && unread.name == "Coupe")
    let stored = try context.managedObjectContext.fetch(
      FetchRequest<ManagedObject>(entityName: "SportsCar"))
    #expect(try stored.first?.value(forKey: "topSpeed") as? Double == 280)
    #expect(car.seats == 7 && car.persistentModelID.entityName == "Car")
  }

  @Test(
    "objects of each class save, reopen as instances of their own class, and fetch by class",
    arguments: ["garage.store", "garage.xml", "garage.folio"])
  func saveAndFetch(file: String) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try Self.saveAndFetch(at: folder.appendingPathComponent(file))
  }

  @Test(
    "the same on a PostgreSQL document",
    .enabled(if: PostgresTestServer.isAvailable, "needs FOLIO_TEST_POSTGRES_URL"))
  func saveAndFetchOnServer() throws {
    let url = PostgresTestServer.document("folio_garage")
    defer { try? PostgresStore.dropSchema(at: url) }
    try Self.saveAndFetch(at: url)
  }

  /// Saves a garage with a vehicle of each class at `url`, then checks what a new container
  /// on it reads back.
  static func saveAndFetch(at url: URL) throws {
    do {
      let container = try ModelContainer(
        for: Garage.self, SportsCar.self, configurations: ModelConfiguration(url: url))
      let context = ModelContext(container)
      let garage = Garage(city: "Turin")
      let car = Car(name: "Estate", seats: 5)
      car.plate = "TO-123"
      // Held as its superclass: inserted as what it is.
      let held: Vehicle = SportsCar(name: "Spider", topSpeed: 310)
      garage.vehicles = [Vehicle(name: "Cart"), car, held]
      context.insert(garage)
      #expect(held.persistentModelID.entityName == "SportsCar")
      try context.save()
    }
    let container = try ModelContainer(
      for: Garage.self, SportsCar.self, configurations: ModelConfiguration(url: url))
    let context = ModelContext(container)
    let garage = try #require(try context.fetch(FetchDescriptor<Garage>()).first)
    let byName = Dictionary(uniqueKeysWithValues: garage.vehicles.map { ($0.name, $0) })
    #expect(type(of: try #require(byName["Cart"])) == Vehicle.self)
    let car = try #require(byName["Estate"] as? Car)
    #expect(type(of: car) == Car.self && car.seats == 5 && car.plate == "TO-123")
    let fast = try #require(byName["Spider"] as? SportsCar)
    #expect(fast.topSpeed == 310 && fast.seats == 2 && fast.garage === garage)
    // A fetch of a class includes its subclasses' objects, as the same instances.
    let vehicles = try context.fetch(FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.name)]))
    #expect(vehicles.map(\.name) == ["Cart", "Estate", "Spider"])
    #expect(vehicles[2] === fast)
    #expect(try context.fetch(FetchDescriptor<Car>()).count == 2)
    #expect(try context.fetch(FetchDescriptor<SportsCar>()).map(\.name) == ["Spider"])
    #expect(try context.fetchCount(FetchDescriptor<Vehicle>()) == 3)
  }

  @Test(
    "a predicate on a subclass over an inherited property is translated, and agrees with Foundation"
  )
  func inheritedPredicate() throws {
    let container = try ModelContainer(
      for: Garage.self, SportsCar.self,
      configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = ModelContext(container)
    var generator = SeededGenerator(seed: 11)
    for index in 0..<60 {
      let name = "v\(Int.random(in: 0..<20, using: &generator))"
      let vehicle: Vehicle =
        switch index % 3 {
        case 0: Vehicle(name: name)
        case 1: Car(name: name, seats: Int.random(in: 2...7, using: &generator))
        default: SportsCar(name: name, topSpeed: Double.random(in: 200...350, using: &generator))
        }
      vehicle.wheels = Int.random(in: 2...6, using: &generator)
      context.insert(vehicle)
    }
    let descriptor = FetchDescriptor<Car>(
      predicate: #Predicate {
        ($0.name == "v3" || $0.name.starts(with: "v1")) && $0.wheels > 3 && $0.seats < 5
      },
      sortBy: [SortDescriptor(\.wheels), SortDescriptor(\.name)])
    #expect(context.isTranslated(descriptor))
    let fetched = try context.fetch(descriptor)
    let cars = try context.fetch(FetchDescriptor<Car>())
    let predicate = try #require(descriptor.predicate)
    let expected = try cars.filter { try predicate.evaluate($0) }.sorted(using: descriptor.sortBy)
    #expect(fetched.map(\.persistentModelID) == expected.map(\.persistentModelID))
    #expect(!fetched.isEmpty)
    // A test of the class is left to Foundation, with the same answer.
    let sports = try context.fetch(
      FetchDescriptor<Vehicle>(predicate: #Predicate { $0 is SportsCar }))
    #expect(sports.count == 20 && sports.allSatisfy { $0 is SportsCar })
  }

  @Test("delete(model:) takes the subclasses' objects too, unless asked not to")
  func deleteByClass() throws {
    let container = try ModelContainer(
      for: Garage.self, SportsCar.self,
      configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = ModelContext(container)
    context.insert(Car(name: "Estate", seats: 5))
    context.insert(SportsCar(name: "Spider", topSpeed: 310))
    context.insert(Vehicle(name: "Cart"))
    try context.delete(model: Car.self, includeSubclasses: false)
    context.processPendingChanges()
    #expect(
      try context.fetch(FetchDescriptor<Vehicle>()).map(\.name).sorted() == ["Cart", "Spider"])
    try context.delete(model: Vehicle.self)
    context.processPendingChanges()
    #expect(try context.fetchCount(FetchDescriptor<Vehicle>()) == 0)
  }
}
