import Folio
import FolioGraph
import FolioModel
import FolioStores
import FolioUndo
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

// Opening a document: an Expenses store of N objects (one person per ten
// spendings) read into a context through the coordinator. Reports load time and the memory
// of the loaded graph per object (target ≤ 250 B) and the peak while loading against the
// loaded graph (target ≤ 1.5×). The file is written by a child process first, so this process
// measures the load alone.

/// The Expenses model, built in code as the sample file defines it.
func documentExpensesModel() throws -> ManagedObjectModel {
  try ManagedObjectModel {
    EntityDescription("Person") {
      AttributeDescription("name", .string, isOptional: false)
      RelationshipDescription(
        "spendings", to: "Spending", inverse: "person", toMany: true, deleteRule: .cascade)
    }
    EntityDescription("Spending") {
      AttributeDescription("amount", .double, isOptional: false, defaultValue: .double(0))
      AttributeDescription("content", .string)
      AttributeDescription("date", .date)
      RelationshipDescription("person", to: "Person", inverse: "spendings")
    }
  }
}

/// An Expenses store of about `objects` objects as records.
func expensesRecords(objects: Int) -> StoreContents {
  var records: [StoreRecord] = []
  records.reserveCapacity(objects)
  var id: Int64 = 1
  while records.count + 11 <= max(objects, 11) {
    let person = id
    id += 1
    var spendings: [Int64] = []
    for index in 0..<10 {
      records.append(
        StoreRecord(
          entityName: "Spending", id: id,
          attributes: [
            "amount": .double(Double(index) * 1.5), "content": .string("spending \(id)"),
            "date": .date(Date(timeIntervalSinceReferenceDate: Double(id) * 60)),
          ],
          relationships: ["person": [person]]))
      spendings.append(id)
      id += 1
    }
    records.append(
      StoreRecord(
        entityName: "Person", id: person, attributes: ["name": .string("person \(person)")],
        relationships: ["spendings": spendings]))
  }
  return StoreContents(metadata: StoreMetadata(storeType: "Benchmark"), records: records)
}

func storeFormat(named name: String) throws -> any StoreFormat {
  switch name {
  case "xml": return XMLStore()
  case "folio": return BinaryStore()
  case "sqlite": return SQLiteStore()
  default: throw BenchmarkFailure("unknown format \(name)")
  }
}

/// glibc's `malloc_trim(0)`, looked up at run time (Swift's Glibc module does not import it).
func trimMalloc() {
  typealias Trim = @convention(c) (Int) -> Int32
  guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
  _ = unsafeBitCast(symbol, to: Trim.self)(0)
}

/// `document-write FORMAT:N:PATH`: writes the store the load case reads.
func writeDocumentStore(_ argument: String) throws {
  let parts = argument.split(separator: ":").map(String.init)
  guard parts.count == 3, let count = Int(parts[1]) else {
    throw BenchmarkFailure("document-write takes FORMAT:N:PATH")
  }
  try storeFormat(named: parts[0]).write(
    expensesRecords(objects: count), model: try documentExpensesModel(),
    to: URL(fileURLWithPath: parts[2]))
}

/// Writes an Expenses store of `count` objects in the format named `format` to `path`, in a
/// child process (`document-write`), so that its memory is not counted here.
func writeStore(_ format: String, objects count: Int, to path: URL) throws {
  let writer = Process()
  writer.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
  writer.arguments = ["document-write", "\(format):\(count):\(path.path)"]
  try writer.run()
  writer.waitUntilExit()
  guard writer.terminationStatus == 0 else { throw BenchmarkFailure("writing the store failed") }
}

/// `document-load FORMAT:N`: opens the store into a context and measures.
func documentLoadBenchmark(_ argument: String) throws -> (String, [Case]) {
  let parts = argument.split(separator: ":").map(String.init)
  guard parts.count == 2, let count = Int(parts[1]) else {
    throw BenchmarkFailure("document-load takes FORMAT:N")
  }
  let format = try storeFormat(named: parts[0])
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("folio-bench-\(ProcessInfo.processInfo.processIdentifier).\(parts[0])")
  defer { try? FileManager.default.removeItem(at: path) }
  try writeStore(parts[0], objects: count, to: path)
  let model = try documentExpensesModel()
  let before = baseline()
  let start = now()
  let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
  try coordinator.addPersistentStore(at: path, format: format)
  let context = try ManagedObjectContext(coordinator: coordinator, undoManager: nil)
  let seconds = Double(now() - start) / 1e9
  let peak = memory().peak
  // Give freed memory (the records, the parser's buffers) back, so RSS is the live graph.
  trimMalloc()
  let loaded = (resident: memory().resident, peak: peak)
  let objects = context.registeredObjects.count
  guard objects >= count - 11 else { throw BenchmarkFailure("the store did not load") }
  let graphBytes = Double(loaded.resident - before) / Double(objects)
  let peakRatio = Double(loaded.peak - before) / Double(max(1, loaded.resident - before))
  withExtendedLifetime(context) {}
  return (
    "Open a \(parts[0]) document of \(objects.formatted()) objects into a context",
    [
      Case(title: "load", value: seconds * 1000, unit: "ms"),
      Case(title: "loaded graph (RSS per object)", value: graphBytes, unit: "B", limit: 250),
      Case(title: "peak while loading / loaded graph", value: peakRatio, unit: "×", limit: 1.5),
    ]
  )
}

