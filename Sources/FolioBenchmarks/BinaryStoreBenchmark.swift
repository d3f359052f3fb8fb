import CZlib
import FolioBinaryStore
import FolioModel
import FolioStores
import Foundation

// The binary store benchmark: save and load an Expenses graph as records through
// BinaryStore, beside, in the same run, bare zlib deflate and inflate of the same body (the
// floor under any zlib-based format) and Foundation's JSONEncoder/JSONDecoder and binary
// PropertyListEncoder/PropertyListDecoder of the same graph as Codable structs (what a Swift
// user would otherwise write). Targets: binary load at least 10× faster than JSONDecoder,
// binary save at least 3× faster than JSONEncoder.
//
// Binary save is measured to a file (atomic: temporary file, fsync, rename, fsync of the
// folder) and load from a file in the page cache, while the JSON figures are in memory only,
// so the ratios are conservative for the binary store. Each figure is the best of a few runs
// (`storeBenchmarkRuns`), and the two sides of each target are run in turn.

/// The Expenses model: people who own spendings.
func expensesModel() throws -> ManagedObjectModel {
  try ManagedObjectModel {
    EntityDescription("Person") {
      AttributeDescription("name", .string)
      RelationshipDescription("spendings", to: "Spending", inverse: "person", toMany: true)
    }
    EntityDescription("Spending") {
      AttributeDescription("content", .string)
      AttributeDescription("amount", .double)
      AttributeDescription("date", .date)
      RelationshipDescription("person", to: "Person", inverse: "spendings")
    }
  }
}

/// The Codable form a Swift user would write for the same graph.
struct ExpensesGraph: Codable {
  struct Person: Codable {
    var id: Int64
    var name: String
    var spendings: [Int64]
  }
  struct Spending: Codable {
    var id: Int64
    var content: String
    var amount: Double
    var date: Date
    var person: Int64?
  }
  var people: [Person]
  var spendings: [Spending]
}

/// `objects` records, about one person per ten spendings, and the same graph as structs.
func expensesGraph(objects: Int) -> ([StoreRecord], ExpensesGraph) {
  let personCount = max(1, objects / 11)
  var graph = ExpensesGraph(people: [], spendings: [])
  var records: [StoreRecord] = []
  records.reserveCapacity(objects)
  for index in 0..<personCount {
    graph.people.append(.init(id: Int64(index + 1), name: "Person \(index)", spendings: []))
  }
  for index in 0..<(objects - personCount) {
    let owner = index % personCount
    let spending = ExpensesGraph.Spending(
      id: Int64(personCount + index + 1), content: "Spending \(index) at shop \(index % 97)",
      amount: Double(index % 10_000) / 100,
      date: Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index) * 61.5),
      person: Int64(owner + 1))
    graph.people[owner].spendings.append(spending.id)
    graph.spendings.append(spending)
  }
  for person in graph.people {
    records.append(
      StoreRecord(
        entityName: "Person", id: person.id, attributes: ["name": .string(person.name)],
        relationships: ["spendings": person.spendings]))
  }
  for spending in graph.spendings {
    records.append(
      StoreRecord(
        entityName: "Spending", id: spending.id,
        attributes: [
          "content": .string(spending.content), "amount": .double(spending.amount),
          "date": .date(spending.date),
        ], relationships: ["person": spending.person.map { [$0] } ?? []]))
  }
  return (records, graph)
}

/// The best time of `runs` runs of `body`, in milliseconds.
func bestMilliseconds(runs: Int, _ body: () throws -> Void) rethrows -> Double {
  var best = UInt64.max
  for _ in 0..<runs {
    let start = now()
    try body()
    best = min(best, now() - start)
  }
  return Double(best) / 1e6
}

/// The best times, in milliseconds, of `runs` runs each of `ours` and of `peer`, taken in
/// turn (ours, peer, ours, peer, …), so that a ratio of the two is not swayed by a slow spell
/// of the machine falling on one side only. `settle` runs, untimed, before each run, so that
/// no run pays for what the one before left behind (files written, not yet on disk).
func bestMilliseconds(
  runs: Int, _ ours: () throws -> Void, beside peer: () throws -> Void,
  settle: () -> Void = {}
) rethrows -> (ours: Double, peer: Double) {
  var best = (ours: UInt64.max, peer: UInt64.max)
  for _ in 0..<runs {
    settle()
    var start = now()
    try ours()
    best.ours = min(best.ours, now() - start)
    settle()
    start = now()
    try peer()
    best.peer = min(best.peer, now() - start)
  }
  return (Double(best.ours) / 1e6, Double(best.peer) / 1e6)
}

/// How many times each figure of a store benchmark is measured (the best counts): more for
/// small graphs, whose single runs are short enough for the machine's noise to matter.
func storeBenchmarkRuns(objects: Int) -> Int { objects <= 10_000 ? 7 : 3 }

