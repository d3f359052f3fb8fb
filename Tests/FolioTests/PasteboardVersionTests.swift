import Folio
import FolioTestSupport
import Foundation
import Testing

/// Pasting objects copied from an older version of the Library model into a newer one.
@Suite("Pasteboard: pasting into another model version")
struct PasteboardVersionTests {
  let bundle: ModelBundle

  init() throws {
    bundle = try ModelBundle(
      contentsOf: packageRoot.appendingPathComponent("Samples/Library/Library.xcdatamodeld"))
  }

  func model(_ version: Int) -> ManagedObjectModel { bundle.versions[version - 1].model }

  /// A Library 2 document: the book "Notes" (#3366cc, 120 pages, rated 4) by the writer Ada.
  func versionTwo() throws -> (document: Document, book: ManagedObject, ada: ManagedObject) {
    let document = try Document(model: model(2))
    let context = document.context
    let ada = try context.insertNewObject(forEntityName: "Writer")
    try ada.setValue("Ada", forKey: "name")
    let book = try context.insertNewObject(forEntityName: "Book")
    try book.setValue("Notes", forKey: "title")
    try book.setValue("#3366cc", forKey: "hexColor")
    try book.setValue(120, forKey: "pages")
    try book.setValue(4, forKey: "rating")
    try book.setValue(Set([ada]), forKey: "authors")
    return (document, book, ada)
  }

  @Test("a book copied from Library 2 pastes into Library 3 through the inferred mapping")
  func pastesIntoNewestVersion() throws {
    let two = try versionTwo()
    let pasteboard = try Pasteboard(copying: [two.book])
    let newest = try Document(model: model(3))
    let result = try newest.context.paste(pasteboard, from: model(2))
    let copy = try #require(result.roots.first)
    #expect(result.objects.count == 1)
    #expect(copy.entityName == "Book")
    #expect(try copy.value(forKey: "title") as? String == "Notes")
    #expect(try copy.value(forKey: "hexColor") as? String == "#3366cc")
    #expect(try copy.value(forKey: "pages") as? Int == 120)
    #expect(try copy.value(forKey: "rating") as? Int == 4)
    #expect(try copy.value(forKey: "shelf") == nil)
    // The writer is in another store: the reference is dropped, as a plain paste drops it.
    #expect(result.droppedReferences.map(\.relationship) == ["authors"])
    #expect(result.droppedReferences.first?.reason == .otherStore)
    #expect(try count("Book", in: newest.context) == 1)
  }

  @Test("renamed attributes carry their values, and a reference no relationship keeps is dropped")
  func renamesAndUnmappedReference() throws {
    let old = try Document(model: model(1))
    let ada = try old.context.insertNewObject(forEntityName: "Author")
    try ada.setValue("Ada", forKey: "name")
    let book = try old.context.insertNewObject(forEntityName: "Book")
    try book.setValue("Notes", forKey: "title")
    try book.setValue("#3366cc", forKey: "color")
    try book.setValue(ada, forKey: "author")
    let newer = try Document(model: model(2))
    let result = try newer.context.paste(try Pasteboard(copying: [book]), from: model(1))
    let copy = try #require(result.roots.first)
    #expect(try copy.value(forKey: "hexColor") as? String == "#3366cc")
    #expect(try copy.value(forKey: "title") as? String == "Notes")
    // Version 2 calls the relationship "authors": "author" keeps nothing there.
    let dropped = try #require(result.droppedReferences.first)
    #expect(result.droppedReferences.count == 1)
    #expect(dropped.object === copy)
    #expect(dropped.relationship == "author")
    #expect(dropped.uri == ada.objectID.uriRepresentation)
    #expect(dropped.reason == .notMapped)
    #expect(dropped.reason.description == "notMapped")
  }

  @Test("a reference into the same store is re-attached by the relationship of that name")
  func reattachesInSameStore() throws {
    let (document, book, _) = try versionTwo()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("library.xml")
    try document.save(to: url, format: XMLStore())
    let pasteboard = try Pasteboard(copying: [book])
    let newest = try Document.open(url, bundle: bundle, formats: [XMLStore()])
    #expect(newest.model.entity(named: "Shelf") != nil)
    let result = try newest.context.paste(pasteboard, from: model(2))
    let copy = try #require(result.roots.first)
    #expect(result.droppedReferences.isEmpty)
    let authors = try #require(try copy.value(forKey: "authors") as? Set<ManagedObject>)
    #expect(try authors.map { try $0.value(forKey: "name") as? String } == ["Ada"])
    #expect(try count("Book", in: newest.context) == 2)
  }

