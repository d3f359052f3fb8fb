import FolioTestSupport
import Foundation
import Testing

/// What `folio` says when something is wrong, word for word: a command line of the wrong
/// shape gets its usage (exit 64), a value that does not parse one line (64), anything else
/// one line naming the thing (1); never a Foundation error's text.
@Suite("folio's error messages")
struct ErrorMessageTests {
  static let sample = "Samples/Expenses/Expenses.xml"
  static let model = "Samples/Expenses/Expenses.xcdatamodeld"

  /// Runs folio and expects `status` and exactly `message` on standard error, nothing on
  /// standard output.
  static func expectError(
    _ arguments: [String], status: Int32, _ message: String, in folder: URL = packageRoot,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let result = try run(folio, arguments, in: folder)
    #expect(result.status == status, "\(arguments)", sourceLocation: sourceLocation)
    #expect(result.standardError == message, "\(arguments)", sourceLocation: sourceLocation)
    #expect(result.standardOutput.isEmpty, "\(arguments)", sourceLocation: sourceLocation)
  }

  @Test("a mistyped command is answered with the closest one")
  func unknownCommand() throws {
    try Self.expectError(
      ["inof", Self.sample], status: 64,
      """
      Error: 'inof' is not a folio command (did you mean 'info'?)
      Usage: folio <subcommand>
        See 'folio --help' for the commands.

      """)
    try Self.expectError(
      ["model", "grpah"], status: 64,
      """
      Error: 'grpah' is not a folio model command (did you mean 'graph'?)
      Usage: folio model <subcommand>
        See 'folio model --help' for the commands.

      """)
    try Self.expectError(
      ["frobnicate"], status: 64,
      """
      Error: 'frobnicate' is not a folio command
      Usage: folio <subcommand>
        See 'folio --help' for the commands.

      """)
    // `folio help COMMAND` is help, not a command named help.
    #expect(try run(folio, ["help", "info"]).status == 0)
  }

  @Test("bare folio shows what there is to run on standard error and fails, as git does")
  func bare() throws {
    let result = try run(folio, [])
    #expect(result.status == 64)
    #expect(result.standardOutput.isEmpty)
    #expect(result.standardError.hasPrefix("OVERVIEW: "))
    #expect(result.standardError.contains("SUBCOMMANDS:"))
  }

