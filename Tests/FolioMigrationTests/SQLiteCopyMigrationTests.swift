import FolioModel
import FolioSQLiteStore
import FolioStores
import FolioTestSupport
import Foundation
import Testing

@testable import FolioMigration

/// Version 1 of a household model: people with spendings, groups, pets of two kinds (a
/// hierarchy, named by a to-one that needs an entity column), and notes.
func householdVersion1() throws -> ManagedObjectModel {
  try ManagedObjectModel {
    EntityDescription("Person") {
      AttributeDescription("name", .string, isOptional: false)
      RelationshipDescription(
        "spendings", to: "Spending", inverse: "person", toMany: true, ordered: true)
      RelationshipDescription("groups", to: "Group", inverse: "members", toMany: true)
      RelationshipDescription("favourite", to: "Pet", inverse: "favouredBy")
      RelationshipDescription("pets", to: "Pet", inverse: "owner", toMany: true)
    }
    EntityDescription("Spending") {
      AttributeDescription("amount", .double, isOptional: false, defaultValue: .double(0))
      AttributeDescription("content", .string)
      AttributeDescription("date", .date)
      AttributeDescription("count", .integer16)
      AttributeDescription("receipt", .binaryData)
      RelationshipDescription("person", to: "Person", inverse: "spendings")
    }
    EntityDescription("Group") {
      AttributeDescription("title", .string)
      RelationshipDescription("members", to: "Person", inverse: "groups", toMany: true)
    }
    EntityDescription("Pet", isAbstract: true) {
      AttributeDescription("name", .string)
      RelationshipDescription("owner", to: "Person", inverse: "pets")
      RelationshipDescription("favouredBy", to: "Person", inverse: "favourite", toMany: true)
    }
    EntityDescription("Cat", parent: "Pet") {
      AttributeDescription("lives", .integer32)
    }
    EntityDescription("Dog", parent: "Pet") {
      AttributeDescription("breed", .string)
    }
    EntityDescription("Note") {
      AttributeDescription("text", .string)
    }
  }
}

/// Version 2: every change a plain copy makes. Entities are renumbered (Budget is new and
/// sorts first, Group is renamed Team, Note is gone); `content` is renamed `note`; `count`
/// widens; a required `currency` with a default and an optional `email` are new.
func householdVersion2(dateRequired: Bool = false) throws -> ManagedObjectModel {
  var note = AttributeDescription("note", .string)
  note.renamingIdentifier = "content"
  var team = EntityDescription("Team") {
    AttributeDescription("title", .string)
    RelationshipDescription("members", to: "Person", inverse: "groups", toMany: true)
  }
  team.renamingIdentifier = "Group"
  return try ManagedObjectModel {
    EntityDescription("Budget") {
      AttributeDescription("limit", .double)
    }
    EntityDescription("Person") {
      AttributeDescription("name", .string, isOptional: false)
      AttributeDescription("email", .string)
      RelationshipDescription(
        "spendings", to: "Spending", inverse: "person", toMany: true, ordered: true)
      RelationshipDescription("groups", to: "Team", inverse: "members", toMany: true)
      RelationshipDescription("favourite", to: "Pet", inverse: "favouredBy")
      RelationshipDescription("pets", to: "Pet", inverse: "owner", toMany: true)
    }
    EntityDescription("Spending") {
      AttributeDescription("amount", .double, isOptional: false, defaultValue: .double(0))
      note
      AttributeDescription("date", .date, isOptional: !dateRequired)
      AttributeDescription("count", .integer64)
      AttributeDescription("currency", .string, isOptional: false, defaultValue: .string("EUR"))
      AttributeDescription("receipt", .binaryData)
      RelationshipDescription("person", to: "Person", inverse: "spendings")
    }
    team
    EntityDescription("Pet", isAbstract: true) {
      AttributeDescription("name", .string)
      RelationshipDescription("owner", to: "Person", inverse: "pets")
      RelationshipDescription("favouredBy", to: "Person", inverse: "favourite", toMany: true)
    }
    EntityDescription("Cat", parent: "Pet") {
      AttributeDescription("lives", .integer32)
    }
    EntityDescription("Dog", parent: "Pet") {
      AttributeDescription("breed", .string)
    }
  }
}

