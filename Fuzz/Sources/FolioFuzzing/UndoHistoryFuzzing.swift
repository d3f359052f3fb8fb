import Folio
import Foundation

/// Setting a kept undo history up again: any bytes, as the JSON of a `.folio-undo` file
/// (`Formats/undo-history.md` §3), restored into a fresh document — `Fuzz/Seeds/xml-store/
/// everything.xml` on the Everything model. Object URIs cannot be guessed, so a string `"@N"`
/// (N a digit) in the input stands for the URI of the document's Nth object, in URI order.
///
/// A history refused must leave the context as it was: nothing to undo, no changes, every
/// relationship agreeing with its inverse. A history taken up is undone to its start and
/// redone to its end, and the graph must keep its invariants after every step.
package enum UndoHistoryFuzzing: FuzzTarget {
  nonisolated(unsafe) static var store = ScratchFile("undo-history.xml")
  nonisolated(unsafe) static var uris: [String] = []

  package static func prepare() {
    let seed = FixedModels.root.appendingPathComponent("Fuzz/Seeds/xml-store/everything.xml")
    guard let bytes = FileManager.default.contents(atPath: seed.path) else {
      preconditionFailure("the seed store \(seed.path) is missing")
    }
    store.write(bytes)
    let document = open()
    var found: Set<String> = []
    for entity in document.model.entities {
      let objects = try? document.context.fetch(
        FetchRequest<ManagedObject>(entityName: entity.name))
      for object in objects ?? [] { found.insert(object.objectID.uriRepresentation.absoluteString) }
    }
    uris = found.sorted()
    run(Data(#"{"format":1,"objects":[],"undo":[],"redo":[]}"#.utf8))
  }

  static func open() -> Document {
    do {
      return try Document.open(store.url, model: FixedModels.all[3], formats: [XMLStore()])
    } catch {
      preconditionFailure("the seed store does not open: \(error)")
    }
  }

  package static func run(_ input: Data) {
    var text = String(decoding: input, as: UTF8.self)
    for (index, uri) in uris.enumerated().prefix(10) {
      text = text.replacingOccurrences(of: "\"@\(index)\"", with: "\"\(uri)\"")
    }
    let document = open()
    let context = document.context
    guard let undoManager = document.undoManager else { return }
    do {
      try context.restoreUndoHistory(from: Data(text.utf8))
    } catch {
      precondition(!undoManager.canUndo && !undoManager.canRedo, "a refused history left steps")
      precondition(!context.hasChanges, "a refused history left changes")
      check(context, "after a refused history")
      return
    }
    check(context, "after restoring")
    var steps = 0
    while undoManager.canUndo, steps < 64 {
      try? undoManager.undo()
      steps += 1
      check(context, "after undo \(steps)")
    }
    while undoManager.canRedo, steps < 128 {
      try? undoManager.redo()
      steps += 1
      check(context, "after redo \(steps)")
    }
  }

  static func check(_ context: ManagedObjectContext, _ when: String) {
    let broken = context.brokenInvariants()
    precondition(broken.isEmpty, "\(when): \(broken.joined(separator: "; "))")
  }
}
