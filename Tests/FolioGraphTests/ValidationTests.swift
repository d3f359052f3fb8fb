import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

@Suite("Validation")
struct ValidationTests {
  /// A saved, valid graph: a company with one employee holding a badge, and a project.
  func validGraph() throws -> (ManagedObjectContext, ManagedObject, ManagedObject, ManagedObject) {
    let context = try makeContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    let ada = try context.insertNewObject(forEntityName: "Employee")
    try ada.setValue(acme, forKey: "company")
    let badge = try context.insertNewObject(forEntityName: "Badge")
    try badge.setValue("ABC-12", forKey: "code")
    try ada.setValue(badge, forKey: "badge")
    let bob = try context.insertNewObject(forEntityName: "Employee")
    try bob.setValue(acme, forKey: "company")
    let apollo = try context.insertNewObject(forEntityName: "Project")
    try apollo.setValue(Set([ada, bob]), forKey: "members")
    try context.save()
    return (context, ada, badge, apollo)
  }

  struct RuleCase: CustomTestStringConvertible, Sendable {
    var id: String
    var rule: ValidationFailure.Rule
    var key: String
    var message: String
    var edit:
      @Sendable (ManagedObjectContext, ManagedObject, ManagedObject, ManagedObject) throws -> Void
    var testDescription: String { id }
  }

  static let rules: [RuleCase] = [
    RuleCase(
      id: "required attribute", rule: .required, key: "lastName", message: "a value is required"
    ) {
      _, ada, _, _ in try ada.setValue(nil, forKey: "lastName")
    },
    RuleCase(
      id: "minimum value", rule: .minimumValue, key: "age",
      message: "15 is less than the minimum 16"
    ) {
      _, ada, _, _ in try ada.setValue(15, forKey: "age")
    },
    RuleCase(
      id: "maximum value", rule: .maximumValue, key: "age",
      message: "100 is greater than the maximum 99"
    ) {
      _, ada, _, _ in try ada.setValue(100, forKey: "age")
    },
    RuleCase(
      id: "decimal minimum", rule: .minimumValue, key: "salary",
      message: "-1 is less than the minimum 0"
    ) {
      _, ada, _, _ in try ada.setValue(Decimal(-1), forKey: "salary")
    },
    RuleCase(
      id: "minimum length", rule: .minimumLength, key: "code",
      message: "length 4 is less than the minimum 5"
    ) {
      _, _, badge, _ in try badge.setValue("AB-1", forKey: "code")
    },
    RuleCase(
      id: "maximum length", rule: .maximumLength, key: "code",
      message: "length 9 is greater than the maximum 8"
    ) {
      _, _, badge, _ in try badge.setValue("ABC-12345", forKey: "code")
    },
    RuleCase(
      id: "pattern", rule: .pattern, key: "code", message: "does not match /[A-Z]{3}-[0-9]+/"
    ) {
      _, _, badge, _ in try badge.setValue("abc-12", forKey: "code")
    },
    RuleCase(
      id: "minimum count", rule: .minimumCount, key: "members",
      message: "1 related object, fewer than the minimum 2"
    ) {
      _, ada, _, apollo in try apollo.remove(ada, fromKey: "members")
    },
    RuleCase(
      id: "maximum count", rule: .maximumCount, key: "members",
      message: "4 related objects, more than the maximum 3"
    ) {
      context, _, _, apollo in
      for _ in 0..<2 {
        try apollo.add(try context.insertNewObject(forEntityName: "Employee"), toKey: "members")
      }
    },
    RuleCase(id: "required to-one", rule: .required, key: "name", message: "a value is required") {
      context, _, _, _ in _ = try context.insertNewObject(forEntityName: "Company")
    },
    RuleCase(
      id: "uniqueness", rule: .uniqueness, key: "name", message: "another Company has the same name"
    ) {
      context, _, _, _ in
      let copy = try context.insertNewObject(forEntityName: "Company")
      try copy.setValue("Acme", forKey: "name")
    },
  ]

