import Folio
import FolioTestSupport
import Foundation
import Testing

/// Boards own their cards (Cascade, ordered); a card owns the cards it links to (Cascade, so
/// links can form cycles). A board's owner, tags and desk are outside it: a to-many inverse, a
/// many-to-many, and a one-to-one.
func pasteboardModel(boardExtra: Bool = false) throws -> ManagedObjectModel {
  var scratch = AttributeDescription("scratch", .string)
  scratch.isTransient = true
  var board = EntityDescription("Board") {
    AttributeDescription("title", .string)
    scratch
    RelationshipDescription(
      "cards", to: "Card", inverse: "board", toMany: true, ordered: true, deleteRule: .cascade)
    RelationshipDescription("owner", to: "Person", inverse: "boards")
    RelationshipDescription("tags", to: "Tag", inverse: "boards", toMany: true)
    RelationshipDescription("desk", to: "Desk", inverse: "board")
  }
  if boardExtra { board.attributes.append(AttributeDescription("colour", .string)) }
  return try ManagedObjectModel {
    board
    EntityDescription("Card") {
      AttributeDescription("text", .string)
      RelationshipDescription("board", to: "Board", inverse: "cards")
      RelationshipDescription(
        "links", to: "Card", inverse: "linkedFrom", toMany: true, deleteRule: .cascade)
      RelationshipDescription("linkedFrom", to: "Card", inverse: "links", toMany: true)
    }
    EntityDescription("Person") {
      AttributeDescription("name", .string)
      RelationshipDescription("boards", to: "Board", inverse: "owner", toMany: true)
    }
    EntityDescription("Tag") {
      AttributeDescription("name", .string)
      RelationshipDescription("boards", to: "Board", inverse: "tags", toMany: true)
    }
    EntityDescription("Desk") {
      AttributeDescription("label", .string)
      RelationshipDescription("board", to: "Board", inverse: "desk")
    }
  }
}

/// A board "Plan" with cards a, b, c (in that order), owned by Ada, tagged "work", at desk 1.
struct BoardFixture {
  let document: Document
  let loop: ManualEventLoop
  let board: ManagedObject
  let cards: [ManagedObject]
  let ada: ManagedObject
  let tag: ManagedObject
  let desk: ManagedObject
  var context: ManagedObjectContext { document.context }

  init(model: ManagedObjectModel? = nil) throws {
    loop = ManualEventLoop()
    document = try Document(model: try model ?? pasteboardModel(), eventLoop: loop)
    let context = document.context
    func insert(_ entity: String, _ key: String, _ value: String) throws -> ManagedObject {
      let object = try context.insertNewObject(forEntityName: entity)
      try object.setValue(value, forKey: key)
      return object
    }
    board = try insert("Board", "title", "Plan")
    try board.setValue("draft", forKey: "scratch")
    cards = try ["a", "b", "c"].map { try insert("Card", "text", $0) }
    try board.setValue(cards, forKey: "cards")
    ada = try insert("Person", "name", "Ada")
    tag = try insert("Tag", "name", "work")
    desk = try insert("Desk", "label", "1")
    try board.setValue(ada, forKey: "owner")
    try board.setValue(Set([tag]), forKey: "tags")
    try board.setValue(desk, forKey: "desk")
    loop.endTurn()
  }
}

func texts(_ value: Any?) throws -> [String] {
  try (value as? [ManagedObject] ?? []).map { try $0.value(forKey: "text") as? String ?? "" }
}

func count(_ entity: String, in context: ManagedObjectContext) throws -> Int {
  try context.objects(ofEntity: entity).count
}

