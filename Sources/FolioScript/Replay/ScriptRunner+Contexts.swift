import Folio
import Foundation

/// Several contexts on one document, and the variables and object numbers they share.
///
/// A document starts with one context, `main`. `context NAME` adds a root context on the same
/// coordinator (it reads what is committed, and its saves write the file), `child NAME` a child
/// of the current one (its saves push into its parent). Each has its own undo manager on the
/// document's event loop, so `turn` ends the turn in all of them.
///
/// A variable names an object ID. It is bound in the context that was current when `insert`
/// or `fetch … as` bound it, and there it means the very object bound, even once it has left
/// the graph. Used while another context is current, it means that context's object with the
/// same ID — the ID the bound object has *now*, so an object saved since it was bound is found
/// under its permanent ID. Object numbers work the same way: the instances of one object in
/// several contexts share a number, and an object fetched again after `reset` gets its old one.
extension ScriptRunner {
  /// A context of the script's document: its name, and the objects the script met in it.
  final class ScriptContext {
    /// The name of the context `new` and `open` start.
    static let mainName = "main"

    let name: String
    let context: ManagedObjectContext
    /// The objects the script met in the context, in the order it met them.
    var knownObjects: [ManagedObject] = []

    init(name: String, context: ManagedObjectContext) {
      self.name = name
      self.context = context
    }
  }

  /// What a variable is bound to: an object, and the context it was bound in.
  struct Binding {
    var object: ManagedObject
    var context: ScriptContext
  }

  // MARK: Commands

  /// `context NAME`: makes the context NAME current, creating it on the document's coordinator
  /// if there is none of that name.
  func switchToContext(named name: String, at here: InputLocation) throws(ScriptError) {
    _ = try document(for: "context", at: here)
    if let existing = contexts.first(where: { $0.name == name }) {
      current = existing
      return
    }
    guard let document, let eventLoop else {
      preconditionFailure("a script context belongs to a document with an event loop")
    }
    let context = try graph(at: here) { () throws(GraphError) in
      try ManagedObjectContext(
        coordinator: document.coordinator, undoManager: UndoManager(eventLoop: eventLoop))
    }
    adoptContext(context, named: name)
  }

  /// `child NAME`: creates a child of the current context and makes it current.
  func makeChild(named name: String, at here: InputLocation) throws(ScriptError) {
    let parent = try document(for: "child", at: here)
    guard !contexts.contains(where: { $0.name == name }) else {
      throw ScriptError.contextExists(name, at: here)
    }
    guard let eventLoop else {
      preconditionFailure("a script context belongs to a document with an event loop")
    }
    adoptContext(
      ManagedObjectContext(parent: parent, undoManager: UndoManager(eventLoop: eventLoop)),
      named: name)
  }

  private func adoptContext(_ context: ManagedObjectContext, named name: String) {
    let made = ScriptContext(name: name, context: context)
    contexts.append(made)
    current = made
  }

  /// `save` and `save PATH`: a child pushes its changes into its parent, a root context saves
  /// the file, and only `main` saves as another file.
  func save(to url: URL?, at here: InputLocation) throws(ScriptError) {
    let context = try document(for: "save", at: here)
    if let saveRefusal { throw ScriptError(.model, saveRefusal, at: here) }
    guard let document, let current else {
      preconditionFailure("a script context belongs to a document")
    }
    do {
      if let url {
        guard context === document.context else {
          throw ScriptError.saveAsOutsideMain(current.name, at: here)
        }
        try document.save(to: url, formats: formats)
      } else if context === document.context {
        try document.save()
      } else {
        if context.parent == nil, document.fileURL == nil {
          throw ScriptError.untitled(current.name, at: here)
        }
        try context.save()
      }
    } catch let error as ScriptError {
      throw error
    } catch let error as GraphError {
      throw ScriptError.graph(error, at: here, details: details(of: error))
    } catch {
      throw ScriptError.store(error, at: here)
    }
    // A save gives inserted objects permanent IDs: their numbers follow them.
    for known in contexts {
      for object in known.knownObjects {
        numbersByID[object.objectID] = numbers[ObjectIdentifier(object)]
      }
    }
  }

  // MARK: Variables

  func bind(_ variable: String, to object: ManagedObject) {
    guard let current else { preconditionFailure("variables are bound in a document's context") }
    if bindings[variable] == nil { bindingOrder.append(variable) }
    bindings[variable] = Binding(object: object, context: current)
  }