  @Test("each model constraint fails the save with its rule, key and message", arguments: rules)
  func rule(_ rule: RuleCase) throws {
    let (context, ada, badge, apollo) = try validGraph()
    try rule.edit(context, ada, badge, apollo)
    let error = try #require(graphError { try context.save() })
    #expect(error.code == .validation)
    let failure = try #require(error.failures.first { $0.rule == rule.rule })
    #expect(failure.key == rule.key)
    // A uniqueness failure goes on to name the objects it shares its values with.
    #expect(
      failure.message == rule.message || failure.message.hasPrefix(rule.message + " (x-coredata://")
    )
  }

  @Test("a required to-many may be empty when its minimum is 0, as in Core Data; its minimum holds")
  func requiredToManyCounts() throws {
    var team = RelationshipDescription("team", to: "Person", inverse: "crew", toMany: true)
    team.isOptional = false
    team.minCount = 2
    var extras = RelationshipDescription("extras", to: "Person", inverse: "guest", toMany: true)
    extras.minCount = 2
    var next = RelationshipDescription("next", to: "Plan", inverse: "previous", toMany: true)
    next.isOptional = false
    let model = try ManagedObjectModel {
      EntityDescription("Plan") {
        next
        RelationshipDescription("previous", to: "Plan", inverse: "next")
        team
        extras
      }
      EntityDescription("Person") {
        RelationshipDescription("crew", to: "Plan", inverse: "team")
        RelationshipDescription("guest", to: "Plan", inverse: "extras")
      }
    }
    let context = ManagedObjectContext(model: model)
    let plan = try context.insertNewObject(forEntityName: "Plan")
    // `next` (required, minimum 0) and `extras` (optional, minimum 2) may stay empty; `team`
    // (required, minimum 2) may not.
    let error = try #require(graphError { try context.save() })
    #expect(error.failures.map(\.key) == ["team"])
    #expect(error.failures.first?.rule == .minimumCount)
    #expect(error.failures.first?.message == "0 related objects, fewer than the minimum 2")
    for _ in 0..<2 {
      try plan.add(try context.insertNewObject(forEntityName: "Person"), toKey: "team")
    }
    try context.save()
  }

  @Test("every failure is collected in one error, and a failed save changes nothing")
  func collected() throws {
    let (context, ada, badge, _) = try validGraph()
    try ada.setValue(nil, forKey: "lastName")
    try ada.setValue(120, forKey: "age")
    try badge.setValue("nope", forKey: "code")
    let stranger = try context.insertNewObject(forEntityName: "Company")
    let error = try #require(graphError { try context.save() })
    #expect(error.code == .validation)
    #expect(
      error.failures.map(\.rule) == [.required, .maximumValue, .minimumLength, .pattern, .required])
    #expect(error.message == "the changes do not validate (5 failures)")
    #expect(
      error.failures[0].description
        == "Employee.lastName (\(ada.objectID)): a value is required")
    #expect(error.failures[1].value == "120")
    #expect(context.hasChanges)
    #expect(stranger.isInserted && stranger.objectID.isTemporaryID)
    #expect(context.updatedObjects == [ada, badge])
    #expect(ada.changedValues()["age"] as? Int == 120)
  }

  @Test("a date's minimum and maximum are checked, as Xcode's minDateTimeInterval writes them")
  func dateBounds() throws {
    var hired = AttributeDescription("hired", .date)
    hired.minimumValue = .date(Date(timeIntervalSinceReferenceDate: 0))
    hired.maximumValue = .date(Date(timeIntervalSinceReferenceDate: 86_400))
    let model = try ManagedObjectModel { EntityDescription("Contract") { hired } }
    let context = ManagedObjectContext(model: model)
    let contract = try context.insertNewObject(forEntityName: "Contract")
    try contract.setValue(Date(timeIntervalSinceReferenceDate: 3_600), forKey: "hired")
    try context.validate()
    try contract.setValue(Date(timeIntervalSinceReferenceDate: -1), forKey: "hired")
    var error = try #require(graphError { try context.validate() })
    #expect(error.failures.map(\.rule) == [.minimumValue])
    try contract.setValue(Date(timeIntervalSinceReferenceDate: 86_401), forKey: "hired")
    error = try #require(graphError { try context.save() })
    #expect(error.failures.map(\.rule) == [.maximumValue])
    #expect(error.failures.map(\.key) == ["hired"])
  }

  @Test("validate() reports without saving; validateValue checks a value before it is set")
  func onDemand() throws {
    let (context, ada, badge, _) = try validGraph()
    try ada.setValue(10, forKey: "age")
    #expect(graphError { try context.validate() }?.failures.map(\.rule) == [.minimumValue])
    #expect(context.hasChanges)
    let error = try #require(graphError { try badge.validateValue("zz", forKey: "code") })
    #expect(error.failures.map(\.rule) == [.minimumLength, .pattern])
    #expect(try badge.value(forKey: "code", as: String.self) == "ABC-12")
    try badge.validateValue("XYZ-9", forKey: "code")
    #expect(graphError { try ada.validateForUpdate() }?.failures.map(\.key) == ["age"])
  }

  @Test("app rules: per property, and whole-object on insert, update and delete")
  func appRules() throws {
    let (context, ada, _, apollo) = try validGraph()
    context.validationRules.add(forEntity: "Person", key: "lastName") { _, value in
      (value as? String)?.first?.isUppercase == false ? "must start with a capital letter" : nil
    }
    context.validationRules.add(forEntity: "Employee", on: .update) { employee in
      (try? employee.value(forKey: "nickname")) as? String == "boss" ? "nobody is called boss" : nil
    }
    context.validationRules.add(forEntity: "Project", on: .insert) { project in
      (try? project.value(forKey: "title")) == nil ? "a new project needs a title" : nil
    }
    context.validationRules.add(forEntity: "Project", on: .delete) { _ in
      "projects are archived, not deleted"
    }
    try ada.setValue("lovelace", forKey: "lastName")
    try ada.setValue("boss", forKey: "nickname")
    let draft = try context.insertNewObject(forEntityName: "Project")
    try draft.setValue(try apollo.value(forKey: "members"), forKey: "members")
    try context.delete(apollo)
    let error = try #require(graphError { try context.save() })
    let messages = error.failures.filter { $0.rule == .custom }.map(\.message)
    #expect(
      messages == [
        "must start with a capital letter", "nobody is called boss", "a new project needs a title",
        "projects are archived, not deleted",
      ])
    #expect(error.failures.first { $0.rule == .custom }?.key == "lastName")
  }

  @Test("a successful save gives new objects permanent IDs and clears the change sets")
  func save() throws {
    let context = try makeContext()
    let track = try context.insertNewObject(forEntityName: "Track")
    let temporary = track.objectID
    #expect(temporary.isTemporaryID)
    try context.save()
    #expect(!track.objectID.isTemporaryID)
    #expect(!context.hasChanges && !track.isInserted)
    #expect(context.object(with: temporary) === track)
    #expect(context.object(with: track.objectID) === track)
  }
}

