import Folio
import Foundation

/// Runs undo scripts on a document: loads the model, drives its `ManagedObjectContext`s, checks
/// every `expect`.
///
/// A runner keeps the state one script builds: the model, the document, its named contexts
/// (`main`, and those `context` and `child` create), the variables bound to objects, and the
/// pasteboard `copy` fills, which outlives documents. ``run(_:)`` starts from nothing each time
/// and leaves that state behind for inspection.
///
/// A command that fails does not stop the script at once: its error is kept, and if the next
/// command is `expect error CODE` and the code (or a validation rule of the error) matches,
/// the script goes on. Otherwise the kept error stops the script. So does an `expect` that
/// does not hold, unless `expect error expectation-failed` follows it.
///
/// ```swift
/// let runner = ScriptRunner(output: { print($0) })
/// try runner.run(Script(contentsOfFile: "Samples/Expenses/cascade.undo"))
/// ```
public final class ScriptRunner {
  /// Whether each command is echoed, followed by the state it leaves.
  public let isTracing: Bool
  let output: (String) -> Void

  /// The model the last `model` command loaded.
  public private(set) var model: ManagedObjectModel?
  /// Whether ``model`` came from the store the session opens (carried by it or inferred from
  /// it, ``use(_:)``) rather than from a `model` command.
  var modelIsTheStores = false
  /// Why saves are refused with ``model``: it was guessed from the store; `nil` otherwise.
  var saveRefusal: String?
  /// The bundle `model` names when it names an `.xcdatamodeld` of several versions: `open`
  /// migrates a store of an older version to the current one.
  private var bundle: ModelBundle?
  /// The current context, the one the script changes: `main` — the context `new` and `open`
  /// start — until `context` or `child` makes another one current.
  public var context: ManagedObjectContext? { current?.context }
  /// The document the context belongs to, for `open`, `save` and `close`.
  public private(set) var document: Document?
  /// The store formats `open` recognises files among and `save PATH` picks from by extension.
  public let formats: [any StoreFormat]
  /// The document's event loop: `turn` ends a turn.
  public private(set) var eventLoop: ManualEventLoop?

  /// The script being run, whose folder relative paths start in.
  var script: Script?
  /// The document's contexts in the order the script made them, `main` first.
  var contexts: [ScriptContext] = []
  /// The context commands act on.
  var current: ScriptContext?
  var bindings: [String: Binding] = [:]
  /// Variable names in the order they were first bound, so an object's name is stable.
  var bindingOrder: [String] = []
  /// The number of each object the script met, by instance: the same object in two contexts
  /// shares its number.
  var numbers: [ObjectIdentifier: Int] = [:]
  /// The numbers by object ID, so that an object met again in another context (or again
  /// after `reset`) keeps its number.
  var numbersByID: [ManagedObjectID: Int] = [:]
  /// The last number given.
  var objectCount = 0
  /// In a session, the error of the command before, for an `expect error` after it.
  var sessionError: ScriptError?
  /// What `copy` last put on the pasteboard: it outlives documents, not the script.
  var pasteboard: ScriptPasteboard?

  /// Creates a runner that writes what `print`, `dump` and the trace produce to `output`, one
  /// line per call.
  ///
  /// - Parameters:
  ///   - trace: Whether to echo each command and the state it leaves. The default is `false`.
  ///   - output: Where lines go. The default prints them.
  ///   - formats: The store formats `open` and `save` use. The default is none.
  public init(
    trace: Bool = false, formats: [any StoreFormat] = [],
    output: @escaping (String) -> Void = { print($0) }
  ) {
    self.isTracing = trace
    self.formats = formats
    self.output = output
  }

  /// The object `$variable` names in the current context, if any.
  public func object(named variable: String) -> ManagedObject? {
    try? lookup(variable, at: InputLocation())
  }

  // MARK: Running

  /// Runs every command of `script`, from an empty state.
  ///
  /// Undo: the script's changes go through the context's own API, so they register with its
  /// undo manager as an app's would; `process` ends a turn.
  ///
  /// - Throws: The error that stopped the script, located at `file:line` (`file:line:column`
  ///   for syntax): `ScriptError.Code.expectationFailed` for an `expect` that does not hold, or
  ///   the code of a failing command that no `expect error` followed.
  public func run(_ script: Script) throws(ScriptError) {
    self.script = script
    model = nil
    pasteboard = nil
    closeDocument()
    var pending: ScriptError?
    for command in script.commands {
      let expectsError: Bool
      if case .expect(.error) = command.kind { expectsError = true } else { expectsError = false }
      if let pending, !expectsError { throw pending }
      if isTracing { output("\(script.file):\(command.location.line ?? 0): \(command.text)") }
      do {
        try execute(command, after: pending)
        pending = nil
        if isTracing { output("  -> \(stateSummary)") }
      } catch {
        pending = error
        if isTracing { output("  -> error \(error.code.rawValue): \(error.message)") }
      }
      if isTracing, let undoTrace { output(undoTrace) }
    }
    if let pending { throw pending }
  }

