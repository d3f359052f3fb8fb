import Folio
import FolioStores
import Foundation

// A batch delete at scale: half of the N spendings of a SQLite Expenses store (every other
// one, `amount < 1`), deleted by the store in SQL without loading anything, against the floor
// the sqlite3 tool sets running `DELETE FROM ZSPENDING WHERE ZAMOUNT < 1` on a copy of the
// same store (target ≤ 1.5×), and `folio delete` doing it end to end. Each figure is the
// fastest of three runs, each on a fresh copy. What the batch does beyond the floor's DELETE:
// it lists the deleted rows (their IDs are its result), and finds the people whose spendings
// lose them (Nullify) to move their rows' versions on.

/// An Expenses store of `spendings` spendings, every other one of amount 0 (the rest 1), each
/// belonging to one of a thousand people.
func batchStore(spendings: Int) -> StoreContents {
  var records: [StoreRecord] = []
  records.reserveCapacity(spendings + 1000)
  let people = 1000
  for person in 0..<people {
    records.append(
      StoreRecord(
        entityName: "Person", id: Int64(person + 1), attributes: ["name": .string("p\(person)")]))
  }
  for index in 0..<spendings {
    records.append(
      StoreRecord(
        entityName: "Spending", id: Int64(people + index + 1),
        attributes: [
          "amount": .double(Double(index % 2)), "content": .string("spending \(index)"),
        ],
        relationships: ["person": [Int64(index % people + 1)]]))
  }
  return StoreContents(metadata: StoreMetadata(storeType: "SQLite"), records: records)
}

/// How long `body` takes, in milliseconds, the fastest of `runs`, each after `prepare`.
func fastest(_ runs: Int, prepare: () throws -> Void, _ body: () throws -> Void) throws
  -> Double
{
  var best = Double.infinity
  for _ in 0..<runs {
    try prepare()
    let start = now()
    try body()
    best = min(best, Double(now() - start) / 1e6)
  }
  return best
}

/// `batch N`: the deletion above, measured.
func batchBenchmark(spendings count: Int) throws -> (String, [Case]) {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "folio-batch-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: folder) }
  let original = folder.appendingPathComponent("original.sqlite")
  let copy = folder.appendingPathComponent("copy.sqlite")
  let model = try documentExpensesModel()
  try SQLiteStore().write(batchStore(spendings: count), model: model, to: original)
  func fresh() throws {
    try? FileManager.default.removeItem(at: copy)
    try FileManager.default.copyItem(at: original, to: copy)
  }
  func remaining() throws -> Int {
    let tool = Process()
    tool.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    tool.arguments = [copy.path, "SELECT count(*) FROM ZSPENDING"]
    let pipe = Pipe()
    tool.standardOutput = pipe
    try tool.run()
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    tool.waitUntilExit()
    return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
  }
  let half = count / 2
  let floor = try fastest(3, prepare: fresh) {
    let tool = Process()
    tool.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    tool.arguments = [copy.path, "DELETE FROM ZSPENDING WHERE ZAMOUNT < 1"]
    try tool.run()
    tool.waitUntilExit()
    guard tool.terminationStatus == 0 else { throw BenchmarkFailure("sqlite3 failed") }
  }
  guard try remaining() == count - half else { throw BenchmarkFailure("sqlite3 deleted otherwise") }
  let batch = StoreBatch(
    entityName: "Spending", operation: .delete,
    selection: .predicate(try QueryPredicate(format: "amount < 1")))
  var deleted = 0
  let library = try fastest(3, prepare: fresh) {
    deleted = try SQLiteStore().executeBatch(batch, at: copy, model: model).objects.count
  }
  guard deleted == half, try remaining() == count - half else {
    throw BenchmarkFailure("the batch deleted \(deleted) spendings, not \(half)")
  }
  var cases = [
    Case(title: "sqlite3 DELETE on a copy (floor)", value: floor, unit: "ms"),
    Case(title: "batch delete, in the library", value: library, unit: "ms"),
    Case(title: "batch delete / floor", value: library / floor, unit: "×", limit: 1.5),
  ]
  let folio = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("folio").path
  if FileManager.default.isExecutableFile(atPath: folio) {
    var status: Int32 = 0
    let command = try fastest(3, prepare: fresh) {
      status = try measureCommand(
        folio, ["delete", copy.path, "--entity", "Spending", "--where", "amount < 1"]
      ).status
    }
    guard status == 0, try remaining() == count - half else {
      throw BenchmarkFailure("folio delete failed with status \(status)")
    }
    cases += [
      Case(title: "folio delete, end to end", value: command, unit: "ms"),
      Case(title: "folio delete / floor", value: command / floor, unit: "×", limit: 1.5),
    ]
  } else {
    FileHandle.standardError.write(
      Data("no folio beside the benchmarks: folio delete is not measured\n".utf8))
  }
  return ("Batch delete: \(half.formatted()) of \(count.formatted()) spendings in SQLite", cases)
}
