import FolioQuery
import FolioStores
import FolioTestSupport
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

/// Unindexed comparisons on Double and Float attributes are answered from a column of the
/// values; these tests hold the column to what evaluating the predicate on each object gives,
/// through every change that can make a column stale.
@Suite("Fetching from attribute columns")
struct ColumnScanTests {
  func model() throws -> ManagedObjectModel {
    try ManagedObjectModel {
      EntityDescription("Item") {
        AttributeDescription("amount", .double)
        AttributeDescription("ratio", .float)
        AttributeDescription("count", .integer64)
      }
      EntityDescription("Special", parent: "Item") {
        AttributeDescription("note", .string)
      }
    }
  }

  /// What evaluation finds, in table order: the reference the column must match.
  func evaluated(_ request: FetchRequest<ManagedObject>, in context: ManagedObjectContext) throws
    -> [ManagedObject]
  {
    let excluded: ManagedObject.Flags =
      request.includesPendingChanges ? [.removed, .deleted] : [.removed, .inserted]
    let layout = try #require(context.layoutByName[request.entityName])
    return try context.table.compactMap { $0 }.filter { object in
      let isCounted =
        object.flags.isDisjoint(with: excluded)
        && (request.includesSubentities
          ? object.layout.isKind(of: layout.index) : object.layout === layout)
      guard isCounted else { return false }
      return try request.predicate?.evaluate(with: object) ?? true
    }
  }

  func expectSame(
    _ format: String, _ context: ManagedObjectContext, entity: String = "Item",
    subentities: Bool = true, pending: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    var request = FetchRequest(entityName: entity, predicate: try QueryPredicate(format: format))
    request.includesSubentities = subentities
    request.includesPendingChanges = pending
    let fetched = try context.fetch(request)
    let expected = try evaluated(request, in: context)
    #expect(fetched == expected, "\(format)", sourceLocation: sourceLocation)
  }

  @Test("every comparison on random values, nils, NaNs, zeros and infinities matches evaluation")
  func randomValues() throws {
    var generator = SeededGenerator(seed: 7)
    let context = ManagedObjectContext(model: try model(), undoManager: nil)
    let specials: [Double?] = [
      nil, .nan, 0, -0.0, .infinity, -.infinity, 1, -1, 2.5, 9_007_199_254_740_992,
    ]
    for index in 0..<600 {
      let object = try context.insertNewObject(
        forEntityName: index % 5 == 0 ? "Special" : "Item")
      let amount =
        Bool.random(using: &generator)
        ? specials.randomElement(using: &generator)!
        : Double(Int.random(in: -20...20, using: &generator)) / 4
      if let amount { try object.setValue(amount, forKey: "amount") }
      try object.setValue(Float(index % 7) / 2, forKey: "ratio")
    }
    let constants = [
      "0", "-0.0", "1", "2.5", "-1.25", "3", "9007199254740992", "9007199254740993",
      "CAST(\"nan\", \"NSNumber\")", "CAST(\"inf\", \"NSNumber\")", "1e300",
    ]
    for op in ["==", "!=", "<", "<=", ">", ">="] {
      for constant in constants {
        try expectSame("amount \(op) \(constant)", context)
        try expectSame("amount \(op) \(constant)", context, subentities: false)
        try expectSame("amount \(op) \(constant)", context, entity: "Special")
        try expectSame("ratio \(op) \(constant)", context)
      }
    }
  }

  @Test(
    "a column follows every change: sets, inserts, deletes, undo, rollback, refresh, save, reset")
  func staleness() throws {
    let context = ManagedObjectContext(model: try model())
    var objects: [ManagedObject] = []
    for index in 0..<20 {
      let object = try context.insertNewObject(forEntityName: "Item")
      try object.setValue(Double(index), forKey: "amount")
      objects.append(object)
    }
    try context.save()
    context.undoManager?.removeAllActions()
    let query = "amount >= 10"
    try expectSame(query, context)
    try objects[0].setValue(50.0, forKey: "amount")
    try expectSame(query, context)
    try objects[15].setValue(nil, forKey: "amount")
    try expectSame(query, context)
    let fresh = try context.insertNewObject(forEntityName: "Special")
    try fresh.setValue(11.0, forKey: "amount")
    try expectSame(query, context)
    try expectSame(query, context, pending: false)
    try context.delete(objects[12])
    try expectSame(query, context)
    try expectSame(query, context, pending: false)
    context.processPendingChanges()
    try context.undoManager?.undo()
    try expectSame(query, context)
    try context.undoManager?.redo()
    try expectSame(query, context)
    try context.refresh(objects[0], mergeChanges: false)
    #expect(try objects[0].value(forKey: "amount", as: Double.self) == 0)
    try expectSame(query, context)
    context.rollback()
    try expectSame(query, context)
    try objects[3].setValue(30.0, forKey: "amount")
    try context.delete(objects[19])
    try context.save()
    try expectSame(query, context)
    try expectSame(query, context, pending: false)
    let request = FetchRequest(entityName: "Item", predicate: try QueryPredicate(format: query))
    let saved = Set(try context.fetch(request).map(\.objectID))
    context.reset()
    // The store keeps its objects: the same ones come back, read anew.
    let again = try context.fetch(request)
    #expect(Set(again.map(\.objectID)) == saved && !saved.isEmpty)
    #expect(again.allSatisfy { object in !objects.contains { $0 === object } })
    try expectSame(query, context)
  }

  @Test("a column built on an empty context is not used once a store is loaded into it")
  func loadAfterFetch() throws {
    let context = ManagedObjectContext(model: try model(), undoManager: nil)
    try expectSame("amount > 1", context)
    try context.load(
      StoreContents(
        metadata: StoreMetadata(storeType: "InMemory"),
        records: [
          StoreRecord(entityName: "Item", id: 1, attributes: ["amount": .double(5)]),
          StoreRecord(entityName: "Item", id: 2, attributes: ["amount": .double(0)]),
        ]))
    try expectSame("amount > 1", context)
    #expect(
      try context.count(
        for: FetchRequest(entityName: "Item", predicate: try QueryPredicate(format: "amount > 1")))
        == 1)
  }
}
