import Folio
import FolioGraph
import FolioModel
import FolioStores
import FolioUndo
import Foundation

// Core Data's SQLite store at scale: an Expenses store of N objects (written by a child
// process), opened whole into a document, then one object changed and saved. The load is set
// against the floor the sqlite3 tool sets reading the same tables (`SELECT *` to /dev/null,
// target ≤ 1.5×); the one-object save writes only that row (target ≤ 10 ms).

/// How long the sqlite3 tool takes to read every row of `tables` of the store at `path` to
/// /dev/null, in milliseconds: the best of three runs.
func sqliteToolFloor(path: String, tables: [String]) throws -> Double {
  try sqliteToolTime(path: path, statements: tables.map { "SELECT * FROM \($0)" })
}

/// How long the sqlite3 tool takes to run `statements` on the store at `path`, its output to
/// /dev/null, in milliseconds: the best of three runs.
func sqliteToolTime(path: String, statements: [String]) throws -> Double {
  var best = Double.infinity
  for _ in 0..<3 {
    let tool = Process()
    tool.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    tool.arguments = [path] + statements
    tool.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
    let start = now()
    try tool.run()
    tool.waitUntilExit()
    guard tool.terminationStatus == 0 else { throw BenchmarkFailure("sqlite3 failed") }
    best = min(best, Double(now() - start) / 1e6)
  }
  return best
}

/// Counts the records a store hands over, keeping none: the store's share of a load.
struct CountingConsumer: StoreRecordConsumer {
  var count = 0
  mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?) {}
  mutating func consume(_ record: StoreRecord) { count += 1 }
  mutating func finish() {}
}

/// `sqlite-store N`: the load and the one-object save above, measured.
func sqliteStoreBenchmark(objects count: Int) throws -> (String, [Case]) {
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("folio-sqlite-\(ProcessInfo.processInfo.processIdentifier).sqlite")
  defer { try? FileManager.default.removeItem(at: path) }
  try writeStore("sqlite", objects: count, to: path)
  let floor = try sqliteToolFloor(path: path.path, tables: ["ZPERSON", "ZSPENDING"])
  let model = try documentExpensesModel()
  var counter = CountingConsumer()
  var start = now()
  try SQLiteStore().read(from: path, model: model, into: &counter)
  let recordsOnly = Double(now() - start) / 1e6
  let before = baseline()
  start = now()
  let document = try Document.open(path, model: model, formats: [SQLiteStore()])
  let load = Double(now() - start) / 1e6
  trimMalloc()
  let perObject = Double(memory().resident - before) / Double(max(1, count))
  let request = FetchRequest<ManagedObject>(
    entityName: "Spending", predicate: try QueryPredicate(format: "content == 'spending 500'"))
  guard let spending = try document.context.fetch(request).first else {
    throw BenchmarkFailure("the store did not load")
  }
  var saves: [Double] = []
  for round in 0..<5 {
    try spending.setValue(Double(round) + 0.5, forKey: "amount")
    start = now()
    try document.save()
    saves.append(Double(now() - start) / 1e6)
  }
  let save = saves.sorted()[saves.count / 2]
  return (
    "SQLite store: an Expenses document of \(count.formatted()) objects",
    [
      Case(title: "sqlite3 reading the tables (floor)", value: floor, unit: "ms"),
      Case(title: "records read, no graph built", value: recordsOnly, unit: "ms"),
      Case(title: "load into a document", value: load, unit: "ms"),
      Case(title: "load / floor", value: load / floor, unit: "×", limit: 1.5),
      Case(title: "loaded graph (RSS per object)", value: perObject, unit: "B", limit: 250),
      Case(title: "one-object edit saved (median of 5)", value: save, unit: "ms", limit: 10),
    ] + (try sqliteCommandCases(path: path.path, floor: floor))
  )
}

/// The user's path on the same store: `folio` commands end to end, each the fastest of three
/// runs, beside the floor. Empty, with a word on standard error, when no `folio` is beside
/// this program.
func sqliteCommandCases(path: String, floor: Double) throws -> [Case] {
  let folio = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("folio").path
  guard FileManager.default.isExecutableFile(atPath: folio) else {
    FileHandle.standardError.write(
      Data("no folio beside the benchmarks: the commands are not measured\n".utf8))
    return []
  }
  let commands: [(title: String, arguments: [String])] = [
    ("folio validate", ["validate", path]),
    ("folio query, stored attributes", ["query", path, "Spending", "--where", "amount > 100"]),
    (
      "folio query, through a to-one",
      ["query", path, "Spending", "--where", "person.name == 'person 1'"]
    ),
  ]
  let runs = try measureFastest(commands.map { (folio, $0.arguments) })
  var cases: [Case] = []
  for (command, run) in zip(commands, runs) {
    guard run.status == 0 else {
      throw BenchmarkFailure("\(command.title) failed with status \(run.status)")
    }
    cases.append(
      Case(title: "\(command.title), end to end", value: run.seconds * 1000, unit: "ms"))
    cases.append(Case(title: "  / floor", value: run.seconds * 1000 / floor, unit: "×"))
  }
  return cases
}
