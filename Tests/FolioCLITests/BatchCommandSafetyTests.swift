import FolioModel
import FolioSQLiteStore
import FolioStores
import FolioTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `folio delete` and `folio update` with other writers: another process saving the same store
/// while batches run loses nothing, and a batch killed at any point leaves the old store or the
/// new one.
@Suite("folio delete and update with other writers and kills")
struct BatchCommandSafetyTests {
  /// Runs `folio` with `arguments` and `environment` added; whether a signal ended it, and its
  /// exit status.
  static func runFolio(_ arguments: [String], environment extra: [String: String] = [:]) throws
    -> (killed: Bool, status: Int32)
  {
    let child = Process()
    child.executableURL = folio
    child.arguments = arguments
    child.environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
    child.standardOutput = FileHandle.nullDevice
    child.standardError = FileHandle.nullDevice
    try child.run()
    child.waitUntilExit()
    return (child.terminationReason == .uncaughtSignal, child.terminationStatus)
  }

  @Test(
    "batches run while another process saves the same store: neither loses anything",
    arguments: ["xml", "folio", "sqlite"])
  func otherWriter(fileExtension: String) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try BatchCommandTests.makeStore(fileExtension, in: folder, people: 10, spendings: 4)
    // The other writer: a document inserting a person and saving, 30 times.
    var script = "model \(BatchCommandTests.model.path)\nopen \(url.lastPathComponent)\n"
    for index in 0..<30 { script += "insert Person $w\(index) name=\"writer-\(index)\"\nsave\n" }
    let scriptURL = folder.appendingPathComponent("writer.undo")
    try script.write(to: scriptURL, atomically: true, encoding: .utf8)
    let writer = Process()
    writer.executableURL = folio
    writer.arguments = ["replay", scriptURL.path]
    let errors = Pipe()
    writer.standardError = errors
    writer.standardOutput = FileHandle.nullDevice
    try writer.run()
    let model = ["--model", BatchCommandTests.model.path]
    for person in 0..<10 {
      let update = try run(
        folio,
        [
          "update", url.path, "--entity", "Spending", "--where", "person.name == 'p\(person)'",
          "--set", "amount=amount + 100",
        ] + model)
      #expect(update.status == 0, "\(update.standardError)")
      let delete = try run(
        folio,
        ["delete", url.path, "--entity", "Spending", "--where", "content == 's\(person)-3'"]
          + model)
      #expect(delete.standardOutput == "deleted 1 Spending object\n", "\(delete.standardError)")
    }
    let message = String(
      decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    writer.waitUntilExit()
    #expect(writer.terminationStatus == 0, "\(message)")
    let names = try BatchCommandTests.values(url, "Person", "name")
    #expect(names == ((0..<10).map { "p\($0)" } + (0..<30).map { "writer-\($0)" }).sorted())
    let amounts = try BatchCommandTests.values(url, "Spending", "amount")
    #expect(amounts == Array(repeating: ["100.0", "101.0", "102.0"], count: 10).joined().sorted())
  }

  @Test(
    "a SQLite batch killed before any of its writes leaves the old store or the new one",
    arguments: ["DELETE", "WAL"])
  func killedSQLite(journalMode: String) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try BatchCommandTests.makeStore("sqlite", in: folder, people: 6, spendings: 5)
    let mode = try run(
      URL(fileURLWithPath: "/usr/bin/sqlite3"), [url.path, "PRAGMA journal_mode = \(journalMode)"])
    #expect(mode.standardOutput.lowercased() == journalMode.lowercased() + "\n")
    var saved: [String: Data] = [:]
    for suffix in ["", "-wal", "-shm"] {
      saved[suffix] = FileManager.default.contents(atPath: url.path + suffix)
    }
    func restore() throws {
      for suffix in ["", "-journal", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: url.path + suffix)
        if let data = saved[suffix] { try data.write(to: URL(fileURLWithPath: url.path + suffix)) }
      }
    }
    let command = [
      "delete", url.path, "--entity", "Person", "--where", "name IN {'p1', 'p4'}",
    ]
    let old = try BatchCommandTests.state(url)
    #expect(try !Self.runFolio(command).killed)
    let new = try BatchCommandTests.state(url)
    #expect(new.count == old.count - 12)
    var operation = 1
    var sawOld = false
    var sawNew = false
    while true {
      try restore()
      let result = try Self.runFolio(
        command, environment: ["FOLIO_TEST_KILL_BEFORE_SQLITE_OPERATION": "\(operation)"])
      let now = try BatchCommandTests.state(url)
      #expect(now == old || now == new, "killed before operation \(operation)")
      if now == old { sawOld = true } else if now == new { sawNew = true }
      let check = try run(
        URL(fileURLWithPath: "/usr/bin/sqlite3"), [url.path, "PRAGMA integrity_check"])
      #expect(check.standardOutput == "ok\n", "killed before operation \(operation)")
      guard result.killed else { break }
      operation += 1
    }
    #expect(sawOld && sawNew && operation > 3)
  }

  @Test(
    "an XML or binary batch killed while it writes leaves the old file or the new one",
    arguments: ["xml", "folio"])
  func killedAtomic(fileExtension: String) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try BatchCommandTests.makeStore(fileExtension, in: folder, people: 40, spendings: 10)
    let oldBytes = try Data(contentsOf: url)
    let command = [
      "update", url.path, "--entity", "Spending", "--where", "amount < 5", "--set",
      "content='changed'",
    ]
    let old = try BatchCommandTests.state(url)
    #expect(try Self.runFolio(command).status == 0)
    let new = try BatchCommandTests.state(url)
    let newSize = try Data(contentsOf: url).count
    #expect(new != old)
    for point in [1] + (1..<8).map({ newSize * $0 / 8 }) {
      try oldBytes.write(to: url)
      let result = try Self.runFolio(
        command, environment: ["FOLIO_TEST_KILL_AFTER_BYTES": "\(point)"])
      #expect(result.killed, "killed after \(point) bytes")
      #expect(try BatchCommandTests.state(url) == old, "killed after \(point) bytes")
    }
    // The next batch clears what the kills left, and writes the new store.
    #expect(try Self.runFolio(command).status == 0)
    #expect(try BatchCommandTests.state(url) == new)
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
      $0.hasSuffix(".tmp") || $0.hasSuffix(".folio-lock")
    }
    #expect(left.isEmpty, "\(left)")
  }
}
