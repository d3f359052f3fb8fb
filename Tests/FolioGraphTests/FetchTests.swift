import FolioQuery
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

@Suite("Fetching")
struct FetchTests {
  /// Three employees (ages 30, 40, 50) of Acme, and a track.
  func graph() throws -> (ManagedObjectContext, [ManagedObject]) {
    let context = try makeContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    var employees: [ManagedObject] = []
    for (index, name) in ["Lovelace", "Hopper", "lamport"].enumerated() {
      let employee = try context.insertNewObject(forEntityName: "Employee")
      try employee.setValue(name, forKey: "lastName")
      try employee.setValue(30 + 10 * index, forKey: "age")
      try employee.setValue(acme, forKey: "company")
      employees.append(employee)
    }
    _ = try context.insertNewObject(forEntityName: "Track")
    return (context, employees)
  }

  @Test("a predicate, sort descriptors and a window")
  func fetch() throws {
    let (context, employees) = try graph()
    var request = FetchRequest(
      entityName: "Employee", predicate: try QueryPredicate(format: "age >= %d", 40))
    #expect(Set(try context.fetch(request)) == Set(employees[1...]))
    request.predicate = try QueryPredicate(
      format: "lastName BEGINSWITH[c] 'l' AND company.name == 'Acme'")
    request.sortDescriptors = [QuerySortDescriptor(keyPath: "age", ascending: false)]
    #expect(try context.fetch(request) == [employees[2], employees[0]])
    request.fetchLimit = 1
    #expect(try context.fetch(request) == [employees[2]])
    request.fetchOffset = 1
    #expect(try context.fetch(request) == [employees[0]])
    #expect(try context.count(for: request) == 1)
    // The largest limit past an offset is no overflow.
    request.fetchLimit = Int.max
    #expect(try context.fetch(request) == [employees[0]])
    let people = FetchRequest(entityName: "Person")
    #expect(try context.count(for: people) == 3)
  }

  @Test("pending changes count by default: new objects found, deleted ones not")
  func pendingChanges() throws {
    let (context, employees) = try graph()
    try context.save()
    let newcomer = try context.insertNewObject(forEntityName: "Employee")
    try context.delete(employees[0])
    var request = FetchRequest(entityName: "Employee")
    #expect(Set(try context.fetch(request)) == Set([newcomer, employees[1], employees[2]]))
    request.includesPendingChanges = false
    #expect(Set(try context.fetch(request)) == Set(employees))
  }

  @Test("IDs, dictionaries and distinct dictionaries")
  func resultTypes() throws {
    let (context, employees) = try graph()
    var request = FetchRequest(entityName: "Employee")
    request.sortDescriptors = [QuerySortDescriptor(keyPath: "age")]
    #expect(try context.fetchObjectIDs(request) == employees.map(\.objectID))
    request.propertiesToFetch = ["company.name"]
    request.returnsDistinctResults = true
    let rows = try context.fetchDictionaries(request)
    #expect(rows.count == 1)
    #expect(rows.first?["company.name"] as? String == "Acme")
  }

  @Test("an unknown key is an error naming the key, never a silent non-match")
  func unknownKey() throws {
    let (context, _) = try graph()
    let request = FetchRequest(
      entityName: "Employee", predicate: try QueryPredicate(format: "salry > 10"))
    let error = try #require(graphError { _ = try context.fetch(request) })
    #expect(error.code == .unknownKey)
    #expect(error.message.contains("salry"))
    let unknownEntity = FetchRequest(entityName: "Employe")
    #expect(graphError { _ = try context.fetch(unknownEntity) }?.code == .unknownEntity)
  }
}

@Suite("Context events")
struct ContextEventTests {
  @Test("objects-did-change, will-save and did-save arrive as typed values and as a stream")
  func events() async throws {
    let context = try makeContext()
    var events: [ContextEvent] = []
    let observation = context.addEventObserver { events.append($0) }
    defer { observation.cancel() }
    let stream = context.events()
    let track = try context.insertNewObject(forEntityName: "Track")
    let temporaryID = track.objectID
    context.processPendingChanges()
    try context.save()
    try track.setValue("Intro", forKey: "title")
    try context.refresh(track, mergeChanges: true)
    #expect(events.count == 4)
    #expect(
      events[0]
        == .objectsDidChange(ObjectIDChanges(inserted: [temporaryID], updated: [], deleted: [])))
    #expect(events[1] == .willSave)
    #expect(
      events[2] == .didSave(ObjectIDChanges(inserted: [track.objectID], updated: [], deleted: [])))
    #expect(
      events[3]
        == .objectsDidChange(
          ObjectIDChanges(inserted: [], updated: [], deleted: [], refreshed: [track.objectID])))
    var streamed: [ContextEvent] = []
    for await event in stream {
      streamed.append(event)
      if streamed.count == 4 { break }
    }
    #expect(streamed == events)
  }

  @Test("events() stops observing once its stream is gone")
  func eventsEnd() throws {
    let context = try makeContext()
    do {
      let stream = context.events()
      _ = stream.makeAsyncIterator()
    }
    #expect(context.eventObservers.count == 1)
    try context.insertNewObject(forEntityName: "Track")
    context.processPendingChanges()
    #expect(context.eventObservers.isEmpty)
  }
}

