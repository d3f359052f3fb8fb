import Folio
import Foundation

/// Copy, paste and duplicate, on a pasteboard that outlives documents.
///
/// The pasteboard is the runner's, as the system pasteboard is the user's: `model`, `new`,
/// `open` and `close` leave it as it is, so a script copies from one document and pastes into
/// another; each script starts with it empty. `duplicate` copies and pastes without touching
/// it, as an editor's Duplicate leaves what the user copied.
///
/// A paste that drops a reference to an object outside the copied set reports it on a line of
/// its own. The object may not be in the document pasted into at all, so the pasteboard keeps,
/// beside the copied objects, the name each object they refer to had when `copy` ran.
extension ScriptRunner {
  /// What `copy` put on the pasteboard, and how the script named what it refers to.
  struct ScriptPasteboard {
    var contents: Pasteboard
    /// The model of the context the objects were copied from: a paste into a document on
    /// another version of it migrates them.
    var model: ManagedObjectModel
    /// The name (`$rd`, `Department#2`) of each object outside the copied set that a copied
    /// object refers to, by its URI, as the script named it when it was copied.
    var names: [String: String]
  }

  /// `copy`, `paste` and `duplicate`.
  func executePasteboardCommand(_ command: ScriptCommand, at here: InputLocation)
    throws(ScriptError)
  {
    let context = try document(for: command.name, at: here)
    switch command.kind {
    case .copy(let variables):
      pasteboard = try copy(variables, from: context, at: here)
    case .paste(let variable):
      guard let pasteboard else { throw ScriptError.emptyPasteboard(at: here) }
      try paste(pasteboard, into: context, binding: variable, at: here)
    case .duplicate(let variables, let variable):
      let copied = try copy(variables, from: context, at: here)
      try paste(copied, into: context, binding: variable, at: here)
    default:
      preconditionFailure("\(command.name) is not a pasteboard command")
    }
  }

  /// The objects `variables` name, copied with what they own.
  private func copy(
    _ variables: [String], from context: ManagedObjectContext, at here: InputLocation
  ) throws(ScriptError) -> ScriptPasteboard {
    var objects: [ManagedObject] = []
    for variable in variables {
      let object = try lookup(variable, at: here)
      guard !isDeleted(object) else { throw ScriptError.deletedCopy(variable, at: here) }
      objects.append(object)
    }
    let contents = try graph(at: here) { () throws(GraphError) in
      try Pasteboard(copying: objects)
    }
    var names: [String: String] = [:]
    for uri in contents.outsideURIs {
      guard let url = URL(string: uri), let id = context.managedObjectID(forURIRepresentation: url),
        let object = context.object(with: id)
      else { continue }
      names[uri] = name(of: object)
    }
    return ScriptPasteboard(contents: contents, model: context.model, names: names)
  }

  /// Pastes `copied` into `context`, names the copies, binds the first root to `variable`, and
  /// writes a line for each reference dropped.
  private func paste(
    _ copied: ScriptPasteboard, into context: ManagedObjectContext, binding variable: String?,
    at here: InputLocation
  ) throws(ScriptError) {
    let result = try graph(at: here) { () throws(GraphError) in
      try context.paste(copied.contents, from: copied.model)
    }
    // A mapping may leave every copied entity out (a model that shares nothing with the one
    // copied from): nothing was pasted, and the script says why rather than binding nothing.
    if result.objects.isEmpty, let first = copied.contents.rootEntityNames.first {
      throw ScriptError.graph(
        GraphError(
          .unknownEntity,
          "the pasteboard holds objects of entity \"\(first)\", which the model lacks",
          at: InputLocation(entity: first)),
        at: here, details: [])
    }
    for object in result.objects { register(object) }
    if let variable, let root = result.roots.first { bind(variable, to: root) }
    for dropped in result.droppedReferences {
      let uri = dropped.uri.absoluteString
      output(
        "dropped \(name(of: dropped.object)).\(dropped.relationship) -> "
          + "\(copied.names[uri] ?? uri) (\(Self.name(of: dropped.reason)))")
    }
  }

  /// A reason's name in a script's output: `other-store`, `not-found`, `inverse-held`.
  static func name(of reason: DroppedReference.Reason) -> String {
    reason.description.reduce(into: "") { name, character in
      name += character.isUppercase ? "-" + character.lowercased() : String(character)
    }
  }
}