  /// The object `$variable` names in the current context.
  func lookup(_ variable: String, at here: InputLocation) throws(ScriptError) -> ManagedObject {
    guard let binding = bindings[variable] else {
      throw ScriptError.unknownVariable(variable, bound: bindingOrder, at: here)
    }
    guard let current, binding.context !== current else { return binding.object }
    guard let object = current.context.object(with: binding.object.objectID) else {
      throw ScriptError.notInContext(variable, context: current.name, at: here)
    }
    return object
  }

  /// Forgets the variables bound in `context` and the objects met there, after `reset`: they
  /// left it. Saved objects keep their numbers, for when a fetch finds them again.
  func forgetObjects(of context: ScriptContext) {
    bindingOrder.removeAll { bindings[$0]?.context === context }
    bindings = bindings.filter { $0.value.context !== context }
    for object in context.knownObjects {
      numbers[ObjectIdentifier(object)] = nil
      let id = object.objectID
      if id.isTemporaryID { numbersByID[id] = nil }
    }
    context.knownObjects = []
  }

  // MARK: Naming objects

  func register(_ object: ManagedObject) {
    let key = ObjectIdentifier(object)
    guard numbers[key] == nil else { return }
    let id = object.objectID
    let number: Int
    if let known = numbersByID[id] {
      number = known
    } else {
      objectCount += 1
      number = objectCount
      numbersByID[id] = number
    }
    numbers[key] = number
    let owner = object.managedObjectContext
    (contexts.first { $0.context === owner } ?? current)?.knownObjects.append(object)
  }

  /// The object's number: its place in the order the script met the document's objects.
  func number(of object: ManagedObject) -> Int {
    register(object)
    return numbers[ObjectIdentifier(object)] ?? 0
  }

  /// How scripts name an object: the first variable that names it in its context, or
  /// `Entity#N`.
  func name(of object: ManagedObject) -> String {
    let owner = object.managedObjectContext
    var id: ManagedObjectID?
    for variable in bindingOrder {
      guard let binding = bindings[variable] else { continue }
      if binding.object === object { return "$\(variable)" }
      guard let owner, binding.context.context !== owner else { continue }
      if id == nil { id = object.objectID }
      if binding.object.objectID == id { return "$\(variable)" }
    }
    return "\(object.entityName)#\(number(of: object))"
  }

  // MARK: Merge conflicts

  /// `Person $ada (version 1 read, 2 committed): name read "Ada", committed "Ada King", pending
  /// "Augusta"`: one line per conflict, with values and objects as the script writes them.
  func describe(_ conflict: MergeConflict) -> String {
    let id = conflict.objectID
    let object = context?.object(with: id)
    let name = object.map(name(of:)) ?? id.description
    var text = name.hasPrefix("$") ? "\(id.entityName) \(name)" : name
    text += " (version \(conflict.snapshotVersion) read, \(conflict.committedVersion) committed)"
    var parts: [String] = []
    if conflict.committed == nil { parts.append("deleted by another context") }
    if conflict.pending == nil { parts.append("deleted in this context") }
    let entity = model?.entity(named: id.entityName)
    for key in conflict.snapshot.keys.sorted() {
      func value(in values: [String: ConflictValue]?) -> String {
        guard let values else { return "deleted" }
        return self.text(of: values[key] ?? .null, key: key, entity: entity)
      }
      parts.append(
        "\(key) read \(value(in: conflict.snapshot)), committed \(value(in: conflict.committed)), "
          + "pending \(value(in: conflict.pending))")
    }
    return parts.isEmpty ? text : "\(text): \(parts.joined(separator: "; "))"
  }

  private func text(of value: ConflictValue, key: String, entity: EntityDescription?) -> String {
    switch value {
    case .null: return "nil"
    case .attribute(let attribute): return text(of: RuntimeValue(attribute: attribute))
    case .objects(let ids):
      let objects = ids.map { id in
        context?.object(with: id).map(RuntimeValue.object) ?? .other(id.description)
      }
      let relationship = entity?.relationship(named: key)
      if relationship?.isToMany == false { return objects.first.map { text(of: $0) } ?? "nil" }
      return text(of: .list(objects, isOrdered: relationship?.isOrdered ?? true))
    }
  }
}
