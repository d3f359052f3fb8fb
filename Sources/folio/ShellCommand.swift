import ArgumentParser
import Folio
import FolioScript
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `folio shell [FILE] [--model M]`: a document edited a command at a time, in the undo-script
/// language.
struct ShellCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "shell",
    abstract: "Edit a store a command at a time, in the undo-script language.",
    discussion: """
      Opens FILE (its model inferred, carried or cached as for info, or --model), or with \
      --model alone a new document, then runs each line read as a command of the undo-script \
      language (Formats/undo-script.md): insert, set, delete, fetch, undo, redo, save and the \
      rest. undo and redo print the action they undid or redid; history prints the undo and \
      redo stacks with their action names and where the document was last saved; quit ends. \
      A failed command prints its error with its line and the session goes on. On a \
      terminal, a prompt shows the document's name, * when it has unsaved changes, and the \
      undo depth. Without a terminal the lines come from standard input, as replay reads a \
      script; at its end, unsaved changes are discarded with a message and the exit status \
      is 1. Example:
        printf 'insert Spending $s amount=3\\nsave\\n' | folio shell Expenses.xml
      """)

  @Argument(
    help: "The store to open; without it, a new document of --model.",
    completion: Completions.store)
  var file: String?

  @Option(
    help: "The model (.xcdatamodeld, .xcdatamodel or contents); needed for a new document.",
    completion: Completions.model)
  var model: String?

  func validate() throws {
    if file == nil, model == nil {
      throw ValidationError("give a store to open, or --model for a new document")
    }
    if file == "-" {
      throw ValidationError(
        "the shell reads its commands from standard input: give the store as a file")
    }
  }

  func run() throws {
    let isTerminal = isatty(STDIN_FILENO) == 1
    // A model inferred from the store has other version hashes than the one that wrote it:
    // the formats check them only against a model given.
    let options = try file.map {
      try StoreOptions.parse([$0] + (model.map { ["--model", $0] } ?? []))
    }
    let runner = ScriptRunner(formats: options?.formats ?? storeFormats, output: { print($0) })
    runner.beginSession(in: FileManager.default.currentDirectoryPath)
    var session = ShellSession(
      runner: runner, name: file.map { ($0 as NSString).lastPathComponent })
    if let model {
      try session.perform(.model(path: model), text: "model \(model)")
    } else if let options {
      runner.use(try options.open().model)
    }
    if let file {
      try session.perform(.open(path: file), text: "open \(file)")
    } else {
      try session.perform(.new, text: "new")
    }
    var lineNumber = 0
    while true {
      if isTerminal {
        FileHandle.standardOutput.write(Data(session.prompt.utf8))
      }
      guard let line = readLine(strippingNewline: true) else { break }
      lineNumber += 1
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed == "quit" || trimmed == "exit" { break }
      session.run(trimmed, line: lineNumber)
    }
    guard session.hasUnsavedChanges else { return }
    if isTerminal, session.askToSave() { return }
    FileHandle.standardError.write(
      Data("folio shell: unsaved changes to \(session.name) discarded\n".utf8))
    throw ExitCode.failure
  }
}

/// What a shell session keeps between lines: the runner, and the document's name.
struct ShellSession {
  let runner: ScriptRunner
  let name: String

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

  /// Runs the line `text`, the `line`th read: its commands, or `history`. Errors are printed
  /// on standard error, and the session goes on.
  mutating func run(_ text: String, line: Int) {
    if text == "history" {
      print(runner.undoHistoryLine ?? "no document")
      return
    }
    let commands: [ScriptCommand]
    do {
      commands = try Script(parsing: text, file: "line \(line)").commands
    } catch {
      report(error, line: line)
      return
    }
    for command in commands {
      let undoManager = runner.context?.undoManager
      let undoName = undoManager?.undoActionName ?? ""
      let redoName = undoManager?.redoActionName ?? ""
      do {
        try runner.perform(command)
      } catch {
        report(error, line: line)
        continue
      }
      switch command.kind {
      case .undo: print("undone: \(undoName.isEmpty ? "(untitled)" : undoName)")
      case .redo: print("redone: \(redoName.isEmpty ? "(untitled)" : redoName)")
      default: break
      }
    }
    endTurn(naming: text, line: line)
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

  private func report(_ error: ScriptError, line: Int) {
    FileHandle.standardError.write(
      Data("line \(line): error \(error.code.rawValue): \(error.message)\n".utf8))
  }

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
    FileHandle.standardOutput.write(Data("Save changes to \(name)? [y/n] ".utf8))
    guard let answer = Self.readAnswer()?.lowercased() else { return false }
    if answer.hasPrefix("y") {
      do throws(ScriptError) {
        try runner.perform(ScriptCommand(.save(path: nil), at: InputLocation(), text: "save"))
        return true
      } catch {
        report(error, line: 0)
        return false
      }
    }
    return answer.hasPrefix("n")
  }
}

/// A session that cannot start: its document does not open.
struct ShellFailure: Error, CustomStringConvertible {
  var description: String
}