@Suite("Pasteboard: copy, paste, duplicate")
struct PasteboardTests {
  @Test("duplicate copies what a board owns and re-attaches what it refers to")
  func duplicateInDocument() throws {
    let fixture = try BoardFixture()
    let result = try fixture.context.duplicate([fixture.board])
    let copy = try #require(result.roots.first)
    #expect(result.roots.count == 1)
    #expect(result.objects.count == 4)
    #expect(copy !== fixture.board)
    #expect(try copy.value(forKey: "title") as? String == "Plan")
    #expect(try copy.value(forKey: "scratch") == nil)
    let cards = try #require(try copy.value(forKey: "cards") as? [ManagedObject])
    #expect(try texts(cards) == ["a", "b", "c"])
    #expect(cards.allSatisfy { card in !fixture.cards.contains { $0 === card } })
    #expect(try copy.value(forKey: "owner") as? ManagedObject === fixture.ada)
    #expect((try fixture.ada.value(forKey: "boards") as? Set<ManagedObject>)?.count == 2)
    #expect(try copy.value(forKey: "tags") as? Set<ManagedObject> == [fixture.tag])
    // The desk stays with the original: a one-to-one is not taken from it.
    #expect(try copy.value(forKey: "desk") == nil)
    #expect(try fixture.board.value(forKey: "desk") as? ManagedObject === fixture.desk)
    #expect(result.droppedReferences.count == 1)
    let dropped = try #require(result.droppedReferences.first)
    #expect(dropped.object === copy)
    #expect(dropped.relationship == "desk")
    #expect(dropped.uri == fixture.desk.objectID.uriRepresentation)
    #expect(dropped.reason == .inverseHeld)
    #expect(dropped.reason.description == "inverseHeld")
    #expect(try texts(fixture.board.value(forKey: "cards")) == ["a", "b", "c"])
  }

  @Test("a paste undoes and redoes as one step named Paste")
  func undoRedo() throws {
    let fixture = try BoardFixture()
    let undo = try #require(fixture.document.undoManager)
    let steps = undo.undoCount
    let result = try fixture.context.paste(try Pasteboard(copying: [fixture.board]))
    fixture.loop.endTurn()
    #expect(undo.undoCount == steps + 1)
    #expect(undo.undoActionName == "Paste")
    #expect(try count("Board", in: fixture.context) == 2)
    #expect(try count("Card", in: fixture.context) == 6)
    try undo.undo()
    #expect(try count("Board", in: fixture.context) == 1)
    #expect(try count("Card", in: fixture.context) == 3)
    #expect((try fixture.ada.value(forKey: "boards") as? Set<ManagedObject>) == [fixture.board])
    #expect(undo.redoActionName == "Paste")
    try undo.redo()
    #expect(try count("Board", in: fixture.context) == 2)
    let copy = try #require(result.roots.first)
    #expect(!copy.isDeleted)
    #expect(try texts(copy.value(forKey: "cards")) == ["a", "b", "c"])
    #expect(try copy.value(forKey: "owner") as? ManagedObject === fixture.ada)
    // The step before the paste is still one step of its own.
    try undo.undo()
    try undo.undo()
    #expect(try count("Board", in: fixture.context) == 0)
  }

  @Test("a paste without automatic grouping is one top-level group of its own")
  func manualGrouping() throws {
    let fixture = try BoardFixture()
    let undo = try #require(fixture.document.undoManager)
    undo.groupsByEvent = false
    let steps = undo.undoCount
    try fixture.context.paste(try Pasteboard(copying: [fixture.board]))
    #expect(undo.undoCount == steps + 1)
    #expect(undo.undoActionName == "Paste")
    try undo.undo()
    #expect(try count("Board", in: fixture.context) == 1)
  }

  @Test("pasting twice gives two independent copies")
  func pasteTwice() throws {
    let fixture = try BoardFixture()
    let pasteboard = try Pasteboard(copying: [fixture.board])
    let first = try #require(try fixture.context.paste(pasteboard).roots.first)
    let second = try #require(try fixture.context.paste(pasteboard).roots.first)
    #expect(first !== second)
    let firstCards = try #require(try first.value(forKey: "cards") as? [ManagedObject])
    let secondCards = try #require(try second.value(forKey: "cards") as? [ManagedObject])
    #expect(Set(firstCards).isDisjoint(with: secondCards))
    try firstCards[0].setValue("changed", forKey: "text")
    #expect(try texts(secondCards) == ["a", "b", "c"])
    #expect(try count("Card", in: fixture.context) == 9)
  }

