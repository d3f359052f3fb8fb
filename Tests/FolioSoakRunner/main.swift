import FolioSoak
import Foundation

// `make soak OPS=N SEED=S`: a long differential soak in a release build. Exits 1 on a
// divergence, after printing the shrunk reproducing script.
let environment = ProcessInfo.processInfo.environment
let operations = environment["FOLIO_SOAK_OPS"].flatMap { Int($0) } ?? 1_000_000
let seed = environment["FOLIO_SOAK_SEED"].flatMap { UInt64($0) } ?? 1
let started = Date()
do {
  let runner = try SoakRunner()
  let report = try runner.run(operations: operations, seed: seed) { done in
    let seconds = Int(Date().timeIntervalSince(started))
    FileHandle.standardError.write(Data("soak: \(done) operations, \(seconds) s\n".utf8))
  }
  print(report)
  print("soak: \(Int(Date().timeIntervalSince(started))) s")
  exit(report.divergence == nil ? 0 : 1)
} catch {
  FileHandle.standardError.write(Data("soak: \(error)\n".utf8))
  exit(1)
}
