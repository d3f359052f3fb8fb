import FolioSoak
import Foundation

// `make soak OPS=N SEED=S`: a long differential soak in a release build. On a divergence it
// prints the shrunk reproducing script, writes the shrunk operations as JSON to
// soak-divergence.json, and exits 1. FOLIO_SOAK_REPLAY=FILE replays (and shrinks further) the
// operations such a file holds instead.
let environment = ProcessInfo.processInfo.environment
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
