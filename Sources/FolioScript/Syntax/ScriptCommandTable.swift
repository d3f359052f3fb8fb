extension ScriptCommand {
  /// The commands of the language by the word that starts them, in the order of
  /// `Formats/undo-script.md`: the one table of the language. The parser reads a command's
  /// first word as a `Name` and switches over every case; each command's part, forms and
  /// summary — what Tab completion, the shell's `help` and the check of the specification
  /// read — are here.
  public enum Name: String, Sendable, Hashable, CaseIterable {
    case model
    case new
    case insert
    case set
    case add
    case remove
    case delete
    case validate
    case process
    case expect
    case print
    case dump
    case turn
    case begin
    case end
    case name
    case undo
    case redo
    case undoNested = "undo-nested"
    case levels
    case disable
    case enable
    case groupsByEvent = "groups-by-event"
    case rollback
    case reset
    case refresh
    case refreshAll = "refresh-all"
    case open
    case save
    case close
    case fetch
    case context
    case child
    case mergePolicy = "merge-policy"
    case copy
    case paste
    case duplicate

    /// The part of the language the command belongs to.
    public var part: Part { entry.part }

    /// The command's forms, as the specification writes them, and what it does.
    public var help: ScriptCommandHelp {
      ScriptCommandHelp(name: rawValue, forms: entry.forms, summary: entry.summary)
    }

    private var entry: (part: Part, forms: [String], summary: String) {
      switch self {
      case .model:
        (.graph, ["model PATH"], "Load a model (.xcdatamodeld, .xcdatamodel or contents).")
      case .new: (.graph, ["new"], "Start a new, empty document on the model.")
      case .insert:
        (
          .graph, ["insert ENTITY $var [key=VALUE]…"],
          "Insert an object, bind it to $var and set its properties."
        )
      case .set: (.graph, ["set $var.key = VALUE"], "Set one property of an object.")
      case .add:
        (
          .graph, ["add $var.key VALUE"],
          "Add an object, or each object of a list, to a to-many relationship."
        )
      case .remove:
        (
          .graph, ["remove $var.key VALUE"],
          "Remove an object, or each object of a list, from a to-many relationship."
        )
      case .delete: (.graph, ["delete $var"], "Delete an object, following the delete rules.")
      case .validate:
        (.graph, ["validate"], "Validate the changes since the last save, every failure at once.")
      case .process:
        (.graph, ["process"], "Process pending changes: inverses, delete rules, undo registration.")
      case .expect:
        (
          .graph, ["expect EXPR", "expect error CODE"],
          "Check that an expression holds, or that the next command fails with CODE."
        )
      case .print: (.graph, ["print EXPR"], "Print a value.")
      case .dump: (.graph, ["dump"], "Print the whole graph.")
      case .turn:
        (
          .undo, ["turn"],
          "End the event-loop turn: pending changes processed, the turn's undo group closed."
        )
      case .begin: (.undo, ["begin [\"Name\"]"], "Open an undo group, named if a name is given.")
      case .end: (.undo, ["end"], "Close the innermost undo group.")
      case .name:
        (.undo, ["name \"Name\""], "Name the undo group being recorded (or the last one).")
      case .undo: (.undo, ["undo"], "Undo the last undo group.")
      case .redo: (.undo, ["redo"], "Redo the last undone group.")
      case .undoNested: (.undo, ["undo-nested"], "Undo the last group while no group is open.")
      case .levels: (.undo, ["levels N"], "Keep at most N undo groups (0: no limit).")
      case .disable: (.undo, ["disable"], "Stop registering undo (counted).")
      case .enable: (.undo, ["enable"], "Register undo again (counted).")
      case .groupsByEvent:
        (.undo, ["groups-by-event on|off"], "Whether each turn opens an undo group by itself.")
      case .rollback:
        (.undo, ["rollback"], "Discard every change since the last save, and the undo stack.")
      case .reset:
        (.undo, ["reset"], "Forget every object and the undo stack; the store keeps its objects.")
      case .refresh:
        (
          .undo, ["refresh $var [merge]"],
          "Read an object's committed values again, keeping its changes with merge."
        )
      case .refreshAll:
        (
          .undo, ["refresh-all"],
          "Refresh every object but those inserted since the last save, keeping changes."
        )
      case .open:
        (
          .stores, ["open PATH"],
          "Open a store file or a server's URL as the document (a file migrated to a newer model)."
        )
      case .save:
        (
          .stores, ["save", "save PATH"],
          "Save the document to its file, or as PATH (format by extension) or a server's URL."
        )
      case .close: (.stores, ["close"], "Close the document and every context.")
      case .fetch:
        (
          .fetching,
          [
            "fetch ENTITY [where \"PREDICATE\"] [group-by \"KEYS\" [having \"PREDICATE\"]]"
              + " [keys \"KEYS\"] {sort KEY asc|desc} [limit N] [as $var]"
          ],
          "Fetch objects, naming them (as $var binds the first); with group-by or keys, print rows."
        )
      case .context:
        (
          .contexts, ["context NAME"],
          "Make the context NAME current, creating it on the store if new."
        )
      case .child:
        (
          .contexts, ["child NAME"],
          "Create a child context of the current one and make it current."
        )
      case .mergePolicy:
        (
          .contexts, ["merge-policy error|store-trump|object-trump|overwrite|rollback"],
          "How the current context's saves resolve conflicts."
        )
      case .copy:
        (
          .pasteboard, ["copy $var [$var]…"],
          "Put objects, with what they own, on the pasteboard, replacing what it held."
        )
      case .paste:
        (
          .pasteboard, ["paste [as $var]"],
          "Paste the pasteboard's objects as one undo step (as $var binds the first)."
        )
      case .duplicate:
        (
          .pasteboard, ["duplicate $var [$var]… [as $var]"],
          "Copy and paste objects in place, leaving the pasteboard as it was."
        )
      }
    }
  }
}

