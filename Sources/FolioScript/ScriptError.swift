import Folio

/// An error in an undo script: a line that does not parse, a command that fails, or an
/// `expect` that does not hold.
///
/// ``code`` has a stable kebab-case name (its raw value) that scripts match with
/// `expect error CODE`; errors from the object graph and the model keep their meaning under
/// the names listed in `Formats/undo-script.md`. Syntax errors are located at
/// `file:line:column`, errors from running a command at `file:line`.
public struct ScriptError: Error, Sendable, CustomStringConvertible, DiagnosticError {
  /// What went wrong, to switch on; the raw value is the name scripts use.
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible, CaseIterable {
    /// A line that does not parse.
    public static let syntax = Code(kind: .syntax)
    /// A script file that cannot be read.
    public static let io = Code(kind: .io)
    /// A model that does not load (any `ModelError`).
    public static let model = Code(kind: .model)
    /// A command that needs a model before `model PATH` loaded one.
    public static let noModel = Code(kind: .noModel)
    /// A command that needs a document before `new` started one.
    public static let noDocument = Code(kind: .noDocument)
    /// A `$variable` that no command bound.
    public static let unknownVariable = Code(kind: .unknownVariable)
    /// An `expect` that does not hold.
    public static let expectationFailed = Code(kind: .expectationFailed)
    /// No entity of that name (`GraphError.Code.unknownEntity`).
    public static let unknownEntity = Code(kind: .unknownEntity)
    /// No property of that name (`GraphError.Code.unknownKey`).
    public static let unknownKey = Code(kind: .unknownKey)
    /// A value of the wrong type, or values that cannot be compared.
    public static let typeMismatch = Code(kind: .typeMismatch)
    /// An object of an abstract entity (`GraphError.Code.abstractEntity`).
    public static let abstractEntity = Code(kind: .abstractEntity)
    /// An object that left the context (`GraphError.Code.notRegistered`).
    public static let notRegistered = Code(kind: .notRegistered)
    /// An object ID that names no object (`GraphError.Code.objectNotFound`).
    public static let objectNotFound = Code(kind: .objectNotFound)
    /// A derived attribute that was set (`GraphError.Code.readOnly`).
    public static let readOnly = Code(kind: .readOnly)
    /// Objects that do not validate (`GraphError.Code.validation`).
    public static let validation = Code(kind: .validation)
    /// A Deny delete rule that refuses a deletion (`GraphError.Code.deny`).
    public static let deny = Code(kind: .deny)
    /// A key path the graph cannot evaluate (`GraphError.Code.invalidKeyPath`).
    public static let invalidKeyPath = Code(kind: .invalidKeyPath)
    /// A store that cannot be read or written (`GraphError.Code.store`, any `StoreError`).
    public static let store = Code(kind: .store)
    /// A predicate that does not parse, or cannot be evaluated (`GraphError.Code.invalidPredicate`).
    public static let invalidPredicate = Code(kind: .invalidPredicate)
    /// A save that would overwrite another context's changes under the `error` merge policy
    /// (`GraphError.Code.mergeConflict`).
    public static let mergeConflict = Code(kind: .mergeConflict)
    /// A class that does not fit its entity (`GraphError.Code.invalidClass`).
    public static let invalidClass = Code(kind: .invalidClass)
    /// A grouped fetch that cannot be answered: a key neither grouped nor an aggregate
    /// (`GraphError.Code.invalidFetchRequest`).
    public static let invalidFetchRequest = Code(kind: .invalidFetchRequest)
    /// Data made for another version of the model (`GraphError.Code.modelMismatch`).
    public static let modelMismatch = Code(kind: .modelMismatch)
    /// Undo or redo with nested groups open, or while undoing (`UndoError.Code.openGroup`).
    public static let openGroup = Code(kind: .openGroup)
    /// `end` with no group open, or a change with no group while not grouping by event
    /// (`UndoError.Code.noOpenGroup`).
    public static let noOpenGroup = Code(kind: .noOpenGroup)
    /// `enable` more often than `disable` (`UndoError.Code.enableWithoutDisable`).
    public static let enableWithoutDisable = Code(kind: .enableWithoutDisable)
    /// `child NAME` with a name another context of the document already has.
    public static let contextExists = Code(kind: .contextExists)
    /// `paste` before any `copy` put objects on the pasteboard.
    public static let emptyPasteboard = Code(kind: .emptyPasteboard)

    private enum Kind: String, Hashable, Sendable, CaseIterable {
      case syntax
      case io
      case model
      case noModel = "no-model"
      case noDocument = "no-document"
      case unknownVariable = "unknown-variable"
      case expectationFailed = "expectation-failed"
      case unknownEntity = "unknown-entity"
      case unknownKey = "unknown-key"
      case typeMismatch = "type-mismatch"
      case abstractEntity = "abstract-entity"
      case notRegistered = "not-registered"
      case objectNotFound = "object-not-found"
      case readOnly = "read-only"
      case validation
      case deny
      case invalidKeyPath = "invalid-key-path"
      case store
      case invalidPredicate = "invalid-predicate"
      case mergeConflict = "merge-conflict"
      case invalidClass = "invalid-class"
      case invalidFetchRequest = "invalid-fetch-request"
      case modelMismatch = "model-mismatch"
      case openGroup = "open-group"
      case noOpenGroup = "no-open-group"
      case enableWithoutDisable = "enable-without-disable"
      case contextExists = "context-exists"
      case emptyPasteboard = "empty-pasteboard"
    }

    private var kind: Kind

    private init(kind: Kind) { self.kind = kind }

    /// The name scripts use: `no-model`.
    public var rawValue: String { kind.rawValue }

    /// The code that scripts name `rawValue`, or `nil` for a name that is not a code.
    public init?(rawValue: String) {
      guard let kind = Kind(rawValue: rawValue) else { return nil }
      self.init(kind: kind)
    }

    /// Every code, in the order of their documentation.
    public static var allCases: [Code] { Kind.allCases.map { Code(kind: $0) } }

    /// The member's name: `syntax`.
    public var description: String { "\(kind)" }

    /// The script code for an undo-manager error code: the code of the same name.
    ///
    /// A code `UndoError` adds maps to `openGroup` until it is given a name here (the tests
    /// check that every code has one).
    public init(_ code: UndoError.Code) {
      switch code {
      case .openGroup: self = .openGroup
      case .noOpenGroup: self = .noOpenGroup
      case .enableWithoutDisable: self = .enableWithoutDisable
      default: self = .openGroup
      }
    }

    /// The script code for an object-graph error code: the code of the same name.
    ///
    /// A code `GraphError` adds maps to `store`, as any error a command meets that has no
    /// name of its own does, until it is given a name here (the tests check that every code
    /// has one).
    public init(_ code: GraphError.Code) {
      switch code {
      case .unknownEntity: self = .unknownEntity
      case .unknownKey: self = .unknownKey
      case .typeMismatch: self = .typeMismatch
      case .abstractEntity: self = .abstractEntity
      case .notRegistered: self = .notRegistered
      case .objectNotFound: self = .objectNotFound
      case .readOnly: self = .readOnly
      case .validation: self = .validation
      case .deny: self = .deny
      case .invalidKeyPath: self = .invalidKeyPath
      case .store: self = .store
      case .invalidPredicate: self = .invalidPredicate
      case .mergeConflict: self = .mergeConflict
      case .invalidClass: self = .invalidClass
      case .invalidFetchRequest: self = .invalidFetchRequest
      case .modelMismatch: self = .modelMismatch
      default: self = .store
      }
    }
  }

