import FolioTestSupport
import Foundation
import Testing

/// `folio shell` without a terminal: commands from standard input, one turn each.
@Suite("folio shell")
struct ShellCommandTests {
  /// A folder holding a copy of the Expenses sample store.
  func folder() throws -> URL {
    let folder = try makeTemporaryFolder()
    try FileManager.default.copyItem(
      at: packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xml"),
      to: folder.appendingPathComponent("Expenses.xml"))
    return folder
  }

  func shell(_ lines: [String], _ arguments: [String], in folder: URL) throws -> ProcessResult {
    // No input for a shell refused before it reads: writing to it could raise SIGPIPE here.
    try run(
      folio, ["shell"] + arguments, in: folder,
      input: lines.isEmpty ? nil : Data((lines.joined(separator: "\n") + "\n").utf8))
  }

  @Test("each line is an undo step named after it; undo and redo say what they did; save writes")
  func editUndoSave() throws {
    let folder = try folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try shell(
      [
        "insert Spending $tea amount=3 content=\"tea\"", "set $tea.amount = 4", "history",
        "undo", "undo", "redo", "history", "save", "history",
      ], ["Expenses.xml"], in: folder)
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardError.isEmpty)
    let insert = "insert Spending $tea amount=3 content=\"tea\""
    let quoted = "\"insert Spending $tea amount=3 content=\\\"tea\\\"\""
    #expect(
      result.standardOutput == """
        undo: [saved] | \(quoted) | "set $tea.amount = 4"   redo: (empty)
        undone: set $tea.amount = 4
        undone: \(insert)
        redone: \(insert)
        undo: [saved] | \(quoted)   redo: "set $tea.amount = 4"
        undo: \(quoted) | [saved]   redo: "set $tea.amount = 4"

        """)
    // The file holds the insert, not the undone change.
    let query = try run(
      folio,
      [
        "query", "Expenses.xml", "Spending", "--where", "content == 'tea'", "--format", "jsonl",
        "--keys", "amount",
      ], in: folder)
    #expect(query.standardOutput == "{\"amount\":3.0}\n", "\(query.standardError)")
  }

  @Test("unsaved changes at the end of the input are discarded with a message, exit status 1")
  func unsavedAtEnd() throws {
    let folder = try folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("Expenses.xml")
    let before = try Data(contentsOf: store)
    let result = try shell(["insert Spending $s amount=1"], ["Expenses.xml"], in: folder)
    #expect(result.status == 1)
    #expect(result.standardError == "folio shell: unsaved changes to Expenses.xml discarded\n")
    #expect(try Data(contentsOf: store) == before)
    // Nothing changed, or all saved: no message, status 0.
    let quiet = try shell(
      ["insert Spending $s amount=1", "undo", "quit"], ["Expenses.xml"], in: folder)
    #expect(quiet.status == 0 && quiet.standardError.isEmpty, "\(quiet.standardError)")
  }

  @Test("a line that fails names its line and code, and the session goes on")
  func errorsGoOn() throws {
    let folder = try folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    func spendings() throws -> Int {
      let info = try run(folio, ["info", "--json", "Expenses.xml"], in: folder)
      let json = try JSONSerialization.jsonObject(with: Data(info.standardOutput.utf8))
      return ((json as? [String: Any])?["objectsByEntity"] as? [String: Int])?["Spending"] ?? -1
    }
    let before = try spendings()
    let result = try shell(
      ["bogus", "set $nobody.amount = 1", "insert Spending $s amount=2", "save"],
      ["Expenses.xml"], in: folder)
    #expect(result.status == 0)
    let errors = result.standardError.split(separator: "\n").map(String.init)
    #expect(errors.count == 2, "\(errors)")
    #expect(errors.first?.hasPrefix("line 1: error syntax: ") == true)
    #expect(errors.last?.hasPrefix("line 2: error ") == true)
    // The insert after the failures was saved.
    #expect(try spendings() == before + 1)
  }

  @Test("--model alone starts a new document, saved where save names")
  func newDocument() throws {
    let folder = try folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld").path
    let result = try shell(
      ["insert Person $ada name=\"Ada\"", "save new.folio"], ["--model", model], in: folder)
    #expect(result.status == 0, "\(result.standardError)")
    let info = try run(folio, ["info", "--json", "new.folio"], in: folder)
    #expect(info.standardOutput.contains("\"Person\":1"), "\(info.standardOutput)")
  }

  @Test("without a store or a model, or with a store that does not open, it says so")
  func refused() throws {
    let folder = try folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let neither = try shell([], [], in: folder)
    #expect(neither.status == 64)
    #expect(neither.standardError.hasPrefix("Error: give a store to open, or --model"))
    let standardInput = try shell([], ["-"], in: folder)
    #expect(standardInput.status == 64)
    #expect(standardInput.standardError.hasPrefix("Error: the shell reads its commands"))
    let missing = try shell([], ["Missing.xml"], in: folder)
    #expect(missing.status == 1)
    #expect(missing.standardError.contains("Missing.xml"), "\(missing.standardError)")
  }
}