/// A household of `people` people, each with `spendings` spendings (in an order that is not
/// their IDs'), a cat or a dog as pet and favourite, and two groups; `notes` notes; one
/// spending without a date.
func householdRecords(people: Int = 3, spendings: Int = 4, notes: Int = 0) -> [StoreRecord] {
  var records: [StoreRecord] = []
  var next: Int64 = 1
  func take() -> Int64 {
    defer { next += 1 }
    return next
  }
  let groups = [take(), take()]
  var members: [Int64: [Int64]] = [:]
  for index in 0..<people {
    let person = take()
    let pet = take()
    let listed = (0..<spendings).map { _ in take() }
    let order = Array(listed.reversed())
    let inGroups = index % 2 == 0 ? groups : [groups[0]]
    for group in inGroups { members[group, default: []].append(person) }
    records.append(
      StoreRecord(
        entityName: "Person", id: person, attributes: ["name": .string("Person \(index)")],
        relationships: [
          "spendings": order, "groups": inGroups, "favourite": [pet], "pets": [pet],
        ]))
    records.append(
      StoreRecord(
        entityName: index % 2 == 0 ? "Cat" : "Dog", id: pet,
        attributes: index % 2 == 0
          ? ["name": .string("Tom \(index)"), "lives": .integer(9)]
          : ["name": .string("Rex \(index)"), "breed": .string("collie")],
        relationships: ["owner": [person], "favouredBy": [person]]))
    for (position, spending) in listed.enumerated() {
      var attributes: [String: AttributeValue] = [
        "amount": .double(Double(position) + 0.5), "content": .string("item \(spending)"),
        "count": .integer(Int64(position)),
        "receipt": .binaryData(Data([1, 2, UInt8(position % 256)])),
      ]
      if spending != listed.first || index != 0 {
        attributes["date"] = .date(Date(timeIntervalSinceReferenceDate: Double(spending) * 60))
      }
      records.append(
        StoreRecord(
          entityName: "Spending", id: spending, attributes: attributes,
          relationships: ["person": [person]]))
    }
  }
  for (index, group) in groups.enumerated() {
    records.append(
      StoreRecord(
        entityName: "Group", id: group, attributes: ["title": .string("Group \(index)")],
        relationships: ["members": members[group] ?? []]))
  }
  for index in 0..<notes {
    records.append(
      StoreRecord(entityName: "Note", id: take(), attributes: ["text": .string("note \(index)")]))
  }
  return records
}

@Suite("Migrating SQLite stores in SQL")
struct SQLiteCopyMigrationTests {
  /// A folder with a bundle of the household's two versions and a version 1 SQLite store of
  /// `records`, and a second copy of it.
  func setUp(_ records: [StoreRecord], dateRequired: Bool = false) throws -> (
    folder: URL, stores: [URL], bundle: ModelBundle
  ) {
    let folder = try makeTemporaryFolder()
    let bundle = try ModelBundle(
      contentsOf: try writeBundle(
        [
          ("Household 1", try householdVersion1()),
          ("Household 2", try householdVersion2(dateRequired: dateRequired)),
        ], in: folder))
    var metadata = StoreMetadata(storeType: "SQLite")
    metadata.userInfo["owner"] = .string("Ada")
    let stores = ["sql.sqlite", "records.sqlite"].map { folder.appendingPathComponent($0) }
    for store in stores {
      try SQLiteStore().write(
        StoreContents(metadata: metadata, records: records), model: bundle.versions[0].model,
        to: store)
    }
    return (folder, stores, bundle)
  }

