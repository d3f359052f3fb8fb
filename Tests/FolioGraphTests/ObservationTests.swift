import Folio
import FolioQuery
import FolioUndo
import Testing

@testable import FolioGraph

/// Observers of a context: each registration is a token, and streams end with what they watch.
@Suite("Observing a context")
struct ObservationTests {
  @Test("a change observer and an event observer are called until their tokens end")
  func tokens() throws {
    let context = try makeContext()
    var changes = 0
    var events = 0
    var changeToken: ObservationToken? = context.addObserver { _ in changes += 1 }
    let eventToken = context.addEventObserver { _ in events += 1 }
    _ = try context.insertNewObject(forEntityName: "Track")
    context.processPendingChanges()
    #expect([changes, events] == [1, 1])
    #expect(changeToken?.isCancelled == false)
    changeToken = nil
    eventToken.cancel()
    _ = try context.insertNewObject(forEntityName: "Track")
    context.processPendingChanges()
    #expect([changes, events] == [1, 1])
    #expect(!context.hasObservers)
  }

  @Test("an event stream ends when its context is released")
  func streamEndsWithContext() async throws {
    var context: ManagedObjectContext? = try makeContext()
    let stream = try #require(context).events()
    _ = try context?.insertNewObject(forEntityName: "Track")
    context?.processPendingChanges()
    context = nil
    var received = 0
    for await _ in stream { received += 1 }
    #expect(received == 1)
  }

  @Test("a fetched results controller stops observing when it is released")
  func controllerReleased() throws {
    let context = try makeContext()
    var controller: FetchedResultsController? = FetchedResultsController(
      fetchRequest: FetchRequest(
        entityName: "Track", sortDescriptors: [QuerySortDescriptor(keyPath: "title")]),
      context: context)
    try controller?.performFetch()
    #expect(context.hasObservers)
    controller = nil
    #expect(!context.hasObservers)
  }
}
