import Folio
import FolioSoak
import FolioTestSupport
import Foundation
import Testing

/// Several processes saving one store at once (`FolioSoakRunner writer`, ``SharedWriter``):
/// every change a save reported committed is in the file at the end, and the shared objects'
/// conflicts went as the merge policy says.
@Suite("Several processes writing one store")
struct SharedWritersTests {
  static let model = packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld")
  static let sharedCount = 2

  static func format(_ fileExtension: String) -> any StoreFormat {
    switch fileExtension {
    case "xml": XMLStore()
    case "folio": BinaryStore()
    default: SQLiteStore()
    }
  }

  /// A store of `format` in `folder` holding the shared spendings, amount 0.
  static func makeStore(_ format: any StoreFormat, in folder: URL) throws -> URL {
    let url = folder.appendingPathComponent("shared.\(format.fileExtension)")
    let document = try Document(model: try ManagedObjectModel(contentsOf: model))
    for index in 0..<sharedCount {
      let spending = try document.context.insertNewObject(forEntityName: "Spending")
      try spending.setValue("shared-\(index)", forKey: "content")
      try spending.setValue(0.0, forKey: "amount")
    }
    try document.save(to: url, format: format)
    return url
  }

  /// Runs `writers` writer processes of `saves` saves each on `store` at once, killing
  /// `victim` with `SIGKILL` after the given time when asked; returns each one's log.
  static func runWriters(
    _ writers: Int, saves: Int, policy: MergePolicy, store: URL, in folder: URL, seed: UInt64,
    killing victim: (writer: Int, afterMilliseconds: Int)? = nil
  ) throws -> [[SharedWriter.LogEntry]] {
    let go = folder.appendingPathComponent("go")
    var processes: [(Process, Pipe, URL)] = []
    for writer in 0..<writers {
      let log = folder.appendingPathComponent("writer-\(writer).log")
      _ = FileManager.default.createFile(atPath: log.path, contents: nil)
      let process = Process()
      process.executableURL = productsDirectory.appendingPathComponent("FolioSoakRunner")
      process.arguments = [
        "writer", store.path, model.path, log.path, "\(writer)", "\(saves)",
        "\(seed &+ UInt64(writer))", policy.rawValue, go.path,
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
    var logs: [[SharedWriter.LogEntry]] = []
    for (index, (process, errors, log)) in processes.enumerated() {
      let message = String(
        decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      if index != victim?.writer { #expect(process.terminationStatus == 0, "\(message)") }
      // A killed writer's last line may be cut short.
      let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
      logs.append(
        lines.compactMap {
          try? JSONDecoder().decode(SharedWriter.LogEntry.self, from: Data($0.utf8))
        })
    }
    try? FileManager.default.removeItem(at: go)
    return logs
  }

  /// Checks the store against the writers' logs; returns how many saves conflicted.
  static func check(
    _ store: URL, logs: [[SharedWriter.LogEntry]], policy: MergePolicy, killed: Set<Int> = [],
    _ comment: String
  ) throws -> Int {
    let document = try Document.open(
      store, model: try ManagedObjectModel(contentsOf: model),
      formats: [XMLStore(), BinaryStore(), SQLiteStore()])
    let context = document.context
    #expect(context.brokenInvariants() == [], "\(comment)")
    var conflicts = 0
    for (writer, fullLog) in logs.enumerated() {
      let log = fullLog.filter { $0.pending != true }
      for entry in log where !entry.saved {
        // Only a conflict may fail a save, and only where the policy is `error`.
        #expect(entry.error == "mergeConflict" && policy == .error, "\(comment): \(entry)")
        conflicts += 1
      }
      // What the writer's last save left of its own objects is what the file holds of them.
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
      guard killed.contains(writer) else {
        #expect(people == last?.people ?? [:], "\(comment): writer \(writer)'s people")
        #expect(spendings == last?.spendings ?? [:], "\(comment): writer \(writer)'s spendings")
        continue
      }
      // A writer killed in a save left what its last save that returned left, or what the
      // save it was killed in was to leave.
      var states = [(last?.people ?? [:], last?.spendings ?? [:])]
      if let intent = fullLog.last, intent.pending == true {
        states.append((intent.people ?? [:], intent.spendings ?? [:]))
      }
      #expect(
        states.contains { $0.0 == people && $0.1 == spendings },
        "\(comment): killed writer \(writer)'s objects are neither its last save nor the one it was in"
      )
    }
    for index in 0..<sharedCount {
      let label = "shared-\(index)"
      let object = try #require(
        try context.objects(ofEntity: "Spending").first {
          try $0.value(forKey: "content") as? String == label
        })
      let final = try #require(try object.value(forKey: "amount") as? Double)
      let edits = logs.joined().filter(\.saved).compactMap { $0.shared[label] }
      guard policy == .error else {
        // The value is one a save set, or the first one.
        #expect(final == 0 || edits.contains { $0[1] == final }, "\(comment): \(label)")
        continue
      }
      // Under `error`, every save that returned had read the value it replaced: the saves
      // form one chain from the first value to the file's.
      var next: [Double: Double] = [:]
      for edit in edits {
        #expect(next[edit[0]] == nil, "\(comment): \(label): two saves replaced \(edit[0])")
        next[edit[0]] = edit[1]
      }
      var value = 0.0
      var steps = 0
      while let following = next[value], steps <= edits.count {
        value = following
        steps += 1
      }
      #expect(
        steps == edits.count && value == final,
        "\(comment): \(label): chain \(steps) of \(edits.count), ends \(value), file \(final)")
    }
    return conflicts
  }

  @Test(
    "writers saving at once keep every committed change; conflicts fail under error",
    arguments: ["xml", "folio", "sqlite"])
  func errorPolicy(fileExtension: String) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let format = Self.format(fileExtension)
    let store = try Self.makeStore(format, in: folder)
    let logs = try Self.runWriters(
      3, saves: 25, policy: .error, store: store, in: folder, seed: 11)
    let conflicts = try Self.check(store, logs: logs, policy: .error, fileExtension)
    #expect(conflicts > 0, "no save conflicted: the writers did not overlap")
  }