/// `folio shell` without a terminal, fed a line at a time while the test changes things.
@Suite("folio shell, line by line")
struct ShellLineByLineTests {
  /// A shell reading `lines` from a pipe, each written once the one before has been answered
  /// (the next prompt cannot be seen without a terminal, so a `history` after each line
  /// marks it done); `between` runs before line *n* is written.
  func shell(
    _ arguments: [String], in folder: URL, lines: [String],
    between: (Int) throws -> Void = { _ in }
  ) throws -> ProcessResult {
    let process = Process()
    process.executableURL = folio
    process.arguments = ["shell"] + arguments
    process.currentDirectoryURL = folder
    process.environment = ProcessInfo.processInfo.environment.merging([
      "FOLIO_SHELL_HISTORY": ""
    ]) { $1 }
    let input = Pipe()
    let output = Pipe()
    let error = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = error
    try process.run()
    var seen = Data()
    for (index, line) in lines.enumerated() {
      try between(index)
      input.fileHandleForWriting.write(Data("\(line)\nhistory\n".utf8))
      while String(decoding: seen, as: UTF8.self).components(separatedBy: "redo: ").count
        <= index + 1
      {
        let chunk = output.fileHandleForReading.availableData
        guard !chunk.isEmpty else { break }
        seen += chunk
      }
    }
    try input.fileHandleForWriting.close()
    seen += output.fileHandleForReading.readDataToEndOfFile()
    let errors = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
      status: process.terminationStatus, standardOutput: String(decoding: seen, as: UTF8.self),
      standardError: String(decoding: errors, as: UTF8.self))
  }

  @Test(
    "another process's saves are merged before the next line, said in one line, and kept by the save"
  )
  func changedOnDisk() throws {
    let folder = try ShellCommandTests().folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("Expenses.xml")
    let result = try shell(
      ["Expenses.xml"], in: folder,
      lines: [
        "insert Person $ada name=\"Ada\"", "save",
        "print count Person where \"name == 'Bob'\"", "set $ada.name = \"Ada L\"", "reload",
        "print count Person where \"name == 'Ada L'\"",
        "print count Person where \"name == 'Carol' OR name == 'Ada'\"",
      ]
    ) { index in
      guard index == 1 || index == 3 else { return }
      let name = index == 1 ? "Bob" : "Carol"
      let other = try run(
        folio, ["shell", "Expenses.xml"], in: folder, environment: ["FOLIO_SHELL_HISTORY": ""],
        input: Data("insert Person $p name=\"\(name)\"\nsave\n".utf8))
      #expect(other.status == 0, "\(other.standardError)")
    }
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardError.isEmpty, "\(result.standardError)")
    let merges = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("merged") }
    #expect(
      merges == ["merged 1 insert from another process", "merged 1 insert from another process"])
    #expect(result.standardOutput.contains("reloaded Expenses.xml"))
    // Bob merged and saved with Ada; the rename was not saved, and reload dropped it.
    let counts = result.standardOutput.split(separator: "\n").compactMap { Int($0) }
    #expect(counts == [1, 0, 2], "\(result.standardOutput)")
    let text = try String(contentsOf: store, encoding: .utf8)
    #expect(text.contains(">Ada<") && text.contains(">Bob<") && text.contains(">Carol<"))
  }

  @Test("a file replaced by another store cannot be merged: said once; keep saves over it")
  func replacedOnDisk() throws {
    let folder = try ShellCommandTests().folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("Expenses.xml")
    try FileManager.default.copyItem(
      at: packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld"),
      to: folder.appendingPathComponent("Expenses.xcdatamodeld"))
    var theirs = Data()
    let result = try shell(
      ["Expenses.xml"], in: folder,
      lines: ["insert Person $ada name=\"Ada\"", "save", "keep", "save"]
    ) { index in
      guard index == 1 else { return }
      // Another store, with an identifier of its own, put in the file's place.
      let other = try run(
        folio, ["shell", "--model", "Expenses.xcdatamodeld"], in: folder,
        environment: ["FOLIO_SHELL_HISTORY": ""],
        input: Data("insert Person $p name=\"Bob\"\nsave New.xml\n".utf8))
      #expect(other.status == 0, "\(other.standardError)")
      try FileManager.default.removeItem(at: store)
      try FileManager.default.moveItem(at: folder.appendingPathComponent("New.xml"), to: store)
      theirs = try Data(contentsOf: store)
    }
    #expect(result.status == 0, "\(result.standardError)")
    let errors = result.standardError.split(separator: "\n")
    #expect(errors.count == 2, "\(errors)")
    #expect(
      errors.first?.hasPrefix(
        "line 3: Expenses.xml changed on disk and cannot be merged (the file was replaced by another store"
      ) == true,
      "\(errors)")
    #expect(errors.last?.hasPrefix("line 3: error store: ") == true, "\(errors)")
    #expect(result.standardOutput.contains("keeping this version of Expenses.xml"))
    let text = try String(contentsOf: store, encoding: .utf8)
    #expect(text.contains(">Ada<") && !text.contains(">Bob<"))
    #expect(try Data(contentsOf: store) != theirs)
  }

  @Test("--autosave, or autosave on, saves after every line that changes the document")
  func autosave() throws {
    let folder = try ShellCommandTests().folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    func people() throws -> String {
      try run(
        folio, ["query", "Expenses.xml", "Person", "--format", "jsonl", "--keys", "name"],
        in: folder
      ).standardOutput
    }
    let before = try people()
    var seen: [String] = []
    let result = try shell(
      ["Expenses.xml", "--autosave"], in: folder,
      lines: [
        "insert Person $zed name=\"Zed\"", "set $zed.name = \"Zed L\"", "autosave off",
        "set $zed.name = \"Zed\"", "autosave on", "set $zed.name = \"Zed B\"",
      ]
    ) { _ in seen.append(try people()) }
    // Nothing is left unsaved at the end: status 0, no message.
    #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
    #expect(!before.contains("Zed"))
    #expect(seen[1].contains("\"Zed\""), "\(seen)")
    #expect(seen[2].contains("\"Zed L\""))
    // Off: the change waits in memory; on again, the next change is saved.
    #expect(seen[4].contains("\"Zed L\""))
    #expect(seen[5].contains("\"Zed L\""))
    #expect(try people().contains("\"Zed B\""))
  }
}

