import Folio
import Foundation

// The pasteboard benchmark: a board owning 9,999 cards (Cascade), each card with a title, a
// count and a date and one outside reference to a shared tag: copied, written as JSON, read
// back and pasted into the same context, then the paste undone and redone. The floor is the
// same 10,000 objects inserted and set by hand through the keyed API in one turn, what an app
// without a pasteboard would write; the paste is reported as a ratio to it.

/// Boards own cards; cards refer to a tag that neither owns.
private func boardModel() throws -> ManagedObjectModel {
  var cards = RelationshipDescription("cards", to: "Card", inverse: "board", toMany: true)
  cards.deleteRule = .cascade
  return try ManagedObjectModel {
    EntityDescription("Board") {
      AttributeDescription("title", .string)
      cards
    }
    EntityDescription("Card") {
      AttributeDescription("title", .string)
      AttributeDescription("count", .integer64)
      AttributeDescription("due", .date)
      RelationshipDescription("board", to: "Board", inverse: "cards")
      RelationshipDescription("tag", to: "Tag", inverse: "cards")
    }
    EntityDescription("Tag") {
      AttributeDescription("name", .string)
      RelationshipDescription("cards", to: "Card", inverse: "tag", toMany: true)
    }
  }
}

/// Inserts a board with `cards` cards, each set through the keyed API; returns the board.
@discardableResult
private func insertBoard(
  cards: Int, tag: ManagedObject, in context: ManagedObjectContext
) throws -> ManagedObject {
  let board = try context.insertNewObject(forEntityName: "Board")
  try board.setValue("Plan", forKey: "title")
  let start = Date(timeIntervalSinceReferenceDate: 0)
  for index in 0..<cards {
    let card = try context.insertNewObject(forEntityName: "Card")
    try card.setValue("Card \(index)", forKey: "title")
    try card.setValue(index, forKey: "count")
    try card.setValue(start.addingTimeInterval(Double(index) * 60), forKey: "due")
    try card.setValue(board, forKey: "board")
    try card.setValue(tag, forKey: "tag")
  }
  return board
}

func pasteboardBenchmark(objects: Int) throws -> (String, [Case]) {
  let model = try boardModel()
  let cards = max(objects - 1, 1)
  let loop = ManualEventLoop()
  let context = ManagedObjectContext(model: model, undoManager: UndoManager(eventLoop: loop))
  let tag = try context.insertNewObject(forEntityName: "Tag")
  try tag.setValue("work", forKey: "name")
  loop.endTurn()

  // The floor: the same objects inserted by hand, in one turn, processed.
  var start = now()
  try insertBoard(cards: cards, tag: tag, in: context)
  loop.endTurn()
  let byHand = perOperation(since: start, count: objects)

  let board = try insertBoard(cards: cards, tag: tag, in: context)
  loop.endTurn()
  start = now()
  let pasteboard = try Pasteboard(copying: [board])
  let copying = perOperation(since: start, count: objects)
  start = now()
  let data = pasteboard.data()
  let writing = perOperation(since: start, count: objects)
  start = now()
  let read = try Pasteboard(data: data)
  let reading = perOperation(since: start, count: objects)

  let before = context.insertedObjects.count
  start = now()
  let result = try context.paste(read)
  loop.endTurn()
  let pasting = perOperation(since: start, count: objects)
  guard result.objects.count == objects, result.droppedReferences.isEmpty,
    context.insertedObjects.count == before + objects
  else { throw BenchmarkFailure("the paste made \(result.objects.count) objects, not \(objects)") }
  guard let undo = context.undoManager else { throw BenchmarkFailure("no undo manager") }
  start = now()
  try undo.undo()
  let undoing = perOperation(since: start, count: objects)
  guard context.insertedObjects.count == before else {
    throw BenchmarkFailure(
      "undoing the paste left \(context.insertedObjects.count - before) objects")
  }
  start = now()
  try undo.redo()
  let redoing = perOperation(since: start, count: objects)

  return (
    "Pasteboard: a subgraph of \(objects.formatted()) objects (a board owning its cards)",
    [
      Case(title: "insert and set by hand, one turn (the floor)", value: byHand, unit: "ns/object"),
      Case(title: "copy (Pasteboard(copying:))", value: copying, unit: "ns/object"),
      Case(
        title: "write JSON (\(data.count / objects) B/object)", value: writing, unit: "ns/object"),
      Case(title: "read JSON", value: reading, unit: "ns/object"),
      Case(
        title: "paste, as a ratio to the floor: \(String(format: "%.2f", pasting / byHand))×",
        value: pasting, unit: "ns/object"),
      Case(
        title: "copy, write, read and paste in all", value: copying + writing + reading + pasting,
        unit: "ns/object"),
      Case(title: "undo of the paste", value: undoing, unit: "ns/object"),
      Case(title: "redo of the paste", value: redoing, unit: "ns/object"),
    ]
  )
}
