import Folio
import FolioSoak
import Foundation
import Testing

@Suite("Differential soak against the oracle")
struct SoakTests {
  @Test("20,000 random operations agree with the oracle after every step")
  func soak() throws {
    let environment = ProcessInfo.processInfo.environment
    let operations = environment["FOLIO_SOAK_OPS"].flatMap { Int($0) } ?? 20_000
    let seed = environment["FOLIO_SOAK_SEED"].flatMap { UInt64($0) } ?? 20_261_122
    var runner = try SoakRunner()
    runner.shrinkingTime = 120
    let report = try runner.run(operations: operations, seed: seed)
    #expect(report.divergence == nil, "\(report)")
    #expect(report.operations == operations)
  }
}

@Suite("Soak scripts")
struct SoakScriptTests {
  @Test(
    "a session written as an undo script reaches the oracle's state under folio replay",
    arguments: [1, 2, 3, 4] as [UInt64])
  func scriptsReplaySessions(seed: UInt64) throws {
    let runner = try SoakRunner()
    var generator = SoakGenerator(seed: seed)
    var operations: [SoakOperation] = []
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("folio-soak-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let session = try SoakSession(
      model: try ManagedObjectModel(contentsOf: runner.modelURL), folder: folder,
      modelPath: "Soak.xcdatamodeld")
    let count = ProcessInfo.processInfo.environment["FOLIO_SOAK_SCRIPT_OPS"].flatMap { Int($0) }
    for index in 0..<(count ?? 400) {
      var operation = generator.next(for: session.oracle, hasFile: session.file != nil)
      if !session.isExpressible(operation), case .add(let uid, let key, let target, _) = operation {
        operation = .add(uid: uid, key: key, target: target, index: nil)
      }
      operations.append(operation)
      try session.apply(operation, index: index)
    }
    #expect(session.inexpressible == 0)
    let script = session.script + session.stateExpectations()
    let failure = try runner.failure(of: script)
    #expect(failure == nil, "\(failure ?? "")\n\(script.joined(separator: "\n"))")
  }
}
