import Folio
import FolioTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Kills `folio migrate` and a save that keeps its undo history at chosen points, runs the
/// command once more, and checks that nothing is left behind: in the store's folder only the
/// store, its kept history and the backup asked for; in the system's temporary folder nothing
/// new. The store is the old one or the new one after each kill, never damaged.
@Suite("Nothing left behind after a kill")
struct LeftoverTests {
  static let library = packageRoot.appendingPathComponent("Samples/Library/Library.xcdatamodeld")

  /// Runs `folio` with `environment` added, in `folder`; `true` when a kill ended it.
  static func runFolio(
    _ arguments: [String], in folder: URL, environment extra: [String: String],
    input: String? = nil
  ) throws -> Bool {
    let child = Process()
    child.executableURL = productsDirectory.appendingPathComponent("folio")
    child.arguments = arguments
    child.currentDirectoryURL = folder
    child.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
    child.standardOutput = FileHandle.nullDevice
    let errors = Pipe()
    child.standardError = errors
    let stdin = Pipe()
    child.standardInput = stdin
    try child.run()
    if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
    try stdin.fileHandleForWriting.close()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    child.waitUntilExit()
    if child.terminationReason == .uncaughtSignal {
      #expect(child.terminationStatus == SIGKILL)
      return true
    }
    #expect(child.terminationStatus == 0, "\(arguments): \(message)")
    return false
  }

  /// A temporary folder of the runs' own (`TMPDIR`), so what they leave there is seen apart
  /// from other tests' files.
  static func privateTemporaryFolder() throws -> URL { try makeTemporaryFolder() }

  /// What `folder` holds, sorted.
  static func contents(of folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
  }

  /// Which version of the Library bundle the store at `path` records, or `nil`.
  static func version(of path: String) throws -> String? {
    let url = URL(fileURLWithPath: path)
    let format = try PersistentStoreCoordinator.format(
      of: url, among: [XMLStore(), BinaryStore(), SQLiteStore()])
    let metadata = try format.readMetadata(from: url)
    return try ModelBundle(contentsOf: library).version(
      matchingVersionHashes: metadata.modelVersionHashes,
      identifiers: metadata.modelVersionIdentifiers)?.name
  }

  /// The Library sample in version 1, as `name` in a new folder.
  static func librarySample(_ name: String) throws -> URL {
    let folder = try makeTemporaryFolder()
    let url = folder.appendingPathComponent(name)
    let sample = packageRoot.appendingPathComponent("Samples/Library/Library.xml").path
    if name.hasSuffix(".xml") {
      try FileManager.default.copyItem(atPath: sample, toPath: url.path)
    } else {
      let written = try run(
        folio, ["convert", sample, url.path, "--model", library.path + "/Library 1.xcdatamodel"])
      #expect(written.status == 0, "\(written.standardError)")
    }
    return url
  }