  @Test("an owned subgraph with a cycle is copied once, cycle and all")
  func cycle() throws {
    let fixture = try BoardFixture()
    let (a, b) = (fixture.cards[0], fixture.cards[1])
    try a.setValue(Set([b]), forKey: "links")
    try b.setValue(Set([a]), forKey: "links")
    fixture.loop.endTurn()
    let pasteboard = try Pasteboard(copying: [a])
    #expect(pasteboard.objectCount == 2)
    let result = try fixture.context.paste(pasteboard)
    #expect(result.objects.count == 2)
    let copyA = try #require(result.roots.first)
    let copyB = try #require((try copyA.value(forKey: "links") as? Set<ManagedObject>)?.first)
    #expect(try copyB.value(forKey: "text") as? String == "b")
    #expect(try copyB.value(forKey: "links") as? Set<ManagedObject> == [copyA])
    #expect(try copyA.value(forKey: "linkedFrom") as? Set<ManagedObject> == [copyB])
    // Each copy's board, outside the copied set, is the original's: appended in paste order.
    #expect(try texts(fixture.board.value(forKey: "cards")) == ["a", "b", "c", "a", "b"])
  }

  @Test("a root another root owns is copied once and returned in its place")
  func rootOwnedByRoot() throws {
    let fixture = try BoardFixture()
    let pasteboard = try Pasteboard(copying: [fixture.board, fixture.cards[1], fixture.board])
    #expect(pasteboard.objectCount == 4)
    let result = try fixture.context.paste(pasteboard)
    #expect(result.roots.count == 2)
    let cards = try result.roots[0].value(forKey: "cards") as? [ManagedObject]
    #expect(cards?[1] === result.roots[1])
  }

