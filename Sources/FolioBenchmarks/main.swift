// `make bench`: every benchmark, in release, each reporting its figures as ratios against the
// limits its issue names.
//
// Memory is measured as resident-set growth, which only means something in a fresh process
// (freed memory stays resident and is reused), so with no arguments this runs each case in a
// child process of its own; `FolioBenchmarks CASE [ARGUMENT]` runs one case here.
import Foundation

let cases: [(name: String, argument: String?)] = [
  ("graph", nil),
  ("undo-standalone", "10000"), ("undo-standalone", "100000"), ("undo-standalone", "1000000"),
  ("undo-levels", nil),
  ("undo-context", nil),
  ("typed-access", "200000"),
  ("folio-data", "100000:1000000"),
  ("binary-store", "10000"), ("binary-store", "100000"), ("binary-store", "1000000"),
  ("document-load", "xml:100000"), ("document-load", "folio:100000"),
  ("document-load", "folio:1000000"),
  ("sqlite-store", "1000000"),
  ("fetch", "1000000"),
  ("query", "1000000"),
  ("document-session", "folio:1000000"), ("document-session", "xml:1000000"),
  ("xml-store", "10000"), ("xml-store", "100000"), ("xml-store", "1000000"),
  ("migration", "folio:1000000"), ("migration", "sqlite:1000000"),
  ("cli", "1000000"),
  ("pasteboard", "10000"),
  ("batch", "1000000"),
  ("postgres", "1000000"), ("postgres-writers", "1000"),
  ("shared-writers", "xml:1000000"), ("shared-writers", "folio:1000000"),
  ("shared-writers", "sqlite:1000000"),
]

func runCase(_ name: String, _ argument: String?) throws {
  switch name {
  case "graph":
    try graphBenchmark()
  case "undo-standalone":
    let count = Int(argument ?? "") ?? 10_000
    report(
      "Undo manager alone: \(count.formatted()) closure registrations in groups of 10",
      try standaloneUndo(registrations: count))
  case "undo-levels":
    report("Undo manager with levelsOfUndo 100", try boundedUndo())
  case "undo-context":
    report("Context on its undo manager", try contextUndo())
  case "typed-access":
    let count = Int(argument ?? "") ?? 200_000
    report(
      "Entity class properties against keys: \(count.formatted()) objects",
      try typedAccessBenchmark(objects: count))
  case "binary-store":
    let count = Int(argument ?? "") ?? 10_000
    report(
      "Binary store: Expenses graph of \(count.formatted()) objects as records",
      try binaryStoreBenchmark(objects: count))
  case "xml-store":
    let count = Int(argument ?? "") ?? 10_000
    report(
      "XML store: Expenses graph of \(count.formatted()) objects as records",
      try xmlStoreBenchmark(objects: count))
  case "fetch":
    let count = Int(argument ?? "") ?? 1_000_000
    report("Fetching from \(count.formatted()) objects", try fetchBenchmark(objects: count))
  case "query":
    let count = Int(argument ?? "") ?? 1_000_000
    report(
      "Predicates and grouped fetches over \(count.formatted()) objects",
      try queryBenchmark(objects: count))
  case "document-write":
    try writeDocumentStore(argument ?? "")
  case "document-load":
    let (title, results) = try documentLoadBenchmark(argument ?? "")
    report(title, results)
  case "sqlite-store":
    let (title, results) = try sqliteStoreBenchmark(objects: Int(argument ?? "") ?? 1_000_000)
    report(title, results)
  case "migration":
    let (title, results) = try migrationBenchmark(argument ?? "")
    report(title, results)
  case "shared-writers":
    let (title, results) = try sharedWritersBenchmark(argument ?? "sqlite:100000")
    report(title, results)
  case "document-session":
    let (title, results) = try documentSessionBenchmark(argument ?? "")
    report(title, results)
  case "pasteboard":
    let (title, results) = try pasteboardBenchmark(objects: Int(argument ?? "") ?? 10_000)
    report(title, results)
  case "batch":
    let (title, results) = try batchBenchmark(spendings: Int(argument ?? "") ?? 1_000_000)
    report(title, results)
  case "postgres":
    let (title, results) = try postgresBenchmark(spendings: Int(argument ?? "") ?? 1_000_000)
    report(title, results)
  case "postgres-writers":
    let (title, results) = try postgresWritersBenchmark(saves: Int(argument ?? "") ?? 1_000)
    report(title, results)
  case "postgres-writer":
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    guard arguments.count == 3, let writer = Int(arguments[1]), let saves = Int(arguments[2])
    else { throw BenchmarkFailure("postgres-writer URL WRITER SAVES") }
    try postgresWriter(arguments[0], writer: writer, saves: saves)
  case "folio-data":
    let sizes = (argument ?? "100000:1000000").split(separator: ":").compactMap { Int($0) }
    let results = try folioDataBenchmark(
      objects: sizes.first ?? 100_000, fetched: sizes.last ?? 1_000_000)
    report("FolioData: @Model objects and #Predicate against the context", results)
  case "cli":
    let (title, results) = try cliBenchmark(objects: Int(argument ?? "") ?? 1_000_000)
    report(title, results)
  default:
    throw BenchmarkFailure(
      "unknown benchmark \"\(name)\"; known: \(Set(cases.map(\.name)).sorted())")
  }
}

do {
  let arguments = Array(CommandLine.arguments.dropFirst())
  if let name = arguments.first {
    try runCase(name, arguments.dropFirst().first)
  } else {
    for (name, argument) in cases {
      let child = Process()
      child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
      child.arguments = [name] + (argument.map { [$0] } ?? [])
      try child.run()
      child.waitUntilExit()
      guard child.terminationStatus == 0 else {
        throw BenchmarkFailure("\(name) \(argument ?? "") exited with \(child.terminationStatus)")
      }
    }
  }
} catch {
  print("benchmark failed: \(error)")
  exit(1)
}
