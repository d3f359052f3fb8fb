import Folio
import FolioTestSupport
import Foundation
import Testing

/// Batch requests on every store format: what they change in the store, what they return,
/// how an open context takes them in, and what they refuse.
@Suite("Batch requests")
struct BatchRequestTests {
  static let formats: [any StoreFormat] = [XMLStore(), BinaryStore(), SQLiteStore()]

  /// People with spendings (Cascade from the person, Nullify back), tags on spendings
  /// (many-to-many), and a card a person holds (Deny from the person).
  static let model: ManagedObjectModel = {
    do {
      return try ManagedObjectModel {
        EntityDescription("Person") {
          AttributeDescription("name", .string)
          AttributeDescription("age", .integer16, defaultValue: .integer(0))
          RelationshipDescription(
            "spendings", to: "Spending", inverse: "person", toMany: true, deleteRule: .cascade)
          RelationshipDescription("card", to: "Card", inverse: "holder", deleteRule: .deny)
        }
        EntityDescription("Spending") {
          AttributeDescription("content", .string)
          AttributeDescription("amount", .double, defaultValue: .double(0))
          AttributeDescription("isPaid", .boolean, defaultValue: .boolean(false))
          AttributeDescription("date", .date)
          RelationshipDescription("person", to: "Person", inverse: "spendings")
          RelationshipDescription("tags", to: "Tag", inverse: "spendings", toMany: true)
        }
        EntityDescription("Tag") {
          AttributeDescription("name", .string)
          UniquenessConstraint("name")
          RelationshipDescription("spendings", to: "Spending", inverse: "tags", toMany: true)
        }
        EntityDescription("Card") {
          AttributeDescription("number", .string)
          RelationshipDescription("holder", to: "Person", inverse: "card")
        }
      }
    } catch {
      preconditionFailure("the batch tests' model does not build: \(error)")
    }
  }()

  /// A store of `format` in `folder`: Ada (36) with Lunch (12.5, tagged food) and Tea (2.5,
  /// tagged food and drink), Bob (20) with Book (30) and a card, and Gift (0) of nobody.
  static func makeStore(_ format: any StoreFormat, in folder: URL) throws -> URL {
    let url = folder.appendingPathComponent("batch.\(format.fileExtension)")
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(at: url, format: format)
    let context = try ManagedObjectContext(coordinator: coordinator)
    func insert(_ entity: String, _ values: [String: Any]) throws -> ManagedObject {
      let object = try context.insertNewObject(forEntityName: entity)
      for (key, value) in values { try object.setValue(value, forKey: key) }
      return object
    }
    let ada = try insert("Person", ["name": "Ada", "age": 36])
    let bob = try insert("Person", ["name": "Bob", "age": 20])
    _ = try insert("Card", ["number": "4242", "holder": bob])
    let food = try insert("Tag", ["name": "food"])
    let drink = try insert("Tag", ["name": "drink"])
    let lunch = try insert("Spending", ["content": "Lunch", "amount": 12.5, "person": ada])
    try lunch.setValue(Set([food]), forKey: "tags")
    let tea = try insert("Spending", ["content": "Tea", "amount": 2.5, "person": ada])
    try tea.setValue(Set([food, drink]), forKey: "tags")
    _ = try insert("Spending", ["content": "Book", "amount": 30.0, "person": bob])
    _ = try insert("Spending", ["content": "Gift", "amount": 0.0])
    try context.save()
    return url
  }

  /// A coordinator holding the store at `url`, and a context on it.
  static func open(_ url: URL, _ format: any StoreFormat) throws -> (
    PersistentStoreCoordinator, ManagedObjectContext
  ) {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(at: url, format: format)
    return (coordinator, try ManagedObjectContext(coordinator: coordinator))
  }

  static func values(_ context: ManagedObjectContext, _ entity: String, _ key: String) throws
    -> [String]
  {
    try context.objects(ofEntity: entity).filter { !$0.isDeleted }.map {
      "\(try $0.value(forKey: key) ?? "nil")"
    }.sorted()
  }