  /// Migrates `store` to the current version, in SQL or through the records.
  func migrate(_ store: URL, _ bundle: ModelBundle, inSQL: Bool) throws -> StoreMigrationReport {
    var migration = try StoreMigration(storeAt: store, format: SQLiteStore(), bundle: bundle)
    migration.copiesInSQL = inSQL
    return try migration.run()
  }

  @Test("renumbered entities, renames, defaults and widened numbers copy in SQL as the records do")
  func sameAsRecords() throws {
    let (folder, stores, bundle) = try setUp(householdRecords())
    defer { try? FileManager.default.removeItem(at: folder) }
    let sql = try migrate(stores[0], bundle, inSQL: true)
    let records = try migrate(stores[1], bundle, inSQL: false)
    #expect(sql.steps.map(\.copiedInSQL) == [true])
    #expect(records.steps.map(\.copiedInSQL) == [false])
    #expect(sql.description == records.description)
    #expect(
      sql.steps[0].objectsAfter == ["Person": 3, "Spending": 12, "Team": 2, "Cat": 2, "Dog": 1])
    let model = bundle.versions[1].model
    let copied = try SQLiteStore().read(from: stores[0], model: model)
    let migrated = try SQLiteStore().read(from: stores[1], model: model)
    #expect(byID(copied.records) == byID(migrated.records))
    // What the copy made, checked on its own: renamed values, defaults, widened numbers,
    // the order of each person's spendings, and entity numbers that name the right pets.
    let spendings = copied.records.filter { $0.entityName == "Spending" }
    #expect(spendings.count == 12)
    #expect(spendings.allSatisfy { $0.attribute("currency") == .string("EUR") })
    #expect(spendings.allSatisfy { $0.attribute("note")?.modelText.hasPrefix("item ") == true })
    #expect(spendings.filter { $0.attribute("date") == nil }.count == 1)
    let people = copied.records.filter { $0.entityName == "Person" }
    for person in people {
      let order = person.relationships["spendings"] ?? []
      #expect(order.count == 4)
      #expect(order == order.sorted(by: >), "each list keeps its order, not the IDs'")
      let pet = try #require(person.relationships["favourite"]?.first)
      let kind = copied.records.first { $0.id == pet }?.entityName
      #expect(kind == "Cat" || kind == "Dog")
    }
    #expect(copied.metadata.userInfo["owner"] == .string("Ada"))
    #expect(
      bundle.version(matchingVersionHashes: copied.metadata.modelVersionHashes)?.name
        == "Household 2")
    #expect(try integrityCheck(stores[0]) == "ok")
    // New objects are numbered after every key the old file gave out.
    #expect(copied.nextObjectID >= migrated.nextObjectID)
    // Either way the new file keeps a commit log, which the first save records itself in.
    for store in stores.prefix(2) {
      let connection = try #require(try SQLiteStore().connect(to: store))
      try connection.beginWriting()
      try connection.reserveKeys([], model: model)
      try connection.commitWriting()
      let logged = (connection as? any CommitLoggingConnection)?.commitLogPosition
      let place = try #require(try SQLiteStore().commitLogPosition(of: store))
      #expect(place == logged)
      #expect(place.anchor.counter == place.counter - 1)
    }
  }

  @Test("a dry run in SQL says what the records' would, and writes nothing")
  func dryRun() throws {
    let (folder, stores, bundle) = try setUp(householdRecords(notes: 0))
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = try Data(contentsOf: stores[0])
    var sql = try StoreMigration(storeAt: stores[0], format: SQLiteStore(), bundle: bundle)
    let report = try sql.dryRun()
    sql.copiesInSQL = false
    #expect(report.steps.map(\.copiedInSQL) == [true])
    #expect(report.description == (try sql.dryRun()).description)
    #expect(report.description.contains("Spending.note: renamed from content"))
    #expect(try Data(contentsOf: stores[0]) == before)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
        "Library.xcdatamodeld", "records.sqlite", "sql.sqlite",
      ])
  }

  @Test("a migration of two steps in SQL, run or dry, leaves no step's database behind")
  func twoSteps() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let third = try ManagedObjectModel(
      entities: try householdVersion2().entities.map { entity in
        guard entity.name == "Budget" else { return entity }
        var changed = entity
        changed.attributes.append(AttributeDescription("currency", .string))
        return changed
      })
    let bundle = try ModelBundle(
      contentsOf: try writeBundle(
        [
          ("Household 1", try householdVersion1()), ("Household 2", try householdVersion2()),
          ("Household 3", third),
        ], in: folder))
    let store = folder.appendingPathComponent("store.sqlite")
    try SQLiteStore().write(
      StoreContents(metadata: StoreMetadata(storeType: "SQLite"), records: householdRecords()),
      model: bundle.versions[0].model, to: store)
    // The steps' databases are built beside the store, and none is left there.
    func leftovers() throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
        $0.contains(".folio-")
      }
    }
    let migration = try StoreMigration(storeAt: store, format: SQLiteStore(), bundle: bundle)
    let dry = try migration.dryRun()
    #expect(dry.steps.map(\.copiedInSQL) == [true, true])
    #expect(try leftovers() == [])
    let done = try migration.run()
    #expect(done.description == dry.description)
    #expect(try leftovers() == [])
    let records = try SQLiteStore().read(from: store, model: bundle.versions[2].model).records
    #expect(records.filter { $0.entityName == "Spending" }.count == 12)
  }

  @Test(
    "objects of a removed entity, or a required value missing, send the step through the records")
  func declined() throws {
    // Notes have rows: the records' way reports what is lost.
    do {
      let (folder, stores, bundle) = try setUp(householdRecords(notes: 2))
      defer { try? FileManager.default.removeItem(at: folder) }
      let report = try migrate(stores[0], bundle, inSQL: true)
      #expect(report.steps.map(\.copiedInSQL) == [false])
      #expect(report.description.contains("lost: Note.text of 2 objects"))
    }
    // A date made required without a default, by a mapping of plain copies (the inferred
    // one, given): one spending has none.
    do {
      let (folder, stores, bundle) = try setUp(householdRecords(), dateRequired: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      let before = try Data(contentsOf: stores[0])
      let copies = try MappingModel.inferred(
        from: try householdVersion1(), to: try householdVersion2())
      let migration = try StoreMigration(
        storeAt: stores[0], format: SQLiteStore(), bundle: bundle,
        mappings: [
          .init(sourceVersion: "Household 1", destinationVersion: "Household 2", mapping: copies)
        ])
      #expect {
        try migration.run()
      } throws: { error in
        guard let error = error as? MigrationError else { return false }
        return error.code == .invalidValue
          && error.message.contains("Spending.date of object 5 has no value, and it is required")
      }
      #expect(try Data(contentsOf: stores[0]) == before)
    }
  }

  @Test("a migration cancelled while SQL copies stops there and writes nothing")
  func cancelled() throws {
    let (folder, stores, bundle) = try setUp(householdRecords(people: 40, spendings: 500))
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = try Data(contentsOf: stores[0])
    let migration = try StoreMigration(storeAt: stores[0], format: SQLiteStore(), bundle: bundle)
    var reports = 0
    #expect {
      try migration.run(progress: { _ in reports += 1 }, isCancelled: { reports >= 1 })
    } throws: { error in
      (error as? MigrationError)?.code == .cancelled
    }
    // Five entities' rows to copy, each reported when done: the copy stopped inside one
    // (the spendings', long enough for SQLite to ask), not between them.
    #expect(reports >= 1 && reports < 5)
    #expect(try Data(contentsOf: stores[0]) == before)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
        "Library.xcdatamodeld", "records.sqlite", "sql.sqlite",
      ])
  }
}

/// `PRAGMA integrity_check` of the database at `url`, by the `sqlite3` tool.
func integrityCheck(_ url: URL) throws -> String {
  try run(URL(fileURLWithPath: "/usr/bin/sqlite3"), [url.path, "PRAGMA integrity_check"])
    .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
}