/// A command's forms and what it does, as Tab completion and the shell's `help` show them.
public struct ScriptCommandHelp: Sendable, Hashable {
  /// The command's first word.
  public let name: String
  /// Its forms, as the specification writes them (`insert ENTITY $var [key=VALUE]…`).
  public let forms: [String]
  /// What it does, in one sentence.
  public let summary: String

  /// Every command of the language, in the order of the specification.
  public static let all: [ScriptCommandHelp] = ScriptCommand.Name.allCases.map(\.help)

  /// The help of the command `name`, or `nil` when the language has none of that name.
  public static func named(_ name: String) -> ScriptCommandHelp? {
    ScriptCommand.Name(rawValue: name)?.help
  }

  init(name: String, forms: [String], summary: String) {
    self.name = name
    self.forms = forms
    self.summary = summary
  }
}

extension ScriptCommandHelp {
  /// The commands `folio shell` adds to the language's.
  public static let shell: [ScriptCommandHelp] = [
    .init(
      name: "help", forms: ["help", "help COMMAND"],
      summary: "List the commands, or show one command's forms."),
    .init(name: "history", forms: ["history"], summary: "Show the undo and redo stacks."),
    .init(
      name: "autosave", forms: ["autosave on|off"],
      summary: "Save after every line that changes the document."),
    .init(
      name: "reload", forms: ["reload"], summary: "Read the file again, dropping unsaved changes."),
    .init(
      name: "keep", forms: ["keep"],
      summary:
        "Keep this session's changes over the file changed on disk; the next save writes them."),
    .init(
      name: "quit", forms: ["quit", "exit"],
      summary: "End the session (asking to save unsaved changes on a terminal)."),
    .init(name: "exit", forms: ["exit"], summary: "End the session, as quit does."),
  ]

  /// What `help` prints: every command, one line each, or one command's forms and summary;
  /// `nil` for a name that is no command.
  public static func text(for name: String?) -> String? {
    guard let name else {
      let rows = all + shell.filter { $0.name != "exit" }
      let width = rows.map { $0.name.count }.max() ?? 0
      return rows.map { row in
        row.name + String(repeating: " ", count: width - row.name.count + 2) + row.summary
      }.joined(separator: "\n") + "\n'help COMMAND' shows a command's forms."
    }
    guard let help = named(name) ?? shell.first(where: { $0.name == name }) else { return nil }
    return (help.forms.map { "  " + $0 } + [help.summary]).joined(separator: "\n")
  }
}
