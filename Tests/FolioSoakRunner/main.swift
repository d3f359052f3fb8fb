import Folio
import FolioScript
import FolioSoak
import FolioTestSupport
import Foundation

// `make soak OPS=N SEED=S`: a long differential soak in a release build. On a divergence it
// prints the shrunk reproducing script, writes the shrunk operations as JSON to
// soak-divergence.json, and exits 1. FOLIO_SOAK_REPLAY=FILE replays (and shrinks further) the
// operations such a file holds instead.
//
// `FolioSoakRunner writer STORE MODEL LOG WRITER SAVES SEED POLICY [GO]` is one of several
// processes saving one store at once (`SharedWriter`), for the tests of several writers.
//
// `FolioSoakRunner history-reader STORE MODEL READY GO OUT` opens STORE, says so by making
// READY, waits for GO, merges the store's persistent history into its document
// (`Document.mergeHistory(after:)`) and writes to OUT, as JSON, the transactions it fetched and
// the names of the people its document then holds: the second process of the history tests.
//
// `FolioSoakRunner writers-soak ROUNDS SEED MODEL` (`make soak-writers`) runs ROUNDS rounds of
// two to four writer processes on one store, of a random format and merge policy, sometimes
// killing one, and checks after each round that the store holds every change a save that
// returned made (`SharedWriterRun`). On a problem it prints it, keeps the round's folder, and
// exits 1.
let environment = ProcessInfo.processInfo.environment
let arguments = CommandLine.arguments
if arguments.count == 5, arguments[1] == "writers-soak", let rounds = Int(arguments[2]),
  let seed = UInt64(arguments[3])
{
  let model = URL(fileURLWithPath: arguments[4])
  let runner = URL(fileURLWithPath: arguments[0])
  var random = SeededGenerator(seed: seed)
  let started = Date()
  var conflicts = 0
  var saves = 0
  var takeIns: [String: Int] = [:]
  for round in 0..<rounds {
    let formats: [any StoreFormat] = [XMLStore(), BinaryStore(), SQLiteStore()]
    let format = formats[Int.random(in: 0..<formats.count, using: &random)]
    let policies = MergePolicy.allCases
    let policy = policies[Int.random(in: 0..<policies.count, using: &random)]
    let writers = Int.random(in: 2...4, using: &random)
    let count = Int.random(in: 5...30, using: &random)
    let victim: (Int, Int)? =
      Bool.random(using: &random)
      ? (Int.random(in: 0..<writers, using: &random), Int.random(in: 5..<200, using: &random))
      : nil
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("folio-writers-soak-\(seed)-\(round)")
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let store = try SharedWriterRun.makeStore(format, in: folder, model: model)
      let (logs, failures) = try SharedWriterRun.runWriters(
        writers, saves: count, policy: policy, store: store, model: model, in: folder,
        seed: random.next(), runner: runner, killing: victim)
      let (conflicted, problems) = try SharedWriterRun.check(
        store, model: model, logs: logs, policy: policy, killed: victim.map { [$0.0] } ?? [])
      conflicts += conflicted
      saves += logs.joined().filter { $0.pending != true }.count
      for log in logs {
        let last = log.last { $0.takeIns != nil }?.takeIns ?? [:]
        takeIns.merge(last, uniquingKeysWith: +)
      }
      if !(failures + problems).isEmpty {
        print(
          "writers-soak: round \(round) (\(format.typeName), \(policy), \(writers) writers × \(count) saves, killed \(victim.map { "\($0)" } ?? "none")):"
        )
        for problem in failures + problems { print("  \(problem)") }
        print("writers-soak: the round's store and logs are in \(folder.path)")
        exit(1)
      }
      try? FileManager.default.removeItem(at: folder)
    } catch {
      print("writers-soak: round \(round): \(error)")
      exit(1)
    }
  }
  print(
    "writers-soak: \(rounds) rounds, \(saves) saves, \(conflicts) conflicts, no change lost, \(Int(Date().timeIntervalSince(started))) s"
  )
  let roads = ["journal", "history", "log", "versions", "whole"].map { "\(takeIns[$0] ?? 0) \($0)" }
  print("writers-soak: other writers' saves taken in: \(roads.joined(separator: ", "))")
  exit(0)
}
if arguments.count == 7, arguments[1] == "history-reader" {
  do {
    let model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: arguments[3]))
    let document = try Document.open(
      URL(fileURLWithPath: arguments[2]), model: model, formats: [SQLiteStore()])
    _ = FileManager.default.createFile(atPath: arguments[4], contents: nil)
    while !FileManager.default.fileExists(atPath: arguments[5]) { usleep(1000) }
    let transactions = try document.fetchHistory(after: nil)
    let token = try document.mergeHistory(after: nil)
    let names = try document.context.objects(ofEntity: "Person").compactMap {
      try $0.value(forKey: "name") as? String
    }.sorted()
    let report: [String: Any] = [
      "token": token?.transactionNumber ?? 0,
      "names": names,
      "transactions": transactions.map { transaction in
        [
          "author": transaction.author ?? "", "context": transaction.contextName ?? "",
          "changes": transaction.changes.map {
            "\($0.changeType) \($0.entityName) \(($0.updatedProperties ?? []).sorted())"
          },
        ] as [String: Any]
      },
    ]
    try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
      .write(to: URL(fileURLWithPath: arguments[6]))
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("history-reader: \(error)\n".utf8))
    exit(1)
  }
}
if arguments.count >= 9, arguments[1] == "writer" {
  guard let writer = Int(arguments[5]), let saves = Int(arguments[6]),
    let seed = UInt64(arguments[7]), let policy = MergePolicy(scriptName: arguments[8])
  else {
    FileHandle.standardError.write(Data("writer: bad arguments \(arguments)\n".utf8))
    exit(64)
  }
  do {
    try SharedWriter(
      store: arguments[2].hasPrefix("postgres")
        ? URL(string: arguments[2]) ?? URL(fileURLWithPath: arguments[2])
        : URL(fileURLWithPath: arguments[2]), model: URL(fileURLWithPath: arguments[3]),
      log: URL(fileURLWithPath: arguments[4]), writer: writer, saves: saves, seed: seed,
      policy: policy, go: arguments.count > 9 ? URL(fileURLWithPath: arguments[9]) : nil
    ).run()
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("writer \(writer): \(error)\n".utf8))
    exit(1)
  }
}
let operations = environment["FOLIO_SOAK_OPS"].flatMap { Int($0) } ?? 1_000_000
let seed = environment["FOLIO_SOAK_SEED"].flatMap { UInt64($0) } ?? 1
let started = Date()
do {
  let runner = try SoakRunner()
  let report: SoakRunner.Report
  if let path = environment["FOLIO_SOAK_REPLAY"] {
    let list = try JSONDecoder().decode(
      [SoakOperation].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    report = try runner.run(list)
  } else {
    report = try runner.run(operations: operations, seed: seed) { done in
      let seconds = Int(Date().timeIntervalSince(started))
      FileHandle.standardError.write(Data("soak: \(done) operations, \(seconds) s\n".utf8))
    }
  }
  print(report)
  print("soak: \(Int(Date().timeIntervalSince(started))) s")
  if report.divergence != nil {
    try JSONEncoder().encode(report.shrunk).write(to: URL(fileURLWithPath: "soak-divergence.json"))
    print("soak: wrote the shrunk operations to soak-divergence.json")
  }
  exit(report.divergence == nil ? 0 : 1)
} catch {
  FileHandle.standardError.write(Data("soak: \(error)\n".utf8))
  exit(1)
}
