import ArgumentParser
import CFolioSupport
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
      A failed command prints its error with its line and the session goes on. \
      autosave on|off (or --autosave) saves after every line that changes the document. \
      Before each line, what another process saved to the file is merged in, keeping this \
      session's unsaved changes, and one line says so (merged 1 insert from another \
      process); a save merges under the file's lock too, and a property both changed is a \
      merge-conflict. reload reads the file again, discarding this session's changes; a \
      file replaced by another store cannot be merged, and keep keeps this version to save \
      over it. On a terminal, lines are edited as in \
      readline, Tab completes commands, entity names, keys, variables and files, Up and \
      Control-R bring back lines from this and earlier sessions (kept in \
      $FOLIO_SHELL_HISTORY, else ~/.local/state/folio/shell_history), and a prompt shows \
      the document's name, * when it has unsaved changes, and the undo depth. Without a \
      terminal the lines come from standard input, as replay reads a script; at its end, \
      unsaved changes are discarded with a message and the exit status \
      is 1. Example:
        printf 'insert Spending $s amount=3\\nsave\\n' \\
          | folio shell Samples/Expenses/Expenses.xml

      FILE may be a PostgreSQL document's URL, \
      postgresql://USER@HOST:PORT/DATABASE?schema=NAME: saves write to the schema, and saves \
      other clients make are merged in as another process's are. With --model, a schema \
      that holds no document yet starts a new one there, written by the first save. \
      --keep-history needs a file.
      """)

  @Argument(
    help: """
      The store to open, a file or a PostgreSQL document's URL; without it, a new document \
      of --model.
      """,
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
    if let file {
      try StoreArgument.check(file)
      if keepHistory, StoreArgument.isServerURL(file) {
        throw ValidationError(
          "--keep-history keeps the undo history in a file beside the store, which a document on a server does not have: leave it out"
        )
      }
    }
  }

  @Flag(help: "Save the document after every line that changes it.")
  var autosave = false

  @Flag(
    help: """
      Keep the undo history beside the file (FILE.folio-undo) at each save, and take it up \
      again when the file is opened next.
      """)
  var keepHistory = false

  func run() throws {
    let isTerminal = isatty(STDIN_FILENO) == 1
    let url = try file.map(StoreArgument.url)
    // As sqlite3 does: a file that is not there yet is the new document's, written by its
    // first save; so is, with a model, a server's schema that holds no document.
    let isNew = try url.map { try startsNewDocument(at: $0) } ?? false
    if let file, isNew, url?.isFileURL == true {
      guard model != nil else {
        throw CommandFailure(
          "\(file): no such file (with --model, the shell starts a new document there)")
      }
      let known = FormatRegistry.fileFormats().map(\.fileExtension)
      guard known.contains((file as NSString).pathExtension.lowercased()) else {
        throw CommandFailure(
          "\(file): a new document's extension names its format: .\(known.joined(separator: ", ."))"
        )
      }
    }
    // A model inferred from the store has other version hashes than the one that wrote it:
    // the formats check them only against a model given.
    let options = try file.map {
      try StoreOptions.parse([$0] + (model.map { ["--model", $0] } ?? []))
    }
    let runner = ScriptRunner(formats: options?.formats ?? storeFormats, output: { print($0) })
    let folder = FileManager.default.currentDirectoryPath
    runner.beginSession(in: folder)
    // A server's document is named by its whole URL: its last path component is the database.
    var session = ShellSession(
      runner: runner,
      name: file.map { StoreArgument.isServerURL($0) ? $0 : ($0 as NSString).lastPathComponent })
    session.autosaves = autosave
    session.keepsHistory = keepHistory
    if let model {
      try session.perform(.model(path: model), text: "model \(model)")
    } else if let options {
      let source = try options.open()
      // A model inferred with guesses its own format would record as fact (a SQLite store's
      // references read as integers, one-to-many sides unknown) is shown, not saved.
      runner.use(
        source.model,
        refusingSavesBecause: ConvertCommand.unfaithfulness(of: source, writtenAs: source.format))
    }
    if let file, isNew {
      try session.perform(.new, text: "new")
      session.newFile = file
    } else if let file, let url {
      StoreOptions.removeStaleScratch(besides: url)
      try session.perform(.open(path: file), text: "open \(file)")
      session.takeUpHistory()
    } else {
      try session.perform(.new, text: "new")
    }
    session.noteFileOnDisk()
    // A terminal that draws no escape sequences (Emacs' shell mode says TERM=dumb) gets plain
    // lines, as without line editing.
    let editor =
      isTerminal && ProcessInfo.processInfo.environment["TERM"] != "dumb"
      ? LineEditor(
        input: STDIN_FILENO, output: STDOUT_FILENO,
        history: ShellHistory(file: ShellHistory.defaultFile())
      ) { text in
        let completion = runner.completions(for: text, in: folder)
        return (completion.word, completion.candidates)
      } : nil
    session.editor = editor
    var lineNumber = 0
    while true {
      _ = folio_flush_standard_output()
      let read: String?
      if let editor {
        read = editor.readLine(prompt: session.prompt)
      } else {
        if isTerminal { FileHandle.standardOutput.write(Data(session.prompt.utf8)) }
        read = readLine()
      }
      guard let line = read else { break }
      lineNumber += 1
      editor?.history.add(line)
      if let problem = editor?.history.problem, !session.reportedHistoryProblem {
        FileHandle.standardError.write(Data("folio shell: \(problem)\n".utf8))
        session.reportedHistoryProblem = true
      }
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed == "quit" || trimmed == "exit" { break }
      session.mergeFileOnDisk(line: lineNumber)
      session.run(trimmed, line: lineNumber)
    }
    _ = folio_flush_standard_output()
    guard session.hasUnsavedChanges else { return }
    if isTerminal, session.askToSave() { return }
    FileHandle.standardError.write(
      Data("folio shell: unsaved changes to \(session.name) discarded\n".utf8))
    throw ExitCode.failure
  }
}

extension ShellCommand {
  /// Whether the store at `url` is yet to be made by the session's first save: a file that
  /// is not there, or with `--model`, a server's schema that holds no document.
  func startsNewDocument(at url: URL) throws -> Bool {
    guard !url.isFileURL else { return !FileManager.default.fileExists(atPath: url.path) }
    guard model != nil else { return false }
    let format = try PersistentStoreCoordinator.format(of: url, among: storeFormats)
    guard let server = format as? any ServerStoreFormat else { return false }
    return try !server.storeExists(at: url)
  }
}

/// A session that cannot start: its document does not open.
struct ShellFailure: Error, CustomStringConvertible {
  var description: String
}
