import FolioTestSupport
import Foundation
import Testing

/// `folio shell` on a terminal, typed into key by key: line editing, completion, the history
/// kept across sessions, the questions it asks.
@Suite("folio shell on a terminal")
struct ShellTerminalTests {
  let folder: URL
  let store: URL
  /// The history file the sessions of a test share.
  let historyFile: URL

  init() throws {
    folder = try makeTemporaryFolder()
    store = folder.appendingPathComponent("Expenses.xml")
    historyFile = folder.appendingPathComponent("history")
    try FileManager.default.copyItem(
      at: packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xml"), to: store)
  }

  func shell(_ arguments: [String] = ["Expenses.xml"]) throws -> PseudoTerminal {
    try PseudoTerminal(
      folio, ["shell"] + arguments, in: folder,
      environment: ["FOLIO_SHELL_HISTORY": historyFile.path])
  }

  @Test(
    "the prompt shows the document, its edited mark and undo depth, and unsaved changes are asked about",
    arguments: [("y", true), ("n", false)])
  func unsavedChanges(answer: String, saves: Bool) throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = try Data(contentsOf: store)
    let terminal = try shell()
    try terminal.waitFor("Expenses.xml [0]> ")
    try terminal.type("insert Spending $n amount=3\r")
    try terminal.waitFor("Expenses.xml* [1]> ")
    try terminal.type("\u{04}")
    try terminal.waitFor("Save changes to Expenses.xml? [y/n] ")
    try terminal.type("\(answer)\r")
    #expect(try terminal.waitForExit() == 0, "\(terminal.transcript)")
    #expect((try Data(contentsOf: store) != before) == saves)
  }

