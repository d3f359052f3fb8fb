import Folio
import FolioScript
import Foundation

/// Runs soak sessions: random ones from a seed, and replays of a fixed list of operations,
/// which is how a divergence is shrunk to a short reproducing script.
///
/// A session closes and reopens its document now and then, which also empties the undo stack,
/// so memory stays bounded however long it runs. A long soak runs several sessions of
/// ``sessionLength`` operations, each from its own seed, so a divergence replays from the start
/// of its session only.
public struct SoakRunner {
  /// The model file (`Samples/Soak/Soak.xcdatamodeld`).
  public let modelURL: URL
  let model: ManagedObjectModel
  /// Operations per session. The default is 20,000.
  public var sessionLength = 20_000
  /// How long shrinking a divergence may take, in seconds. The default is 600.
  public var shrinkingTime: TimeInterval = 600

  /// The soak model, found from this file's place in the package.
  public static let defaultModelURL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Samples/Soak/Soak.xcdatamodeld")

  public init(modelURL: URL = SoakRunner.defaultModelURL) throws {
    self.modelURL = modelURL
    model = try ManagedObjectModel(contentsOf: modelURL)
  }

  /// What a soak found.
  public struct Report {
    public var operations = 0
    public var counts: [String: Int] = [:]
    /// The first divergence, shrunk, with its reproducing script and operation list.
    public var divergence: SoakDivergence?
    public var shrunk: [SoakOperation] = []
    public var script: [String] = []
    /// Whether running ``script`` with `folio replay` fails, as it should.
    public var scriptReproduces = false
    /// How many operations of ``shrunk`` the script could not express.
    public var inexpressible = 0
    public var seed: UInt64 = 0
  }

  /// Runs `operations` random operations from `seed`, in sessions; stops at the first
  /// divergence and shrinks it.
  public func run(operations: Int, seed: UInt64, progress: ((Int) -> Void)? = nil) throws -> Report
  {
    var report = Report()
    report.seed = seed
    var done = 0
    var session = 0
    while done < operations {
      let length = min(sessionLength, operations - done)
      let sessionSeed = seed &+ UInt64(session) &* 0x9E37_79B9
      var generator = SoakGenerator(seed: sessionSeed)
      let folder = try Self.makeFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let soak = try SoakSession(model: model, folder: folder, modelPath: modelURL.path)
      var log: [SoakOperation] = []
      for index in 0..<length {
        let operation = generator.next(for: soak.oracle, hasFile: soak.file != nil)
        log.append(operation)
        do {
          try soak.apply(operation, index: index)
        } catch let divergence as SoakDivergence {
          report.operations = done + index + 1
          report.counts.merge(soak.counts, uniquingKeysWith: +)
          report.seed = sessionSeed
          try shrink(log, divergence: divergence, into: &report)
          return report
        }
        if (done + index + 1) % 10_000 == 0 { progress?(done + index + 1) }
      }
      report.counts.merge(soak.counts, uniquingKeysWith: +)
      done += length
      session += 1
    }
    report.operations = done
    return report
  }

  /// Replays a fixed list of operations, and shrinks the divergence it shows, if any.
  public func run(_ operations: [SoakOperation]) throws -> Report {
    var report = Report()
    report.operations = operations.count
    guard let divergence = try replay(operations).0 else { return report }
    try shrink(operations, divergence: divergence, into: &report)
    return report
  }

  /// Replays `operations` on a fresh session: the divergence, if any.
  public func replay(_ operations: [SoakOperation]) throws -> (SoakDivergence?, [String]) {
    let (divergence, script, _) = try replayCountingInexpressible(operations)
    return (divergence, script)
  }

  /// Replays `operations`; past `deadline` it gives up, as if they showed no divergence (a
  /// candidate without the steps that reopen the document can grow its graph and undo stack
  /// without bound).
  func replayCountingInexpressible(_ operations: [SoakOperation], deadline: Date? = nil) throws
    -> (SoakDivergence?, [String], Int)
  {
    let folder = try Self.makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let soak = try SoakSession(model: model, folder: folder, modelPath: "Soak.xcdatamodeld")
    for (index, operation) in operations.enumerated() {
      if let deadline, index % 256 == 255, Date() > deadline { return (nil, [], 0) }
      do {
        try soak.apply(operation, index: index)
      } catch let divergence as SoakDivergence {
        return (divergence, soak.script + divergence.expectations, soak.inexpressible)
      }
    }
    return (nil, soak.script, soak.inexpressible)
  }

