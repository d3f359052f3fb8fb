import Folio
import FolioPostgresStore
import FolioStores
import Foundation

// A PostgreSQL document on a loopback server: opening one of N objects against the floor
// `psql -c "COPY (SELECT …) TO STDOUT"` of the same tables sets (target ≤ 2×). The server is
// the one FOLIO_TEST_POSTGRES_URL names, or a throwaway cluster started for the benchmark
// (scripts/postgres-cluster.sh) and stopped after it.

/// The server's URL, and whether the benchmark started it (and must stop it).
func benchmarkServer() throws -> (url: String, started: Bool) {
  if let url = ProcessInfo.processInfo.environment["FOLIO_TEST_POSTGRES_URL"], !url.isEmpty {
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
