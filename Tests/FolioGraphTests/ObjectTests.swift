import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

@Suite("Managed objects")
struct ObjectTests {
  @Test("insert applies defaults; typed reads return Swift types")
  func defaultsAndTypedReads() throws {
    let context = try makeContext()
    let employee = try context.insertNewObject(forEntityName: "Employee")
    #expect(try employee.value(forKey: "lastName", as: String.self) == "Doe")
    #expect(try employee.value(forKey: "active", as: Bool.self) == true)
    #expect(try employee.value(forKey: "salary", as: Decimal.self) == 0)
    #expect(try employee.value(forKey: "nickname") == nil)
    #expect(try employee["lastName"] as? String == "Doe")
    try employee.setValue(Int16(30), forKey: "age")
    #expect(try employee.value(forKey: "age", as: Int.self) == 30)
    let date = Date(timeIntervalSinceReferenceDate: 1234.5)
    try employee.setValue(date, forKey: "hired")
    #expect(try employee.value(forKey: "hired", as: Date.self) == date)
    try employee.setValue(Decimal(string: "1234.56")!, forKey: "salary")
    #expect(try employee.value(forKey: "salary", as: Decimal.self) == Decimal(string: "1234.56"))
    let project = try context.insertNewObject(forEntityName: "Project")
    try project.setValue(12, forKey: "budget")
    #expect(try project.value(forKey: "budget", as: Double.self) == 12)
    #expect(employee.isInserted && employee.hasChanges)
    #expect(employee.entity.name == "Employee")
  }

  @Test("a transient attribute of undefined type holds any value")
  func undefinedTransient() throws {
    let context = try makeContext()
    let employee = try context.insertNewObject(forEntityName: "Employee")
    try employee.setValue([1, 2, 3], forKey: "scratch")
    #expect(try employee.value(forKey: "scratch") as? [Int] == [1, 2, 3])
  }

  struct WrongWrite: CustomTestStringConvertible, Sendable {
    var id: String
    var key: String
    var value: @Sendable () -> Any?
    var code: GraphError.Code
    var message: String
    var testDescription: String { id }
  }

  static let wrongWrites: [WrongWrite] = [
    WrongWrite(
      id: "string into an integer", key: "age", value: { "thirty" }, code: .typeMismatch,
      message: "Employee.age: \"thirty\" (a string) is not of type Integer 16"),
    WrongWrite(
      id: "integer out of range", key: "age", value: { 70_000 }, code: .typeMismatch,
      message: "Employee.age: 70000 is outside the range of Integer 16"),
    WrongWrite(
      id: "double into an integer", key: "age", value: { 3.5 }, code: .typeMismatch,
      message: "Employee.age: 3.5 (a number) is not of type Integer 16"),
    WrongWrite(
      id: "bool into a string", key: "nickname", value: { true }, code: .typeMismatch,
      message: "Employee.nickname: true (a Boolean) is not of type String"),
    WrongWrite(
      id: "integer into a bool", key: "active", value: { 1 }, code: .typeMismatch,
      message: "Employee.active: 1 (an integer) is not of type Boolean"),
    WrongWrite(
      id: "unknown key", key: "nicknam", value: { "x" }, code: .unknownKey,
      message:
        "Employee.nicknam: \"Employee\" has no property \"nicknam\" (did you mean \"nickname\"?)"),
    WrongWrite(
      id: "a string into a to-one", key: "manager", value: { "Bob" }, code: .typeMismatch,
      message:
        "Employee.manager: \"Bob\" (a string) is not an object for the to-one relationship \"manager\""
    ),
  ]

  @Test("wrong types and unknown keys are typed errors", arguments: wrongWrites)
  func refusesWrongWrites(_ write: WrongWrite) throws {
    let context = try makeContext()
    let employee = try context.insertNewObject(forEntityName: "Employee")
    let error = try #require(graphError { try employee.setValue(write.value(), forKey: write.key) })
    #expect(error.code == write.code)
    #expect(error.description == write.message)
  }