@Suite("Object IDs and URIs")
struct IdentityTests {
  @Test("temporary and permanent IDs round-trip through their URIs")
  func roundTrip() throws {
    let context = try makeContext()
    let track = try context.insertNewObject(forEntityName: "Track")
    let temporaryURI = track.objectID.uriRepresentation
    #expect(temporaryURI.absoluteString.hasPrefix("x-coredata:///Track/t"))
    let fromTemporary = try #require(context.managedObjectID(forURIRepresentation: temporaryURI))
    #expect(fromTemporary == track.objectID)
    #expect(try context.existingObject(with: fromTemporary) === track)
    try context.save()
    let uri = track.objectID.uriRepresentation
    #expect(uri.absoluteString == "x-coredata://\(context.storeIdentifier)/Track/p1")
    let id = try #require(context.managedObjectID(forURIRepresentation: uri))
    #expect(id == track.objectID)
    #expect(context.managedObjectID(forURIRepresentation: uri) == id)
    #expect(context.object(with: id) === track)
  }

  @Test(
    "URIs that are not this context's objects give nothing",
    arguments: [
      "https://example.com/Track/p1", "x-coredata://OTHER-STORE/Track/p1",
      "x-coredata:///Track/tnot-a-uuid",
      "x-coredata:///Nope/t00000000-0000-0000-0000-000000000000", "x-coredata://S/Track/q1",
      "x-coredata://",
    ])
  func foreignURIs(uri: String) throws {
    let context = try makeContext()
    _ = try context.insertNewObject(forEntityName: "Track")
    #expect(context.managedObjectID(forURIRepresentation: URL(string: uri)!) == nil)
  }

  @Test("a temporary ID from another context names nothing here")
  func otherContextID() throws {
    let model = try graphModel()
    let first = ManagedObjectContext(model: model)
    let second = ManagedObjectContext(model: model)
    let track = try first.insertNewObject(forEntityName: "Track")
    _ = try second.insertNewObject(forEntityName: "Track")
    #expect(second.object(with: track.objectID) == nil)
    #expect(
      graphError { _ = try second.existingObject(with: track.objectID) }?.code == .objectNotFound)
  }

  @Test("existingObject fails once the object is deleted")
  func deletedObject() throws {
    let context = try makeContext()
    let track = try context.insertNewObject(forEntityName: "Track")
    try context.save()
    let id = track.objectID
    try context.delete(track)
    let error = try #require(graphError { _ = try context.existingObject(with: id) })
    #expect(error.code == .objectNotFound)
    #expect(error.message == "no object with ID \(id) in the graph")
  }
}