@Suite("Fetch plans and indexes")
struct FetchPlanTests {
  func model() throws -> ManagedObjectModel {
    var code = AttributeDescription("code", .string)
    code.isIndexed = true
    var rank = AttributeDescription("rank", .integer32)
    rank.isIndexed = true
    var serial = AttributeDescription("serial", .integer64)
    serial.isIndexed = true
    return try ManagedObjectModel {
      EntityDescription("Item") {
        code
        rank
        AttributeDescription("weight", .double)
        serial
      }
      EntityDescription("Special", parent: "Item")
    }
  }

  @Test("an indexed equality finds what a scan finds, and follows inserts, deletes and changes")
  func indexedEquality() throws {
    let context = ManagedObjectContext(model: try model())
    var items: [ManagedObject] = []
    for index in 0..<50 {
      let item = try context.insertNewObject(forEntityName: index % 5 == 0 ? "Special" : "Item")
      try item.setValue("c\(index % 7)", forKey: "code")
      try item.setValue(index % 4, forKey: "rank")
      items.append(item)
    }
    func fetch(_ format: String) throws -> [ManagedObject] {
      try context.fetch(
        FetchRequest(entityName: "Item", predicate: try QueryPredicate(format: format)))
    }
    func scan(_ test: (ManagedObject) throws -> Bool) throws -> [ManagedObject] {
      try context.objects(ofEntity: "Item").filter(test)
    }
    #expect(try fetch("code == 'c3'") == scan { try $0.value(forKey: "code") as? String == "c3" })
    #expect(try fetch("rank == 2") == scan { try $0.value(forKey: "rank") as? Int == 2 })
    #expect(try fetch("rank == 2.0").count == 12)
    try context.delete(items[3])
    try items[10].setValue("c3", forKey: "code")
    let fresh = try context.insertNewObject(forEntityName: "Item")
    try fresh.setValue("c3", forKey: "code")
    #expect(try fetch("code == 'c3'") == scan { try $0.value(forKey: "code") as? String == "c3" })
    #expect(try fetch("code == 'c3'").contains(fresh))
    #expect(try !fetch("code == 'c3'").contains(items[3]))
  }

  /// Checks that fetching `format` from the Items finds what evaluating it on each finds.
  @discardableResult
  func expectFetchAsEvaluation(_ format: String, in context: ManagedObjectContext) throws
    -> [ManagedObject]
  {
    let predicate = try QueryPredicate(format: format)
    let fetched = try context.fetch(FetchRequest(entityName: "Item", predicate: predicate))
    let evaluated = try context.objects(ofEntity: "Item").filter {
      try predicate.evaluate(with: $0)
    }
    #expect(fetched == evaluated, "\(format)")
    return fetched
  }

  @Test("direct comparisons agree with evaluation, nil included")
  func directComparisons() throws {
    let context = ManagedObjectContext(model: try model())
    for weight in [nil, 1.5, 2.0, 3.25] as [Double?] {
      let item = try context.insertNewObject(forEntityName: "Item")
      try item.setValue(weight, forKey: "weight")
    }
    for format in [
      "weight > 1.5", "weight >= 2", "weight < 3", "weight <= 1.5", "weight == 2", "weight != 2",
      "weight > 1 AND NOT weight == 2", "weight < 2 OR weight > 3", "TRUEPREDICATE",
    ] {
      try expectFetchAsEvaluation(format, in: context)
    }
  }

