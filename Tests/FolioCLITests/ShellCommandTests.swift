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

  /// `folio shell` with `arguments` on a terminal (`script`), typed `input` (Control-D is
  /// `\u{04}`), in `folder`.
  func shellOnTerminal(_ arguments: [String], input: String, in folder: URL) throws
    -> ProcessResult
  {
    let command = ([folio.path, "shell"] + arguments).map(ProgressTests.quoted)
      .joined(separator: " ")
    return try run(
      URL(fileURLWithPath: "/usr/bin/script"), ["-qefc", command, "/dev/null"], in: folder,
      environment: ["TERM": "xterm"], input: Data(input.utf8))
  }

  @Test(
    "on a terminal the prompt shows the document, its edited mark and undo depth, and unsaved changes are asked about",
    arguments: [("y", true), ("n", false)])
  func terminal(answer: String, saves: Bool) throws {
    let folder = try folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("Expenses.xml")
    let before = try Data(contentsOf: store)
    let result = try shellOnTerminal(
      ["Expenses.xml"], input: "insert Spending $n amount=3\n\u{04}\(answer)\n", in: folder)
    #expect(result.status == 0, "\(result.standardOutput)")
    #expect(result.standardOutput.contains("Expenses.xml [0]> "))
    #expect(result.standardOutput.contains("Expenses.xml* [1]> "))
    #expect(result.standardOutput.contains("Save changes to Expenses.xml? [y/n] "))
    #expect((try Data(contentsOf: store) != before) == saves)
  }
}
