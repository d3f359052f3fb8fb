import ArgumentParser
import FolioData  // With SwiftData: import SwiftData
import Foundation

/// `trips`: a travel log kept in a store through the model classes of `Models.swift`.
@main struct Trips: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "trips",
    abstract: "A travel log, kept with SwiftData's API on Folio.",
    subcommands: [Check.self, AddTrip.self, AddStop.self, Join.self, List.self, Remove.self],
    defaultSubcommand: Check.self)
}

/// The store a command works on.
struct StoreOptions: ParsableArguments {
  @Option(
    name: .shortAndLong,
    help: "The store: SQLite, or XML or Folio's binary format by its extension (.xml, .folio).")
  var store = "trips.store"

  func context() throws -> ModelContext {
    let container = try ModelContainer(
      for: Trip.self, BusinessTrip.self, Person.self,
      configurations: ModelConfiguration(url: URL(fileURLWithPath: store)))
    return ModelContext(container)
  }
}

/// Why a command did nothing.
struct TripsError: Error, CustomStringConvertible {
  let description: String
}

/// A day, written `YYYY-MM-DD`, at midnight UTC.
struct Day: ExpressibleByArgument {
  let date: Date

  init?(argument: String) {
    let parts = argument.split(separator: "-").map { Int($0) }
    guard parts.count == 3, let year = parts[0], let month = parts[1], let day = parts[2] else {
      return nil
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
    let components = DateComponents(year: year, month: month, day: day)
    guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else {
      return nil
    }
    self.date = date
  }

  static func text(_ date: Date) -> String {
    date.formatted(
      Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC") ?? .current).year().month()
        .day())
  }
}

extension Transport: ExpressibleByArgument {
  init?(argument: String) {
    let parts = argument.split(separator: ":", maxSplits: 1).map(String.init)
    switch (parts.first, parts.count) {
    case ("car", 1): self = .car
    case ("train", 2): self = .train(line: parts[1])
    case ("flight", 2): self = .flight(number: parts[1])
    default: return nil
    }
  }

  var text: String {
    switch self {
    case .car: "car"
    case .train(let line): "train \(line)"
    case .flight(let number): "flight \(number)"
    }
  }
}

/// `count` and the noun, plural unless one: "1 stop", "2 stops".
func counted(_ count: Int, _ noun: String) -> String {
  "\(count) \(noun)\(count == 1 ? "" : "s")"
}

/// The trip with `code`, or an error naming the code.
func trip(_ code: String, in context: ModelContext) throws -> Trip {
  let found = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.code == code }))
  guard let trip = found.first else {
    throw TripsError(description: "no trip has the code \(code)")
  }
  return trip
}

struct Check: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Build a sample log in a new store, checking every step (the store is replaced).")

  @Argument(help: "The store to write.") var path = "trips.store"

  func run() async throws {
    let url = URL(fileURLWithPath: path)
    let failed = try await runChecks(at: url)
    print(failed == 0 ? "all checks passed; the store is \(url.path)" : "\(failed) checks failed")
    if failed > 0 { throw ExitCode.failure }
  }
}

struct AddTrip: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add-trip",
    abstract: "Add a trip, or update the one with the same code.")

  @OptionGroup var options: StoreOptions
  @Argument(help: "A code of your own, unique.") var code: String
  @Argument var name: String
  @Option(help: "The first day, YYYY-MM-DD.") var start: Day
  @Option(help: "car, train:LINE or flight:NUMBER.") var transport = Transport.car
  @Option(help: "For a business trip: the company visited.") var company: String?
  @Option(help: "For a business trip: the daily allowance.") var perDiem: Double?

  func validate() throws {
    if perDiem != nil, company == nil {
      throw ValidationError("--per-diem is for a business trip: give --company too")
    }
  }

  func run() throws {
    let context = try options.context()
    let existing = try? trip(code, in: context)
    let trip: Trip
    if let company {
      let business = BusinessTrip(code: code, name: name, start: start.date, company: company)
      business.perDiem = perDiem ?? 0
      trip = business
    } else {
      trip = Trip(code: code, name: name, start: start.date, transport: transport)
    }
    trip.transport = transport
    // The code is unique: a trip inserted with a saved trip's code updates that trip.
    context.insert(trip)
    try context.save()
    print("\(existing == nil ? "added" : "updated") trip \(code)")
  }
}