  static func object(_ context: ManagedObjectContext, _ entity: String, _ name: String) throws
    -> ManagedObject
  {
    let key = entity == "Spending" ? "content" : entity == "Card" ? "number" : "name"
    return try #require(
      try context.objects(ofEntity: entity).first { try $0.value(forKey: key) as? String == name })
  }

  /// Runs `body` on a fresh store of each format, with a coordinator and context open on it.
  static func withStores(
    _ body: (any StoreFormat, URL, PersistentStoreCoordinator, ManagedObjectContext) throws -> Void
  ) throws {
    for format in formats {
      let folder = try makeTemporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let url = try makeStore(format, in: folder)
      let (coordinator, context) = try open(url, format)
      try body(format, url, coordinator, context)
    }
  }

  @Test("a batch delete removes the matching objects from the store and from an open context")
  func deleteMerges() throws {
    try Self.withStores { format, url, _, context in
      let ada = try Self.object(context, "Person", "Ada")
      try ada.setValue("Ada L.", forKey: "name")
      var request = BatchDeleteRequest(
        entityName: "Spending", predicate: try QueryPredicate(format: "amount < 5"))
      request.resultType = .objectIDs
      let ids = try #require(try context.execute(request).objectIDs)
      #expect(Set(ids.map(\.entityName)) == ["Spending"], "\(format.typeName)")
      #expect(ids.count == 2, "\(format.typeName)")
      #expect(try Self.values(context, "Spending", "content") == ["Book", "Lunch"])
      // The unsaved change to another object stays, and the relationship let go of Tea.
      #expect(try ada.value(forKey: "name") as? String == "Ada L.")
      #expect(ada.hasChanges)
      #expect((try ada.value(forKey: "spendings") as? Set<ManagedObject>)?.count == 1)
      let food = try Self.object(context, "Tag", "food")
      #expect((try food.value(forKey: "spendings") as? Set<ManagedObject>)?.count == 1)
      // The store holds the same, read afresh; the context's change saves over it.
      let (_, fresh) = try Self.open(url, format)
      #expect(try Self.values(fresh, "Spending", "content") == ["Book", "Lunch"])
      #expect(try Self.values(fresh, "Person", "name") == ["Ada", "Bob"])
      try context.save()
      let (_, saved) = try Self.open(url, format)
      #expect(try Self.values(saved, "Person", "name") == ["Ada L.", "Bob"])
      #expect(try Self.values(saved, "Spending", "content") == ["Book", "Lunch"])
    }
  }

  @Test("a batch update sets constants and expressions, keeping an open context's other changes")
  func updateMerges() throws {
    try Self.withStores { format, url, _, context in
      let lunch = try Self.object(context, "Spending", "Lunch")
      try lunch.setValue("Brunch", forKey: "content")
      context.processPendingChanges()
      var request = BatchUpdateRequest(
        entityName: "Spending", predicate: try QueryPredicate(format: "amount > 10"),
        propertiesToUpdate: [
          "isPaid": true, "amount": try QueryExpression(format: "amount * 2"),
        ])
      request.resultType = .count
      #expect(try context.execute(request) == .count(2), "\(format.typeName)")
      #expect(try lunch.value(forKey: "content") as? String == "Brunch")
      #expect(try lunch.value(forKey: "isPaid") as? Bool == true)
      #expect(try lunch.value(forKey: "amount") as? Double == 25)
      #expect(try Self.values(context, "Spending", "amount") == ["0.0", "2.5", "25.0", "60.0"])
      #expect(context.undoManager?.canUndo == true)
      try context.undoManager?.undo()
      #expect(try lunch.value(forKey: "content") as? String == "Lunch")
      #expect(try lunch.value(forKey: "amount") as? Double == 25)
      let (_, fresh) = try Self.open(url, format)
      #expect(try Self.values(fresh, "Spending", "isPaid") == ["false", "false", "true", "true"])
    }
  }

  @Test("a batch insert adds objects with defaults, and later saves give other keys")
  func insertMerges() throws {
    try Self.withStores { format, url, _, context in
      var request = BatchInsertRequest(
        entityName: "Spending",
        objects: [
          ["content": "Tea", "amount": 3],
          ["content": "Cake", "date": Date(timeIntervalSinceReferenceDate: 0)],
        ])
      request.resultType = .objectIDs
      let ids = try #require(try context.execute(request).objectIDs)
      #expect(ids.count == 2, "\(format.typeName)")
      let cake = try #require(context.object(with: ids[1]))
      #expect(try cake.value(forKey: "content") as? String == "Cake")
      #expect(try cake.value(forKey: "amount") as? Double == 0)
      #expect(!cake.hasChanges)
      let later = try context.insertNewObject(forEntityName: "Spending")
      try later.setValue("Later", forKey: "content")
      try context.save()
      #expect(!ids.contains(later.objectID))
      let (_, fresh) = try Self.open(url, format)
      #expect(
        try Self.values(fresh, "Spending", "content")
          == ["Book", "Cake", "Gift", "Later", "Lunch", "Tea", "Tea"])
    }
  }

  @Test("a batch delete follows Cascade, Nullify and many-to-many inverses, and Deny refuses")
  func deleteRules() throws {
    try Self.withStores { format, url, coordinator, context in
      // Bob holds a card, whose Deny rule keeps him; nothing is deleted.
      #expect {
        try context.execute(BatchDeleteRequest(entityName: "Person"))
      } throws: { error in
        let error = error as? GraphError
        return error?.code == .deny && error?.location?.description == "Person.card"
      }
      #expect(try Self.values(context, "Person", "name") == ["Ada", "Bob"], "\(format.typeName)")
      var request = BatchDeleteRequest(
        entityName: "Person", predicate: try QueryPredicate(format: "name == 'Ada'"))
      request.resultType = .count
      // Ada and, by Cascade, Lunch and Tea.
      #expect(try coordinator.execute(request) == .count(3))
      #expect(try Self.values(context, "Spending", "content") == ["Book", "Gift"])
      let food = try Self.object(context, "Tag", "food")
      #expect((try food.value(forKey: "spendings") as? Set<ManagedObject>)?.isEmpty == true)
      let (_, fresh) = try Self.open(url, format)
      #expect(try Self.values(fresh, "Spending", "content") == ["Book", "Gift"])
      #expect(try Self.values(fresh, "Tag", "name") == ["drink", "food"])
      // Deleting the card lets Bob go: Nullify takes the card out of his relationship.
      try context.execute(BatchDeleteRequest(entityName: "Card"))
      let bob = try Self.object(context, "Person", "Bob")
      #expect(try bob.value(forKey: "card") == nil)
      try context.execute(BatchDeleteRequest(entityName: "Person"))
      let (_, emptied) = try Self.open(url, format)
      #expect(try Self.values(emptied, "Spending", "content") == ["Gift"])
      #expect(try Self.values(emptied, "Person", "name") == [])
    }
  }

  @Test("each result type answers as asked, and deletion by IDs takes the objects named")
  func resultTypes() throws {
    try Self.withStores { format, _, _, context in
      let gift = try Self.object(context, "Spending", "Gift")
      #expect(
        try context.execute(BatchDeleteRequest(objectIDs: [gift.objectID])) == .status(true),
        "\(format.typeName)")
      #expect(try Self.values(context, "Spending", "content") == ["Book", "Lunch", "Tea"])
      var update = BatchUpdateRequest(entityName: "Person", propertiesToUpdate: ["age": 40])
      update.resultType = .objectIDs
      let updated = try #require(try context.execute(update).objectIDs)
      #expect(Set(updated) == Set(try context.objects(ofEntity: "Person").map(\.objectID)))
      update.resultType = .statusOnly
      #expect(try context.execute(update) == .status(true))
      var insert = BatchInsertRequest(entityName: "Tag", objects: [["name": "rent"]])
      insert.resultType = .count
      #expect(try context.execute(insert) == .count(1))
      #expect(try Self.values(context, "Tag", "name") == ["drink", "food", "rent"])
    }
  }

  @Test("every context on the coordinator takes a batch in, each keeping its own changes")
  func everyContextMerges() throws {
    try Self.withStores { format, _, coordinator, first in
      let second = try ManagedObjectContext(coordinator: coordinator)
      try Self.object(second, "Person", "Bob").setValue(21, forKey: "age")
      let request = BatchUpdateRequest(
        entityName: "Person", propertiesToUpdate: ["name": "Someone"])
      try first.execute(request)
      #expect(try Self.values(first, "Person", "name") == ["Someone", "Someone"])
      #expect(try Self.values(second, "Person", "name") == ["Someone", "Someone"])
      #expect(try Self.values(second, "Person", "age") == ["21", "36"], "\(format.typeName)")
      try second.save()
      let (_, fresh) = try Self.open(coordinator.persistentStores[0].url!, format)
      #expect(try Self.values(fresh, "Person", "age") == ["21", "36"])
      #expect(try Self.values(fresh, "Person", "name") == ["Someone", "Someone"])
    }
  }

  /// A request that must fail, the error's code, where it says the input was bad, and its
  /// message.
  struct BadRequest: Sendable, CustomStringConvertible {
    let id: String
    let run: @Sendable (ManagedObjectContext) throws -> Void
    let code: GraphError.Code
    let location: String
    let message: String
    var description: String { id }
  }

  static let badRequests: [BadRequest] = [
    BadRequest(
      id: "unknown entity", run: { try $0.execute(BatchDeleteRequest(entityName: "Spnding")) },
      code: .unknownEntity, location: "",
      message: "unknown entity \"Spnding\" (did you mean \"Spending\"?)"),
    BadRequest(
      id: "unknown key in a predicate",
      run: {
        try $0.execute(
          BatchDeleteRequest(
            entityName: "Spending", predicate: try QueryPredicate(format: "amout > 1")))
      }, code: .unknownKey, location: "Spending.amout",
      message: "\"Spending\" has no property \"amout\" (did you mean \"amount\"?)"),
    BadRequest(
      id: "unknown key to set",
      run: {
        try $0.execute(BatchUpdateRequest(entityName: "Spending", propertiesToUpdate: ["amout": 1]))
      }, code: .unknownKey, location: "Spending.amout",
      message: "\"Spending\" has no property \"amout\" (did you mean \"amount\"?)"),
    BadRequest(
      id: "wrong type",
      run: {
        try $0.execute(
          BatchUpdateRequest(entityName: "Spending", propertiesToUpdate: ["amount": "ten"]))
      }, code: .typeMismatch, location: "Spending.amount",
      message: "\"ten\" (a string) is not of type Double"),
    BadRequest(
      id: "wrong type in an inserted object",
      run: {
        try $0.execute(
          BatchInsertRequest(entityName: "Person", objects: [["name": "Cy"], ["age": 1_000_000]]))
      }, code: .typeMismatch, location: "Person.age",
      message: "1000000 is outside the range of Integer 16 (object 2 of 2)"),
    BadRequest(
      id: "a relationship",
      run: {
        try $0.execute(
          BatchUpdateRequest(entityName: "Spending", propertiesToUpdate: ["person": NSNull()]))
      }, code: .typeMismatch, location: "Spending.person",
      message: "\"person\" is a relationship; a batch update sets attributes only"),
    BadRequest(
      id: "an expression that cannot be evaluated",
      run: {
        try $0.execute(
          BatchUpdateRequest(
            entityName: "Spending",
            propertiesToUpdate: ["amount": try QueryExpression(format: "content * 2")]))
      }, code: .invalidPredicate, location: "Spending",
      message: "* needs numbers, found \"Lunch\""),
    BadRequest(
      id: "a uniqueness constraint broken by an insert",
      run: { try $0.execute(BatchInsertRequest(entityName: "Tag", objects: [["name": "food"]])) },
      code: .validation, location: "Tag.name",
      message: "two Tag objects would hold the same name, which a uniqueness constraint forbids"),
    BadRequest(
      id: "a uniqueness constraint broken by an update",
      run: {
        try $0.execute(BatchUpdateRequest(entityName: "Tag", propertiesToUpdate: ["name": "x"]))
      }, code: .validation, location: "Tag.name",
      message: "two Tag objects would hold the same name, which a uniqueness constraint forbids"),
  ]

  @Test("bad requests are refused with typed errors naming the place", arguments: badRequests)
  func badRequest(_ bad: BadRequest) throws {
    try Self.withStores { format, url, _, context in
      #expect {
        try bad.run(context)
      } throws: { error in
        guard let error = error as? GraphError else { return false }
        #expect(error.code == bad.code, "\(format.typeName): \(error)")
        #expect(error.location?.description ?? "" == bad.location)
        #expect(error.message == bad.message)
        return true
      }
      let (_, fresh) = try Self.open(url, format)
      #expect(try Self.values(fresh, "Spending", "amount") == ["0.0", "12.5", "2.5", "30.0"])
    }
  }

  @Test("another document on the file takes a batch in as another process's save")
  func otherDocumentTakesIn() throws {
    for format in Self.formats {
      let folder = try makeTemporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let url = try Self.makeStore(format, in: folder)
      if let sqlite = format as? SQLiteStore {
        try sqlite.enableHistoryTracking(at: url, model: Self.model)
      }
      let batcher = try Document.open(url, model: Self.model, formats: Self.formats)
      let watcher = try Document.open(url, model: Self.model, formats: Self.formats)
      try batcher.context.execute(
        BatchUpdateRequest(entityName: "Person", propertiesToUpdate: ["age": 50]))
      try batcher.context.execute(
        BatchInsertRequest(entityName: "Tag", objects: [["name": "rent"]]))
      let changes = try watcher.mergeChangesFromOtherWriters()
      #expect(changes.updated.count == 2 && changes.inserted.count == 1, "\(format.typeName)")
      #expect(try Self.values(watcher.context, "Person", "age") == ["50", "50"])
      #expect(try Self.values(watcher.context, "Tag", "name") == ["drink", "food", "rent"])
      if format is SQLiteStore {
        // Read from the history the batches recorded, not from the whole store.
        #expect(watcher.coordinator.takeInsFromHistory == 1)
        #expect(watcher.coordinator.takeInsOfWholeStore == 0)
      }
      // The batcher's own later save keeps what its batches wrote.
      try Self.object(batcher.context, "Tag", "rent").setValue("rents", forKey: "name")
      try batcher.save()
      let (_, fresh) = try Self.open(url, format)
      #expect(try Self.values(fresh, "Tag", "name") == ["drink", "food", "rents"])
      #expect(try Self.values(fresh, "Person", "age") == ["50", "50"])
    }
  }

  @Test("a batch request on a store in memory is refused, naming why")
  func inMemoryRefused() throws {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
    try coordinator.addInMemoryStore()
    let context = try ManagedObjectContext(coordinator: coordinator)
    #expect {
      try context.execute(BatchDeleteRequest(entityName: "Spending"))
    } throws: { error in
      (error as? GraphError)?.message
        == "a batch request changes a store's file, and this store has none yet"
    }
  }
}