  /// Shrinks a divergence while it keeps its kind: first whole kinds of operation (every
  /// `levels`, every `process`…), then chunks by delta debugging, halving the chunk size, then
  /// everything naming one object, then single operations again.
  func shrink(_ log: [SoakOperation], divergence: SoakDivergence, into report: inout Report)
    throws
  {
    var operations = Array(log.prefix(divergence.index + 1))
    var current = divergence
    let deadline = Date().addingTimeInterval(shrinkingTime)
    func attempt(_ candidate: [SoakOperation]) throws -> Bool {
      guard Date() < deadline, candidate.count < operations.count,
        let found = try replayCountingInexpressible(candidate, deadline: deadline).0,
        found.kind == current.kind
      else { return false }
      operations = Array(candidate.prefix(found.index + 1))
      current = found
      return true
    }
    let kinds = Set(operations.map(\.kind)).sorted()
    for kind in kinds { _ = try attempt(operations.filter { $0.kind != kind }) }
    func removeChunks(from size: Int) throws {
      var chunk = max(size, 1)
      while chunk >= 1, Date() < deadline {
        var start = 0
        var removed = false
        while start < operations.count, Date() < deadline {
          var candidate = operations
          candidate.removeSubrange(start..<min(start + chunk, operations.count))
          if try attempt(candidate) { removed = true } else { start += chunk }
        }
        if !removed { chunk /= 2 }
      }
    }
    try removeChunks(from: operations.count / 2)
    let uids = operations.compactMap(\.insertedUID)
    var removedObject = false
    for uid in uids {
      let candidate = operations.filter { operation in
        operation.insertedUID != uid && !operation.objects.contains(uid)
      }
      if try attempt(candidate) { removedObject = true }
    }
    if removedObject { try removeChunks(from: 1) }
    let (final, script, inexpressible) = try replayCountingInexpressible(operations)
    report.divergence = final ?? current
    report.shrunk = operations
    report.script = script
    report.inexpressible = inexpressible
    report.scriptReproduces = try reproduces(script)
  }

  /// Whether `script` fails when run as `folio replay` runs it, beside a copy of the model.
  public func reproduces(_ script: [String]) throws -> Bool { try failure(of: script) != nil }

  /// The error that stops `script` when run as `folio replay` runs it, beside a copy of the
  /// model; `nil` when it runs to its end.
  public func failure(of script: [String]) throws -> String? {
    let folder = try Self.makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.copyItem(
      at: modelURL, to: folder.appendingPathComponent("Soak.xcdatamodeld"))
    let path = folder.appendingPathComponent("soak.undo").path
    try (script.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    do {
      try ScriptRunner(formats: [XMLStore(), BinaryStore(), SQLiteStore()], output: { _ in })
        .run(Script(contentsOfFile: path))
      return nil
    } catch {
      return error.description
    }
  }

  static func makeFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("folio-soak-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }
}

extension SoakRunner.Report: CustomStringConvertible {
  public var description: String {
    let summary = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
      .joined(separator: ", ")
    guard let divergence else {
      return "soak: \(operations) operations from seed \(seed), no divergence\n  \(summary)"
    }
    return """
      soak: divergence in the session with seed \(seed), after \(operations) operations
      \(divergence)
      shrunk to \(shrunk.count) operations:
        \(shrunk.map(\.description).joined(separator: "\n  "))
      \(inexpressible == 0 ? "" : "\(inexpressible) operations are NOT EXPRESSIBLE in the script: the operation list above is exact\n")\
      reproducing undo script (save beside Samples/Soak/Soak.xcdatamodeld; \
      \(scriptReproduces ? "folio replay fails on it" : "does NOT fail under folio replay")):
      \(script.joined(separator: "\n"))
      """
  }
}
