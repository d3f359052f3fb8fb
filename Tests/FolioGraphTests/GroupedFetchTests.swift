import FolioQuery
import FolioTestSupport
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

@Suite("Dictionary results, aggregates and grouped fetches")
struct GroupedFetchTests {
  /// `count` employees of three companies, with salaries, ages, nicknames and hire dates drawn
  /// from `seed`; some ages and dates nil.
  func randomGraph(seed: UInt64, count: Int) throws -> ManagedObjectContext {
    var random = SeededGenerator(seed: seed)
    let context = try makeContext()
    var companies: [ManagedObject] = []
    for name in ["Acme", "Globex", "Initech"] {
      let company = try context.insertNewObject(forEntityName: "Company")
      try company.setValue(name, forKey: "name")
      companies.append(company)
    }
    for index in 0..<count {
      let employee = try context.insertNewObject(forEntityName: "Employee")
      try employee.setValue("E\(index)", forKey: "lastName")
      if random.next() % 5 != 0 {
        try employee.setValue(16 + Int(random.next() % 60), forKey: "age")
      }
      try employee.setValue(Decimal(Int(random.next() % 100_000)) / 100, forKey: "salary")
      try employee.setValue(random.next() % 3 != 0, forKey: "active")
      if random.next() % 4 == 0 {
        try employee.setValue(["Al", "Bo", "Cy"][Int(random.next() % 3)], forKey: "nickname")
      }
      if random.next() % 3 != 0 {
        try employee.setValue(
          Date(timeIntervalSinceReferenceDate: Double(random.next() % 1_000_000)), forKey: "hired")
      }
      if random.next() % 7 != 0 {
        try employee.setValue(companies[Int(random.next() % 3)], forKey: "company")
      }
    }
    return context
  }

  /// The totals by company and activity, written by hand over the objects.
  struct Expected: Hashable {
    var company: String?
    var active: Bool
    var total: Decimal
    var ages: Int
    var oldest: Int?
    var firstHired: Date?
  }

  func handWritten(_ context: ManagedObjectContext, minimumAge: Int) throws -> Set<Expected> {
    var groups: [String: Expected] = [:]
    for employee in try context.fetch(FetchRequest(entityName: "Employee")) {
      let age = try employee.value(forKey: "age") as? Int
      guard (age ?? 0) >= minimumAge else { continue }
      let company = (try employee.value(forKey: "company") as? ManagedObject)
        .flatMap { try? $0.value(forKey: "name") as? String }
      let active = try employee.value(forKey: "active") as? Bool ?? false
      let key = "\(company ?? "-")|\(active)"
      var group =
        groups[key]
        ?? Expected(
          company: company, active: active, total: 0, ages: 0, oldest: nil, firstHired: nil)
      group.total += try employee.value(forKey: "salary") as? Decimal ?? 0
      if let age {
        group.ages += 1
        group.oldest = max(group.oldest ?? age, age)
      }
      if let hired = try employee.value(forKey: "hired") as? Date {
        group.firstHired = min(group.firstHired ?? hired, hired)
      }
      groups[key] = group
    }
    return Set(groups.values)
  }

  func groupedRequest(minimumAge: Int) throws -> FetchRequest<[String: Any]> {
    var request = FetchRequest<[String: Any]>(entityName: "Employee")
    if minimumAge > 0 { request.predicate = try QueryPredicate(format: "age >= %d", minimumAge) }
    request.propertiesToFetch = [
      "company.name", "active",
      try FetchProperty(name: "total", format: "sum:(salary)"),
      try FetchProperty(name: "ages", format: "count:(age)"),
      try FetchProperty(name: "oldest", format: "max:(age)"),
      try FetchProperty(name: "firstHired", format: "min(hired)"),
    ]
    request.propertiesToGroupBy = ["company.name", "active"]
    return request
  }

  @Test("a grouped fetch agrees with the same totals written by hand, on random graphs")
  func differential() throws {
    for seed in 1...12 as ClosedRange<UInt64> {
      let context = try randomGraph(seed: seed, count: Int(seed) * 40)
      for minimumAge in [0, 40] {
        let rows = try context.fetch(try groupedRequest(minimumAge: minimumAge))
        let found = Set(
          rows.map { row in
            Expected(
              company: row["company.name"] as? String, active: row["active"] as? Bool ?? false,
              total: row["total"] as? Decimal ?? -1, ages: row["ages"] as? Int ?? -1,
              oldest: row["oldest"] as? Int, firstHired: row["firstHired"] as? Date)
          })
        #expect(rows.count == found.count, "seed \(seed): a group twice")
        #expect(found == (try handWritten(context, minimumAge: minimumAge)), "seed \(seed)")
      }
    }
  }