  /// What went wrong, to switch on.
  public var code: Code
  /// One sentence: what was expected and what was found.
  public var message: String
  /// Where: `file:line:column` for syntax errors, `file:line` (and `Entity.key` when the graph
  /// names one) for the others.
  public var location: InputLocation?
  /// Further lines under the message: one per validation failure.
  public var details: [String]
  /// The error that caused this one: a `GraphError` or `ModelError`, if any.
  public var underlying: (any Error & Sendable)?

  /// Creates an error; prefer the static factories, which word the message.
  public init(
    _ code: Code, _ message: String, at location: InputLocation? = nil, details: [String] = [],
    underlying: (any Error & Sendable)? = nil
  ) {
    self.code = code
    self.message = message
    self.location = location
    self.details = details
    self.underlying = underlying
  }

  /// `location: message`, then one indented line per detail.
  public var description: String {
    var text = locatedMessage
    for detail in details { text += "\n  \(detail)" }
    return text
  }

  /// Whether `expect error name` accepts this error: `name` is its code, or the rule of one
  /// of the validation failures it carries.
  public func matches(_ name: String) -> Bool {
    if code.rawValue == name { return true }
    guard let graph = underlying as? GraphError else { return false }
    return graph.failures.contains { Self.name(of: $0.rule) == name }
  }