  /// Items in boxes, boxes (and crates, a kind of box) in parent boxes.
  func boxModel() throws -> ManagedObjectModel {
    try ManagedObjectModel {
      EntityDescription("Item") {
        AttributeDescription("code", .string)
        RelationshipDescription("box", to: "Box", inverse: "items")
      }
      EntityDescription("Box") {
        AttributeDescription("label", .string)
        AttributeDescription("size", .double)
        RelationshipDescription("items", to: "Item", inverse: "box", toMany: true)
        RelationshipDescription("parent", to: "Box", inverse: "children")
        RelationshipDescription("children", to: "Box", inverse: "parent", toMany: true)
      }
      EntityDescription("Crate", parent: "Box")
    }
  }

  @Test(
    "comparisons through to-one relationships compare stored values directly and agree with evaluation, missing targets included"
  )
  func toOneKeyPaths() throws {
    let context = ManagedObjectContext(model: try boxModel())
    let top = try context.insertNewObject(forEntityName: "Box")
    try top.setValue("top", forKey: "label")
    try top.setValue(1.0, forKey: "size")
    var boxes: [ManagedObject] = []
    for (index, label) in ["Apples", "apples", nil, "pears"].enumerated() {
      let box = try context.insertNewObject(forEntityName: index == 1 ? "Crate" : "Box")
      try box.setValue(label, forKey: "label")
      try box.setValue(index == 2 ? nil : Double(index), forKey: "size")
      if index != 3 { try box.setValue(top, forKey: "parent") }
      boxes.append(box)
    }
    let gone = try context.insertNewObject(forEntityName: "Box")
    try gone.setValue("gone", forKey: "label")
    for index in 0..<12 {
      let item = try context.insertNewObject(forEntityName: "Item")
      try item.setValue("i\(index)", forKey: "code")
      if index % 6 != 5 {
        try item.setValue(index % 6 == 4 ? gone : boxes[index % 4], forKey: "box")
      }
    }
    try context.save()
    try context.delete(gone)
    let layouts = context.layouts
    let layout = try #require(context.layoutByName["Item"])
    for format in [
      "box.label == 'Apples'", "box.label != 'Apples'", "box.label BEGINSWITH[c] 'a'",
      "box.label CONTAINS 'ea'", "box.size > 0", "box.size <= 1", "box.size != 2",
      "box.parent.label == 'top'", "box.parent.size < 2", "NOT box.parent.label == 'top'",
      "box.label == 'gone'", "box.label == 'pears' OR box.parent.size == 1",
    ] {
      let predicate = try QueryPredicate(format: format)
      #expect(
        FetchPlan.compile(predicate, layout: layout, layouts: layouts) != nil,
        "\(format) is compared directly")
      try expectFetchAsEvaluation(format, in: context)
    }
    for format in ["box.items.@count > 1", "box.labels == 'x'", "box.items.code == 'i1'"] {
      let predicate = try QueryPredicate(format: format)
      #expect(
        FetchPlan.compile(predicate, layout: layout, layouts: layouts) == nil,
        "\(format) is evaluated")
    }
  }

  @Test("compiled string tests agree with evaluation, with [c], [d] and [cd], nil included")
  func directStringTests() throws {
    let context = ManagedObjectContext(model: try model())
    for code in [nil, "Zoë", "zoe", "ZOE!", "Émile", "emile", "", "chloé", "Chloe"] as [String?] {
      let item = try context.insertNewObject(forEntityName: "Special")
      try item.setValue(code, forKey: "code")
    }
    for format in [
      "code CONTAINS 'o'", "code CONTAINS[c] 'ZO'", "code CONTAINS[d] 'e'",
      "code CONTAINS[cd] 'zoe'", "code BEGINSWITH[cd] 'E'", "code ENDSWITH[d] 'e'",
      "code ENDSWITH[c] 'OE'", "NOT code BEGINSWITH 'c'", "code CONTAINS[cd] 'É'",
    ] {
      let fetched = try expectFetchAsEvaluation(format, in: context)
      #expect(!fetched.isEmpty, "\(format) finds something")
    }
  }

  @Test("an empty needle matches nothing, compiled or evaluated, with and without options")
  func emptyNeedle() throws {
    let context = ManagedObjectContext(model: try model())
    for code in [nil, "", "a", "É"] as [String?] {
      let item = try context.insertNewObject(forEntityName: "Item")
      try item.setValue(code, forKey: "code")
    }
    for format in [
      "code CONTAINS ''", "code BEGINSWITH ''", "code ENDSWITH ''", "code CONTAINS[cd] ''",
      "code BEGINSWITH[c] \"\"", "code ENDSWITH[d] '\\u0301'",
    ] {
      #expect(try expectFetchAsEvaluation(format, in: context).isEmpty, "\(format)")
    }
    #expect(try expectFetchAsEvaluation("NOT code BEGINSWITH ''", in: context).count == 4)
  }

  @Test("a NaN compares as IEEE 754 says, compiled or evaluated, and sorts before zero")
  func notANumber() throws {
    let context = ManagedObjectContext(model: try model())
    for weight in [nil, .nan, -1.5, 0, 2, .nan, .infinity] as [Double?] {
      let item = try context.insertNewObject(forEntityName: "Item")
      try item.setValue(weight, forKey: "weight")
    }
    for format in [
      "weight < 3", "weight <= 3", "weight > -2", "weight >= -2", "weight == 2", "weight != 2",
      "NOT weight < 3", "weight BETWEEN {-2, 3}",
    ] {
      try expectFetchAsEvaluation(format, in: context)
    }
    #expect(try expectFetchAsEvaluation("weight <= 3", in: context).count == 3)
    #expect(try expectFetchAsEvaluation("weight != 2", in: context).count == 6)
    for ascending in [true, false] {
      let descriptors = [QuerySortDescriptor(keyPath: "weight", ascending: ascending)]
      let fetched = try context.fetch(
        FetchRequest(entityName: "Item", sortDescriptors: descriptors))
      let labels = try fetched.map { try $0.value(forKey: "weight") as? Double }.map {
        $0.map { "\($0)" } ?? "nil"
      }
      let order = ["nil", "-1.5", "nan", "nan", "0.0", "2.0", "inf"]
      #expect(labels == (ascending ? order : order.reversed()))
      let expected = try context.objects(ofEntity: "Item").reversed().sorted(by: descriptors)
      #expect(
        try expected.map { try $0.value(forKey: "weight") as? Double }.map {
          $0.map { "\($0)" } ?? "nil"
        } == labels)
    }
  }

  @Test("integers beyond 2^53 compare exactly, indexed, compiled or evaluated")
  func largeIntegers() throws {
    let context = ManagedObjectContext(model: try model())
    for serial in [nil, 9_007_199_254_740_992, 9_007_199_254_740_993, .max, .min] as [Int64?] {
      let item = try context.insertNewObject(forEntityName: "Item")
      try item.setValue(serial, forKey: "serial")
    }
    for format in [
      "serial == 9007199254740992", "serial == 9007199254740992.0", "serial != 9007199254740993",
      "serial < 9007199254740993", "serial >= 9.2233720368547758e18",
      "serial < -9.2233720368547758e18", "serial <= -9223372036854775808",
    ] {
      try expectFetchAsEvaluation(format, in: context)
    }
    #expect(try expectFetchAsEvaluation("serial == 9007199254740993", in: context).count == 1)
    #expect(try expectFetchAsEvaluation("serial == 9007199254740992.0", in: context).count == 1)
    #expect(try expectFetchAsEvaluation("serial >= 9.2233720368547758e18", in: context).isEmpty)
  }

  @Test("a fetch sorts as the key-path sort does, over an entity and its subentity")
  func sortsAsKeyPaths() throws {
    let context = ManagedObjectContext(model: try model())
    let codes = [nil, "b", "B", "a", "é", "e\u{301}", "10", "9"] as [String?]
    for index in 0..<120 {
      let item = try context.insertNewObject(forEntityName: index % 3 == 0 ? "Special" : "Item")
      try item.setValue(codes[index * 7 % codes.count], forKey: "code")
      try item.setValue(index % 5 == 0 ? nil : Double(index % 4) / 2, forKey: "weight")
      try item.setValue(index % 6, forKey: "rank")
    }
    for ascending in [true, false] {
      let descriptors = [
        QuerySortDescriptor(keyPath: "code", ascending: ascending),
        QuerySortDescriptor(keyPath: "weight", ascending: !ascending),
        QuerySortDescriptor(keyPath: "rank", ascending: ascending),
      ]
      let fetched = try context.fetch(
        FetchRequest(entityName: "Item", sortDescriptors: descriptors))
      let expected = try context.objects(ofEntity: "Item").sorted(by: descriptors)
      #expect(fetched.count == 120)
      #expect(fetched == expected)
      // Items only: every key comes typed from the slots.
      var itemsOnly = FetchRequest(entityName: "Item", sortDescriptors: descriptors)
      itemsOnly.includesSubentities = false
      let items = try context.fetch(itemsOnly)
      #expect(items.count == 80)
      #expect(items == expected.filter { $0.entityName == "Item" })
    }
  }
}