  @Test("stored attributes read from their slots agree with the same values evaluated")
  func slotReadsAgreeWithEvaluation() throws {
    // `noindex:(x)` is x, read through the general evaluation rather than from the slot.
    func request(entity: String, slow: Bool, stored: Bool) throws -> FetchRequest<[String: Any]> {
      func key(_ name: String) -> String { slow ? "noindex:(\(name))" : name }
      var request = FetchRequest<[String: Any]>(entityName: entity)
      var properties = [
        try FetchProperty(name: "age", format: key("age")),
        try FetchProperty(name: "active", format: key("active")),
      ]
      for function in ["sum:", "count:", "min:", "max:", "average:", "median:", "stddev:"] {
        properties.append(try FetchProperty(name: function, format: "\(function)(\(key("age")))"))
      }
      if stored {
        properties.append(try FetchProperty(name: "total", format: "sum:(\(key("salary")))"))
        properties.append(try FetchProperty(name: "first", format: "min:(\(key("hired")))"))
      }
      request.propertiesToFetch = properties
      request.propertiesToGroupBy = Array(properties.prefix(2))
      return request
    }
    for seed in 20...25 as ClosedRange<UInt64> {
      let context = try randomGraph(seed: seed, count: 150)
      // Person is abstract: its objects are Employees, whose slots are not laid out as
      // Person's, so their values are read by name.
      for (entity, stored) in [("Employee", true), ("Person", false)] {
        let fast = try context.fetch(try request(entity: entity, slow: false, stored: stored))
        let slow = try context.fetch(try request(entity: entity, slow: true, stored: stored))
        #expect(fast.count > 1)
        #expect(
          fast.map { NSDictionary(dictionary: $0) } == slow.map { NSDictionary(dictionary: $0) },
          "seed \(seed), \(entity)")
      }
    }
  }

  @Test(
    "groups come in the order their first object is found; nils group together and are left out")
  func groupOrderAndNils() throws {
    let context = try makeContext()
    for (name, nickname, salary) in [
      ("A", "Al", 10), ("B", nil, 20), ("C", "Al", 30), ("D", nil, 40), ("E", "Bo", 50),
    ] as [(String, String?, Int)] {
      let employee = try context.insertNewObject(forEntityName: "Employee")
      try employee.setValue(name, forKey: "lastName")
      try employee.setValue(nickname, forKey: "nickname")
      try employee.setValue(Decimal(salary), forKey: "salary")
    }
    var request = FetchRequest<[String: Any]>(entityName: "Employee")
    request.propertiesToFetch = [
      "nickname", try FetchProperty(name: "n", format: "count:(lastName)"),
    ]
    request.propertiesToGroupBy = ["nickname"]
    let rows = try context.fetch(request)
    #expect(rows.map { $0["nickname"] as? String } == ["Al", nil, "Bo"])
    #expect(rows.map { $0["n"] as? Int } == [2, 2, 1])
    #expect(rows[1].keys.sorted() == ["n"])
    // Sorted by an aggregate's name, then windowed.
    request.sortDescriptors = [
      QuerySortDescriptor(keyPath: "n"), QuerySortDescriptor(keyPath: "nickname"),
    ]
    #expect(try context.fetch(request).map { $0["nickname"] as? String } == ["Bo", nil, "Al"])
    request.fetchOffset = 1
    request.fetchLimit = 1
    #expect(try context.fetch(request).map { $0["nickname"] as? String } == [nil])
    #expect(try context.count(for: request) == 1)
    // A having predicate tests each group's dictionary by the fetched names.
    request.fetchOffset = 0
    request.fetchLimit = 0
    request.havingPredicate = try QueryPredicate(format: "n > 1 AND nickname != nil")
    #expect(try context.fetch(request).map { $0["nickname"] as? String } == ["Al"])
    // A name the dictionaries do not have is an error, not a silent false.
    request.havingPredicate = try QueryPredicate(format: "count > 1")
    let error = try #require(graphError { _ = try context.fetch(request) })
    #expect(error.code == .unknownKey)
    #expect(
      error.message.contains("the dictionaries have no key \"count\" (they have n, nickname)"))
  }

  @Test("aggregates alone make one dictionary of every match, even of none")
  func aggregatesAlone() throws {
    let context = try randomGraph(seed: 7, count: 50)
    var request = FetchRequest<[String: Any]>(entityName: "Employee")
    request.propertiesToFetch = [
      try FetchProperty(name: "total", format: "sum:(salary)", resultType: .double),
      try FetchProperty(name: "people", format: "count:(lastName)"),
      try FetchProperty(name: "mean", format: "average:(age)"),
    ]
    let row = try #require(try context.fetch(request).first)
    let employees = try context.fetch(FetchRequest(entityName: "Employee"))
    let salaries = try employees.map { try $0.value(forKey: "salary") as? Decimal ?? 0 }
    let expected = NSDecimalNumber(decimal: salaries.reduce(0, +)).doubleValue
    #expect(row["total"] as? Double == expected)
    #expect(row["people"] as? Int == 50)
    let ages = try employees.compactMap { try $0.value(forKey: "age") as? Int }
    #expect(row["mean"] as? Double == Double(ages.reduce(0, +)) / Double(ages.count))
    request.predicate = try QueryPredicate(format: "age > 1000")
    let none = try context.fetch(request)
    #expect(none.count == 1)
    #expect(none.first?["people"] as? Int == 0)
    #expect(none.first?["mean"] == nil)
  }

  @Test("per-object expressions; distinct before the window, as SELECT DISTINCT … LIMIT")
  func perObjectValues() throws {
    let context = try makeContext()
    for (name, age) in [("A", 30), ("B", 30), ("C", 40), ("D", 40), ("E", 50)] {
      let employee = try context.insertNewObject(forEntityName: "Employee")
      try employee.setValue(name, forKey: "lastName")
      try employee.setValue(age, forKey: "age")
    }
    var request = FetchRequest<[String: Any]>(entityName: "Employee")
    request.sortDescriptors = [QuerySortDescriptor(keyPath: "lastName")]
    request.propertiesToFetch = [
      try FetchProperty(name: "decade", format: "age / 10", resultType: .integer16)
    ]
    request.returnsDistinctResults = true
    request.fetchLimit = 2
    #expect(try context.fetch(request).map { $0["decade"] as? Int } == [3, 4])
    request.fetchOffset = 2
    #expect(try context.fetch(request).map { $0["decade"] as? Int } == [5])
    request.returnsDistinctResults = false
    request.fetchOffset = 0
    request.propertiesToFetch = [
      "lastName", try FetchProperty(name: "next", format: "age + 1", resultType: .string),
    ]
    let error = try #require(graphError { _ = try context.fetch(request) })
    #expect(error.code == .typeMismatch)
    #expect(error.message == "next: 31 cannot be given the result type string")
    request.propertiesToFetch = [
      "lastName", try FetchProperty(name: "next", format: "age + 1", resultType: .double),
    ]
    #expect(try context.fetch(request).map { $0["next"] as? Double } == [31, 31])
  }

  @Test("the result type a request carries is the one fetch returns, and is checked")
  func resultTypes() throws {
    let context = try randomGraph(seed: 3, count: 20)
    #expect(try context.fetch(FetchRequest<Int>(entityName: "Employee")) == [20])
    let ids = try context.fetch(FetchRequest<ManagedObjectID>(entityName: "Employee"))
    #expect(ids == (try context.fetch(FetchRequest(entityName: "Employee")).map(\.objectID)))
    var objects = FetchRequest(entityName: "Employee")
    objects.resultType = .dictionaries
    var error = try #require(graphError { _ = try context.fetch(objects) })
    #expect(error.code == .invalidFetchRequest)
    #expect(
      error.message
        == "a FetchRequest<ManagedObject> cannot return dictionaries, its resultType: use a"
        + " FetchRequest<[String: Any]>")
    objects.resultType = .managedObjects
    objects.propertiesToGroupBy = ["age"]
    error = try #require(graphError { _ = try context.fetch(objects) })
    #expect(
      error.message
        == "grouping (propertiesToGroupBy, havingPredicate) needs dictionary results:"
        + " a FetchRequest<[String: Any]>")
  }

  @Test("what a grouped fetch cannot answer is refused, naming the property")
  func refusals() throws {
    let context = try randomGraph(seed: 5, count: 10)
    let total = try FetchProperty(name: "total", format: "sum:(salary)")
    var request = FetchRequest<[String: Any]>(entityName: "Employee")
    request.propertiesToFetch = ["lastName", "active", total]
    request.propertiesToGroupBy = ["active"]
    var error = try #require(graphError { _ = try context.fetch(request) })
    #expect(error.code == .invalidFetchRequest)
    #expect(
      error.message
        == "lastName is neither grouped nor an aggregate: add it to propertiesToGroupBy"
        + " (grouped: active)")
    request.propertiesToGroupBy = nil
    request.propertiesToFetch = ["active", total]
    error = try #require(graphError { _ = try context.fetch(request) })
    #expect(
      error.message
        == "total aggregates every match, active is a value of each object: group by active, or"
        + " fetch aggregates alone")
    request.propertiesToFetch = [total]
    request.havingPredicate = try QueryPredicate(format: "total > 1")
    error = try #require(graphError { _ = try context.fetch(request) })
    #expect(error.message == "a having predicate tests groups: it needs propertiesToGroupBy")
    request.havingPredicate = nil
    request.propertiesToGroupBy = [total]
    error = try #require(graphError { _ = try context.fetch(request) })
    #expect(error.message == "total is an aggregate: a group is made of values of objects")
    request.propertiesToGroupBy = ["salry"]
    request.propertiesToFetch = ["salry"]
    error = try #require(graphError { _ = try context.fetch(request) })
    #expect(error.code == .unknownKey)
  }
}
