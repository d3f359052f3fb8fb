import FolioGraph
import FolioModel
import FolioUndo

/// The objects a fetch request describes, split into sections and kept up to date as the graph
/// changes: what a list view in an editor shows.
///
/// The counterpart of Core Data's `NSFetchedResultsController`, over the in-memory graph. After
/// ``performFetch()`` the controller holds the results, by section and index path. It then
/// watches the context: after each ``ManagedObjectContext/processPendingChanges()`` that
/// posts a change notification — an edit's turn, a save, an undo or a redo — and after each
/// refresh or merge of another context's save, it fetches again and tells its ``delegate``, and
/// each stream from ``changes()``, what changed, as inserts, deletes, moves and updates with
/// index paths; a refreshed object still in the results is an update. Nothing is reported when
/// the results did not change.
///
/// The fetch request needs at least one sort descriptor, as in Core Data. With a
/// `sectionNameKeyPath`, objects with equal values at that key path form a section, so the
/// results must arrive grouped by it: the first sort descriptor must order by the section key
/// path (or by a key whose order groups it, such as a name for sections by its initial).
///
/// ```swift
/// let request = FetchRequest(
///   entityName: "Employee",
///   sortDescriptors: [
///     QuerySortDescriptor(keyPath: "department"), QuerySortDescriptor(keyPath: "lastName"),
///   ])
/// let controller = FetchedResultsController(
///   fetchRequest: request, context: context, sectionNameKeyPath: "department")
/// controller.delegate = listUpdater
/// try controller.performFetch()
/// let first = try controller.object(at: ResultIndexPath(section: 0, item: 0))
/// ```
///
/// A controller keeps its context alive, and belongs to the context's isolation domain: it is
/// not `Sendable`.
public final class FetchedResultsController {
  /// The request whose results the controller holds. Changing it takes effect at the next
  /// ``performFetch()``.
  public var fetchRequest: FetchRequest<ManagedObject>
  /// The context the controller fetches from and watches.
  public let context: ManagedObjectContext
  /// The key path whose values split the results into sections; `nil` for one section.
  public let sectionNameKeyPath: String?
  /// The object told of each turn's changes to the results. The controller holds it weakly.
  public weak var delegate: (any FetchedResultsControllerDelegate)?
  /// Why the results could not be brought up to date after the last turn that changed the
  /// graph (a value the sort descriptors cannot compare, sections out of order); `nil` once
  /// a later turn, or ``performFetch()``, succeeds. The results stay as they were before it.
  public private(set) var changeTrackingError: GraphError?

  private var layout: ResultLayout?
  private var observer: ObservationToken?
  /// Set while the controller fetches, so the notification that fetching's own processing of
  /// pending changes may post is not reported as a change.
  private var isFetching = false
  private var continuations: [AsyncStream<FetchedResultsChanges>.Continuation] = []

  /// Creates a controller for `fetchRequest`'s objects in `context`, split into sections by
  /// `sectionNameKeyPath`. It has no results until ``performFetch()``.
  ///
  /// - Parameters:
  ///   - fetchRequest: the objects to show; it needs at least one sort descriptor, and with
  ///     sections the first must order by the section key path.
  ///   - context: the context to fetch from and watch.
  ///   - sectionNameKeyPath: the key path whose values name the sections; `nil` (the default)
  ///     for one section, named `""`, holding every object.
  public init(
    fetchRequest: FetchRequest<ManagedObject>, context: ManagedObjectContext,
    sectionNameKeyPath: String? = nil
  ) {
    self.fetchRequest = fetchRequest
    self.context = context
    self.sectionNameKeyPath = sectionNameKeyPath
  }

  deinit {
    observer?.cancel()
    for continuation in continuations { continuation.finish() }
  }

  /// Fetches the results, and from then on keeps them up to date with the context.
  ///
  /// Call it again after changing ``fetchRequest``; the delegate is not told of the new
  /// results.
  ///
  /// - Throws: `GraphError.invalidPredicate` for a request with no sort descriptors, for
  ///   objects not grouped by section (the first sort descriptor does not order by the section
  ///   key path), or for values the predicate or sort descriptors cannot compare;
  ///   `.unknownEntity`; `.unknownKey` for a key path the entity does not have. The results
  ///   stay as they were.
  /// - Complexity: O(*n*) in the entity's objects, plus O(*m* log *m*) to sort *m* matches.
  public func performFetch() throws(GraphError) {
    layout = try fetchLayout()
    changeTrackingError = nil
    if observer == nil {
      observer = context.addObserver { [weak self] notification in
        self?.contextDidChange(notification)
      }
    }
  }

  // MARK: Reading the results

  /// The objects, in order across the sections; `nil` before ``performFetch()``.
  public var fetchedObjects: [ManagedObject]? { layout?.objects }

  /// The sections, in order; `nil` before ``performFetch()``.
  public var sections: [FetchedResultsSection]? { layout?.sections }

  /// The sections' index titles, in order, each once; sections with an empty name have none.
  public var sectionIndexTitles: [String] {
    var seen: Set<String> = []
    return (layout?.sections ?? []).compactMap(\.indexTitle).filter { seen.insert($0).inserted }
  }