  /// The stable kebab-case name of a validation rule: `minimum-length`.
  public static func name(of rule: ValidationFailure.Rule) -> String {
    switch rule {
    case .required: "required"
    case .minimumValue: "minimum-value"
    case .maximumValue: "maximum-value"
    case .minimumLength: "minimum-length"
    case .maximumLength: "maximum-length"
    case .pattern: "pattern"
    case .minimumCount: "minimum-count"
    case .maximumCount: "maximum-count"
    case .deny: "deny"
    case .uniqueness: "uniqueness"
    case .custom: "custom"
    }
  }

  /// Every name `expect error` accepts: the codes, the validation rules, and the undo
  /// manager's errors.
  static let knownNames: [String] =
    Code.allCases.map(\.rawValue)
    + ValidationFailure.Rule.allCases.map { name(of: $0) }.filter { $0 != "deny" }
    + ["open-group", "no-open-group", "enable-without-disable"]
}

// MARK: Syntax errors

extension ScriptError {
  static func expected(_ what: String, found: String, at location: InputLocation) -> ScriptError {
    ScriptError(.syntax, "expected \(what), found \(found)", at: location)
  }

  static func unknownCommand(_ name: String, known: [String], at location: InputLocation)
    -> ScriptError
  {
    ScriptError(
      .syntax,
      "unknown command \"\(name)\"\(nameSuggestion(for: name, among: known))",
      at: location)
  }

  static func unknownErrorCode(_ name: String, at location: InputLocation) -> ScriptError {
    ScriptError(
      .syntax,
      "unknown error code \"\(name)\"\(nameSuggestion(for: name, among: knownNames))",
      at: location)
  }

  /// `unknown merge policy "stor-trump" (did you mean "store-trump"?)`, or the list of policies
  /// when none is close.
  static func unknownMergePolicy(_ name: String, at location: InputLocation) -> ScriptError {
    let known = MergePolicy.allCases.map(\.scriptName)
    var hint = nameSuggestion(for: name, among: known)
    if hint.isEmpty {
      hint = " (expected \(known.dropLast().joined(separator: ", ")) or \(known.last ?? ""))"
    }
    return ScriptError(.syntax, "unknown merge policy \"\(name)\"\(hint)", at: location)
  }

  static func unterminatedString(at location: InputLocation) -> ScriptError {
    ScriptError(
      .syntax, "unterminated string (a string ends with \" on its own line)", at: location)
  }

  static func invalidEscape(_ escape: String, at location: InputLocation) -> ScriptError {
    ScriptError(.syntax, "invalid escape \"\(escape)\" in a string", at: location)
  }

  static func controlCharacter(_ scalar: Unicode.Scalar, at location: InputLocation)
    -> ScriptError
  {
    let hex = String(scalar.value, radix: 16, uppercase: true)
    let code = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    return ScriptError(
      .syntax, "control character U+\(code) in a string (write it as \\u\(code))", at: location)
  }

