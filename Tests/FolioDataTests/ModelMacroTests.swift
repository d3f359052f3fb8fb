import Folio
import FolioData
import FolioModel
import FolioTestSupport
import Foundation
import Testing

enum TripKind: String, Codable {
  case leisure, business
}

struct Fare: Codable, Hashable {
  var amount: Double
  var currency: String
}

@Model final class Trip {
  var name: String
  var start: Date
  var budget: Double?
  var kind: TripKind
  var notes: [String] = []
  var fare: Fare?
  @Attribute(.unique) var code: String
  @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
  var traveler: Traveler?
  @Transient var isExpanded = false
  var summary: String { "\(name) (\(stops.count) stops)" }

  init(name: String, code: String, start: Date, kind: TripKind = .leisure) {
    self.name = name
    self.code = code
    self.start = start
    self.kind = kind
  }
}

@Model final class Stop {
  var place: String
  var nights: Int = 1
  var trip: Trip?

  init(place: String, nights: Int = 1) {
    self.place = place
    self.nights = nights
  }
}

@Model final class Traveler {
  var name: String
  var trips: [Trip] = []
  @Relationship(inverse: \Traveler.friendOf) var friends: [Traveler] = []
  var friendOf: [Traveler] = []

  init(name: String) { self.name = name }
}

@Suite("@Model classes: the entities they make")
struct ModelMacroTests {
  static func model() throws -> ManagedObjectModel {
    try Schema(Trip.self).managedObjectModel()
  }

  @Test("stored properties become attributes of the types Core Data stores them as")
  func attributes() throws {
    let model = try Self.model()
    let trip = try #require(model.entity(named: "Trip"))
    let types = Dictionary(
      uniqueKeysWithValues: trip.attributes.map { ($0.name, $0.attributeType) })
    #expect(
      types == [
        "name": .string, "start": .date, "budget": .double, "kind": .string,
        "notes": .transformable, "fare": .transformable, "code": .string,
      ])
    let optional = Set(trip.attributes.filter(\.isOptional).map(\.name))
    #expect(optional == ["budget", "fare"])
    // Codable values are transformable, kept as their JSON, with their type named.
    let fare = try #require(trip.attribute(named: "fare"))
    #expect(fare.valueTransformerName == "FolioData.JSON" && fare.valueClassName == "Fare")
    #expect(trip.attribute(named: "notes")?.valueClassName == "Array<String>")
    #expect(trip.uniquenessConstraints == [["code"]])
    // Computed and transient properties are left alone.
    #expect(trip.property(named: "summary") == nil)
    #expect(trip.property(named: "isExpanded") == nil)
    let stop = try #require(model.entity(named: "Stop"))
    #expect(stop.attribute(named: "nights")?.attributeType == .integer64)
    #expect(stop.attribute(named: "nights")?.isOptional == false)
    // An initial value is the attribute's default, which a migration gives existing objects.
    #expect(stop.attribute(named: "nights")?.defaultValue == .integer(1))
    #expect(stop.attribute(named: "place")?.defaultValue == nil)
  }

  @Test("relationships: delete rules, to-many, and inverses named or inferred")
  func relationships() throws {
    let model = try Self.model()
    #expect(model.entities.map(\.name).sorted() == ["Stop", "Traveler", "Trip"])
    let trip = try #require(model.entity(named: "Trip"))
    let stops = try #require(trip.relationship(named: "stops"))
    #expect(stops.isToMany && stops.deleteRule == .cascade && stops.inverseName == "trip")
    #expect(stops.destinationEntityName == "Stop")
    // Inferred: Traveler has one relationship to Trip, and Trip one to Traveler.
    let traveler = try #require(trip.relationship(named: "traveler"))
    #expect(
      !traveler.isToMany && traveler.inverseName == "trips" && traveler.deleteRule == .nullify)
    let person = try #require(model.entity(named: "Traveler"))
    #expect(person.relationship(named: "trips")?.inverseName == "traveler")
    // A class's relationships to itself pair only when named.
    #expect(person.relationship(named: "friends")?.inverseName == "friendOf")
    #expect(person.relationship(named: "friendOf")?.inverseName == "friends")
  }

  @Test("the version hashes are those Core Data computes for the same model made in Xcode")
  func versionHashesOfXcodeModel() throws {
    // The model as Xcode's editor writes it (Fixtures/Trips.xcdatamodel), entity for entity.
    let xcode = try ManagedObjectModel(
      contentsOf: FolioTestSupport.packageRoot.appendingPathComponent(
        "Tests/FolioDataTests/Fixtures/Trips.xcdatamodel"))
    let hashes = try Self.model().entityVersionHashesByName
    #expect(hashes == xcode.entityVersionHashesByName)
    #expect(hashes.count == 3)
  }

  @Test("the version hashes are those of the same model written out entity by entity")
  func versionHashes() throws {
    let written = try ManagedObjectModel {
      EntityDescription("Trip") {
        AttributeDescription("name", .string, isOptional: false)
        AttributeDescription("start", .date, isOptional: false)
        AttributeDescription("budget", .double)
        AttributeDescription("kind", .string, isOptional: false)
        AttributeDescription("notes", .transformable, isOptional: false)
        AttributeDescription("fare", .transformable)
        AttributeDescription("code", .string, isOptional: false)
        RelationshipDescription(
          "stops", to: "Stop", inverse: "trip", toMany: true, isOptional: false,
          deleteRule: .cascade)
        RelationshipDescription("traveler", to: "Traveler", inverse: "trips")
        UniquenessConstraint("code")
      }
      EntityDescription("Stop") {
        AttributeDescription("place", .string, isOptional: false)
        AttributeDescription("nights", .integer64, isOptional: false)
        RelationshipDescription("trip", to: "Trip", inverse: "stops")
      }
      EntityDescription("Traveler") {
        AttributeDescription("name", .string, isOptional: false)
        RelationshipDescription(
          "trips", to: "Trip", inverse: "traveler", toMany: true, isOptional: false)
        RelationshipDescription(
          "friends", to: "Traveler", inverse: "friendOf", toMany: true, isOptional: false)
        RelationshipDescription(
          "friendOf", to: "Traveler", inverse: "friends", toMany: true, isOptional: false)
      }
    }
    #expect(try Self.model().entityVersionHashesByName == written.entityVersionHashesByName)
  }
}

