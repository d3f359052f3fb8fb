import Folio
import FolioScript
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What a shell session keeps between lines: the runner, the document's name, and how the
/// session watches the file and saves it.
struct ShellSession {
  let runner: ScriptRunner
  let name: String
  /// Whether every line that changes the document saves it.
  var autosaves = false
  /// Whether the document keeps its undo history beside its file.
  var keepsHistory = false
  /// The file a new document started with a path that did not exist is saved to first.
  var newFile: String?
  /// The editor lines are typed in, on a terminal.
  var editor: LineEditor?
  var reportedHistoryProblem = false
  /// The file's state when a change made on disk by someone else was last reported, so it
  /// is reported once.
  private var reportedChange: String?

  init(runner: ScriptRunner, name: String?) {
    self.runner = runner
    self.name = name ?? "untitled"
  }

  /// Whether the document has changes since it was opened or last saved.
  var hasUnsavedChanges: Bool { runner.document?.isEdited ?? false }

  /// `NAME* [3]> `: the document, an edited mark, and the undo depth.
  var prompt: String {
    let depth = runner.context?.undoManager?.history.undo.count ?? 0
    return "\(name)\(hasUnsavedChanges ? "*" : "") [\(depth)]> "
  }

  /// Runs a command made here (opening the document), stopping the session when it fails.
  func perform(_ kind: ScriptCommand.Kind, text: String) throws {
    do throws(ScriptError) {
      try runner.perform(ScriptCommand(kind, at: InputLocation(), text: text))
    } catch {
      throw ShellFailure(description: error.message)
    }
  }

  /// Runs the line `text`, the `line`th read: its commands, or one of the shell's own
  /// (`history`, `autosave on|off`, `reload`, `keep`). Errors are printed on standard error,
  /// and the session goes on.
  mutating func run(_ text: String, line: Int) {
    switch text {
    case "help":
      print(ScriptCommandHelp.text(for: nil) ?? "")
      return
    case _ where text.hasPrefix("help "):
      let name = text.dropFirst(5).trimmingCharacters(in: .whitespaces)
      if let help = ScriptCommandHelp.text(for: name) {
        print(help)
      } else {
        let known = (ScriptCommandHelp.all + ScriptCommandHelp.shell).map(\.name)
        let near = UnknownCommand.closest(to: name, among: known).map { " (did you mean '\($0)'?)" }
        FileHandle.standardError.write(
          Data("line \(line): no command \"\(name)\"\(near ?? ""); 'help' lists them\n".utf8))
      }
      return
    case "history":
      print(runner.undoHistoryLine ?? "no document")
      return
    case "autosave on", "autosave off":
      autosaves = text == "autosave on"
      print("autosave \(autosaves ? "on" : "off")")
      return
    case "reload":
      reload(line: line)
      return
    case "keep":
      keep()
      return
    default: break
    }
    let commands: [ScriptCommand]
    do {
      commands = try Script(parsing: text, file: "line \(line)").commands
    } catch {
      report(error, line: line)
      return
    }
    for var command in commands {
      let undoManager = runner.context?.undoManager
      let undoName = undoManager?.undoActionName ?? ""
      let redoName = undoManager?.redoActionName ?? ""
      switch command.kind {
      case .undo where undoManager?.canUndo == false:
        print("nothing to undo")
        continue
      case .redo where undoManager?.canRedo == false:
        print("nothing to redo")
        continue
      case .save(path: nil) where runner.document?.fileURL == nil && newFile != nil:
        command = ScriptCommand(.save(path: newFile), at: command.location, text: command.text)
      default: break
      }
      do {
        try runner.perform(command)
      } catch {
        report(error, line: line)
        continue
      }
      switch command.kind {
      case .undo: print("undone: \(undoName.isEmpty ? "(untitled)" : undoName)")
      case .redo: print("redone: \(redoName.isEmpty ? "(untitled)" : redoName)")
      case .open:
        noteFileOnDisk()
        takeUpHistory()
      case .save:
        noteFileOnDisk()
        reportHistoryProblem()
      case .new, .close: noteFileOnDisk()
      default: break
      }
    }
    endTurn(naming: text, line: line)
    if autosaves, runner.document?.fileURL != nil || newFile != nil, hasUnsavedChanges {
      let path = runner.document?.fileURL == nil ? newFile : nil
      do throws(ScriptError) {
        try runner.perform(ScriptCommand(.save(path: path), at: InputLocation(), text: "save"))
        noteFileOnDisk()
        reportHistoryProblem()
      } catch {
        report(error, line: line, prefix: "autosave: ")
      }
    }
  }

  /// Ends the event loop's turn, as an app's event ends: the line's changes become one undo
  /// group, named after the line unless a command of it named the group.
  private func endTurn(naming text: String, line: Int) {
    guard runner.document != nil else { return }
    let location = InputLocation()
    do throws(ScriptError) {
      try runner.perform(ScriptCommand(.process, at: location, text: "process"))
      if let undoManager = runner.context?.undoManager, let open = undoManager.history.openGroup,
        open.stateIdentifier != nil, open.actionName.isEmpty
      {
        undoManager.setActionName(text)
      }
      try runner.perform(ScriptCommand(.turn, at: location, text: "turn"))
    } catch {
      report(error, line: line)
    }
  }

  private func report(_ error: ScriptError, line: Int, prefix: String = "") {
    FileHandle.standardError.write(
      Data("line \(line): \(prefix)error \(error.code.rawValue): \(error.message)\n".utf8))
  }