  @Test(
    "writers saving at once under each other policy never fail and keep every committed change",
    arguments: ["xml", "folio"],
    [MergePolicy.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback])
  func otherPolicies(fileExtension: String, policy: MergePolicy) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let format = Self.format(fileExtension)
    let store = try Self.makeStore(format, in: folder)
    let logs = try Self.runWriters(3, saves: 12, policy: policy, store: store, in: folder, seed: 5)
    _ = try Self.check(store, logs: logs, policy: policy, "\(fileExtension) \(policy)")
  }

  @Test(
    "a writer killed at any point while others write leaves every save that returned",
    arguments: ["xml", "folio", "sqlite"])
  func killedWriter(fileExtension: String) throws {
    var random = SeededGenerator(seed: 23)
    for trial in 0..<4 {
      let folder = try makeTemporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let store = try Self.makeStore(Self.format(fileExtension), in: folder)
      let delay = Int.random(in: 5..<120, using: &random)
      let logs = try Self.runWriters(
        3, saves: 20, policy: .mergeByPropertyObjectTrump, store: store, in: folder,
        seed: UInt64(31 + trial), killing: (trial % 3, delay))
      _ = try Self.check(
        store, logs: logs, policy: .mergeByPropertyObjectTrump, killed: [trial % 3],
        "\(fileExtension) trial \(trial), killed after \(delay) ms")
      // The next save removes the temporary file and the lock file a kill left.
      let document = try Document.open(
        store, model: try ManagedObjectModel(contentsOf: Self.model),
        formats: [Self.format(fileExtension)])
      try document.context.insertNewObject(forEntityName: "Person")
      try document.save()
      let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
        $0.hasSuffix(".tmp") || $0.hasSuffix(".folio-lock")
      }
      #expect(left.isEmpty, "\(left)")
    }
  }

  @Test(
    "folio convert over a SQLite store a document has open writes through it; the document then refuses to save"
  )
  func convertOverOpenStore() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try Self.makeStore(SQLiteStore(), in: folder)
    let model = try ManagedObjectModel(contentsOf: Self.model)
    let document = try Document.open(store, model: model, formats: [SQLiteStore()])
    try document.context.insertNewObject(forEntityName: "Person").setValue("mine", forKey: "name")
    // Another store, converted over the open one by another process.
    let other = try Self.makeStore(XMLStore(), in: folder)
    let convert = Process()
    convert.executableURL = productsDirectory.appendingPathComponent("folio")
    convert.arguments = ["convert", other.path, store.path, "--model", Self.model.path]
    let errors = Pipe()
    convert.standardError = errors
    try convert.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    convert.waitUntilExit()
    #expect(convert.terminationStatus == 0, "\(message)")
    // The document's save sees another store where its own was, and writes nothing into it.
    let error = try #require(throws: GraphError.self) { try document.save() }
    #expect((error.underlying as? StoreError)?.code == .modifiedOnDisk, "\(error)")
    let reopened = try Document.open(store, model: model, formats: [SQLiteStore()])
    let names = try reopened.context.objects(ofEntity: "Person").compactMap {
      try $0.value(forKey: "name") as? String
    }
    #expect(names.isEmpty)
    #expect(try reopened.context.objects(ofEntity: "Spending").count == Self.sharedCount)
    #expect(
      reopened.coordinator.persistentStores.first?.identifier
        == (try XMLStore().readMetadata(from: other).identifier))
  }
}
