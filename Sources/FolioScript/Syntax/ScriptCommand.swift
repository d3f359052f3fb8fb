import Folio

/// One command of an undo script: what it does, where it is, and its text.
///
/// Commands come in six parts (see `Formats/undo-script.md`): **G** the object graph, **U**
/// undo, **S** stores, **F** fetching, **C** contexts and **P** the pasteboard.
public struct ScriptCommand: Sendable, Hashable {
  /// What the command does.
  public enum Kind: Sendable, Hashable {
    // Part G: the object graph.
    /// `model PATH`: load a model; the path is relative to the script's folder.
    case model(path: String)
    /// `new`: a new, empty document on the model.
    case new
    /// `insert ENTITY $var key=VALUE…`: insert an object, bind it, set its properties.
    case insert(entity: String, variable: String, assignments: [Assignment])
    /// `set $var.key = VALUE`.
    case set(variable: String, key: String, value: ScriptValue)
    /// `add $var.key VALUE`: add an object (or each object of a list) to a to-many.
    case add(variable: String, key: String, value: ScriptValue)
    /// `remove $var.key VALUE`: remove an object (or each of a list) from a to-many.
    case remove(variable: String, key: String, value: ScriptValue)
    /// `delete $var`.
    case delete(variable: String)
    /// `validate`: validate the changes since the last save.
    case validate
    /// `process`: process pending changes.
    case process
    /// `expect EXPR`: check that an expression holds.
    case expect(ScriptExpression)
    /// `print EXPR`: print a value.
    case print(ScriptExpression)
    /// `dump`: print the whole graph.
    case dump

    // Part U: undo.
    /// `turn`: end the current event-loop turn.
    case turn
    /// `begin ["Name"]`: open an undo group.
    case begin(name: String?)
    /// `end`: close the innermost undo group.
    case end
    /// `name "Name"`: the current group's action name.
    case name(String)
    /// `undo`.
    case undo
    /// `redo`.
    case redo
    /// `undo-nested`: undo the innermost nested group.
    case undoNested
    /// `levels N`: the levels of undo (0 is unlimited).
    case levels(Int)
    /// `disable`: disable undo registration (counted).
    case disable
    /// `enable`: enable undo registration (counted).
    case enable
    /// `groups-by-event on|off`.
    case groupsByEvent(Bool)
    /// `rollback`.
    case rollback
    /// `reset`.
    case reset
    /// `refresh $var [merge]`.
    case refresh(variable: String, merge: Bool)
    /// `refresh-all`: refresh every object of the context, keeping its changes.
    case refreshAll

    // Part S: stores.
    /// `open PATH`.
    case open(path: String)
    /// `save [PATH]`: save, or save as.
    case save(path: String?)
    /// `close`.
    case close

    // Part F: fetching.
    /// `fetch ENTITY [where "PRED"] [sort KEY asc|desc]… [limit N] [as $var]`.
    case fetch(ScriptFetch)

    // Part C: contexts.
    /// `context NAME`: make the context NAME current, creating it on the document's coordinator
    /// if there is none of that name.
    case context(name: String)
    /// `child NAME`: create a child of the current context, named NAME, and make it current.
    case child(name: String)
    /// `merge-policy POLICY`: how the current context's saves resolve conflicts.
    case mergePolicy(MergePolicy)

    // Part P: the pasteboard.
    /// `copy $var…`: put the objects, with what they own, on the runner's pasteboard.
    case copy(variables: [String])
    /// `paste [as $var]`: paste the pasteboard into the current context, binding the first
    /// pasted root.
    case paste(variable: String?)
    /// `duplicate $var… [as $var]`: copy and paste in the current context, leaving the
    /// pasteboard as it was, binding the first copy.
    case duplicate(variables: [String], variable: String?)

    /// A line that did not parse, kept so that `expect error syntax` can follow it.
    case invalid(ScriptError.Syntax)
  }

  /// What the command does.
  public var kind: Kind
  /// The script file, line and column where the command starts.
  public var location: InputLocation
  /// The command's text, without its comment or surrounding spaces.
  public var text: String

  /// Creates a command.
  public init(_ kind: Kind, at location: InputLocation, text: String) {
    self.kind = kind
    self.location = location
    self.text = text
  }

  /// The parts of the language, as `Formats/undo-script.md` groups its commands.
  public enum Part: String, Sendable, Hashable, CaseIterable {
    /// G: the object graph.
    case graph = "G"
    /// U: undo.
    case undo = "U"
    /// S: stores.
    case stores = "S"
    /// F: fetching.
    case fetching = "F"
    /// C: several contexts on one document.
    case contexts = "C"
    /// P: the pasteboard: copy, paste and duplicate.
    case pasteboard = "P"
  }