  @Test("--sort takes asc or desc, spelled out or not, and refuses any other order")
  func sortOrder() throws {
    func amounts(_ sort: String) throws -> [String] {
      let result = try run(
        folio,
        ["query", Self.sample, "Spending", "--keys", "amount", "--sort", sort, "--format", "csv"])
      #expect(result.status == 0, "\(result.standardError)")
      return result.standardOutput.split(separator: "\r\n").dropFirst().map(String.init)
    }
    let ascending = try amounts("amount")
    #expect(ascending == ascending.sorted { Double($0)! < Double($1)! })
    #expect(try amounts("amount:asc") == ascending)
    #expect(try amounts("amount:ascending") == ascending)
    #expect(try amounts("amount:desc") == ascending.reversed())
    #expect(try amounts("amount:DESCENDING") == ascending.reversed())
    let bad = try run(folio, ["query", Self.sample, "Spending", "--sort", "amount:foo"])
    #expect(bad.status == 64)
    #expect(
      bad.standardError.hasPrefix(
        "Error: The value 'amount:foo' is invalid for '--sort <key[:asc|:desc]>': the order after \":\" is asc or desc, not \"foo\"\n"
      ))
    #expect(bad.standardError.contains("Usage: folio query "))
  }

  @Test("--limit 0 prints every object, and a negative limit is named as one")
  func limit() throws {
    let all = try run(folio, ["query", Self.sample, "Spending", "--format", "csv"])
    let zero = try run(
      folio, ["query", Self.sample, "Spending", "--format", "csv", "--limit", "0"])
    #expect(zero.standardOutput == all.standardOutput)
    let two = try run(folio, ["query", Self.sample, "Spending", "--format", "csv", "--limit", "2"])
    #expect(two.standardOutput.split(separator: "\r\n").count == 3)
    let negative = try run(folio, ["query", Self.sample, "Spending", "--limit", "-1"])
    #expect(negative.status == 64)
    #expect(
      negative.standardError.hasPrefix("Error: --limit must be 0 or more\nUsage: folio query "))
  }

  @Test("a predicate that does not parse is one line naming the column, exit 64")
  func predicate() throws {
    try Self.expectError(
      ["query", Self.sample, "Person", "--where", "name =="], status: 64,
      "Error: --where \"name ==\": column 8: expected a value after \"==\", found end of input\n")
  }

  @Test("a folder, a model or an empty path given as a store is called what it is")
  func notAStore() throws {
    try Self.expectError(
      ["info", "Samples/Expenses"], status: 1,
      "Error: Samples/Expenses: is a folder, not a store file\n")
    try Self.expectError(
      ["info", Self.model], status: 1,
      "Error: \(Self.model): is a Core Data model (.xcdatamodeld), not a store: give it as --model, with the store first; 'folio model info \(Self.model)' describes it\n"
    )
    let empty = try run(folio, ["info", ""])
    #expect(empty.status == 64)
    #expect(empty.standardError.hasPrefix("Error: the store's path is empty\nUsage: folio info "))
    try Self.expectError(
      ["replay", "Samples/Expenses"], status: 1,
      "Samples/Expenses: is a folder, not an undo script (its scripts are the .undo files in it)\n")
  }

  @Test("refusals that are not about the command line are one line, exit 1")
  func refusals() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("e.xml").path
    try FileManager.default.copyItem(atPath: Self.sample, toPath: store)
    try Self.expectError(
      ["metadata", store, "--remove", "missing"], status: 1,
      "Error: \(store): the store has no metadata key \"missing\" to remove (nothing was written)\n",
      in: packageRoot)
    let output = folder.appendingPathComponent("Model").path
    #expect(try run(folio, ["codegen", Self.model, "--output", output]).status == 0)
    let again = try run(folio, ["codegen", Self.model, "--output", output])
    #expect(again.status == 1)
    #expect(
      again.standardError.hasPrefix(
        "Error: these files exist and were left alone (--overwrite replaces them): "))
    #expect(!again.standardError.contains("Usage:"))
    let file = folder.appendingPathComponent("plain").path
    #expect(FileManager.default.createFile(atPath: file, contents: Data()))
    try Self.expectError(
      ["codegen", Self.model, "--output", file], status: 1,
      "Error: --output \(file): is a file; codegen writes its Swift files into a folder\n")
    try Self.expectError(
      ["codegen", Self.model, "--output", file + "/sub"], status: 1,
      "Error: --output \(file)/sub: cannot make the folder \(file): a file is in the way\n")
  }

  @Test("a WAL store in a folder its reader cannot write says why SQLite cannot read it")
  func walInReadOnlyFolder() throws {
    guard geteuid() == 0, SQLiteCorpus.isPresent else { return }
    let folder = try makeTemporaryFolder()
    defer {
      chmod(folder.path, 0o755)
      try? FileManager.default.removeItem(at: folder)
    }
    let source = SQLiteCorpus.root.appendingPathComponent(
      "wibosco__CoreDataMigration-Example__CoreDataMigration_Example/CoreDataMigration_Example_WAL.sqlite"
    )
    let store = folder.appendingPathComponent("wal.sqlite").path
    for suffix in ["", "-wal"] {
      try FileManager.default.copyItem(atPath: source.path + suffix, toPath: store + suffix)
      #expect(chmod(store + suffix, 0o644) == 0)
    }
    #expect(chmod(folder.path, 0o555) == 0)
    let asOther = { () throws -> ProcessResult in
      try run(
        URL(fileURLWithPath: "/usr/bin/setpriv"),
        ["--reuid=65534", "--regid=65534", "--clear-groups", folio.path, "info", store])
    }
    let refused = try asOther()
    #expect(refused.status == 1)
    #expect(
      refused.standardError
        == "Error: \(store): the store is in WAL mode and its folder is not writable: SQLite must create wal.sqlite-shm beside it to read it. Make the folder writable, or copy the store with its -wal file somewhere that is\n"
    )
    // With the folder writable, the same user reads it, the -wal's objects included.
    #expect(chmod(folder.path, 0o777) == 0)
    let read = try asOther()
    #expect(read.status == 0, "\(read.standardError)")
    #expect(read.standardOutput.contains("Objects: 168"))
  }

  @Test("a WAL store copied without its -wal file shows its journal and says why it may be empty")
  func walStoreCopiedWithoutLog() throws {
    guard SQLiteCorpus.isPresent else { return }
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let source = SQLiteCorpus.root.appendingPathComponent(
      "wibosco__CoreDataMigration-Example__CoreDataMigration_Example/CoreDataMigration_Example_WAL.sqlite"
    )
    let store = folder.appendingPathComponent("wal.sqlite").path
    try FileManager.default.copyItem(atPath: source.path, toPath: store)
    #expect(chmod(store, 0o644) == 0)
    let note =
      "folio: \(store): the store is in WAL mode and had no wal.sqlite-wal beside it: a copy "
      + "made without that file holds only what was checkpointed into the main file. Copy "
      + "wal.sqlite-wal with it if it had one\n"
    let copied = try run(folio, ["info", store])
    #expect(copied.status == 0)
    #expect(copied.standardOutput.contains("Journal: WAL, no wal.sqlite-wal beside the store\n"))
    #expect(copied.standardOutput.contains("Objects: 0\n"))
    #expect(copied.standardError == note)
    // Reading it left an empty log beside it, which tells no more.
    let again = try run(folio, ["info", store, "--format", "json"])
    #expect(again.standardOutput.contains(#""journal":{"mode":"wal","walFileSize":0}"#))
    #expect(again.standardError == note)
    // With its log, the objects and no note.
    try FileManager.default.removeItem(atPath: store + "-wal")
    try FileManager.default.copyItem(atPath: source.path + "-wal", toPath: store + "-wal")
    #expect(chmod(store + "-wal", 0o644) == 0)
    let whole = try run(folio, ["info", store])
    #expect(whole.standardOutput.contains("Journal: WAL, wal.sqlite-wal of 1763392 bytes"))
    #expect(whole.standardOutput.contains("Objects: 168\n"))
    #expect(whole.standardError == "")
  }

  @Test("a SQLite store Folio wrote shows its rollback journal, and no note")
  func rollbackJournal() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("empty.sqlite").path
    let made = try run(
      folio, ["convert", "Samples/Expenses/Expenses.xml", store, "--model", Self.model])
    #expect(made.status == 0, "\(made.standardError)")
    let info = try run(folio, ["info", store])
    #expect(info.status == 0)
    #expect(info.standardOutput.contains("Journal: rollback\n"))
    #expect(info.standardError == "")
  }

  @Test("info counts the objects of a store whose external data files are missing")
  func infoWithoutExternalData() throws {
    for store in SQLiteCorpus.available {
      let url = try SQLiteCorpus.copy(of: store)
      defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
      let info = try run(folio, ["info", url.path])
      #expect(info.status == 0, "\(store): \(info.standardError)")
    }
  }

  @Test("a model file its declared encoding cannot decode is one line, libxml2 printing nothing")
  func undecodableModel() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let version = folder.appendingPathComponent("M.xcdatamodeld/M.xcdatamodel")
    try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
    try
      (Data("<?xml version=\"1.0\" encoding=\"EUC-JP\"?>\n<model>".utf8) + Data([0xFF, 0xFE])
      + Data("</model>".utf8)).write(to: version.appendingPathComponent("contents"))
    try Self.expectError(
      ["model", "info", "M.xcdatamodeld"], status: 1,
      "Error: M.xcdatamodeld/M.xcdatamodel/contents:2: malformed XML: the file is not valid "
        + "EUC-JP, the encoding it declares (input conversion failed due to input error, bytes "
        + "0xFF 0xFE 0x3C 0x2F)\n", in: folder)
  }
}