  @Test("an ordered to-many keeps its order, whatever order the copy reached its members in")
  func orderedKeepsOrder() throws {
    let fixture = try BoardFixture()
    let pasteboard = try Pasteboard(copying: [fixture.cards[2], fixture.board])
    let json = try #require(
      try JSONSerialization.jsonObject(with: pasteboard.data()) as? [String: Any])
    let objects = try #require(json["objects"] as? [[String: Any]])
    let board = try #require(objects[1]["relationships"] as? [String: Any])
    #expect(board["cards"] as? [Int] == [2, 3, 0])
    let result = try fixture.context.paste(pasteboard)
    #expect(result.roots.count == 2)
    #expect(try texts(result.roots[1].value(forKey: "cards")) == ["a", "b", "c"])
    #expect(try result.roots[0].value(forKey: "board") as? ManagedObject === result.roots[1])
    #expect(try texts(fixture.board.value(forKey: "cards")) == ["a", "b", "c"])
  }

  @Test("a reference to an object the context no longer has is dropped and reported")
  func deletedReference() throws {
    let fixture = try BoardFixture()
    let pasteboard = try Pasteboard(copying: [fixture.board])
    let uri = fixture.ada.objectID.uriRepresentation
    try fixture.context.delete(fixture.ada)
    fixture.loop.endTurn()
    let result = try fixture.context.paste(pasteboard)
    let copy = try #require(result.roots.first)
    #expect(try copy.value(forKey: "owner") == nil)
    let dropped = result.droppedReferences.filter { $0.relationship == "owner" }
    #expect(dropped.count == 1)
    #expect(dropped.first?.uri == uri)
    #expect(dropped.first?.reason == .notFound)
    #expect(dropped.first?.object === copy)
  }

  @Test("cut and paste: a desk freed by deleting its board re-attaches to the pasted board")
  func cutAndPaste() throws {
    let fixture = try BoardFixture()
    let pasteboard = try Pasteboard(copying: [fixture.board])
    try fixture.context.delete(fixture.board)
    fixture.loop.endTurn()
    let result = try fixture.context.paste(pasteboard)
    let copy = try #require(result.roots.first)
    #expect(try copy.value(forKey: "desk") as? ManagedObject === fixture.desk)
    #expect(result.droppedReferences.isEmpty)
  }

  @Test("pasting into another document keeps the owned subgraph and drops outside references")
  func otherDocument() throws {
    let fixture = try BoardFixture()
    let data = try Pasteboard(copying: [fixture.board]).data()
    let other = try Document(model: try pasteboardModel())
    #expect(other.context.storeIdentifier != fixture.context.storeIdentifier)
    let result = try other.context.paste(try Pasteboard(data: data))
    let copy = try #require(result.roots.first)
    #expect(try texts(copy.value(forKey: "cards")) == ["a", "b", "c"])
    #expect(try copy.value(forKey: "owner") == nil)
    #expect(Set(result.droppedReferences.map(\.relationship)) == ["owner", "tags", "desk"])
    #expect(result.droppedReferences.allSatisfy { $0.reason == .otherStore })
    #expect(try count("Person", in: other.context) == 0)
  }

  @Test("across documents on one saved XML file, outside references re-attach; elsewhere not")
  func savedXMLFile() throws {
    let fixture = try BoardFixture()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("boards.xml")
    try fixture.document.save(to: url, format: XMLStore())
    let pasteboard = try Pasteboard(data: try Pasteboard(copying: [fixture.board]).data())
    #expect(pasteboard.storeIdentifier == fixture.context.storeIdentifier)

    let again = try Document.open(url, model: try pasteboardModel(), formats: [XMLStore()])
    #expect(again.context.storeIdentifier == fixture.context.storeIdentifier)
    let result = try again.context.paste(pasteboard)
    let copy = try #require(result.roots.first)
    let ada = try #require(try again.context.objects(ofEntity: "Person").first)
    #expect(try copy.value(forKey: "owner") as? ManagedObject === ada)
    #expect((try copy.value(forKey: "tags") as? Set<ManagedObject>)?.count == 1)
    #expect(result.droppedReferences.map(\.reason) == [.inverseHeld])
    try again.save()

    let reopened = try Document.open(url, model: try pasteboardModel(), formats: [XMLStore()])
    let boards = try reopened.context.objects(ofEntity: "Board")
    #expect(boards.count == 2)
    for board in boards {
      #expect(try texts(board.value(forKey: "cards")) == ["a", "b", "c"])
      #expect(
        try (board.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") as? String
          == "Ada")
    }

    let fresh = try Document(model: try pasteboardModel())
    let elsewhere = try fresh.context.paste(pasteboard)
    #expect(elsewhere.droppedReferences.count == 3)
    #expect(try texts(elsewhere.roots.first?.value(forKey: "cards")) == ["a", "b", "c"])
  }

  @Test("copying refuses deleted objects and objects of two contexts")
  func copyingRefuses() throws {
    let fixture = try BoardFixture()
    let other = try BoardFixture()
    #expect(throws: GraphError.self) {
      try Pasteboard(copying: [fixture.board, other.board])
    }
    do {
      _ = try fixture.context.duplicate([other.board])
      Issue.record("duplicated another context's object")
    } catch {
      #expect(error.code == .notRegistered)
    }
    try fixture.context.delete(fixture.ada)
    do {
      _ = try Pasteboard(copying: [fixture.ada])
      Issue.record("copied a deleted object")
    } catch {
      #expect(error.code == .notRegistered)
      #expect(error.location?.entity == "Person")
    }
    let empty = try Pasteboard(copying: [])
    #expect(empty.objectCount == 0)
    #expect(empty.storeIdentifier == nil)
    #expect(try fixture.context.paste(empty).roots.isEmpty)
  }
}