  // MARK: Kept history

  /// With history kept, takes up the undo history an earlier session kept beside the file,
  /// saying what it found.
  func takeUpHistory() {
    guard keepsHistory, let document = runner.document else { return }
    switch document.keepUndoHistory() {
    case .none: break
    case .restored(let undo, let redo):
      print("undo history taken up: \(undo) to undo, \(redo) to redo")
    case .discarded(let error):
      FileHandle.standardError.write(
        Data("folio shell: undo history not taken up: \(error)\n".utf8))
    }
  }

  /// Says why the last save did not keep the undo history, when it did not.
  private func reportHistoryProblem() {
    guard let problem = runner.document?.undoHistoryProblem else { return }
    FileHandle.standardError.write(Data("folio shell: \(problem)\n".utf8))
  }

  // MARK: The file on disk

  /// The document's file's identity, size and time of change; `nil` without a file.
  private var fileState: String? {
    // A server's document has no file to look at: its problem is reported once.
    if let url = runner.document?.fileURL, !url.isFileURL { return url.absoluteString }
    guard let path = runner.document?.fileURL?.path,
      let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    else { return runner.document?.fileURL == nil ? nil : "missing" }
    return [FileAttributeKey.systemFileNumber, .size, .modificationDate]
      .map { "\(attributes[$0] ?? "")" }.joined(separator: " ")
  }

  /// Takes the file as it is now for the one the session knows.
  mutating func noteFileOnDisk() { reportedChange = nil }

  /// Takes in what other processes saved to the document's file since the session read,
  /// merged or saved it, and says so in one line (`merged 1 insert from another process`):
  /// their objects come in, keeping the session's unsaved changes, and nothing is registered
  /// for undo. A file that cannot be merged (removed, damaged, or replaced by another store)
  /// is reported once; on a terminal the session asks whether to reload it or keep its own
  /// version, otherwise it says how to choose, and a save is refused until then.
  mutating func mergeFileOnDisk(line: Int) {
    guard let document = runner.document, document.isChangedOnDisk else { return }
    let problem: String
    do {
      let changes = try document.mergeChangesFromOtherWriters()
      noteFileOnDisk()
      if let summary = Self.summary(of: changes) { print("merged \(summary) from another process") }
      return
    } catch let error as StoreError {
      problem = error.message
    } catch {
      problem = "\(error)"
    }
    guard let state = fileState, state != reportedChange else { return }
    reportedChange = state
    let question =
      "\(name) changed on disk and cannot be merged (\(problem)). Reload it (r) or keep yours (k)? "
    guard let editor else {
      FileHandle.standardError.write(
        Data(
          "line \(line): \(name) changed on disk and cannot be merged (\(problem)): `reload` reads it again, `keep` keeps this version to save over it\n"
            .utf8))
      return
    }
    while let answer = editor.readLine(prompt: question)?.lowercased() {
      if answer.hasPrefix("r") { return reload(line: line) }
      if answer.hasPrefix("k") { return keep() }
    }
  }

  /// `2 inserts, 1 update and 1 deletion`; `nil` when nothing changed.
  static func summary(of changes: ObjectIDChanges) -> String? {
    func count(_ number: Int, _ noun: String) -> String? {
      number == 0 ? nil : "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
    let parts = [
      count(changes.inserted.count, "insert"), count(changes.updated.count, "update"),
      count(changes.deleted.count, "deletion"),
    ].compactMap { $0 }
    guard let last = parts.last else { return nil }
    return parts.count == 1 ? last : parts.dropLast().joined(separator: ", ") + " and " + last
  }

  /// Reads the document's file again: unsaved changes, the undo stack and variables go.
  private mutating func reload(line: Int) {
    guard let url = runner.document?.fileURL else {
      FileHandle.standardError.write(Data("line \(line): the document has no file\n".utf8))
      return
    }
    let path = StoreArgument.name(of: url)
    do throws(ScriptError) {
      try runner.perform(ScriptCommand(.open(path: path), at: InputLocation(), text: "open"))
      noteFileOnDisk()
      print("reloaded \(name)")
      takeUpHistory()
    } catch {
      report(error, line: line)
    }
  }

  private mutating func keep() {
    runner.document?.keepOverChangesOnDisk()
    noteFileOnDisk()
    print("keeping this version of \(name): the next save writes over the file")
  }

  // MARK: Ending

  /// A line from the terminal, read past the end of input that ended the session (a terminal
  /// reads on after Control-D, where `readLine` stays at the end).
  private static func readAnswer() -> String? {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while read(STDIN_FILENO, &byte, 1) == 1 {
      if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
    return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
  }

  /// Asks on the terminal whether to save the changes; whether the session may end quietly
  /// (saved, or the user chose to discard).
  func askToSave() -> Bool {
    let question = "Save changes to \(name)? [y/n] "
    let reply: String?
    if let editor {
      reply = editor.readLine(prompt: question)
    } else {
      FileHandle.standardOutput.write(Data(question.utf8))
      reply = Self.readAnswer()
    }
    guard let answer = reply?.lowercased() else { return false }
    if answer.hasPrefix("y") {
      do throws(ScriptError) {
        try runner.perform(ScriptCommand(.save(path: nil), at: InputLocation(), text: "save"))
        reportHistoryProblem()
        return true
      } catch {
        report(error, line: 0)
        return false
      }
    }
    return answer.hasPrefix("n")
  }
}