  /// Starts an empty session whose relative paths start beside `file`.
  func startSession(file: String) {
    script = try? Script(parsing: "", file: file)
    model = nil
    pasteboard = nil
    closeDocument()
    sessionError = nil
  }

  func useModel(_ model: ManagedObjectModel) {
    self.model = model
    bundle = nil
    modelIsTheStores = true
    saveRefusal = nil
    closeDocument()
  }

  func performInSession(_ command: ScriptCommand) throws(ScriptError) {
    let failed = sessionError
    sessionError = nil
    do {
      try execute(command, after: failed)
    } catch {
      sessionError = error
      throw error
    }
  }

  private func execute(_ command: ScriptCommand, after previous: ScriptError?) throws(ScriptError) {
    let here = location(of: command)
    switch command.part {
    case .graph: try executeGraphCommand(command, after: previous, at: here)
    case .undo: try executeUndoCommand(command, at: here)
    case .stores: try executeStoreCommand(command, at: here)
    case .fetching: try executeFetch(command, at: here)
    case .contexts: try executeContextCommand(command, at: here)
    case .pasteboard: try executePasteboardCommand(command, at: here)
    }
  }

  /// The object graph's commands: the model, a new document, objects and their properties,
  /// checks and output.
  private func executeGraphCommand(
    _ command: ScriptCommand, after previous: ScriptError?, at here: InputLocation
  ) throws(ScriptError) {
    switch command.kind {
    case .model(let path):
      let resolved = script?.resolve(path) ?? path
      do {
        let url = URL(fileURLWithPath: resolved)
        model = try ManagedObjectModel(contentsOf: url)
        bundle = nil
        modelIsTheStores = false
        saveRefusal = nil
        if url.pathExtension == "xcdatamodeld" {
          let versions = try ModelBundle(contentsOf: url)
          if versions.versions.count > 1 { bundle = versions }
        }
      } catch {
        throw ScriptError.model(error, at: here)
      }
      closeDocument()
    case .new:
      guard let model else { throw ScriptError.noModel(command.name, at: here) }
      closeDocument()
      let loop = ManualEventLoop()
      do {
        let document = try Document(model: model, eventLoop: loop)
        adopt(document, loop: loop)
      } catch {
        throw ScriptError.store(error, at: here)
      }
    case .insert(let entity, let variable, let assignments):
      let context = try document(for: command.name, at: here)
      let object = try graph(at: here) { () throws(GraphError) in
        try context.insertNewObject(forEntityName: entity)
      }
      register(object)
      bind(variable, to: object)
      for assignment in assignments {
        try set(assignment.key, of: object, to: assignment.value, at: here)
      }
    case .set(let variable, let key, let value):
      _ = try document(for: command.name, at: here)
      try set(key, of: try lookup(variable, at: here), to: value, at: here)
    case .add(let variable, let key, let value):
      _ = try document(for: command.name, at: here)
      let object = try lookup(variable, at: here)
      for target in try objects(in: value, for: command.name, at: here) {
        try graph(at: here) { () throws(GraphError) in try object.add(target, toKey: key) }
      }
    case .remove(let variable, let key, let value):
      _ = try document(for: command.name, at: here)
      let object = try lookup(variable, at: here)
      for target in try objects(in: value, for: command.name, at: here) {
        try graph(at: here) { () throws(GraphError) in try object.remove(target, fromKey: key) }
      }
    case .delete(let variable):
      let context = try document(for: command.name, at: here)
      let object = try lookup(variable, at: here)
      try graph(at: here) { () throws(GraphError) in try context.delete(object) }
    case .validate:
      let context = try document(for: command.name, at: here)
      try graph(at: here) { () throws(GraphError) in try context.validate() }
    case .process:
      let context = try document(for: command.name, at: here)
      context.processPendingChanges()
      try checkRegistration(of: context, at: here)
    case .expect(let expression):
      try expect(expression, after: previous, at: here)
    case .print(let expression):
      output(text(of: try evaluate(expression, at: here)))
    case .dump:
      _ = try document(for: command.name, at: here)
      for line in dumpLines() { output(line) }
    case .invalid(let syntax):
      throw syntax.error
    default:
      preconditionFailure("\(command.name) is not an object-graph command")
    }
  }

