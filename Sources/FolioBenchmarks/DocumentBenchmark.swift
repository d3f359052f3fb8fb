import FolioGraph
import FolioModel
import FolioStores
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

// Opening a document (issue 5): an Expenses store of N objects (one person per ten
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
  let writer = Process()
  writer.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
  writer.arguments = ["document-write", "\(parts[0]):\(count):\(path.path)"]
  try writer.run()
  writer.waitUntilExit()
  guard writer.terminationStatus == 0 else { throw BenchmarkFailure("writing the store failed") }
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