  @Test("Tab completes commands, entities, keys, key paths and variables; twice lists choices")
  func completion() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let terminal = try shell()
    try terminal.waitFor("> ")
    try terminal.type("ins\t")
    try terminal.waitFor("insert ")
    try terminal.type("Spen\t")
    try terminal.waitFor("insert Spending ")
    try terminal.type("$tea amo\t")
    try terminal.waitFor("amount=")
    try terminal.type("3\r")
    try terminal.waitFor("[1]> ")
    try terminal.type("set $t\t")
    try terminal.waitFor("set $tea.")
    try terminal.type("amo\t= 5\r")
    try terminal.waitFor("[2]> ")
    // Four clauses can follow: the first Tab rings, the second lists them.
    try terminal.type("fetch Spending \t\t")
    let listing = try terminal.waitFor("where")
    #expect(listing.contains("as") && listing.contains("limit") && listing.contains("sort"))
    try terminal.type("\u{03}undo\r")
    // The line completion built is the command that ran, named after it.
    try terminal.waitFor("undone: set $tea.amount = 5")
    try terminal.type("print $tea.amount\r")
    try terminal.waitFor("\n3.0")
    try terminal.type("quit\r")
    try terminal.waitFor("Save changes to Expenses.xml? [y/n] ")
    try terminal.type("n\r")
    #expect(try terminal.waitForExit() == 0)
  }

  @Test("lines are edited in place and come back in the next session with Up")
  func editingAndHistory() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let counted = try run(
      folio, ["shell", "Expenses.xml"], in: folder, environment: ["FOLIO_SHELL_HISTORY": ""],
      input: Data("print count Spending\n".utf8))
    let count = counted.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(Int(count) != nil, "\(counted.standardError)")
    let first = try shell()
    try first.waitFor("> ")
    // Typed with slips, mended: Home, Right ×4, Backspace, End, two words killed and typed
    // again.
    try first.type("prinnt coumt Spending")
    try first.type("\u{01}\u{1B}[C\u{1B}[C\u{1B}[C\u{1B}[C\u{7F}\u{05}\u{17}\u{17}count Spending\r")
    try first.waitFor("\r\n\(count)\r\n")
    try first.type("quit\r")
    #expect(try first.waitForExit() == 0)
    let kept = try String(contentsOf: historyFile, encoding: .utf8)
    #expect(kept == "print count Spending\nquit\n", "\(kept)")

    let second = try shell()
    try second.waitFor("> ")
    // Up twice: past `quit`, to the line the first session printed with.
    try second.type("\u{1B}[A\u{1B}[A\r")
    try second.waitFor("print count Spending")
    try second.waitFor("\r\n\(count)\r\n")
    // Keys typed before the prompt reach a terminal in its ordinary mode, which takes
    // Control-R for itself: wait for the prompt.
    try second.waitFor("> ")
    // Control-R finds it by a part of it.
    try second.type("\u{12}count Sp\r")
    try second.waitFor("\r\n\(count)\r\n")
    // Delete and Control-D delete the character under the cursor.
    try second.waitFor("> ")
    try second.type("xprints\u{01}\u{1B}[3~\u{05}\u{1B}[D\u{04} count Spending\r")
    try second.waitFor("\r\n\(count)\r\n")
    try second.type("quit\r")
    #expect(try second.waitForExit() == 0)
  }

  @Test(
    "another process's save is merged at the next command; a file that cannot be merged is reloaded or kept"
  )
  func changedOnDisk() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let terminal = try shell()
    try terminal.waitFor("> ")
    try terminal.type("insert Person $ada name=\"Ada\"\r")
    try terminal.waitFor("[1]> ")
    // Someone else saves the file: one Person more, merged before the next command runs.
    let other = try run(
      folio, ["shell", "Expenses.xml"], in: folder,
      environment: ["FOLIO_SHELL_HISTORY": ""],
      input: Data("insert Person $bob name=\"Bob\"\nsave\n".utf8))
    #expect(other.status == 0, "\(other.standardError)")
    try terminal.type("print count Person where \"name == 'Bob'\"\r")
    try terminal.waitFor("merged 1 insert from another process\r\n1\r\n")
    try terminal.waitFor("Expenses.xml* [1]> ")
    // Another store put in the file's place cannot be merged: kept, then saved over it.
    try replaceWithAnotherStore()
    let theirs = try Data(contentsOf: store)
    try terminal.type("print count Person where \"name == 'Ada'\"\r")
    try terminal.waitFor("cannot be merged (the file was replaced by another store")
    try terminal.waitFor("Reload it (r) or keep yours (k)? ")
    try terminal.type("k\r")
    try terminal.waitFor("keeping this version")
    try terminal.waitFor("\r\n1\r\n")
    try terminal.type("save\r")
    try terminal.waitFor("Expenses.xml [1]> ")
    #expect(try Data(contentsOf: store) != theirs)
    // Replaced again, and this time reloaded: Ada is gone, the other store's Carol is there.
    try replaceWithAnotherStore()
    try terminal.type("print count Person where \"name == 'Carol'\"\r")
    try terminal.waitFor("Reload it (r) or keep yours (k)? ")
    try terminal.type("r\r")
    try terminal.waitFor("reloaded Expenses.xml")
    try terminal.waitFor("\r\n1\r\n")
    try terminal.waitFor("Expenses.xml [0]> ")
    try terminal.type("quit\r")
    #expect(try terminal.waitForExit() == 0)
  }

  /// Puts a new store of one Person, Carol, with an identifier of its own, in the store's
  /// place.
  private func replaceWithAnotherStore() throws {
    let other = folder.appendingPathComponent("Other.xml")
    let made = try run(
      folio,
      [
        "shell", "--model",
        packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld").path,
      ], in: folder, environment: ["FOLIO_SHELL_HISTORY": ""],
      input: Data("insert Person $carol name=\"Carol\"\nsave Other.xml\n".utf8))
    #expect(made.status == 0, "\(made.standardError)")
    try FileManager.default.removeItem(at: store)
    try FileManager.default.moveItem(at: other, to: store)
  }

  @Test("a terminal that draws no escape sequences (TERM=dumb) gets plain lines and prompts")
  func dumbTerminal() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let terminal = try PseudoTerminal(
      folio, ["shell", "Expenses.xml"], in: folder,
      environment: ["FOLIO_SHELL_HISTORY": historyFile.path, "TERM": "dumb"])
    try terminal.waitFor("Expenses.xml [0]> ")
    try terminal.type("history\n")
    try terminal.waitFor("undo: [saved]   redo: (empty)")
    try terminal.waitFor("Expenses.xml [0]> ")
    try terminal.type("quit\n")
    #expect(try terminal.waitForExit() == 0)
    #expect(!terminal.transcript.contains("\u{1B}["), "\(terminal.transcript.debugDescription)")
    // Nothing kept without line editing.
    #expect(!FileManager.default.fileExists(atPath: historyFile.path))
  }
}
