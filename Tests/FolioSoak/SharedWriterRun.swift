import Folio
import FolioPostgresStore
import FolioScript
import FolioTestSupport
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Runs several ``SharedWriter`` processes on one store and checks what they leave: for the
/// tests of several writers and for `make soak-writers`.
public enum SharedWriterRun {
  /// How many shared spendings a store made by ``makeStore(_:in:model:)`` holds.
  public static let sharedCount = 2

  /// A store of `format` in `folder` holding the shared spendings `shared-0`… at amount 0.
  public static func makeStore(_ format: any StoreFormat, in folder: URL, model: URL) throws
    -> URL
  {
    let url =
      format is PostgresStore
      ? PostgresTestServer.document("writers")
      : folder.appendingPathComponent("shared.\(format.fileExtension)")
    let document = try Document(model: try ManagedObjectModel(contentsOf: model))
    for index in 0..<sharedCount {
      let spending = try document.context.insertNewObject(forEntityName: "Spending")
      try spending.setValue("shared-\(index)", forKey: "content")
      try spending.setValue(0.0, forKey: "amount")
    }
    try document.save(to: url, format: format)
    return url
  }

  /// Runs `writers` processes of `runner` (`FolioSoakRunner`) doing `saves` saves each on
  /// `store` at once, killing `victim` with `SIGKILL` after the given time when asked, and
  /// running `during` (a restart of the server, say) while they write. Returns each writer's
  /// log, and what went wrong with the processes themselves.
  public static func runWriters(
    _ writers: Int, saves: Int, policy: MergePolicy, store: URL, model: URL, in folder: URL,
    seed: UInt64, runner: URL, killing victim: (writer: Int, afterMilliseconds: Int)? = nil,
    during: (() throws -> Void)? = nil
  ) throws -> (logs: [[SharedWriter.LogEntry]], problems: [String]) {
    let go = folder.appendingPathComponent("go")
    var processes: [(Process, Pipe, URL)] = []
    for writer in 0..<writers {
      let log = folder.appendingPathComponent("writer-\(writer).log")
      _ = FileManager.default.createFile(atPath: log.path, contents: nil)
      let process = Process()
      process.executableURL = runner
      process.arguments = [
        "writer", store.isFileURL ? store.path : store.absoluteString, model.path, log.path,
        "\(writer)", "\(saves)",
        "\(seed &+ UInt64(writer))", policy.scriptName, go.path,
      ]
      let errors = Pipe()
      process.standardError = errors
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      processes.append((process, errors, log))
    }
    _ = FileManager.default.createFile(atPath: go.path, contents: nil)
    if let victim {
      usleep(UInt32(victim.afterMilliseconds) * 1000)
      kill(processes[victim.writer].0.processIdentifier, SIGKILL)
    }
    try during?()
    var logs: [[SharedWriter.LogEntry]] = []
    var problems: [String] = []
    for (index, (process, errors, log)) in processes.enumerated() {
      let message = String(
        decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      if index != victim?.writer, process.terminationStatus != 0 {
        problems.append(
          "writer \(index) ended with status \(process.terminationStatus): \(message)")
      }
      // A killed writer's last line may be cut short.
      let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
      logs.append(
        lines.compactMap {
          try? JSONDecoder().decode(SharedWriter.LogEntry.self, from: Data($0.utf8))
        })
    }
    try? FileManager.default.removeItem(at: go)
    return (logs, problems)
  }

  /// Checks the store against the writers' logs: every writer's own objects are what its last
  /// save that returned left (a killed writer's, that or what the save it was killed in was to
  /// leave), only conflicts failed saves and only under `error`, and the shared values went as
  /// the policy says. Returns how many saves conflicted, and each problem found.
  public static func check(
    _ store: URL, model: URL, logs: [[SharedWriter.LogEntry]], policy: MergePolicy,
    killed: Set<Int> = []
  ) throws -> (conflicts: Int, problems: [String]) {
    let document = try Document.open(
      store, model: try ManagedObjectModel(contentsOf: model),
      formats: SharedWriter.formats)
    let context = document.context
    var problems = context.brokenInvariants()
    var conflicts = 0
    for (writer, fullLog) in logs.enumerated() {
      let log = fullLog.filter { $0.pending != true }
      for entry in log where !entry.saved {
        conflicts += 1
        if entry.error != "mergeConflict" || policy != .error {
          problems.append("writer \(writer)'s save failed under \(policy): \(entry)")
        }
      }
      let last = log.last { $0.saved }
      var people: [String: [String]] = [:]
      var spendings: [String: String] = [:]
      for person in try context.objects(ofEntity: "Person") {
        let name = try person.value(forKey: "name") as? String ?? ""
        guard name.hasPrefix("w\(writer)-") else { continue }
        people[name] = try SharedWriter.spendingLabels(of: person)
      }
      for spending in try context.objects(ofEntity: "Spending") {
        let content = try spending.value(forKey: "content") as? String ?? ""
        guard content.hasPrefix("w\(writer)-") else { continue }
        spendings[content] = try SharedWriter.describe(spending)
      }
      var states = [(last?.people ?? [:], last?.spendings ?? [:])]
      if killed.contains(writer), let intent = fullLog.last, intent.pending == true {
        states.append((intent.people ?? [:], intent.spendings ?? [:]))
      }
      // Every object given its permanent ID before its first save kept it through the saves,
      // whatever the other writers did meanwhile.
      for (label, uri) in last?.permanentIDs ?? [:] {
        guard !uri.hasPrefix("changed"), let url = URL(string: uri),
          let id = context.managedObjectID(forURIRepresentation: url)
        else {
          problems.append("writer \(writer)'s \(label) lost its permanent ID: \(uri)")
          continue
        }
        guard let object = context.object(with: id) else { continue }
        let key = object.entity.name == "Person" ? "name" : "content"
        if try object.value(forKey: key) as? String != label {
          problems.append("writer \(writer)'s \(label) ID \(uri) names another object")
        }
      }
      if !states.contains(where: { $0.0 == people && $0.1 == spendings }) {
        problems.append(
          "writer \(writer)'s objects in the file are not what its last save left: file \(people) \(spendings), saved \(states.map { "\($0.0) \($0.1)" })"
        )
      }
    }
    for index in 0..<sharedCount {
      problems += try checkShared(
        "shared-\(index)", in: context, logs: logs, policy: policy, killed: killed)
    }
    return (conflicts, problems)
  }

  /// The problems of a shared spending's amount: under `error` the saves that returned form
  /// one chain from the first value to the file's, each having read the value it replaced;
  /// under the other policies the value is one a save set, or the first.
  ///
  /// The save a killed writer was in may have committed or not: its edit may stand in the
  /// chain, and need not.
  private static func checkShared(
    _ label: String, in context: ManagedObjectContext, logs: [[SharedWriter.LogEntry]],
    policy: MergePolicy, killed: Set<Int>
  ) throws -> [String] {
    guard
      let object = try context.objects(ofEntity: "Spending").first(where: {
        try $0.value(forKey: "content") as? String == label
      }), let final = try object.value(forKey: "amount") as? Double
    else { return ["\(label) is gone"] }
    let edits = logs.joined().filter { $0.saved && $0.pending != true }.compactMap {
      $0.shared[label]
    }
    let maybe = logs.enumerated().compactMap { writer, log -> [Double]? in
      guard killed.contains(writer), let last = log.last, last.pending == true else { return nil }
      return last.shared[label]
    }
    guard policy == .error else {
      return final == 0 || (edits + maybe).contains { $0[1] == final }
        ? [] : ["\(label) holds \(final), which no save set"]
    }
    var problems: [String] = []
    var next: [Double: Double] = [:]
    for edit in edits {
      if next[edit[0]] != nil { problems.append("\(label): two saves replaced \(edit[0])") }
      next[edit[0]] = edit[1]
    }
    var optional: Set<Double> = []
    for edit in maybe where next[edit[0]] == nil {
      next[edit[0]] = edit[1]
      optional.insert(edit[0])
    }
    // Walked from the first value: the file's value must be reached once every save that
    // returned is behind, and before or after the optional ones.
    var value = 0.0
    var steps = 0
    var walked = 0
    var reached = steps == edits.count && value == final
    while let following = next[value], walked <= edits.count + maybe.count {
      if !optional.contains(value) { steps += 1 }
      value = following
      walked += 1
      if steps == edits.count, value == final { reached = true }
    }
    if !reached {
      problems.append(
        "\(label): a chain of \(steps) of \(edits.count) saves ends at \(value), the file holds \(final)"
      )
    }
    return problems
  }
}
