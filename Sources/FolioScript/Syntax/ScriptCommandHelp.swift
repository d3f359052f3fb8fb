/// Every command of the undo-script language with its form and what it does, in the order of
/// `Formats/undo-script.md`: the one list the parser, Tab completion and the shell's `help`
/// read.
public struct ScriptCommandHelp: Sendable, Hashable {
  /// The command's first word.
  public let name: String
  /// Its forms, as the specification writes them (`insert ENTITY $var [key=VALUE]…`).
  public let forms: [String]
  /// What it does, in one sentence.
  public let summary: String

  /// Every command of the language.
  public static let all: [ScriptCommandHelp] = [
    .init("model", ["model PATH"], "Load a model (.xcdatamodeld, .xcdatamodel or contents)."),
    .init("new", ["new"], "Start a new, empty document on the model."),
    .init(
      "insert", ["insert ENTITY $var [key=VALUE]…"],
      "Insert an object, bind it to $var and set its properties."),
    .init("set", ["set $var.key = VALUE"], "Set one property of an object."),
    .init(
      "add", ["add $var.key VALUE"],
      "Add an object, or each object of a list, to a to-many relationship."),
    .init(
      "remove", ["remove $var.key VALUE"],
      "Remove an object, or each object of a list, from a to-many relationship."),
    .init("delete", ["delete $var"], "Delete an object, following the delete rules."),
    .init(
      "validate", ["validate"], "Validate the changes since the last save, every failure at once."),
    .init(
      "process", ["process"], "Process pending changes: inverses, delete rules, undo registration."),
    .init(
      "expect", ["expect EXPR", "expect error CODE"],
      "Check that an expression holds, or that the next command fails with CODE."),
    .init("print", ["print EXPR"], "Print a value."),
    .init("dump", ["dump"], "Print the whole graph."),
    .init(
      "turn", ["turn"],
      "End the event-loop turn: pending changes processed, the turn's undo group closed."),
    .init("begin", ["begin [\"Name\"]"], "Open an undo group, named if a name is given."),
    .init("end", ["end"], "Close the innermost undo group."),
    .init("name", ["name \"Name\""], "Name the undo group being recorded (or the last one)."),
    .init("undo", ["undo"], "Undo the last undo group."),
    .init("redo", ["redo"], "Redo the last undone group."),
    .init("undo-nested", ["undo-nested"], "Undo the last group while no group is open."),
    .init("levels", ["levels N"], "Keep at most N undo groups (0: no limit)."),
    .init("disable", ["disable"], "Stop registering undo (counted)."),
    .init("enable", ["enable"], "Register undo again (counted)."),
    .init(
      "groups-by-event", ["groups-by-event on|off"],
      "Whether each turn opens an undo group by itself."),
    .init(
      "rollback", ["rollback"], "Discard every change since the last save, and the undo stack."),
    .init(
      "reset", ["reset"], "Forget every object and the undo stack; the store keeps its objects."),
    .init(
      "refresh", ["refresh $var [merge]"],
      "Read an object's committed values again, keeping its changes with merge."),
    .init(
      "refresh-all", ["refresh-all"],
      "Refresh every object but those inserted since the last save, keeping changes."),
    .init(
      "open", ["open PATH"],
      "Open a store file as the document (migrated when the model is a newer version)."),
    .init(
      "save", ["save", "save PATH"],
      "Save the document to its file, or as PATH in the format its extension names."),
    .init("close", ["close"], "Close the document and every context."),
    .init(
      "fetch", ["fetch ENTITY [where \"PREDICATE\"] {sort KEY asc|desc} [limit N] [as $var]"],
      "Fetch objects, naming them; as $var binds the first."),
    .init(
      "context", ["context NAME"], "Make the context NAME current, creating it on the store if new."
    ),
    .init(
      "child", ["child NAME"], "Create a child context of the current one and make it current."),
    .init(
      "merge-policy", ["merge-policy error|store-trump|object-trump|overwrite|rollback"],
      "How the current context's saves resolve conflicts."),
  ]

  /// The help of the command `name`, or `nil` when the language has none of that name.
  public static func named(_ name: String) -> ScriptCommandHelp? {
    all.first { $0.name == name }
  }

  init(_ name: String, _ forms: [String], _ summary: String) {
    self.name = name
    self.forms = forms
    self.summary = summary
  }
}

extension ScriptCommandHelp {
  /// The commands `folio shell` adds to the language's.
  public static let shell: [ScriptCommandHelp] = [
    .init("help", ["help", "help COMMAND"], "List the commands, or show one command's forms."),
    .init("history", ["history"], "Show the undo and redo stacks."),
    .init("autosave", ["autosave on|off"], "Save after every line that changes the document."),
    .init("reload", ["reload"], "Read the file again, dropping unsaved changes."),
    .init(
      "keep", ["keep"],
      "Keep this session's changes over the file changed on disk; the next save writes them."),
    .init(
      "quit", ["quit", "exit"], "End the session (asking to save unsaved changes on a terminal)."),
    .init("exit", ["exit"], "End the session, as quit does."),
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
