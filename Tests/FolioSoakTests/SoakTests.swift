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

/// Runs `body` on a new session, then checks that the session's undo script, with the
/// oracle's whole state as expectations, passes under `folio replay`.
func checkScript(of body: (SoakSession) throws -> Void) throws {
  let runner = try SoakRunner()
  let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("folio-soak-test-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: folder) }
  let session = try SoakSession(
    model: try ManagedObjectModel(contentsOf: runner.modelURL), folder: folder,
    modelPath: "Soak.xcdatamodeld")
  try body(session)
  #expect(session.inexpressible == 0)
  let script = session.script + session.stateExpectations()
  let failure = try runner.failure(of: script)
  #expect(failure == nil, "\(failure ?? "")\n\(script.joined(separator: "\n"))")
}

@Suite("Soak scripts")
struct SoakScriptTests {
  @Test(
    "a session written as an undo script reaches the oracle's state under folio replay",
    arguments: [1, 2, 3, 4] as [UInt64])
  func scriptsReplaySessions(seed: UInt64) throws {
    let count = ProcessInfo.processInfo.environment["FOLIO_SOAK_SCRIPT_OPS"].flatMap { Int($0) }
    try checkScript { session in
      var generator = SoakGenerator(seed: seed)
      for index in 0..<(count ?? 400) {
        var operation = generator.next(for: session.oracle, hasFile: session.file != nil)
        if !session.isExpressible(operation),
          case .add(let uid, let key, let target, _) = operation
        {
          operation = .add(uid: uid, key: key, target: target, index: nil)
        }
        try session.apply(operation, index: index)
      }
    }
  }
}

@Suite("Soak steps across contexts")
struct SoakContextTests {
  func check(_ operations: [SoakOperation]) throws {
    try checkScript { session in
      for (index, operation) in operations.enumerated() {
        let applied = try session.apply(operation, index: index)
        #expect(applied, "\(operation) was skipped")
      }
    }
  }

  @Test(
    "a save that conflicts with another context's agrees with the oracle under each policy",
    arguments: SoakMergePolicy.allCases)
  func conflictingSave(policy: SoakMergePolicy) throws {
    try check([
      .insert(entity: "Owner", uid: 1), .insert(entity: "Item", uid: 2),
      .insert(entity: "Owner", uid: 3), .insert(entity: "Note", uid: 4),
      .add(uid: 1, key: "items", target: 2, index: nil), .saveAs(.xml),
      .setAttribute(uid: 2, key: "name", value: .string("a")),
      .setToOne(uid: 2, key: "owner", target: 3), .delete(uid: 4), .endTurn,
      .otherSet(uid: 2, key: "name", value: .string("b")),
      .otherSet(uid: 2, key: "score", value: .integer(2)),
      .otherLink(uid: 2, key: "listedIn", target: 1), .otherSet(uid: 4, key: "name", value: nil),
      .mergePolicy(policy), .save(.xml), .fetch, .undo,
    ])
  }

  @Test("reset, refresh, children, other contexts and merging agree with the oracle")
  func stepsAcrossContexts() throws {
    let link = SoakOperation.Link(uid: 2, key: "owner", target: 3)
    try check([
      .insert(entity: "Owner", uid: 1), .insert(entity: "Item", uid: 2),
      .insert(entity: "Owner", uid: 3), .saveAs(.binary),
      .childSave(uid: 1, key: "name", value: .string("child"), link: link),
      .childDiscard(uid: 3, key: "score", value: .integer(1), link: nil, delete: 1), .endTurn,
      .otherInsert(entity: "Tag", uid: 4, name: "c"), .otherDelete(uid: 1),
      .setAttribute(uid: 3, key: "weight", value: .double(0.5)),
      .refresh(uid: 3, merge: true), .refresh(uid: 2, merge: false), .endTurn, .fetch,
      .mergeDidSave,
      .refreshAll, .undo, .reset, .otherSet(uid: 3, key: "name", value: .string("d")),
      .refresh(uid: 3, merge: false), .save(.binary), .reopen,
    ])
  }
}