  @Test("a paste across versions undoes and redoes as one step named Paste")
  func undoRedo() throws {
    let two = try versionTwo()
    let pasteboard = try Pasteboard(copying: [two.book])
    let loop = ManualEventLoop()
    let newest = try Document(model: model(3), eventLoop: loop)
    let undo = try #require(newest.undoManager)
    let steps = undo.undoCount
    let result = try newest.context.paste(pasteboard, from: model(2))
    loop.endTurn()
    #expect(undo.undoCount == steps + 1)
    #expect(undo.undoActionName == "Paste")
    try undo.undo()
    #expect(try count("Book", in: newest.context) == 0)
    #expect(undo.redoActionName == "Paste")
    try undo.redo()
    #expect(try count("Book", in: newest.context) == 1)
    let copy = try #require(result.roots.first)
    #expect(!copy.isDeleted)
    #expect(try copy.value(forKey: "hexColor") as? String == "#3366cc")
  }

  @Test("a pasteboard of an unrelated model is refused, naming the entity")
  func unrelatedModel() throws {
    let fixture = try BoardFixture()
    let pasteboard = try Pasteboard(copying: [fixture.board])
    let newest = try Document(model: model(3))
    do {
      _ = try newest.context.paste(pasteboard, from: model(2))
      Issue.record("pasted a pasteboard of an unrelated model")
    } catch {
      #expect(error.code == .modelMismatch)
      #expect(error.location?.entity == "Board")
      #expect(error.message.contains("Board"))
    }
    #expect(!newest.context.hasChanges)
  }

  @Test("paste(_:) still refuses a pasteboard of another model version")
  func plainPasteRefuses() throws {
    let two = try versionTwo()
    let newest = try Document(model: model(3))
    do {
      _ = try newest.context.paste(try Pasteboard(copying: [two.book]))
      Issue.record("pasted across model versions without a mapping")
    } catch {
      #expect(error.code == .modelMismatch)
      #expect(error.location?.entity == "Book")
    }
    #expect(!newest.context.hasChanges)
  }

  @Test("a pasteboard already of the context's model pastes as paste(_:) does")
  func sameVersion() throws {
    let fixture = try BoardFixture()
    let pasteboard = try Pasteboard(copying: [fixture.board])
    let result = try fixture.context.paste(pasteboard, from: model(2))
    let copy = try #require(result.roots.first)
    #expect(try texts(copy.value(forKey: "cards")) == ["a", "b", "c"])
    #expect(try copy.value(forKey: "owner") as? ManagedObject === fixture.ada)
    #expect(result.droppedReferences.map(\.reason) == [.inverseHeld])
  }

  @Test("a change no lightweight migration makes is refused, and nothing changes")
  func needsMapping() throws {
    let old = try ManagedObjectModel {
      EntityDescription("Note") { AttributeDescription("text", .string) }
    }
    let new = try ManagedObjectModel {
      EntityDescription("Note") { AttributeDescription("text", .integer64) }
    }
    let source = try Document(model: old)
    let note = try source.context.insertNewObject(forEntityName: "Note")
    try note.setValue("later", forKey: "text")
    let target = try Document(model: new)
    do {
      _ = try target.context.paste(try Pasteboard(copying: [note]), from: old)
      Issue.record("pasted through a mapping that cannot be inferred")
    } catch {
      #expect(error.code == .modelMismatch)
      #expect(error.location?.entity == "Note")
      #expect(error.location?.property == "text")
      #expect(error.message.contains("lightweight migration"))
    }
    #expect(!target.context.hasChanges)
    // A mapping that names an attribute the models lack is refused the same way.
    let mapping = MappingModel(entityMappings: [
      EntityMapping(
        name: "NoteToNote", mappingType: .transform, sourceEntityName: "Note",
        destinationEntityName: "Note",
        attributeMappings: [
          PropertyMapping(
            name: "missing", valueExpression: .keyPath(.variable("source"), "text"))
        ])
    ])
    #expect(throws: GraphError.self) {
      try target.context.paste(try Pasteboard(copying: [note]), from: old, mapping: mapping)
    }
    #expect(!target.context.hasChanges)
  }
}