struct AddStop: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add-stop", abstract: "Add a stop to a trip.")

  @OptionGroup var options: StoreOptions
  @Argument var code: String
  @Argument var place: String
  @Option var nights = 1

  func validate() throws {
    guard nights >= 0 else { throw ValidationError("--nights must be 0 or more, not \(nights)") }
  }

  func run() throws {
    let context = try options.context()
    let trip = try trip(code, in: context)
    trip.stops.append(Stop(place: place, nights: nights))
    try context.save()
    print("trip \(code) has \(counted(trip.stops.count, "stop")), \(counted(trip.nights, "night"))")
  }
}

struct Join: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Add a traveler to a trip, by email (a new email adds a person).")

  @OptionGroup var options: StoreOptions
  @Argument var code: String
  @Argument var email: String
  @Option(help: "The person's name, when the email is new.") var name: String?

  func run() throws {
    let context = try options.context()
    let trip = try trip(code, in: context)
    let known = try context.fetch(
      FetchDescriptor<Person>(predicate: #Predicate { $0.email == email }))
    let person: Person
    if let first = known.first {
      person = first
    } else {
      guard let name else { throw TripsError(description: "\(email) is new: give --name") }
      person = Person(email: email, name: name)
    }
    if !trip.travelers.contains(person) { trip.travelers.append(person) }
    try context.save()
    print(
      "\(person.name) travels on trip \(code), with \(counted(trip.travelers.count, "traveler"))")
  }
}

struct List: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "List the trips, by first day.")

  @OptionGroup var options: StoreOptions
  @Option(help: "Only trips whose name contains this.") var search: String?
  @Option(help: "Only trips starting before this day, YYYY-MM-DD.") var before: Day?
  @Option(help: "Only trips this person (by email) takes.") var traveler: String?

  func run() throws {
    let context = try options.context()
    let search = self.search ?? ""
    let cutoff = before?.date ?? .distantFuture
    let email = traveler ?? ""
    let trips = try context.fetch(
      FetchDescriptor<Trip>(
        predicate: #Predicate { trip in
          (search == "" || trip.name.contains(search)) && trip.start < cutoff
            && (email == "" || trip.travelers.contains { $0.email == email })
        },
        sortBy: [SortDescriptor(\.start), SortDescriptor(\.code)]))
    for trip in trips {
      var line = "\(trip.code)  \(Day.text(trip.start))  \(trip.name)  (\(trip.transport.text))"
      if let business = trip as? BusinessTrip {
        let amount = business.perDiem.formatted(.number.locale(Locale(identifier: "en_US")))
        line += "  for \(business.company), \(amount) a day"
      }
      print(line)
      let stops = trip.stops.sorted { $0.place < $1.place }
      if !stops.isEmpty {
        print("    stops: " + stops.map { "\($0.place) (\($0.nights))" }.joined(separator: ", "))
      }
      let travelers = trip.travelers.map(\.name).sorted()
      if !travelers.isEmpty { print("    travelers: " + travelers.joined(separator: ", ")) }
    }
    print(counted(trips.count, "trip"))
  }
}

struct Remove: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Remove a trip and its stops.")

  @OptionGroup var options: StoreOptions
  @Argument var code: String

  func run() throws {
    let context = try options.context()
    let trip = try trip(code, in: context)
    let stops = trip.stops.count
    // The stops go with it: their relationship's delete rule is cascade.
    context.delete(trip)
    try context.save()
    print("removed trip \(code) and its \(counted(stops, "stop"))")
  }
}
