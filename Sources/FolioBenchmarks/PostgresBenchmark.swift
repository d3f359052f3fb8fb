import Folio
import FolioPostgresStore
import FolioStores
import Foundation

// A PostgreSQL document on a loopback server: opening one of N objects against the floor
// `psql -c "COPY (SELECT …) TO STDOUT"` of the same tables sets (target ≤ 2×). The server is
// the one FOLIO_BENCH_POSTGRES_URL names, or a throwaway cluster started for the benchmark
// (scripts/postgres-cluster.sh) and stopped after it.

/// The server's URL, and whether the benchmark started it (and must stop it).
func benchmarkServer() throws -> (url: String, started: Bool) {
  if let url = ProcessInfo.processInfo.environment["FOLIO_BENCH_POSTGRES_URL"], !url.isEmpty {
    return (url, false)
  }
  let printed = FileManager.default.temporaryDirectory.appendingPathComponent(
    "folio-bench-postgres-\(ProcessInfo.processInfo.processIdentifier)")
  defer { try? FileManager.default.removeItem(at: printed) }
  let result = try measureCommand("scripts/postgres-cluster.sh", ["start"], output: printed.path)
  guard result.status == 0 else {
    throw BenchmarkFailure("no PostgreSQL server: scripts/postgres-cluster.sh start failed")
  }
  let url = String(decoding: try Data(contentsOf: printed), as: UTF8.self)
  return (url.trimmingCharacters(in: .whitespacesAndNewlines), true)
}