  /// Undo's commands: turns, groups, undo and redo, levels, registration, and what discards
  /// changes.
  private func executeUndoCommand(_ command: ScriptCommand, at here: InputLocation)
    throws(ScriptError)
  {
    switch command.kind {
    case .turn:
      let context = try document(for: command.name, at: here)
      eventLoop?.endTurn()
      // The loop ends the turn of every context; the current one's refusal is reported first.
      try checkRegistration(of: context, at: here)
      for other in contexts { try checkRegistration(of: other.context, at: here) }
    case .begin(let name):
      let undo = try undoManager(for: command.name, at: here)
      undo.beginUndoGrouping()
      if let name { undo.setActionName(name) }
    case .end:
      try undoing(at: here) { try undoManager(for: command.name, at: here).endUndoGrouping() }
    case .name(let name):
      try undoManager(for: command.name, at: here).setActionName(name)
    case .undo:
      try undoing(at: here) { try undoManager(for: command.name, at: here).undo() }
    case .redo:
      try undoing(at: here) { try undoManager(for: command.name, at: here).redo() }
    case .undoNested:
      try undoing(at: here) { try undoManager(for: command.name, at: here).undoNestedGroup() }
    case .levels(let count):
      try undoManager(for: command.name, at: here).levelsOfUndo = count
    case .disable:
      try undoManager(for: command.name, at: here).disableUndoRegistration()
    case .enable:
      try undoing(at: here) {
        try undoManager(for: command.name, at: here).enableUndoRegistration()
      }
    case .groupsByEvent(let isOn):
      try undoManager(for: command.name, at: here).groupsByEvent = isOn
    case .rollback:
      try document(for: command.name, at: here).rollback()
    case .reset:
      try document(for: command.name, at: here).reset()
      if let current { forgetObjects(of: current) }
    case .refresh(let variable, let merge):
      let context = try document(for: command.name, at: here)
      let object = try lookup(variable, at: here)
      try graph(at: here) { () throws(GraphError) in
        try context.refresh(object, mergeChanges: merge)
      }
    case .refreshAll:
      try document(for: command.name, at: here).refreshAllObjects()
    default:
      preconditionFailure("\(command.name) is not an undo command")
    }
  }

  /// The stores' commands: open, save and close a document's file.
  private func executeStoreCommand(_ command: ScriptCommand, at here: InputLocation)
    throws(ScriptError)
  {
    switch command.kind {
    case .open(let path):
      guard let model else { throw ScriptError.noModel(command.name, at: here) }
      closeDocument()
      let loop = ManualEventLoop()
      let url = try storeURL(path, at: here)
      do {
        // A migration puts a new file in place beside a backup: a document on a server,
        // which has neither, is refused when it needs one.
        let document =
          if let bundle {
            try Document.open(
              url, bundle: bundle, formats: formats, migratesAutomatically: url.isFileURL,
              eventLoop: loop)
          } else {
            try Document.open(url, model: model, formats: formats, eventLoop: loop)
          }
        // A model the store carries or one inferred from it is not the app's: saves keep
        // the hashes the file records.
        document.coordinator.keepsStoreVersionHashes = modelIsTheStores
        adopt(document, loop: loop)
      } catch {
        throw ScriptError.store(error, at: here)
      }
    case .save(let path):
      let url: URL? = if let path { try storeURL(path, at: here) } else { nil }
      try save(to: url, at: here)
    case .close:
      _ = try self.document(for: command.name, at: here)
      closeDocument()
    default:
      preconditionFailure("\(command.name) is not a store command")
    }
  }

  /// Several contexts on one document: switching, child contexts, merge policies.
  private func executeContextCommand(_ command: ScriptCommand, at here: InputLocation)
    throws(ScriptError)
  {
    switch command.kind {
    case .context(let name):
      try switchToContext(named: name, at: here)
    case .child(let name):
      try makeChild(named: name, at: here)
    case .mergePolicy(let policy):
      try document(for: command.name, at: here).mergePolicy = policy
    default:
      preconditionFailure("\(command.name) is not a context command")
    }
  }

  // MARK: State

  /// The document's undo manager.
  func undoManager(for command: String, at here: InputLocation) throws(ScriptError) -> UndoManager {
    guard let undo = try document(for: command, at: here).undoManager else {
      preconditionFailure("a script document always has an undo manager")
    }
    return undo
  }

  /// Runs an undo-manager call, turning its misuse into a script error.
  private func undoing(at here: InputLocation, _ body: () throws -> Void) throws(ScriptError) {
    do {
      try body()
    } catch let error as UndoError {
      throw ScriptError.undo(error, at: here)
    } catch let error as ScriptError {
      throw error
    } catch {
      preconditionFailure("undo-manager calls throw UndoError or ScriptError, not \(error)")
    }
  }

