import FolioGraph

/// What a ``FetchedResultsController`` tells when its results change: how a list view keeps
/// up with the graph.
///
/// The counterpart of Core Data's `NSFetchedResultsControllerDelegate`. After each processed
/// turn that changes the results, the controller calls
/// ``controllerWillChangeContent(_:)``, then
/// ``controller(_:didChange:atSectionIndex:for:)`` for each section deleted and inserted, then
/// ``controller(_:didChange:at:for:newIndexPath:)`` for each object deleted, inserted, moved and
/// updated, then ``controllerDidChangeContent(_:)``. Deletes give index paths in the layout
/// before the turn, inserts in the layout after it, so the calls map onto a list view's batch
/// update. Every method has an empty default implementation.
///
/// ```swift
/// final class ListUpdater: FetchedResultsControllerDelegate {
///   func controller(
///     _ controller: FetchedResultsController, didChange object: ManagedObject,
///     at indexPath: ResultIndexPath?, for type: FetchedResultsChangeType,
///     newIndexPath: ResultIndexPath?
///   ) {
///     print(type, indexPath ?? "-", newIndexPath ?? "-")
///   }
/// }
/// ```
public protocol FetchedResultsControllerDelegate: AnyObject {
  /// The controller is about to report a turn's changes; its results already show them.
  func controllerWillChangeContent(_ controller: FetchedResultsController)

  /// An object joined, left, moved within or changed in the results.
  ///
  /// - Parameters:
  ///   - object: the object.
  ///   - indexPath: where it was: `nil` for ``FetchedResultsChangeType/insert``.
  ///   - type: what happened.
  ///   - newIndexPath: where it is now: `nil` for ``FetchedResultsChangeType/delete``.
  func controller(
    _ controller: FetchedResultsController, didChange object: ManagedObject,
    at indexPath: ResultIndexPath?, for type: FetchedResultsChangeType,
    newIndexPath: ResultIndexPath?)

  /// A section appeared (``FetchedResultsChangeType/insert``, at its new index) or disappeared
  /// (``FetchedResultsChangeType/delete``, at its old index).
  func controller(
    _ controller: FetchedResultsController, didChange section: FetchedResultsSection,
    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)

  /// The controller has reported all of a turn's changes.
  func controllerDidChangeContent(_ controller: FetchedResultsController)

  /// The index title of the section named `sectionName`, or `nil` for none; asked at each
  /// fetch. By default, ``FetchedResultsSection/defaultIndexTitle(forSectionName:)``: the
  /// first letter, uppercased — Core Data's `controller(_:sectionIndexTitleForSectionName:)`.
  func controller(
    _ controller: FetchedResultsController, sectionIndexTitleForSectionName sectionName: String
  ) -> String?
}

extension FetchedResultsControllerDelegate {
  /// Does nothing.
  public func controllerWillChangeContent(_ controller: FetchedResultsController) {}

  /// Does nothing.
  public func controller(
    _ controller: FetchedResultsController, didChange object: ManagedObject,
    at indexPath: ResultIndexPath?, for type: FetchedResultsChangeType,
    newIndexPath: ResultIndexPath?
  ) {}

  /// Does nothing.
  public func controller(
    _ controller: FetchedResultsController, didChange section: FetchedResultsSection,
    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
  ) {}

  /// Does nothing.
  public func controllerDidChangeContent(_ controller: FetchedResultsController) {}

  public func controller(
    _ controller: FetchedResultsController, sectionIndexTitleForSectionName sectionName: String
  ) -> String? {
    FetchedResultsSection.defaultIndexTitle(forSectionName: sectionName)
  }
}
