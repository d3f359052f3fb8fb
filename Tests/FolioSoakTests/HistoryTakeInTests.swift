import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

/// Another writer's saves taken in from a SQLite store's persistent history (only the objects
/// its transactions name are read) against the slow twin, the whole store read anew: after
/// every save the document that took them in holds what a fresh open of the file holds.
@Suite("Taking in other writers' saves from the history")
struct HistoryTakeInTests {
  static let model = packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld")

  /// Every object of `document` as a line: its entity, values and related objects by label
  /// (a person's name, a spending's content), sorted.
  static func state(_ document: Document) throws -> [String] {
    func label(_ object: ManagedObject) throws -> String {
      try object.value(forKey: object.entity.name == "Person" ? "name" : "content") as? String
        ?? "?"
    }
    var lines: [String] = []
    for person in try document.context.objects(ofEntity: "Person") {
      let spendings = try (person.value(forKey: "spendings") as? Set<ManagedObject> ?? [])
        .map(label).sorted()
      lines.append("Person \(try label(person)) \(spendings)")
    }
    for spending in try document.context.objects(ofEntity: "Spending") {
      let amount = try spending.value(forKey: "amount") as? Double ?? -1
      let person = try (spending.value(forKey: "person") as? ManagedObject).map(label) ?? "-"
      lines.append("Spending \(try label(spending)) \(amount) \(person)")
    }
    return lines.sorted()
  }

  /// A random change by `document`, whose new objects are labelled from `next`.
  static func change(_ document: Document, random: inout SeededGenerator, next: inout Int) throws {
    let context = document.context
    let people = try context.objects(ofEntity: "Person").sorted {
      $0.objectID.description < $1.objectID.description
    }
    let spendings = try context.objects(ofEntity: "Spending").sorted {
      $0.objectID.description < $1.objectID.description
    }
    switch Int.random(in: 0..<8, using: &random) {
    case 0:
      try context.insertNewObject(forEntityName: "Person").setValue("p\(next)", forKey: "name")
      next += 1
    case 1, 2:
      let spending = try context.insertNewObject(forEntityName: "Spending")
      try spending.setValue("s\(next)", forKey: "content")
      try spending.setValue(people.randomElement(using: &random), forKey: "person")
      next += 1
    case 3:
      try spendings.randomElement(using: &random)?.setValue(
        Double(Int.random(in: 0..<100, using: &random)), forKey: "amount")
    case 4, 5:
      try spendings.randomElement(using: &random)?.setValue(
        people.randomElement(using: &random), forKey: "person")
    case 6:
      if let spending = spendings.randomElement(using: &random) { try context.delete(spending) }
    default:
      if let person = people.randomElement(using: &random) { try context.delete(person) }
    }
    context.processPendingChanges()
  }

  @Test(
    "every save taken in from the history leaves what a fresh open shows", arguments: [1, 2, 3])
  func differential(seed: UInt64) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Expenses.sqlite")
    try Self.takeIns(seed: seed, at: url, format: SQLiteStore()) { url, model in
      try SQLiteStore().enableHistoryTracking(at: url, model: model)
    }
  }

  @Test(
    "every save taken in from a PostgreSQL document's history leaves what a fresh open shows",
    .enabled(if: PostgresTestServer.isAvailable, "FOLIO_TEST_POSTGRES_URL unset"),
    arguments: [1, 2])
  func differentialPostgres(seed: UInt64) throws {
    let url = PostgresTestServer.document("history")
    defer { try? PostgresStore.dropSchema(at: url) }
    try Self.takeIns(seed: seed, at: url, format: PostgresStore()) { _, _ in }
  }

  /// A watcher takes in forty rounds of another document's saves, and saves of its own, from
  /// the store's history at `url`, written in `format` and made to keep history by `track`.
  static func takeIns(
    seed: UInt64, at url: URL, format: any StoreFormat,
    expecting road: KeyPath<PersistentStoreCoordinator, Int> = \.takeInsFromHistory,
    track: (URL, ManagedObjectModel) throws -> Void
  ) throws {
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let setup = try Document(model: model)
    var random = SeededGenerator(seed: seed)
    var next = 0
    for _ in 0..<20 { try Self.change(setup, random: &random, next: &next) }
    try setup.save(to: url, format: format)
    try track(url, model)
    let watcher = try Document.open(url, model: model, formats: [format])
    let writer = try Document.open(url, model: model, formats: [format])
    for round in 0..<40 {
      for _ in 0..<Int.random(in: 1...6, using: &random) {
        try Self.change(writer, random: &random, next: &next)
      }
      try writer.save()
      // The watcher saves changes of its own now and then: its own transactions come back
      // to it in the history too.
      if Int.random(in: 0..<4, using: &random) == 0 {
        try watcher.mergeChangesFromOtherWriters()
        try Self.change(watcher, random: &random, next: &next)
        try watcher.save()
        try writer.mergeChangesFromOtherWriters()
      } else {
        try watcher.mergeChangesFromOtherWriters()
      }
      let fresh = try Document.open(url, model: model, formats: [format])
      #expect(try Self.state(watcher) == Self.state(fresh), "seed \(seed), round \(round)")
      #expect(watcher.context.brokenInvariants() == [], "seed \(seed), round \(round)")
    }
    // The fast road was the one taken, every time.
    #expect(watcher.coordinator[keyPath: road] > 20)
    #expect(watcher.coordinator.takeInsOfWholeStore == 0)
  }
}

extension HistoryTakeInTests {
  @Test(
    "a writer that keeps no history, or history deleted past the document's place, makes it compare row versions"
  )
  func fallbacks() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Expenses.sqlite")
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let setup = try Document(model: model)
    try setup.context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "name")
    try setup.save(to: url, format: SQLiteStore())
    try SQLiteStore().enableHistoryTracking(at: url, model: model)
    // Without Folio's commit log, which would lead instead.
    try LogTakeInTests.dropLog(url)
    let watcher = try Document.open(url, model: model, formats: [SQLiteStore()])
    // The sqlite3 shell keeps no history.
    try PersistentHistoryTests.sqlite(
      url, "UPDATE ZPERSON SET ZNAME = 'Ada King', Z_OPT = Z_OPT + 1;")
    try watcher.mergeChangesFromOtherWriters()
    #expect(try Self.state(watcher) == ["Person Ada King []"])
    #expect(watcher.coordinator.takeInsByVersions == 1)
    // Two saves by another document, the first one's history deleted before the watcher looks.
    let writer = try Document.open(url, model: model, formats: [SQLiteStore()])
    try writer.context.insertNewObject(forEntityName: "Person").setValue("Bob", forKey: "name")
    try writer.save()
    let first = try #require(try writer.fetchHistory(after: nil).last?.token)
    try writer.context.insertNewObject(forEntityName: "Person").setValue("Cy", forKey: "name")
    try writer.save()
    try writer.coordinator.deleteHistory(before: first)
    try watcher.mergeChangesFromOtherWriters()
    #expect(try Self.state(watcher) == ["Person Ada King []", "Person Bob []", "Person Cy []"])
    #expect(watcher.coordinator.takeInsByVersions == 2)
    #expect(watcher.coordinator.takeInsFromHistory == 0)
    #expect(watcher.coordinator.takeInsOfWholeStore == 0)
  }
}
