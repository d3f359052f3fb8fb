import Folio
import Foundation

/// Pasting copied objects: any bytes, read as a pasteboard's JSON (`Formats/pasteboard.md`)
/// with `Pasteboard(data:)`, then pasted into a fresh document of `Fuzz/Seeds/xml-store/
/// everything.xml` on the Everything model. The seeds were copied from that document, so their
/// store identifier and outside URIs name its objects, and pastes re-attach them.
///
/// A pasteboard that reads is written again with `data()` and must read back equal. A paste
/// refused must leave the context as it was: nothing inserted, nothing to undo or redo, no
/// change. A paste taken inserts one object per copied object, with the graph's invariants
/// holding; undo removes every pasted object and gives back the graph from before the paste,
/// and redo brings the pasted graph back as it was.
package enum PasteboardFuzzing: FuzzTarget {
  nonisolated(unsafe) static var store = ScratchFile("pasteboard.xml")

  package static func prepare() {
    let seed = FixedModels.root.appendingPathComponent("Fuzz/Seeds/xml-store/everything.xml")
    guard let bytes = FileManager.default.contents(atPath: seed.path) else {
      preconditionFailure("the seed store \(seed.path) is missing")
    }
    store.write(bytes)
    run(
      Data(
        #"{"format":"folio-pasteboard","version":1,"store":null,"entities":{},"roots":[],"objects":[]}"#
          .utf8))
  }

  package static func run(_ input: Data) {
    let pasteboard: Pasteboard
    do {
      pasteboard = try Pasteboard(data: input)
    } catch {
      // `Pasteboard(data:)` throws `PasteboardError` only: its signature says so.
      attempt("reading") { throw error }
      return
    }
    let written = pasteboard.data()
    do {
      let again = try Pasteboard(data: written)
      precondition(
        again == pasteboard,
        "a pasteboard written again reads back different:\n\(String(decoding: written, as: UTF8.self))"
      )
    } catch {
      preconditionFailure("a pasteboard written again does not read back: \(error)")
    }
    paste(pasteboard)
  }

  private static func paste(_ pasteboard: Pasteboard) {
    let loop = ManualEventLoop()
    let document: Document
    do {
      document = try Document.open(
        store.url, model: FixedModels.all[3], formats: [XMLStore()], eventLoop: loop)
    } catch {
      preconditionFailure("the seed store does not open: \(error)")
    }
    let context = document.context
    guard let undoManager = document.undoManager else {
      preconditionFailure("a document has no undo manager")
    }
    let before = describe(context)
    let result: PasteResult
    do {
      result = try context.paste(pasteboard)
    } catch {
      attempt("pasting") { throw error }
      loop.endTurn()
      precondition(!undoManager.canUndo && !undoManager.canRedo, "a refused paste left steps")
      precondition(context.insertedObjects.isEmpty, "a refused paste left objects inserted")
      precondition(!context.hasChanges, "a refused paste left changes")
      check(context, "after a refused paste")
      precondition(describe(context) == before, "a refused paste changed the graph")
      return
    }
    loop.endTurn()
    let pasted = Set(result.objects)
    precondition(
      result.objects.count == pasteboard.objectCount && pasted.count == result.objects.count,
      "a paste of \(pasteboard.objectCount) objects inserted \(pasted.count)")
    precondition(
      result.roots.allSatisfy(pasted.contains), "a paste returned roots it did not insert")
    precondition(context.insertedObjects == pasted, "the objects inserted are not those pasted")
    check(context, "after pasting")
    guard !pasted.isEmpty else {
      precondition(!undoManager.canUndo, "an empty paste left a step to undo")
      return
    }
    let after = describe(context)
    precondition(undoManager.canUndo, "a paste left nothing to undo")
    do {
      try undoManager.undo()
    } catch {
      preconditionFailure("a paste does not undo: \(error)")
    }
    check(context, "after undoing a paste")
    precondition(context.insertedObjects.isEmpty, "undoing a paste left objects inserted")
    precondition(
      context.registeredObjects.isDisjoint(with: pasted), "undoing a paste left pasted objects")
    precondition(describe(context) == before, "undoing a paste did not give the graph back")
    do {
      try undoManager.redo()
    } catch {
      preconditionFailure("a paste does not redo: \(error)")
    }
    check(context, "after redoing a paste")
    precondition(context.insertedObjects == pasted, "redoing a paste did not insert its objects")
    precondition(describe(context) == after, "redoing a paste did not give the pasted graph back")
  }

  /// Pasteboards copied from the seed document (`Pasteboard(copying:).data()`): each of its
  /// objects with what it owns, all of them at once, a graph of new objects with a value of
  /// every type (temporary URIs), and nothing.
  package static func seeds() -> [(name: String, data: Data)] {
    let seed = FixedModels.root.appendingPathComponent("Fuzz/Seeds/xml-store/everything.xml")
    guard let bytes = FileManager.default.contents(atPath: seed.path) else {
      preconditionFailure("the seed store \(seed.path) is missing")
    }
    store.write(bytes)
    let loop = ManualEventLoop()
    do {
      let document = try Document.open(
        store.url, model: FixedModels.all[3], formats: [XMLStore()], eventLoop: loop)
      let context = document.context
      let saved = context.registeredObjects.sorted {
        $0.objectID.description < $1.objectID.description
      }
      func named(_ entity: String, _ key: String, _ value: String) throws -> ManagedObject {
        for object in saved where object.entityName == entity {
          if try object.value(forKey: key) as? String == value { return object }
        }
        preconditionFailure("the seed store has no \(entity) \(value)")
      }
      let ada = try named("Person", "name", "Ada")
      let bob = try named("Employee", "name", "Bob")
      let tag = try named("Tag", "label", "tag")
      let things = saved.filter { $0.entityName == "Everything" }
      var seeds: [(name: String, data: Data)] = []
      func copy(_ name: String, _ roots: [ManagedObject]) throws {
        seeds.append((name: "\(name).json", data: try Pasteboard(copying: roots).data()))
      }
      try copy("ada", [ada])
      try copy("bob", [bob])
      try copy("tag", [tag])
      try copy("everything", things)
      try copy("thing", [things[0]])
      try copy("everyone", [bob, tag, ada])
      try copy("empty", [])
      // New objects: a couple and their things, one with a value of every type.
      let cy = try context.insertNewObject(forEntityName: "Person")
      try cy.setValue("Cy", forKey: "name")
      let di = try context.insertNewObject(forEntityName: "Employee")
      try di.setValue("Di", forKey: "name")
      try di.setValue(Decimal(string: "1e-30"), forKey: "salary")
      try cy.setValue(di, forKey: "spouse")
      try cy.setValue(Set([ada, di]), forKey: "friends")
      try cy.setValue(Set([tag]), forKey: "tags")
      let full = try context.insertNewObject(forEntityName: "Everything")
      let values: [String: Any] = [
        "binary": Data([0, 255]), "boolean": false,
        "date": Date(timeIntervalSinceReferenceDate: -978_307_200.123456),
        "decimal": Decimal(string: "3.14159")!, "double": Double.nan, "float": -Float.zero,
        "int16": Int(Int16.min), "int32": Int(Int32.max), "int64": Int(Int64.min),
        "location": AttributeValue.composite(["floor": .integer(-1), "label": .string("basement")]),
        "scratch": "not copied", "string": "\u{0}\u{1F600}\"\\",
        "transformable": ["a", 1, ["k": 2.5] as [String: Any]] as [Any],
        "uri": URL(string: "file:///tmp/a%20b")!,
        "uuid": UUID(uuidString: "00000000-0000-0000-0000-0000000000FF")!,
      ]
      for (key, value) in values { try full.setValue(value, forKey: key) }
      let infinite = try context.insertNewObject(forEntityName: "Everything")
      try infinite.setValue(Double.infinity, forKey: "double")
      try infinite.setValue(-Float.infinity, forKey: "float")
      try infinite.setValue(Date(timeIntervalSinceReferenceDate: 0.1), forKey: "date")
      try cy.setValue([full, infinite, things[1]], forKey: "things")
      loop.endTurn()
      try copy("new-objects", [cy])
      try copy("new-and-saved", [things[1], cy, ada])
      return seeds
    } catch {
      preconditionFailure("the seed pasteboards cannot be made: \(error)")
    }
  }

  static func check(_ context: ManagedObjectContext, _ when: String) {
    let broken = context.brokenInvariants()
    precondition(broken.isEmpty, "\(when): \(broken.joined(separator: "; "))")
  }

  /// Every object of the graph that is not deleted, by URI, with its values: relationships as
  /// their targets' URIs (sorted unless ordered), attributes as ``ValueDescription`` gives them.
  static func describe(_ context: ManagedObjectContext) -> String {
    var lines: [String] = []
    for object in context.registeredObjects where !object.isDeleted {
      var line = object.objectID.description
      let names =
        object.entity.allAttributes.map(\.name) + object.entity.allRelationships.map(\.name)
      for name in names.sorted() {
        let value: Any?
        do {
          value = try object.value(forKey: name)
        } catch {
          value = "unreadable: \(error)"
        }
        line += " \(name)=" + describeValue(value)
      }
      lines.append(line)
    }
    return lines.sorted().joined(separator: "\n")
  }

  private static func describeValue(_ value: Any?) -> String {
    switch value {
    case let object as ManagedObject:
      return object.objectID.description
    case let objects as [ManagedObject]:
      return "[" + objects.map(\.objectID.description).joined(separator: " ") + "]"
    case let objects as Set<ManagedObject>:
      return "{" + objects.map(\.objectID.description).sorted().joined(separator: " ") + "}"
    default:
      guard let text = ValueDescription.describe(value) else {
        preconditionFailure("an attribute holds a value of an unknown type: \(value ?? "nil")")
      }
      return text
    }
  }
}