  /// Reports a turn the undo manager refused to register (grouping by event off, no group open).
  private func checkRegistration(of context: ManagedObjectContext, at here: InputLocation)
    throws(ScriptError)
  {
    if let error = context.undoRegistrationError {
      context.clearUndoRegistrationError()
      throw ScriptError.undo(error, at: here)
    }
  }

  private func adopt(_ document: Document, loop: ManualEventLoop) {
    self.document = document
    eventLoop = loop
    let main = ScriptContext(name: ScriptContext.mainName, context: document.context)
    contexts = [main]
    current = main
  }

  /// Closes every context; the next `new` or `open` starts again from `main`.
  private func closeDocument() {
    eventLoop = nil
    document = nil
    contexts = []
    current = nil
    bindings = [:]
    bindingOrder = []
    numbers = [:]
    numbersByID = [:]
    objectCount = 0
  }

  /// The current context, or `no-document` for `command`.
  func document(for command: String, at here: InputLocation) throws(ScriptError)
    -> ManagedObjectContext
  {
    guard let context else { throw ScriptError.noDocument(command, at: here) }
    return context
  }

  /// Whether `object` is deleted: marked deleted, or inserted and deleted before a save, and
  /// so gone from the graph.
  func isDeleted(_ object: ManagedObject) -> Bool {
    guard let context else { return true }
    return object.isDeleted || context.object(with: object.objectID) == nil
  }

  private func location(of command: ScriptCommand) -> InputLocation {
    InputLocation(file: command.location.file, line: command.location.line)
  }

  // MARK: Changing the graph

  /// Runs a graph call, turning its error into a script error at `here`.
  @discardableResult
  func graph<T>(at here: InputLocation, _ body: () throws(GraphError) -> T) throws(ScriptError)
    -> T
  {
    do {
      return try body()
    } catch {
      throw ScriptError.graph(error, at: here, details: details(of: error))
    }
  }

  /// The lines under a graph error's message: one per validation failure, one per merge
  /// conflict, naming objects as the script does.
  func details(of error: GraphError) -> [String] {
    error.failures.map(describe) + error.conflicts.map(describe)
  }

  /// `Entity.key ($name): message`, for a validation failure.
  private func describe(_ failure: ValidationFailure) -> String {
    let place = failure.key.map { "\(failure.entityName).\($0)" } ?? failure.entityName
    let object = current?.knownObjects.first { $0.objectID == failure.objectID }
    return "\(place) (\(object.map(name) ?? failure.objectID.description)): \(failure.message)"
  }

  private func set(
    _ key: String, of object: ManagedObject, to value: ScriptValue, at here: InputLocation
  )
    throws(ScriptError)
  {
    let argument = try argument(value, for: key, of: object, at: here)
    try graph(at: here) { () throws(GraphError) in try object.setValue(argument, forKey: key) }
  }

  /// The Swift value `setValue(_:forKey:)` takes for `value`: a decimal literal becomes a
  /// `Double` or `Float` for attributes of those types, a string a `URL` for a URI or object ID
  /// attribute, and a list of objects an array of them.
  private func argument(
    _ value: ScriptValue, for key: String, of object: ManagedObject, at here: InputLocation
  ) throws(ScriptError) -> Any? {
    let type = object.entity.attribute(named: key)?.attributeType
    switch value {
    case .null: return nil
    case .string(let text):
      if type == .uri || type == .objectID, let url = URL(string: text) { return url }
      return text
    case .integer(let number): return number
    case .decimal(let number):
      switch type {
      case .double?:
        return Double(number.description) ?? NSDecimalNumber(decimal: number).doubleValue
      case .float?: return Float(number.description) ?? NSDecimalNumber(decimal: number).floatValue
      default: return number
      }
    case .boolean(let flag): return flag
    case .date(let date): return date
    case .uuid(let uuid): return uuid
    case .data(let data): return data
    case .variable(let name): return try lookup(name, at: here)
    case .list(let values):
      var objects: [ManagedObject] = []
      var items: [Any] = []
      for item in values {
        let converted = try argument(item, for: key, of: object, at: here)
        if let object = converted as? ManagedObject { objects.append(object) }
        items.append(converted as Any)
      }
      return objects.count == items.count ? objects : items
    }
  }

  /// The objects `add` or `remove` takes: one `$variable`, or a list of them.
  private func objects(in value: ScriptValue, for command: String, at here: InputLocation)
    throws(ScriptError) -> [ManagedObject]
  {
    switch value {
    case .variable(let name): return [try lookup(name, at: here)]
    case .list(let values):
      var objects: [ManagedObject] = []
      for item in values {
        guard case .variable(let name) = item else {
          throw ScriptError.notObjects(command, found: item.text, at: here)
        }
        objects.append(try lookup(name, at: here))
      }
      return objects
    default:
      throw ScriptError.notObjects(command, found: value.text, at: here)
    }
  }
}