  /// The index of the first section whose index title is `title`, for a section index's
  /// entry at `sectionIndex` of ``sectionIndexTitles``; `nil` when no section has that title.
  ///
  /// Titles in ``sectionIndexTitles`` are unique, so `title` alone decides; `sectionIndex` is
  /// there to keep Core Data's signature.
  public func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int? {
    layout?.sections.firstIndex { $0.indexTitle == title }
  }

  /// The object at `indexPath`.
  ///
  /// - Throws: `GraphError.objectNotFound` for an index path outside the results, or before
  ///   ``performFetch()``.
  public func object(at indexPath: ResultIndexPath) throws(GraphError) -> ManagedObject {
    guard let layout else { throw GraphError.notFetched() }
    guard layout.sections.indices.contains(indexPath.section) else {
      throw GraphError.noObject(
        at: indexPath, sectionCount: layout.sections.count, objectCount: nil)
    }
    let objects = layout.sections[indexPath.section].objects
    guard objects.indices.contains(indexPath.item) else {
      throw GraphError.noObject(
        at: indexPath, sectionCount: layout.sections.count, objectCount: objects.count)
    }
    return objects[indexPath.item]
  }

  /// Where `object` is in the results; `nil` when it is not among them.
  public func indexPath(forObject object: ManagedObject) -> ResultIndexPath? {
    layout?.indexPaths[object]
  }

  // MARK: Reporting changes

  /// A stream of each later turn's changes to the results, one value per turn that changed
  /// them: the changes the delegate is told of, in the same order.
  ///
  /// Each call makes a new stream; the controller stops feeding a stream once its consumer
  /// is gone, and finishes them all when it goes away. Values wait in the stream until read.
  ///
  /// ```swift
  /// for await changes in controller.changes() {
  ///   for change in changes.objectChanges { print(change) }
  /// }
  /// ```
  public func changes() -> AsyncStream<FetchedResultsChanges> {
    let (stream, continuation) = AsyncStream.makeStream(of: FetchedResultsChanges.self)
    continuations.append(continuation)
    return stream
  }

  private func fetchLayout() throws(GraphError) -> ResultLayout {
    guard !fetchRequest.sortDescriptors.isEmpty else {
      throw GraphError.noSortDescriptors(entity: fetchRequest.entityName)
    }
    isFetching = true
    defer { isFetching = false }
    let objects = try context.fetch(fetchRequest)
    var layout = try ResultLayout(objects: objects, sectionNameKeyPath: sectionNameKeyPath)
    if let delegate {
      for index in layout.sections.indices {
        layout.sections[index].indexTitle = delegate.controller(
          self, sectionIndexTitleForSectionName: layout.sections[index].name)
      }
    }
    return layout
  }

  /// Fetches again after a processed turn and reports how the results changed.
  ///
  /// - Complexity: a fetch, plus O(*n* log *n*) in the results to compare them.
  private func contextDidChange(_ notification: ObjectsDidChangeNotification) {
    guard !isFetching, let old = layout else { return }
    let new: ResultLayout
    do {
      new = try fetchLayout()
    } catch {
      changeTrackingError = error
      return
    }
    changeTrackingError = nil
    layout = new
    // The objects the turn may have put out of order: those whose changed keys start a sort
    // descriptor's key path. Another object's place changes only because others moved.
    var orderKeys = Set(fetchRequest.sortDescriptors.map { Self.firstKey(of: $0.keyPath) })
    if let sectionNameKeyPath { orderKeys.insert(Self.firstKey(of: sectionNameKeyPath)) }
    // A refreshed object (another context's save, merged in) may have changed any key.
    var resorted = notification.refreshedObjects
    for (object, olds) in notification.updatedObjects
    where olds.keys.contains(where: orderKeys.contains) {
      resorted.insert(object)
    }
    let updated = Set(notification.updatedObjects.keys).union(notification.refreshedObjects)
    let changes = FetchedResultsChanges(from: old, to: new, updated: updated, resorted: resorted)
    guard !changes.isEmpty else { return }
    report(changes)
  }

  private static func firstKey(of keyPath: String) -> String {
    String(keyPath.prefix { $0 != "." })
  }

  private func report(_ changes: FetchedResultsChanges) {
    continuations.removeAll { continuation in
      // `yield` takes a value it could hand to another isolation domain. These values hold
      // managed objects, so they must not leave the context's domain, and they do not: a
      // stream of non-Sendable values is itself not Sendable, so it, and its consumer, stay
      // in the domain of the controller that made it.
      nonisolated(unsafe) let sent = changes
      if case .terminated = continuation.yield(sent) { return true }
      return false
    }
    guard let delegate else { return }
    delegate.controllerWillChangeContent(self)
    for change in changes.sectionChanges {
      delegate.controller(
        self, didChange: change.section, atSectionIndex: change.sectionIndex, for: change.type)
    }
    for change in changes.objectChanges {
      delegate.controller(
        self, didChange: change.object, at: change.indexPath, for: change.type,
        newIndexPath: change.newIndexPath)
    }
    delegate.controllerDidChangeContent(self)
  }
}