/// The BODY section's stored (deflated) bytes and inflated length, found through the section
/// table as `Formats/binary-store.md` lays it out.
func bodySection(of file: [UInt8]) throws -> (stored: [UInt8], length: Int) {
  func integer(_ offset: Int, _ size: Int) -> Int {
    (0..<size).reduce(0) { $0 | Int(file[offset + $1]) << (8 * $1) }
  }
  let count = integer(48, 4)
  for index in 0..<count {
    let entry = 56 + index * 36
    if file[entry..<entry + 4].elementsEqual("BODY".utf8) {
      let offset = integer(entry + 8, 8)
      return (Array(file[offset..<offset + integer(entry + 16, 8)]), integer(entry + 24, 8))
    }
  }
  throw BenchmarkFailure("no BODY section in the binary store")
}

func binaryStoreBenchmark(objects: Int) throws -> [Case] {
  let model = try expensesModel()
  let (records, graph) = expensesGraph(objects: objects)
  let contents = StoreContents(metadata: StoreMetadata(storeType: "Binary"), records: records)
  let store = BinaryStore()
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "folio-bench-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: folder) }
  let url = folder.appendingPathComponent("expenses.folio")
  let runs = storeBenchmarkRuns(objects: objects)

  // The targets' pairs are measured in turn (binary save beside JSONEncoder, binary load beside
  // JSONDecoder), each run's result kept, so that no run's time includes freeing the one before.
  var json = Data()
  let (save, encode) = try bestMilliseconds(
    runs: runs, { try store.write(contents, model: model, to: url) },
    beside: { json = try JSONEncoder().encode(graph) })
  var loaded: [StoreContents] = []
  var decoded: [ExpensesGraph] = []
  let (load, decode) = try bestMilliseconds(
    runs: runs, { loaded.append(try store.read(from: url, model: model)) },
    beside: { decoded.append(try JSONDecoder().decode(ExpensesGraph.self, from: json)) })
  guard loaded.allSatisfy({ $0.records.count == objects }) else {
    throw BenchmarkFailure("the binary store did not load \(objects) objects")
  }
  guard decoded.allSatisfy({ $0.people.count + $0.spendings.count == objects }) else {
    throw BenchmarkFailure("JSONDecoder did not decode \(objects) objects")
  }
  loaded = []
  decoded = []
  let fileData = try Data(contentsOf: url)
  let atomicWrite = try bestMilliseconds(runs: runs) { try AtomicFile.write(fileData, to: url) }

  let file = try [UInt8](Data(contentsOf: url))
  let body = try bodySection(of: file)
  var inflated = [UInt8](repeating: 0, count: body.length)
  let inflate = bestMilliseconds(runs: runs) {
    var length = uLongf(body.length)
    _ = uncompress(&inflated, &length, body.stored, uLong(body.stored.count))
  }
  var deflated = [UInt8](repeating: 0, count: Int(compressBound(uLong(body.length))))
  let deflate = bestMilliseconds(runs: runs) {
    var length = uLongf(deflated.count)
    _ = compress2(&deflated, &length, inflated, uLong(inflated.count), 1)
  }

  var plist = Data()
  let plistEncoder = PropertyListEncoder()
  plistEncoder.outputFormat = .binary
  let plistEncode = try bestMilliseconds(runs: runs) { plist = try plistEncoder.encode(graph) }
  let plistDecode = try bestMilliseconds(runs: runs) {
    decoded.append(try PropertyListDecoder().decode(ExpensesGraph.self, from: plist))
  }
  guard decoded.allSatisfy({ $0.people.count + $0.spendings.count == objects }) else {
    throw BenchmarkFailure("PropertyListDecoder did not decode \(objects) objects")
  }

  return [
    Case(title: "binary save to file (ms)", value: save, unit: "ms"),
    Case(title: "binary load from file (ms)", value: load, unit: "ms"),
    Case(
      title: "atomic write + fsync of the same file's bytes (ms)", value: atomicWrite, unit: "ms"),
    Case(title: "bare zlib deflate of the body, level 1 (ms)", value: deflate, unit: "ms"),
    Case(title: "bare zlib inflate of the body (ms)", value: inflate, unit: "ms"),
    Case(title: "JSONEncoder (ms)", value: encode, unit: "ms"),
    Case(title: "JSONDecoder (ms)", value: decode, unit: "ms"),
    Case(title: "PropertyListEncoder, binary (ms)", value: plistEncode, unit: "ms"),
    Case(title: "PropertyListDecoder, binary (ms)", value: plistDecode, unit: "ms"),
    Case(
      title: "file size (bytes per object)", value: Double(file.count) / Double(objects), unit: "B"),
    Case(
      title: "JSON size (bytes per object)", value: Double(json.count) / Double(objects), unit: "B"),
    Case(title: "PropertyListDecoder / binary load", value: plistDecode / load, unit: "x"),
    Case(title: "PropertyListEncoder / binary save", value: plistEncode / save, unit: "x"),
    Case(title: "binary load / bare inflate", value: load / inflate, unit: "x"),
    Case(title: "binary save / bare deflate", value: save / deflate, unit: "x"),
    Case(
      title: "JSONDecoder / binary load (target >= 10)", value: decode / load, unit: "x", limit: 10,
      isMinimum: true),
    Case(
      title: "JSONEncoder / binary save (target >= 3)", value: encode / save, unit: "x", limit: 3,
      isMinimum: true),
  ]
}