/// `postgres N`: the open above, measured, and a whole write of the document.
func postgresBenchmark(spendings count: Int) throws -> (String, [Case]) {
  let (server, started) = try benchmarkServer()
  defer { if started { _ = try? measureCommand("scripts/postgres-cluster.sh", ["stop"]) } }
  let schema = "bench_\(ProcessInfo.processInfo.processIdentifier)"
  guard let url = URL(string: server + (server.contains("?") ? "&" : "?") + "schema=" + schema)
  else { throw BenchmarkFailure("not a URL: \(server)") }
  defer { try? PostgresStore.dropSchema(at: url) }
  let model = try documentExpensesModel()
  let contents = batchStore(spendings: count)
  let writeStart = now()
  try PostgresStore().write(contents, model: model, to: url)
  let write = Double(now() - writeStart) / 1e6
  let psql = "/usr/bin/psql"
  let tables = ["ZPERSON", "ZSPENDING", "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]
  let copies = tables.flatMap { table in
    ["-c", "COPY (SELECT * FROM \"\(schema)\".\"\(table)\") TO STDOUT"]
  }
  var status: Int32 = 0
  let floor = try fastest(3, prepare: {}) {
    status = try measureCommand(psql, [server, "-q"] + copies).status
  }
  guard status == 0 else { throw BenchmarkFailure("psql COPY failed with status \(status)") }
  // What a user's open does: the document's records streamed into a new document's graph.
  var opened: Document?
  let open = try fastest(3, prepare: { opened = nil }) {
    opened = try Document.open(url, model: model, formats: [PostgresStore()])
  }
  let spendings = try opened?.context.count(
    for: FetchRequest<ManagedObject>(entityName: "Spending"))
  guard spendings == count else {
    throw BenchmarkFailure("the document opened with \(spendings ?? 0) spendings, not \(count)")
  }
  opened = nil
  var records = 0
  let whole = try fastest(1, prepare: {}) {
    records = try PostgresStore().read(from: url, model: model).records.count
  }
  guard records == contents.records.count else {
    throw BenchmarkFailure("read \(records) records, not \(contents.records.count)")
  }
  return (
    "PostgreSQL: a document of \(contents.records.count.formatted()) objects on loopback",
    [
      Case(title: "whole write (COPY, one transaction)", value: write, unit: "ms"),
      Case(title: "psql COPY TO STDOUT of its tables (floor)", value: floor, unit: "ms"),
      Case(title: "Document.open", value: open, unit: "ms"),
      Case(title: "Document.open / floor", value: open / floor, unit: "×", limit: 2),
      Case(title: "records read whole (inverses completed)", value: whole, unit: "ms"),
    ]
  )
}

/// `postgres-writers N`: 8 processes each saving N one-object saves to one document, their
/// throughput against pgbench's simple-update rate (`-N`) of 8 clients on the same server, and
/// the time from one client's save to another's merged view of it.
func postgresWritersBenchmark(saves: Int) throws -> (String, [Case]) {
  let (server, started) = try benchmarkServer()
  defer { if started { _ = try? measureCommand("scripts/postgres-cluster.sh", ["stop"]) } }
  let schema = "bench_writers_\(ProcessInfo.processInfo.processIdentifier)"
  guard let url = URL(string: server + (server.contains("?") ? "&" : "?") + "schema=" + schema)
  else { throw BenchmarkFailure("not a URL: \(server)") }
  defer { try? PostgresStore.dropSchema(at: url) }
  let model = try documentExpensesModel()
  try PostgresStore().write(batchStore(spendings: 100), model: model, to: url)
  // The writers: this executable, one process each.
  let writers = 8
  let start = now()
  let processes = try (0..<writers).map { writer in
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["postgres-writer", url.absoluteString, "\(writer)", "\(saves)"]
    try process.run()
    return process
  }
  for process in processes { process.waitUntilExit() }
  let seconds = Double(now() - start) / 1e9
  guard processes.allSatisfy({ $0.terminationStatus == 0 }) else {
    throw BenchmarkFailure("a writer failed")
  }
  let document = try Document.open(url, model: model, formats: [PostgresStore()])
  let total = try document.context.count(for: FetchRequest<ManagedObject>(entityName: "Spending"))
  guard total == 100 + writers * saves else {
    throw BenchmarkFailure("\(total) spendings after the writers, not \(100 + writers * saves)")
  }
  let rate = Double(writers * saves) / seconds
  let pgbench = try pgbenchRate(server)
  let (median, slowest) = try mergeLatency(url, model: model, rounds: 200)
  return (
    "PostgreSQL: \(writers) writer processes × \(saves.formatted()) one-object saves, one document",
    [
      Case(title: "Folio saves per second, all writers", value: rate, unit: "/s"),
      Case(title: "pgbench -N -c 8 transactions per second", value: pgbench, unit: "/s"),
      Case(
        title: "Folio saves, as a share of pgbench's transactions", value: 100 * rate / pgbench,
        unit: "%"),
      Case(title: "save to merged view, median", value: median, unit: "ms"),
      Case(title: "save to merged view, 99th percentile", value: slowest, unit: "ms"),
    ]
  )
}

/// `postgres-writer URL WRITER N`: one writer of the benchmark above.
func postgresWriter(_ url: String, writer: Int, saves: Int) throws {
  guard let url = URL(string: url) else { throw BenchmarkFailure("not a URL: \(url)") }
  let document = try Document.open(
    url, model: try documentExpensesModel(), formats: [PostgresStore()])
  for index in 0..<saves {
    let spending = try document.context.insertNewObject(forEntityName: "Spending")
    try spending.setValue("w\(writer)-\(index)", forKey: "content")
    try spending.setValue(Double(index), forKey: "amount")
    try document.save()
  }
}

/// pgbench's simple-update rate with 8 clients for 5 seconds on `server`, on tables it makes
/// and drops again.
func pgbenchRate(_ server: String) throws -> Double {
  let pgbench = "/usr/bin/pgbench"
  guard try measureCommand(pgbench, ["-i", "-q", "-s", "1", server]).status == 0 else {
    throw BenchmarkFailure("pgbench -i failed")
  }
  defer { _ = try? measureCommand(pgbench, ["-i", "-I", "d", server]) }
  let output = FileManager.default.temporaryDirectory.appendingPathComponent(
    "folio-pgbench-\(ProcessInfo.processInfo.processIdentifier)")
  defer { try? FileManager.default.removeItem(at: output) }
  let run = try measureCommand(
    pgbench, ["-n", "-N", "-c", "8", "-j", "2", "-T", "5", server], output: output.path)
  let text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
  guard run.status == 0,
    let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
    let rate = Double(line.dropFirst(6).prefix { $0 != " " })
  else { throw BenchmarkFailure("pgbench printed no rate: \(text)") }
  return rate
}

/// The time from one client's save returning to another client's document showing the saved
/// object, when that client merges at once: median and 99th percentile, in milliseconds.
func mergeLatency(_ url: URL, model: ManagedObjectModel, rounds: Int) throws -> (Double, Double) {
  let writer = try Document.open(url, model: model, formats: [PostgresStore()])
  let reader = try Document.open(url, model: model, formats: [PostgresStore()])
  var times: [Double] = []
  for round in 0..<rounds {
    let spending = try writer.context.insertNewObject(forEntityName: "Spending")
    try spending.setValue("latency-\(round)", forKey: "content")
    try writer.save()
    let start = now()
    while try reader.mergeChangesFromOtherWriters().inserted.isEmpty {}
    times.append(Double(now() - start) / 1e6)
  }
  times.sort()
  return (times[times.count / 2], times[min(times.count - 1, times.count * 99 / 100)])
}