// A whole editing session on a large document: open an Expenses document of
// N objects with its undo manager, change every object in one turn, delete a tenth of the
// people (their spendings cascade) and insert new spendings in a second turn, undo that turn,
// and save. The peak resident memory of the whole session is what RELIABILITY.md states as
// the bound: 1,280 B per object (1.2 GiB for 1,000,000 objects).

/// `document-session FORMAT:N`: the session above, measured.
func documentSessionBenchmark(_ argument: String) throws -> (String, [Case]) {
  let parts = argument.split(separator: ":").map(String.init)
  guard parts.count == 2, let count = Int(parts[1]) else {
    throw BenchmarkFailure("document-session takes FORMAT:N")
  }
  let format = try storeFormat(named: parts[0])
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent(
      "folio-session-\(ProcessInfo.processInfo.processIdentifier).\(parts[0])")
  defer { try? FileManager.default.removeItem(at: path) }
  try writeStore(parts[0], objects: count, to: path)
  let fileBytes = (try FileManager.default.attributesOfItem(atPath: path.path)[.size] as? Int) ?? 0
  let model = try documentExpensesModel()
  let before = baseline()
  var start = now()
  let loop = ManualEventLoop()
  let document = try Document.open(path, model: model, formats: [format], eventLoop: loop)
  let context = document.context
  let openMilliseconds = Double(now() - start) / 1e6
  trimMalloc()
  let loaded = memory().resident - before
  let people = try context.fetch(FetchRequest(entityName: "Person"))
  let spendings = try context.fetch(FetchRequest(entityName: "Spending"))
  let objects = people.count + spendings.count
  guard objects >= count - 11 else { throw BenchmarkFailure("the store did not load") }

  start = now()
  for (index, spending) in spendings.enumerated() {
    try spending.setValue(Double(index) * 0.25, forKey: "amount")
  }
  for person in people { try person.setValue("renamed", forKey: "name") }
  loop.endTurn()
  let changeMilliseconds = Double(now() - start) / 1e6

  start = now()
  for person in people.prefix(people.count / 10) { try context.delete(person) }
  for index in 0..<10_000 {
    let spending = try context.insertNewObject(forEntityName: "Spending")
    try spending.setValue(Double(index), forKey: "amount")
    try spending.setValue(people[people.count - 1 - index % (people.count / 2)], forKey: "person")
  }
  loop.endTurn()
  context.processPendingChanges()
  let deleteMilliseconds = Double(now() - start) / 1e6

  start = now()
  try document.undoManager?.undo()
  let undoMilliseconds = Double(now() - start) / 1e6
  guard context.registeredObjects.count == objects,
    try people[0].value(forKey: "name") as? String == "renamed"
  else { throw BenchmarkFailure("undo did not bring the deleted people back") }

  let peakBeforeSave = memory().peak - before
  start = now()
  try document.save()
  let saveMilliseconds = Double(now() - start) / 1e6
  let peak = memory().peak - before
  guard !document.isEdited else { throw BenchmarkFailure("the saved document is edited") }
  withExtendedLifetime(document) {}
  let megabyte = 1_048_576.0
  return (
    "A session on a \(parts[0]) document of \(objects.formatted()) objects"
      + " (\(String(format: "%.0f", Double(fileBytes) / megabyte)) MiB file): open, change"
      + " every object, delete 10% of people with their spendings and insert 10,000 spendings,"
      + " undo that, save",
    [
      Case(title: "open", value: openMilliseconds, unit: "ms"),
      Case(title: "change every object (one turn)", value: changeMilliseconds, unit: "ms"),
      Case(title: "delete and insert (one turn)", value: deleteMilliseconds, unit: "ms"),
      Case(title: "undo the delete-and-insert turn", value: undoMilliseconds, unit: "ms"),
      Case(title: "save", value: saveMilliseconds, unit: "ms"),
      Case(title: "loaded graph", value: Double(loaded) / megabyte, unit: "MiB"),
      Case(title: "peak before saving", value: Double(peakBeforeSave) / megabyte, unit: "MiB"),
      Case(title: "peak over the session", value: Double(peak) / megabyte, unit: "MiB"),
      Case(
        title: "peak over the session per object", value: Double(peak) / Double(objects),
        unit: "B", limit: 1280),
    ]
  )
}