  static func invalidNumber(_ text: String, at location: InputLocation) -> ScriptError {
    ScriptError(.syntax, "invalid number \"\(text)\"", at: location)
  }

  static func listTooDeep(_ limit: Int, at location: InputLocation) -> ScriptError {
    ScriptError(.syntax, "lists nest more than \(limit) levels deep", at: location)
  }

  static func numberOutOfRange(_ text: String, at location: InputLocation) -> ScriptError {
    ScriptError(.syntax, "number \(text) is out of range", at: location)
  }

  static func invalidDate(_ text: String, at location: InputLocation) -> ScriptError {
    ScriptError(
      .syntax,
      "invalid date \"\(text)\" (expected @YYYY-MM-DD or @YYYY-MM-DDTHH:MM:SSZ)", at: location)
  }

  static func invalidUUID(_ text: String, at location: InputLocation) -> ScriptError {
    ScriptError(.syntax, "invalid UUID \"\(text)\"", at: location)
  }

  static func invalidBase64(_ text: String, at location: InputLocation) -> ScriptError {
    ScriptError(.syntax, "invalid base64 data \"\(text)\"", at: location)
  }

  static func unexpectedCharacter(_ scalar: Unicode.Scalar, at location: InputLocation)
    -> ScriptError
  {
    ScriptError(.syntax, "unexpected character \"\(Character(scalar))\"", at: location)
  }

  static func missingVariableName(at location: InputLocation) -> ScriptError {
    ScriptError(.syntax, "\"$\" must be followed by a variable name", at: location)
  }

  static func missingKey(after text: String, at location: InputLocation) -> ScriptError {
    ScriptError(.syntax, "expected a key after \".\" in \"\(text)\"", at: location)
  }

  static func errorOnlyAfterExpect(at location: InputLocation) -> ScriptError {
    ScriptError(.syntax, "\"error\" can only follow \"expect\"", at: location)
  }
}

// MARK: Files

extension ScriptError {
  static func fileNotFound(_ path: String) -> ScriptError {
    ScriptError(.io, "no such file", at: InputLocation(file: path))
  }

  static func isFolder(_ path: String) -> ScriptError {
    ScriptError(
      .io, "is a folder, not an undo script (its scripts are the .undo files in it)",
      at: InputLocation(file: path))
  }

  static func unreadable(_ path: String, reason: String) -> ScriptError {
    ScriptError(.io, "cannot read the script (\(reason))", at: InputLocation(file: path))
  }

  static func notUTF8(_ path: String) -> ScriptError {
    ScriptError(.io, "the script is not UTF-8 text", at: InputLocation(file: path))
  }
}

// MARK: Running

extension ScriptError {
  static func model(_ error: any Error, at location: InputLocation) -> ScriptError {
    ScriptError(.model, "\(error)", at: location, underlying: error)
  }

  static func graph(_ error: GraphError, at location: InputLocation, details: [String])
    -> ScriptError
  {
    var place = location
    place.entity = error.location?.entity
    place.property = error.location?.property
    return ScriptError(
      Code(error.code), error.message, at: place, details: details, underlying: error)
  }

  /// A failure opening or saving a document: its graph error's code, or `store`.
  static func store(_ error: any Error, at location: InputLocation) -> ScriptError {
    if let graph = error as? GraphError {
      return ScriptError.graph(
        graph, at: location,
        details: graph.failures.map(\.description) + graph.conflicts.map(\.description))
    }
    let message = (error as? StoreError)?.description ?? "\(error)"
    return ScriptError(.store, message, at: location, underlying: error)
  }

  /// A store argument that starts as a URL (`postgresql://…`) and does not parse as one; the
  /// text is not repeated, as it may hold a password.
  static func unparsableURL(at location: InputLocation) -> ScriptError {
    ScriptError(
      .store,
      "the store's URL does not parse: write it as SCHEME://…, special characters %-encoded",
      at: location)
  }

