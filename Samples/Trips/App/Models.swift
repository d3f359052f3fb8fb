import FolioData  // With SwiftData: import SwiftData
import Foundation

/// How a trip is made: an enumeration with associated values, stored as a Codable value.
enum Transport: Codable, Equatable {
  case train(line: String)
  case flight(number: String)
  case car
}

@Model final class Person {
  @Attribute(.unique) var email: String
  var name: String
  var mentor: Person?
  @Relationship(inverse: \Person.mentor) var mentees: [Person] = []
  var trips: [Trip] = []

  init(email: String, name: String) {
    self.email = email
    self.name = name
  }
}

@Model class Trip {
  @Attribute(.unique) var code: String
  var name: String
  var start: Date
  var rating: Int?
  var transport: Transport
  @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
  @Relationship(inverse: \Person.trips) var travelers: [Person] = []

  var nights: Int { stops.reduce(0) { $0 + $1.nights } }

  init(code: String, name: String, start: Date, transport: Transport) {
    self.code = code
    self.name = name
    self.start = start
    self.transport = transport
  }
}

/// A trip made for work: a subclass, so a subentity of Trip. (SwiftData has model subclasses
/// from macOS 26 and iOS 26.)
@Model final class BusinessTrip: Trip {
  var company: String
  var perDiem: Double = 0

  init(code: String, name: String, start: Date, company: String) {
    self.company = company
    super.init(code: code, name: name, start: start, transport: .car)
  }
}

@Model final class Stop {
  var place: String
  var nights: Int
  var trip: Trip?

  init(place: String, nights: Int) {
    self.place = place
    self.nights = nights
  }
}

/// Adds stops to a trip in the background.
@ModelActor actor StopImporter {
  func addStops(toTrip code: String, places: [String]) throws -> Int {
    let matching = try modelContext.fetch(
      FetchDescriptor<Trip>(predicate: #Predicate { $0.code == code }))
    guard let trip = matching.first else { return 0 }
    for place in places { trip.stops.append(Stop(place: place, nights: 1)) }
    try modelContext.save()
    return trip.stops.count
  }
}