/// One output switch: `--format` on every command that prints data, `--json` and `--jsonl`
/// its short forms, and JSON compact everywhere.
@Suite("folio's output switch")
struct OutputSwitchTests {
  static let sample = "Samples/Expenses/Expenses.xml"
  static let model = "Samples/Expenses/Expenses.xcdatamodeld"

  @Test("--format json and --json print the same compact JSON, in every command that prints data")
  func sameOutput() throws {
    let commands: [[String]] = [
      ["info", Self.sample], ["validate", Self.sample, "--model", Self.model],
      ["metadata", Self.sample], ["model", "info", Self.model], ["dump", Self.sample],
      ["query", Self.sample, "Person"],
    ]
    for command in commands {
      let long = try run(folio, command + ["--format", "json"])
      let short = try run(folio, command + ["--json"])
      #expect(long.status == 0, "\(command): \(long.standardError)")
      #expect(long.standardOutput == short.standardOutput, "\(command)")
      let text = try run(folio, command + ["--format", command[0] == "query" ? "text" : "text"])
      #expect(text.status == 0, "\(command): \(text.standardError)")
      #expect(text.standardOutput == (try run(folio, command)).standardOutput, "\(command)")
      // One document: no line is only a bracket or a key, as pretty-printing writes.
      if command[0] != "dump" && command[0] != "query" {
        #expect(long.standardOutput.split(separator: "\n").count == 1, "\(command)")
      }
      _ = try JSONSerialization.jsonObject(with: Data(long.standardOutput.utf8))
    }
    for command in [["dump", Self.sample], ["query", Self.sample, "Person"]] {
      let long = try run(folio, command + ["--format", "jsonl"])
      #expect(long.standardOutput == (try run(folio, command + ["--jsonl"])).standardOutput)
    }
  }

