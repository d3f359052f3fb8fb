import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

@Suite("Key paths and collection operators")
struct KeyPathTests {
  /// Acme with three employees (ages 30, 40, 50; salaries 1000.50, 2000, 3000), a boss over
  /// two of them, and two projects.
  func company() throws -> (ManagedObjectContext, ManagedObject, [ManagedObject]) {
    let context = try makeContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    var employees: [ManagedObject] = []
    for (index, name) in ["Lovelace", "Hopper", "Lovelace"].enumerated() {
      let employee = try context.insertNewObject(forEntityName: "Employee")
      try employee.setValue(name, forKey: "lastName")
      try employee.setValue(30 + 10 * index, forKey: "age")
      try employee.setValue([Decimal(100_050) / 100, 2000, 3000][index], forKey: "salary")
      try employee.setValue(acme, forKey: "company")
      employees.append(employee)
    }
    try employees[1].setValue(employees[0], forKey: "manager")
    try employees[2].setValue(employees[0], forKey: "manager")
    return (context, acme, employees)
  }

  @Test("to-one steps follow relationships")
  func toOneSteps() throws {
    let (context, _, employees) = try company()
    defer { withExtendedLifetime(context) {} }
    #expect(try employees[1].value(forKeyPath: "manager.lastName") as? String == "Lovelace")
    #expect(try employees[1].value(forKeyPath: "manager.company.name") as? String == "Acme")
    #expect(try employees[0].value(forKeyPath: "manager.company.name") == nil)
  }

  @Test("to-many steps fan out and flatten")
  func toManySteps() throws {
    let (context, acme, employees) = try company()
    defer { withExtendedLifetime(context) {} }
    let names = try #require(try acme.value(forKeyPath: "employees.lastName") as? [Any])
    #expect(names.compactMap { $0 as? String }.sorted() == ["Hopper", "Lovelace", "Lovelace"])
    let reports = try #require(try acme.value(forKeyPath: "employees.reports") as? [Any])
    #expect(Set(reports.compactMap { $0 as? ManagedObject }) == [employees[1], employees[2]])
    let bosses = try #require(
      try employees[0].value(forKeyPath: "reports.manager.lastName") as? [Any])
    #expect(bosses.count == 2)
  }

  @Test("every collection operator")
  func operators() throws {
    let (context, acme, employees) = try company()
    defer { withExtendedLifetime(context) {} }
    #expect(try acme.value(forKeyPath: "employees.@count") as? Int == 3)
    #expect(try acme.value(forKeyPath: "employees.@sum.age") as? Int == 120)
    #expect(
      try acme.value(forKeyPath: "employees.@sum.salary") as? Decimal == Decimal(string: "6000.5"))
    #expect(try acme.value(forKeyPath: "employees.@avg.age") as? Double == 40)
    #expect(try acme.value(forKeyPath: "employees.@min.age") as? Int == 30)
    #expect(try acme.value(forKeyPath: "employees.@max.salary") as? Decimal == 3000)
    #expect(try acme.value(forKeyPath: "employees.@max.lastName") as? String == "Lovelace")
    let union = try #require(
      try acme.value(forKeyPath: "employees.@unionOfObjects.lastName") as? [Any])
    #expect(union.count == 3)
    let distinct = try #require(
      try acme.value(forKeyPath: "employees.@distinctUnionOfObjects.lastName") as? [Any])
    #expect(distinct.compactMap { $0 as? String }.sorted() == ["Hopper", "Lovelace"])
    #expect(try employees[0].value(forKeyPath: "reports.@count") as? Int == 2)
    #expect(try employees[1].value(forKeyPath: "reports.@count") as? Int == 0)
    #expect(try employees[1].value(forKeyPath: "reports.@avg.age") == nil)
    #expect(try employees[1].value(forKeyPath: "reports.@sum.age") as? Int == 0)
    #expect(try employees[1].value(forKeyPath: "manager.company.employees.@count") as? Int == 3)
  }

  @Test("a sum of doubles is a Double, an average of integers a Double")
  func numericTypes() throws {
    let context = try makeContext()
    let ada = try context.insertNewObject(forEntityName: "Employee")
    for budget in [1.25, 2.5] {
      let project = try context.insertNewObject(forEntityName: "Project")
      try project.setValue(budget, forKey: "budget")
      try ada.add(project, toKey: "projects")
    }
    #expect(try ada.value(forKeyPath: "projects.@sum.budget") as? Double == 3.75)
    #expect(try ada.value(forKeyPath: "projects.@min.budget") as? Double == 1.25)
  }

  @Test(
    "bad key paths are typed errors",
    arguments: [
      (
        "employees.@median.age", GraphError.Code.invalidKeyPath,
        "unknown collection operator @median in \"employees.@median.age\""
      ),
      (
        "name.@count", .invalidKeyPath,
        "@count in \"name.@count\" applies to a to-many value, not a single one"
      ),
      ("employees.@sum", .invalidKeyPath, "@sum in \"employees.@sum\" needs a key path after it"),
      (
        "employees.@sum.lastName", .invalidKeyPath,
        "@sum in \"employees.@sum.lastName\" reached \"Lovelace\" (a string), not a number"
      ),
      ("employees..age", .invalidKeyPath, "key path \"employees..age\" has an empty step"),
      (
        "name.length", .invalidKeyPath,
        "\"length\" in \"name.length\" follows a value that is not an object (\"Acme\" (a string))"
      ),
      (
        "employees.salry", .unknownKey,
        "\"Employee\" has no property \"salry\" (did you mean \"salary\"?)"
      ),
    ])
  func badPaths(path: String, code: GraphError.Code, message: String) throws {
    let (context, acme, _) = try company()
    defer { withExtendedLifetime(context) {} }
    let error = try #require(graphError { _ = try acme.value(forKeyPath: path) })
    #expect(error.code == code)
    #expect(error.message == message)
  }
}