  /// The part the command belongs to; a line that did not parse counts as part G.
  public var part: Part { kind.commandName?.part ?? .graph }

  /// The command's name as scripts write it: `insert`, `undo-nested`; `invalid` for a line
  /// that did not parse.
  public var name: String { kind.commandName?.rawValue ?? "invalid" }
}

extension ScriptCommand.Kind {
  /// The command this is; `nil` for a line that did not parse.
  public var commandName: ScriptCommand.Name? {
    switch self {
    case .model: .model
    case .new: .new
    case .insert: .insert
    case .set: .set
    case .add: .add
    case .remove: .remove
    case .delete: .delete
    case .validate: .validate
    case .process: .process
    case .expect: .expect
    case .print: .print
    case .dump: .dump
    case .turn: .turn
    case .begin: .begin
    case .end: .end
    case .name: .name
    case .undo: .undo
    case .redo: .redo
    case .undoNested: .undoNested
    case .levels: .levels
    case .disable: .disable
    case .enable: .enable
    case .groupsByEvent: .groupsByEvent
    case .rollback: .rollback
    case .reset: .reset
    case .refresh: .refresh
    case .refreshAll: .refreshAll
    case .open: .open
    case .save: .save
    case .close: .close
    case .fetch: .fetch
    case .context: .context
    case .child: .child
    case .mergePolicy: .mergePolicy
    case .copy: .copy
    case .paste: .paste
    case .duplicate: .duplicate
    case .invalid: nil
    }
  }
}

/// `key=VALUE` in an `insert` command.
public struct Assignment: Sendable, Hashable {
  /// The property's name.
  public var key: String
  /// Its new value.
  public var value: ScriptValue

  /// Creates an assignment.
  public init(key: String, value: ScriptValue) {
    self.key = key
    self.value = value
  }
}

/// The parts of a `fetch` command.
public struct ScriptFetch: Sendable, Hashable {
  /// A sort key and its direction.
  public struct Sort: Sendable, Hashable {
    /// The key path to sort by.
    public var keyPath: String
    /// Whether the order is ascending.
    public var isAscending: Bool

    /// Creates a sort key.
    public init(keyPath: String, isAscending: Bool) {
      self.keyPath = keyPath
      self.isAscending = isAscending
    }
  }

  /// The entity to fetch.
  public var entity: String
  /// The predicate, in Core Data's format syntax.
  public var predicate: String?
  /// The sort keys, most significant first.
  public var sorts: [Sort]
  /// The largest number of objects to fetch.
  public var limit: Int?
  /// The variable bound to the first object fetched.
  public var variable: String?
  /// The keys whose equal values make one group (`group-by "person.name"`), comma-separated.
  public var groupBy: String?
  /// Which groups are kept, tested on each group's row.
  public var having: String?
  /// The keys each row holds, comma-separated: key paths, or expressions such as
  /// `total=sum:(amount)`. With these or ``groupBy``, the fetch prints rows.
  public var keys: String?

  /// Creates a fetch; only the entity is required.
  public init(
    entity: String, predicate: String? = nil, sorts: [Sort] = [], limit: Int? = nil,
    variable: String? = nil, groupBy: String? = nil, having: String? = nil, keys: String? = nil
  ) {
    self.entity = entity
    self.predicate = predicate
    self.sorts = sorts
    self.limit = limit
    self.variable = variable
    self.groupBy = groupBy
    self.having = having
    self.keys = keys
  }

  /// Whether the fetch prints rows of values rather than naming objects.
  public var printsRows: Bool { groupBy != nil || keys != nil }
}

extension ScriptError {
  /// A syntax error kept in a parsed script: its message and location.
  public struct Syntax: Sendable, Hashable {
    /// The message.
    public var message: String
    /// The file, line and column.
    public var location: InputLocation

    /// The error to throw when the line runs.
    public var error: ScriptError { ScriptError(.syntax, message, at: location) }
  }

  var syntax: Syntax {
    Syntax(message: message, location: location ?? InputLocation())
  }
}

extension MergePolicy {
  /// The policy's name in an undo script's `merge-policy` command: `error`, `store-trump`,
  /// `object-trump`, `overwrite` or `rollback`.
  public var scriptName: String {
    switch self {
    case .error: "error"
    case .mergeByPropertyStoreTrump: "store-trump"
    case .mergeByPropertyObjectTrump: "object-trump"
    case .overwrite: "overwrite"
    case .rollback: "rollback"
    }
  }

  /// The policy an undo script names `scriptName`; `nil` for none.
  public init?(scriptName: String) {
    guard let policy = Self.allCases.first(where: { $0.scriptName == scriptName }) else {
      return nil
    }
    self = policy
  }
}