  @Test("a format a command cannot print, or two that disagree, is bad usage")
  func conflicts() throws {
    for (arguments, message) in [
      (
        ["info", Self.sample, "--format", "jsonl"],
        "Error: The value 'jsonl' is invalid for '--format <format>'. Please provide one of 'text' and 'json'.\n"
      ),
      (
        ["info", Self.sample, "--json", "--format", "text"],
        "Error: --json and --format text exclude each other\n"
      ),
      (
        ["dump", Self.sample, "--json", "--jsonl"], "Error: --json and --jsonl exclude each other\n"
      ),
      (
        ["query", Self.sample, "Person", "--jsonl", "--format", "csv"],
        "Error: --jsonl and --format csv exclude each other\n"
      ),
    ] {
      let result = try run(folio, arguments)
      #expect(result.status == 64, "\(arguments)")
      #expect(result.standardError.hasPrefix(message), "\(arguments): \(result.standardError)")
    }
  }

  @Test("info and metadata name the store's UUID with one key")
  func oneKey() throws {
    let info = try run(folio, ["info", Self.sample, "--json"])
    let metadata = try run(folio, ["metadata", Self.sample, "--json"])
    let a = try JSONSerialization.jsonObject(with: Data(info.standardOutput.utf8)) as? [String: Any]
    let b =
      try JSONSerialization.jsonObject(with: Data(metadata.standardOutput.utf8)) as? [String: Any]
    #expect(a?["storeUUID"] as? String != nil)
    #expect(a?["storeUUID"] as? String == b?["storeUUID"] as? String)
    #expect(b?["identifier"] == nil)
  }
}