  @Test(
    "a migration killed at any point, and run again, leaves the migrated store and its backup alone",
    arguments: ["library.xml", "library.folio", "library.sqlite"])
  func killedMigration(name: String) throws {
    let url = try Self.librarySample(name)
    let folder = url.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: folder) }
    let original = try Data(contentsOf: url)
    let command = ["migrate", name, "--model", Self.library.path]
    let temporaries = try Self.privateTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: temporaries) }
    let tmp = ["TMPDIR": temporaries.path]
    // An atomic store's migration is killed after each 4 KiB written by any of its files; a
    // SQLite one before each operation that changes a file.
    let kill =
      name.hasSuffix(".sqlite")
      ? "FOLIO_TEST_KILL_BEFORE_SQLITE_OPERATION" : "FOLIO_TEST_KILL_AFTER_BYTES"
    var point = 1
    var kills = 0
    while true {
      for entry in try Self.contents(of: folder) {
        try FileManager.default.removeItem(at: folder.appendingPathComponent(entry))
      }
      try original.write(to: url)
      let killed = try Self.runFolio(
        command, in: folder, environment: tmp.merging([kill: "\(point)"]) { $1 })
      // The store is the old one or the migrated one, whole.
      let version = try Self.version(of: url.path)
      #expect(version == "Library 1" || version == "Library 3", "\(name) killed at \(point)")
      let again = try Self.runFolio(
        version == "Library 3" ? ["info", name, "--model", Self.library.path] : command,
        in: folder, environment: tmp)
      #expect(!again)
      let expected = [name, "\(name).backup-Library 1"]
      let left = try Self.contents(of: folder).filter {
        !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
      }
      if killed {
        // A kill after the store was replaced but before its backup was complete leaves no
        // backup: the run that found the store migrated had nothing to do.
        #expect(
          left == expected || (version == "Library 3" && left == [name]),
          "\(name) killed at \(point): \(left)")
      } else {
        #expect(left == expected, "\(name): \(left)")
      }
      #expect(try Self.version(of: url.path) == "Library 3")
      guard killed else { break }
      kills += 1
      point += name.hasSuffix(".sqlite") ? 1 : 4096
    }
    #expect(kills > 0)
    let added = try Self.contents(of: temporaries)
    #expect(added.isEmpty, "\(added)")
  }

  @Test(
    "a save that keeps its undo history, killed writing the store or the history, leaves neither's temporaries after the next save"
  )
  func killedHistorySave() throws {
    let url = try Self.librarySample("library.xml")
    let folder = url.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: folder) }
    let original = try Data(contentsOf: url)
    let model = Self.library.path + "/Library 1.xcdatamodel"
    // Many lines, each an undo group: the history is larger than the store.
    var lines = ["fetch Author as $a"]
    for index in 0..<150 { lines.append("set $a.name = \"name \(index) of a long line of edits\"") }
    lines.append("save")
    let input = lines.joined(separator: "\n") + "\n"
    let command = ["shell", "library.xml", "--model", model, "--keep-history"]
    // A kill at byte 1 lands in the store's write; later ones in its or the history's, which
    // is several times larger.
    let temporaries = try Self.privateTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: temporaries) }
    let tmp = ["TMPDIR": temporaries.path]
    var killedInHistory = false
    for point in [1, 4097, 8193, 12289] {
      for entry in try Self.contents(of: folder) {
        try FileManager.default.removeItem(at: folder.appendingPathComponent(entry))
      }
      try original.write(to: url)
      let killed = try Self.runFolio(
        command, in: folder,
        environment: tmp.merging(["FOLIO_TEST_KILL_AFTER_BYTES": "\(point)"]) { $1 },
        input: input)
      #expect(killed, "killed at \(point)")
      if try Self.contents(of: folder).contains(where: { $0.hasPrefix(".library.xml.folio-undo.") })
      {
        killedInHistory = true
      }
      #expect(try XMLStore().readMetadata(from: url).identifier.isEmpty == false)
      #expect(!(try Self.runFolio(command, in: folder, environment: tmp, input: input)))
      let left = try Self.contents(of: folder)
      // Beside the store: its change journal, for other writers, and the kept undo history.
      #expect(
        left == [".library.xml.folio-journal", "library.xml", "library.xml.folio-undo"],
        "killed at \(point): \(left)")
    }
    #expect(killedInHistory)
    let added = try Self.contents(of: temporaries)
    #expect(added.isEmpty, "\(added)")
  }
}

extension LeftoverTests {
  @Test(
    "a command that only reads a store clears what dead writes left beside it, and nothing a live one holds"
  )
  func readersClear() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("e.xml")
    try FileManager.default.copyItem(
      at: packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xml"), to: store)
    let dead = [
      ".e.xml.folio-\(UUID().uuidString).tmp", ".e.xml.folio-undo.folio-\(UUID().uuidString).tmp",
    ]
    let held = ".e.xml.folio-\(UUID().uuidString).tmp"
    for name in dead + [held] {
      #expect(
        FileManager.default.createFile(
          atPath: folder.appendingPathComponent(name).path, contents: Data("partial".utf8)))
    }
    // Another process is still writing the one it holds locked.
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
    holder.arguments = [folder.appendingPathComponent(held).path, "sleep", "30"]
    try holder.run()
    defer { holder.terminate() }
    Thread.sleep(forTimeInterval: 0.3)
    for command in [["info"], ["dump"], ["query", "--format", "csv"]] {
      let arguments =
        command.first == "query"
        ? ["query", store.path, "Person", "--format", "csv"] : command + [store.path]
      #expect(try run(folio, arguments).status == 0, "\(command)")
    }
    #expect(try Self.contents(of: folder) == [held, "e.xml"].sorted())
  }
}

extension LeftoverTests {
  @Test(
    "a store read from standard input is kept in the temporary folder only while folio runs, and a killed run's copy goes with the next"
  )
  func standardInputCopy() throws {
    let temporaries = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: temporaries) }
    let dead = ".folio-stdin.folio-\(UUID().uuidString).tmp"
    #expect(
      FileManager.default.createFile(
        atPath: temporaries.appendingPathComponent(dead).path, contents: Data("partial".utf8)))
    let store = try Data(
      contentsOf: packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xml"))
    let result = try run(
      folio, ["info", "-"], environment: ["TMPDIR": temporaries.path], input: store)
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput.contains("Objects: 8"))
    #expect(try Self.contents(of: temporaries) == [])
  }
}