  @Test("an object of the wrong entity cannot go in a relationship")
  func wrongEntity() throws {
    let context = try makeContext()
    let employee = try context.insertNewObject(forEntityName: "Employee")
    let track = try context.insertNewObject(forEntityName: "Track")
    let error = try #require(graphError { try employee.setValue(track, forKey: "company") })
    #expect(error.code == .typeMismatch)
    #expect(
      error.message == "a Track object cannot go in \"company\", which holds Company objects")
  }

  @Test("an integer attribute reads as any integer type that holds its value")
  func integerWidths() throws {
    let context = try makeContext()
    let employee = try context.insertNewObject(forEntityName: "Employee")
    try employee.setValue(Int16(-300), forKey: "age")
    #expect(try employee.value(forKey: "age", as: Int16.self) == -300)
    #expect(try employee.value(forKey: "age", as: Int32.self) == -300)
    #expect(try employee.value(forKey: "age", as: Int64.self) == -300)
    #expect(try employee.value(forKey: "age", as: Int.self) == -300)
    let narrow = try #require(graphError { _ = try employee.value(forKey: "age", as: Int8.self) })
    #expect(narrow.code == .typeMismatch)
    #expect(narrow.message == "Employee.age holds -300 (an integer), not Int8")
    #expect(graphError { _ = try employee.value(forKey: "age", as: UInt16.self) } != nil)
    #expect(graphError { _ = try employee.value(forKey: "age", as: Double.self) } != nil)
    try employee.setValue(nil, forKey: "age")
    #expect(try employee.value(forKey: "age", as: Int16.self) == nil)
  }

  @Test("a Float attribute also reads as a Double, exactly")
  func floatWidens() throws {
    let model = try ManagedObjectModel {
      EntityDescription("Reading") { AttributeDescription("ratio", .float) }
    }
    let context = ManagedObjectContext(model: model)
    let reading = try context.insertNewObject(forEntityName: "Reading")
    try reading.setValue(Float(0.1), forKey: "ratio")
    #expect(try reading.value(forKey: "ratio", as: Float.self) == 0.1)
    #expect(try reading.value(forKey: "ratio", as: Double.self) == Double(Float(0.1)))
    #expect(graphError { _ = try reading.value(forKey: "ratio", as: Int.self) } != nil)
  }

  @Test("reading an unknown key, or a typed read of the wrong type, is an error")
  func badReads() throws {
    let context = try makeContext()
    let employee = try context.insertNewObject(forEntityName: "Employee")
    #expect(graphError { _ = try employee.value(forKey: "salry") }?.code == .unknownKey)
    let error = try #require(
      graphError { _ = try employee.value(forKey: "lastName", as: Int.self) })
    #expect(error.code == .typeMismatch)
    #expect(error.message == "Employee.lastName holds \"Doe\" (a string), not Int")
  }

  @Test("unknown and abstract entities cannot be inserted")
  func badInserts() throws {
    let context = try makeContext()
    let unknown = try #require(graphError { try context.insertNewObject(forEntityName: "Employe") })
    #expect(unknown.code == .unknownEntity)
    #expect(unknown.message == "unknown entity \"Employe\" (did you mean \"Employee\"?)")
    let abstract = try #require(graphError { try context.insertNewObject(forEntityName: "Person") })
    #expect(abstract.code == .abstractEntity)
  }

  @Test("objects from another context are refused")
  func otherContext() throws {
    let model = try graphModel()
    let first = ManagedObjectContext(model: model)
    let second = ManagedObjectContext(model: model)
    let employee = try first.insertNewObject(forEntityName: "Employee")
    let company = try second.insertNewObject(forEntityName: "Company")
    #expect(
      graphError { try employee.setValue(company, forKey: "company") }?.code == .notRegistered)
    #expect(graphError { try second.delete(employee) }?.code == .notRegistered)
  }

  @Test("changedValues and committedValues follow the last save")
  func changedAndCommitted() throws {
    let context = try makeContext()
    let track = try context.insertNewObject(forEntityName: "Track")
    try track.setValue("One", forKey: "title")
    #expect(track.changedValues().isEmpty)
    #expect(try track.committedValues(forKeys: ["title"]).isEmpty)
    try context.save()
    try track.setValue("Two", forKey: "title")
    #expect(track.changedValues()["title"] as? String == "Two")
    #expect(try track.committedValues(forKeys: ["title"])["title"] as? String == "One")
    #expect(track.isUpdated)
    try track.setValue("One", forKey: "title")
    #expect(track.changedValues().isEmpty)
  }
}
