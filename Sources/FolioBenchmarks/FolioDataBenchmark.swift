import FolioData
import FolioGraph
import FolioModel
import FolioQuery
import FolioSQLiteStore
import Foundation

// SwiftData's API against Folio's own: inserting and saving `@Model` objects, and fetching
// with Foundation's `#Predicate`, each against the same through a ManagedObjectContext on the
// same model and store. Target: each within 1.2× of its counterpart.

@Model final class BenchNote {
  var title: String
  var score: Int
  var created: Date
  var flagged: Bool

  init(title: String, score: Int, created: Date, flagged: Bool) {
    self.title = title
    self.score = score
    self.created = created
    self.flagged = flagged
  }
}

func folioDataBenchmark(objects objectCount: Int, fetched fetchCount: Int) throws -> [Case] {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "folio-data-bench-\(getpid())")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: folder) }
  let titles = (0..<1_000).map { "note \($0)" }
  let day = Date(timeIntervalSinceReferenceDate: 800_000_000)

  /// Inserts `count` notes into a new store at `url` through a model context, and saves.
  func saveNotes(_ count: Int, to url: URL) throws {
    let container = try ModelContainer(
      for: BenchNote.self, configurations: ModelConfiguration(url: url))
    let context = ModelContext(container)
    for index in 0..<count {
      context.insert(
        BenchNote(
          title: titles[index % 1_000], score: index % 1_000, created: day,
          flagged: index % 3 == 0))
    }
    try context.save()
  }

  // Insert and save, best of three, alternating the two doors, each into a new store.
  var modelInsert = Double.infinity
  var contextInsert = Double.infinity
  for round in 0..<3 {
    let modelURL = folder.appendingPathComponent("model-\(round).store")
    var start = now()
    try saveNotes(objectCount, to: modelURL)
    modelInsert = min(modelInsert, perOperation(since: start, count: objectCount))
    let contextURL = folder.appendingPathComponent("context-\(round).store")
    start = now()
    do {
      let model = try Schema(BenchNote.self).managedObjectModel()
      let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
      try coordinator.addPersistentStore(at: contextURL, format: SQLiteStore())
      let context = try ManagedObjectContext(coordinator: coordinator, undoManager: nil)
      for index in 0..<objectCount {
        let note = try context.insertNewObject(forEntityName: "BenchNote")
        note.setAttributeValue(titles[index % 1_000], forKey: "title")
        note.setAttributeValue(index % 1_000, forKey: "score")
        note.setAttributeValue(day, forKey: "created")
        note.setAttributeValue(index % 3 == 0, forKey: "flagged")
      }
      try context.save()
    }
    contextInsert = min(contextInsert, perOperation(since: start, count: objectCount))
  }

  // A fetch over `fetchCount` saved objects, in a new container (no instance made yet), of
  // the notes with a low score that are flagged: a tenth of a third of them.
  let bigURL = folder.appendingPathComponent("big.store")
  try saveNotes(fetchCount, to: bigURL)
  var modelFetch = Double.infinity
  var contextFetch = Double.infinity
  var found = (0, 0)
  let model = try Schema(BenchNote.self).managedObjectModel()
  for _ in 0..<3 {
    let container = try ModelContainer(
      for: BenchNote.self, configurations: ModelConfiguration(url: bigURL))
    let context = ModelContext(container)
    var start = now()
    let notes = try context.fetch(
      FetchDescriptor<BenchNote>(predicate: #Predicate { $0.score < 100 && $0.flagged }))
    modelFetch = min(modelFetch, Double(now() - start) / 1e6)
    let request = FetchRequest<ManagedObject>(
      entityName: "BenchNote",
      predicate: try QueryPredicate(format: "score < 100 AND flagged == YES"))
    // The context's fetch on a coordinator of its own, opened as the container opened its.
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(at: bigURL, format: SQLiteStore())
    let plain = try ManagedObjectContext(coordinator: coordinator, undoManager: nil)
    start = now()
    let objects = try plain.fetch(request)
    contextFetch = min(contextFetch, Double(now() - start) / 1e6)
    found = (notes.count, objects.count)
  }
  guard found.0 == found.1, found.0 > 0 else {
    throw BenchmarkFailure("the fetches found \(found.0) and \(found.1) notes")
  }
  return [
    Case(title: "insert and save, @Model (ns per object)", value: modelInsert, unit: "ns"),
    Case(
      title: "insert and save, ManagedObjectContext (ns per object)", value: contextInsert,
      unit: "ns"),
    Case(
      title: "insert and save, @Model ÷ context", value: modelInsert / contextInsert, unit: "×",
      limit: 1.2),
    Case(title: "#Predicate fetch of \(found.0) (ms)", value: modelFetch, unit: "ms"),
    Case(title: "format predicate fetch, context (ms)", value: contextFetch, unit: "ms"),
    Case(
      title: "fetch, #Predicate ÷ context", value: modelFetch / contextFetch, unit: "×", limit: 1.2),
  ]
}