/// `folio shell --keep-history`: the undo history kept beside the file across sessions.
@Suite("folio shell --keep-history")
struct ShellKeptHistoryTests {
  @Test("undo in a later session undoes what an earlier one saved; a damaged history is named")
  func acrossSessions() throws {
    let folder = try ShellCommandTests().folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    func shell(_ lines: [String]) throws -> ProcessResult {
      try run(
        folio, ["shell", "Expenses.xml", "--keep-history"], in: folder,
        environment: ["FOLIO_SHELL_HISTORY": ""],
        input: Data((lines.joined(separator: "\n") + "\n").utf8))
    }
    let first = try shell(["insert Person $z name=\"Zed\"", "set $z.name = \"Zed 2\"", "save"])
    #expect(first.status == 0, "\(first.standardError)")
    let history = folder.appendingPathComponent("Expenses.xml.folio-undo")
    #expect(FileManager.default.fileExists(atPath: history.path))

    let second = try shell([
      "history", "undo", "print count Person where \"name == 'Zed'\"", "save",
    ])
    #expect(second.status == 0, "\(second.standardError)")
    #expect(
      second.standardOutput == """
        undo history taken up: 2 to undo, 0 to redo
        undo: "insert Person $z name=\\"Zed\\"" | "set $z.name = \\"Zed 2\\"" | [saved]   redo: (empty)
        undone: set $z.name = "Zed 2"
        1

        """)
    // Damaged: refused with its file and byte, and the session goes on without it.
    var bytes = try Data(contentsOf: history)
    bytes[bytes.count - 2] ^= 1
    try bytes.write(to: history)
    let third = try shell(["history"])
    #expect(third.status == 0)
    #expect(
      third.standardError.hasPrefix(
        "folio shell: undo history not taken up: \(history.path)@"), "\(third.standardError)")
    #expect(third.standardError.contains("do not match their checksum"))
    #expect(third.standardOutput == "undo: [saved]   redo: (empty)\n")
  }
}
