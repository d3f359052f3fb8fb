import Folio
import FolioTestSupport
import Foundation
import Testing

/// Another writer's saves to a SQLite store that keeps no history or commit log, taken in by comparing the
/// rows' versions (`Z_OPT`) with the committed ones (only the rows whose version moved are
/// read), against the slow twin, the whole store read anew: after every save the document
/// that took them in holds what a fresh open of the file holds.
@Suite("Taking in other writers' saves by row versions")
struct VersionTakeInTests {
  static let library = packageRoot.appendingPathComponent(
    "Samples/Library/Library.xcdatamodeld")

  /// Every object of `document` as a line: its entity, values and related objects by label.
  static func state(_ document: Document) throws -> [String] {
    let context = document.context
    func label(_ object: ManagedObject) throws -> String {
      let key = ["Writer": "name", "Shelf": "label"][object.entity.name] ?? "title"
      return try object.value(forKey: key) as? String ?? "?"
    }
    func labels(_ object: ManagedObject, _ key: String) throws -> [String] {
      try (object.value(forKey: key) as? Set<ManagedObject> ?? []).map(label).sorted()
    }
    var lines: [String] = []
    for object in try context.objects(ofEntity: "Item") + context.objects(ofEntity: "Writer")
      + context.objects(ofEntity: "Shelf")
    {
      var line = "\(object.entity.name) \(try label(object))"
      switch object.entity.name {
      case "Book":
        let rating = try object.value(forKey: "rating") as? Int ?? -1
        let shelf = try (object.value(forKey: "shelf") as? ManagedObject).map(label) ?? "-"
        line += " \(rating) \(shelf) \(try labels(object, "authors"))"
      case "Magazine": line += " \(try object.value(forKey: "issue") as? Int ?? -1)"
      case "Writer", "Shelf": line += " \(try labels(object, "books"))"
      default: break
      }
      lines.append(line)
    }
    return lines.sorted()
  }

  /// A random change by `document`, whose new objects are labelled from `next`: inserts of
  /// each entity, values, a book's authors (many-to-many) and shelf (to-one), deletions.
  static func change(_ document: Document, random: inout SeededGenerator, next: inout Int) throws {
    let context = document.context
    func some(_ entity: String) throws -> ManagedObject? {
      try context.objects(ofEntity: entity).sorted {
        $0.objectID.description < $1.objectID.description
      }.randomElement(using: &random)
    }
    next += 1
    switch Int.random(in: 0..<10, using: &random) {
    case 0: try context.insertNewObject(forEntityName: "Book").setValue("b\(next)", forKey: "title")
    case 1:
      let magazine = try context.insertNewObject(forEntityName: "Magazine")
      try magazine.setValue("m\(next)", forKey: "title")
    case 2:
      try context.insertNewObject(forEntityName: "Writer").setValue("w\(next)", forKey: "name")
    case 3:
      try context.insertNewObject(forEntityName: "Shelf").setValue("s\(next)", forKey: "label")
    case 4, 5:
      // Only the link changes: the rows of both sides move on.
      guard let book = try some("Book"), let writer = try some("Writer") else { return }
      var authors = try book.value(forKey: "authors") as? Set<ManagedObject> ?? []
      if authors.remove(writer) == nil { authors.insert(writer) }
      try book.setValue(authors, forKey: "authors")
    case 6: try some("Book")?.setValue(try some("Shelf"), forKey: "shelf")
    case 7: try some("Book")?.setValue(Int.random(in: 1...5, using: &random), forKey: "rating")
    case 8: try some("Magazine")?.setValue(Int.random(in: 1...99, using: &random), forKey: "issue")
    default:
      let entity = ["Book", "Magazine", "Writer", "Shelf"].randomElement(using: &random) ?? "Book"
      if let object = try some(entity) { try context.delete(object) }
    }
    context.processPendingChanges()
  }

  @Test(
    "every save taken in by row versions leaves what a fresh open shows", arguments: [1, 2, 3])
  func differential(seed: UInt64) throws {
    try Self.takeIns(seed: seed, keepingLog: false, expecting: \.takeInsByVersions)
  }

  /// A watcher takes in forty rounds of another document's saves, and saves of its own, on a
  /// Library store Folio made (with its commit log, or without it, as another program's store
  /// is), and holds after each what a fresh open holds, as does the writer; `road` is the way
  /// nearly every take-in must go.
  static func takeIns(
    seed: UInt64, keepingLog: Bool, expecting road: KeyPath<PersistentStoreCoordinator, Int>
  ) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Library.sqlite")
    let model = try ManagedObjectModel(contentsOf: Self.library)
    let setup = try Document(model: model)
    var random = SeededGenerator(seed: seed)
    var next = 0
    for _ in 0..<30 { try Self.change(setup, random: &random, next: &next) }
    try setup.save(to: url, format: SQLiteStore())
    if !keepingLog { try LogTakeInTests.dropLog(url) }
    let watcher = try Document.open(url, model: model, formats: [SQLiteStore()])
    let writer = try Document.open(url, model: model, formats: [SQLiteStore()])
    for round in 0..<40 {
      for _ in 0..<Int.random(in: 1...6, using: &random) {
        try Self.change(writer, random: &random, next: &next)
      }
      try writer.save()
      // The watcher saves changes of its own now and then; they move versions too.
      try watcher.mergeChangesFromOtherWriters()
      if Int.random(in: 0..<4, using: &random) == 0 {
        try Self.change(watcher, random: &random, next: &next)
        try watcher.save()
        try writer.mergeChangesFromOtherWriters()
      }
      let fresh = try Document.open(url, model: model, formats: [SQLiteStore()])
      #expect(try Self.state(watcher) == Self.state(fresh), "seed \(seed), round \(round)")
      #expect(try Self.state(writer) == Self.state(fresh), "seed \(seed), round \(round)")
      #expect(watcher.context.brokenInvariants() == [], "seed \(seed), round \(round)")
    }
    // The fast road was the one taken, every time.
    let coordinator = watcher.coordinator
    #expect(coordinator[keyPath: road] > 30)
    #expect(coordinator.takeInsOfWholeStore == 0)
    #expect(
      coordinator.takeInsFromLog + coordinator.takeInsByVersions == coordinator[keyPath: road])
  }

  @Test("the Expenses differential of the history take-in holds by row versions too")
  func expenses() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Expenses.sqlite")
    try HistoryTakeInTests.takeIns(
      seed: 4, at: url, format: SQLiteStore(), expecting: \.takeInsByVersions
    ) { url, _ in try LogTakeInTests.dropLog(url) }
  }
}