@Model final class ClubMember {
  #Unique<ClubMember>([\.email], [\.firstName, \.lastName])
  #Index<ClubMember>([\.lastName], [\.joined, \.lastName])
  var email: String
  var firstName: String
  var lastName: String
  var joined: Date

  init(email: String, firstName: String, lastName: String, joined: Date) {
    self.email = email
    self.firstName = firstName
    self.lastName = lastName
    self.joined = joined
  }
}

@Suite("#Unique and #Index")
struct ConstraintMacroTests {
  @Test("#Unique groups become uniqueness constraints, #Index groups fetch indexes")
  func entity() throws {
    let entity = try #require(
      try Schema(ClubMember.self).managedObjectModel().entity(named: "ClubMember"))
    #expect(entity.uniquenessConstraints == [["email"], ["firstName", "lastName"]])
    #expect(
      entity.fetchIndexes.map { $0.elements.compactMap(\.propertyName) } == [
        ["lastName"], ["joined", "lastName"],
      ])
  }

  @Test("an object inserted with a saved one's unique pair of values updates it")
  func compoundUpsert() throws {
    let container = try ModelContainer(
      for: ClubMember.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = ModelContext(container)
    let day = Date(timeIntervalSinceReferenceDate: 0)
    context.insert(
      ClubMember(email: "ada@a.org", firstName: "Ada", lastName: "Lovelace", joined: day))
    try context.save()
    context.insert(
      ClubMember(email: "ada@b.org", firstName: "Ada", lastName: "Lovelace", joined: day))
    context.insert(ClubMember(email: "ada@c.org", firstName: "Ada", lastName: "Byron", joined: day))
    try context.save()
    var emails: [String] = []
    try context.enumerate(FetchDescriptor<ClubMember>(sortBy: [SortDescriptor(\.email)])) {
      emails.append($0.email)
    }
    #expect(emails == ["ada@b.org", "ada@c.org"])
  }
}

/// A value no attribute holds: neither one of Folio's value types nor Codable.
struct Opaque {
  var handle: Int
}

@Model final class Holder {
  var name: String
  var opaque: Opaque
  init(name: String, opaque: Opaque) {
    self.name = name
    self.opaque = opaque
  }
}

@Model final class Shelf {
  var label: String
  @Relationship(inverse: \Volume.title) var volumes: [Volume] = []
  init(label: String) { self.label = label }
}

@Model final class Volume {
  var title: String
  var shelf: Shelf?
  init(title: String) { self.title = title }
}

@Suite("Classes that make no model")
struct SchemaErrorTests {
  @Test("a property of a type no attribute holds is named, with its type")
  func unsupportedType() {
    #expect {
      _ = try Schema(Holder.self).managedObjectModel()
    } throws: { error in
      "\(error)".contains("Holder.opaque is a Opaque, which no attribute holds")
    }
    #expect(throws: SchemaError.self) {
      _ = try ModelContainer(
        for: Holder.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }
  }

  @Test("an inverse that is not a relationship back is named")
  func inverseNotARelationship() {
    #expect {
      _ = try Schema(Shelf.self).managedObjectModel()
    } throws: { error in
      "\(error)".contains("Shelf.volumes's inverse is not a relationship of Volume")
    }
  }

  @Test("registeredModel finds a saved object of the context, and nothing for an unsaved one")
  func registeredModel() throws {
    let container = try ModelContainer(
      for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = ModelContext(container)
    let stop = Stop(place: "Chamonix")
    context.insert(stop)
    try context.save()
    let found: Stop? = context.registeredModel(for: stop.persistentModelID)
    #expect(found === stop)
    let other = ModelContext(container)
    let unsaved = Stop(place: "Zermatt")
    other.insert(unsaved)
    let missing: Stop? = context.registeredModel(for: unsaved.persistentModelID)
    #expect(missing == nil)
  }
}
