import Folio
import FolioQuery
import FolioUndo
import Foundation
import Testing

@testable import FolioGraph

/// A fetched results controller on one context shows what another context saved once it is
/// merged in: an editor's second window stays live.
extension SharedStoreTests {
  /// What a context's saves changed, as its did-save events tell it.
  final class SaveRecorder {
    var changes: ObjectIDChanges?
    var token: ObservationToken?
  }

  /// Two contexts on one coordinator of the store at `url`, and what the first one's saves
  /// change; the caller cancels the recorder's token.
  func twoContexts(_ url: URL) throws
    -> (first: ManagedObjectContext, second: ManagedObjectContext, saves: SaveRecorder)
  {
    let shared = try coordinator(url)
    let first = try ManagedObjectContext(coordinator: shared)
    let second = try ManagedObjectContext(coordinator: shared)
    let saves = SaveRecorder()
    saves.token = first.addEventObserver { [saves] event in
      if case .didSave(let changes) = event { saves.changes = changes }
    }
    return (first, second, saves)
  }

  @Test("merging another context's save reports its updates, inserts and deletes to a controller")
  func mergedSaveReachesController() async throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (first, second, saves) = try twoContexts(url)
    defer { saves.token?.cancel() }
    let controller = FetchedResultsController(
      fetchRequest: FetchRequest(
        entityName: "Track", sortDescriptors: [QuerySortDescriptor(keyPath: "title")]),
      context: second)
    try controller.performFetch()
    let a = try track("A", in: second)
    let b = try track("B", in: second)
    var reports = controller.changes().makeAsyncIterator()

    try track("A", in: first).setValue(61, forKey: "seconds")
    try first.delete(try track("B", in: first))
    try first.insertNewObject(forEntityName: "Track").setValue("C", forKey: "title")
    try first.save()
    second.mergeChanges(fromContextDidSave: try #require(saves.changes))

    let changes = try #require(await reports.next()).objectChanges
    #expect(changes.contains { $0.object == a && $0.type == .update })
    #expect(changes.contains { $0.object == b && $0.type == .delete })
    let c = try track("C", in: second)
    #expect(changes.contains { $0.object == c && $0.type == .insert })
    #expect(controller.fetchedObjects == [a, c])
    #expect(try a.value(forKey: "seconds", as: Int.self) == 61)
  }
}
