import FolioUndo
import Foundation
import Observation
import Testing

@testable import FolioGraph
@testable import FolioModel

/// How many times an observation's change handler ran.
final class ChangeCount: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0
  var count: Int { lock.withLock { value } }
  func add() { lock.withLock { value += 1 } }
}

/// Runs `read` under Observation tracking; the count goes up when what it read changes.
func tracking(_ read: () -> Void) -> ChangeCount {
  let changes = ChangeCount()
  withObservationTracking(read, onChange: { changes.add() })
  return changes
}

@Suite("Swift Observation of entity classes")
struct EntityObservationTests {
  typealias Book = Library.Book
  typealias Person = Library.Person

  func undoContext() throws -> (ManagedObjectContext, UndoManager, ManualEventLoop) {
    let loop = ManualEventLoop()
    let undo = UndoManager(eventLoop: loop)
    let context = ManagedObjectContext(model: try Library.registeredModel(), undoManager: undo)
    context.tracksObservation = true
    return (context, undo, loop)
  }

  @Test("without tracksObservation, reads are not tracked")
  func off() throws {
    let context = ManagedObjectContext(model: try Library.registeredModel())
    let book = Book(context: context)
    let title = tracking { _ = book.title }
    book.title = "Dune"
    #expect(title.count == 0)
    #expect(context.observationRegistrars.isEmpty, "no registrar was made")
  }

  @Test("a setter notifies the readers of that property, and only of it")
  func setter() throws {
    let (context, _, _) = try undoContext()
    let book = Book(context: context)
    let title = tracking { _ = book.title }
    let pages = tracking { _ = book.pages }
    book.title = "Dune"
    #expect(title.count == 1)
    #expect(pages.count == 0)
    // The keyed door is the same storage: it notifies too.
    let again = tracking { _ = book.title }
    try book.setValue("Dune Messiah", forKey: "title")
    #expect(again.count == 1)
  }

  @Test("inverse maintenance notifies the other side")
  func inverse() throws {
    let (context, _, _) = try undoContext()
    let book = Book(context: context)
    let ada = Person(context: context)
    let books = tracking { _ = ada.books }
    book.author = ada
    #expect(books.count == 1)
    let author = tracking { _ = book.author }
    ada.books = []
    #expect(author.count == 1)
  }

  @Test("undo, redo and rollback notify")
  func undoRedoRollback() throws {
    let (context, undo, loop) = try undoContext()
    let book = Book(context: context)
    try context.save()
    loop.endTurn()
    book.title = "Dune"
    loop.endTurn()
    let undone = tracking { _ = book.title }
    try undo.undo()
    #expect(undone.count == 1)
    #expect(book.title == "Untitled")
    let redone = tracking { _ = book.title }
    try undo.redo()
    #expect(redone.count == 1)
    #expect(book.title == "Dune")
    let rolledBack = tracking { _ = book.title }
    context.rollback()
    #expect(rolledBack.count == 1)
    #expect(book.title == "Untitled")
  }

  @Test("a refresh and a merge of another context's save notify")
  func refreshAndMerge() throws {
    let coordinator = PersistentStoreCoordinator(
      managedObjectModel: try Library.registeredModel())
    try coordinator.addInMemoryStore()
    let mine = try ManagedObjectContext(coordinator: coordinator)
    mine.tracksObservation = true
    let book = Book(context: mine)
    try mine.save()
    let theirs = try ManagedObjectContext(coordinator: coordinator)
    let their = try #require(try theirs.fetch(Book.fetchRequest()).first)
    their.title = "Dune"
    try theirs.save()

    let merged = tracking { _ = book.title }
    mine.refreshAllObjects()
    #expect(merged.count == 1)
    #expect(book.title == "Dune")
    let refreshed = tracking { _ = book.pages }
    try mine.refresh(book, mergeChanges: false)
    #expect(refreshed.count == 1)
  }
}