  static func undo(_ error: UndoError, at location: InputLocation) -> ScriptError {
    ScriptError(Code(error.code), error.message, at: location, underlying: error)
  }

  static func noModel(_ command: String, at location: InputLocation) -> ScriptError {
    ScriptError(
      .noModel, "\"\(command)\" needs a model: load one with \"model PATH\" first", at: location)
  }

  static func noDocument(_ command: String, at location: InputLocation) -> ScriptError {
    ScriptError(
      .noDocument, "\"\(command)\" needs a document: start one with \"new\" first", at: location)
  }

  static func unknownVariable(_ name: String, bound: [String], at location: InputLocation)
    -> ScriptError
  {
    let suggestion = nameSuggestion(for: "$\(name)", among: bound.map { "$\($0)" })
    return ScriptError(.unknownVariable, "unknown variable $\(name)\(suggestion)", at: location)
  }

  static func notInContext(_ variable: String, context: String, at location: InputLocation)
    -> ScriptError
  {
    ScriptError(
      .objectNotFound,
      "$\(variable) names no object in context \"\(context)\" (an object reaches other "
        + "contexts when it is saved)", at: location)
  }

  static func contextExists(_ name: String, at location: InputLocation) -> ScriptError {
    ScriptError(
      .contextExists,
      "the document already has a context named \"\(name)\": choose another name, or make it "
        + "current with \"context \(name)\"", at: location)
  }

  static func emptyPasteboard(at location: InputLocation) -> ScriptError {
    ScriptError(
      .emptyPasteboard,
      "\"paste\" needs objects on the pasteboard: put some there with \"copy $var\" first",
      at: location)
  }

  static func deletedCopy(_ variable: String, at location: InputLocation) -> ScriptError {
    ScriptError(.notRegistered, "$\(variable) is deleted and cannot be copied", at: location)
  }

  static func saveAsOutsideMain(_ context: String, at location: InputLocation) -> ScriptError {
    ScriptError(
      .store,
      "\"save PATH\" saves the document as another file from context \"main\", not from "
        + "\"\(context)\": switch with \"context main\" first", at: location)
  }

  static func untitled(_ context: String, at location: InputLocation) -> ScriptError {
    ScriptError(
      .store,
      "context \"\(context)\" cannot save an untitled document: save it to a file from "
        + "context \"main\" first (\"save PATH\")", at: location)
  }

  static func cannotCompare(
    _ left: String, with right: String, using operation: String, at location: InputLocation
  ) -> ScriptError {
    ScriptError(
      .typeMismatch, "cannot compare \(left) with \(right) using \(operation)", at: location)
  }

  static func notObjects(_ command: String, found: String, at location: InputLocation)
    -> ScriptError
  {
    ScriptError(
      .typeMismatch, "\"\(command)\" takes an object or a list of objects, found \(found)",
      at: location)
  }

  static func notHeld(_ expression: String, found: String, at location: InputLocation)
    -> ScriptError
  {
    ScriptError(.expectationFailed, "expected \(expression), found \(found)", at: location)
  }

  static func notHeld(_ expression: String, because state: String, at location: InputLocation)
    -> ScriptError
  {
    ScriptError(.expectationFailed, "expected \(expression), but \(state)", at: location)
  }

  static func noError(_ code: String, at location: InputLocation) -> ScriptError {
    ScriptError(
      .expectationFailed, "expected error \(code), but the previous command succeeded",
      at: location)
  }

  static func otherError(_ code: String, found error: ScriptError, at location: InputLocation)
    -> ScriptError
  {
    ScriptError(
      .expectationFailed,
      "expected error \(code), but the previous command failed with \(error.code.rawValue): "
        + error.message,
      at: location)
  }

  static func notNegatable(_ expression: String, at location: InputLocation) -> ScriptError {
    ScriptError(
      .typeMismatch,
      "\"!\" applies to has-changes, can-undo, can-redo and deleted, not to \(expression)",
      at: location)
  }
}
