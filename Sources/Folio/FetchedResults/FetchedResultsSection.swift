import FolioGraph
import FolioModel

/// One section of a ``FetchedResultsController``'s results: the objects that share a value at
/// the controller's section key path, in the fetch request's order.
///
/// The counterpart of Core Data's `NSFetchedResultsSectionInfo`. A controller without a section
/// key path has exactly one section, named `""`, even when it holds no objects.
public struct FetchedResultsSection: Hashable, CustomStringConvertible {
  /// The section's value at the section key path, as text: a string as it is, `""` for `nil`,
  /// and any other value as Swift prints it (`42`, `true`).
  public var name: String
  /// The section's title in a section index: the first letter of ``name``, uppercased, as
  /// Core Data's default `sectionIndexTitle(forSectionName:)` gives it; `nil` for an empty name.
  public var indexTitle: String?
  /// The section's objects, in the fetch request's order.
  public var objects: [ManagedObject]

  /// How many objects the section holds.
  public var numberOfObjects: Int { objects.count }

  /// Creates a section named `name` holding `objects`, with the default index title.
  public init(name: String, objects: [ManagedObject]) {
    self.name = name
    self.indexTitle = Self.defaultIndexTitle(forSectionName: name)
    self.objects = objects
  }

  /// `name (n objects)`.
  public var description: String { "\"\(name)\" (\(objects.count) objects)" }

  /// The first letter of `name`, uppercased; `nil` for an empty name.
  public static func defaultIndexTitle(forSectionName name: String) -> String? {
    name.first.map { String($0).uppercased() }
  }

  /// The section name for a value read at the section key path.
  static func name(for value: Any?) -> String {
    switch value {
    case nil: return ""
    case let string as String: return string
    case let value?: return String(describing: value)
    }
  }
}

/// A snapshot of a controller's results: its sections, and where each object sits, so a change
/// can be found by comparing two snapshots.
struct ResultLayout {
  var sections: [FetchedResultsSection]
  /// Every object, in order across the sections.
  var objects: [ManagedObject]
  var indexPaths: [ManagedObject: ResultIndexPath]
  var sectionIndexByName: [String: Int]

  /// Splits fetched `objects` into sections by `sectionNameKeyPath`; one section named `""`
  /// holds them all when it is `nil`.
  ///
  /// - Throws: `GraphError.unknownKey` for a key path the entity does not have;
  ///   `.invalidPredicate` when the objects are not grouped by section (the request's first sort
  ///   descriptor does not order by the section key path).
  /// - Complexity: O(*n*) in the objects, plus reading the key path once per object.
  init(objects: [ManagedObject], sectionNameKeyPath: String?) throws(GraphError) {
    self.objects = objects
    sections = []
    indexPaths = [:]
    sectionIndexByName = [:]
    guard let sectionNameKeyPath else {
      sections = [FetchedResultsSection(name: "", objects: objects)]
      sectionIndexByName[""] = 0
      for (item, object) in objects.enumerated() {
        indexPaths[object] = ResultIndexPath(section: 0, item: item)
      }
      return
    }
    for (index, object) in objects.enumerated() {
      let name = FetchedResultsSection.name(for: try object.value(forKeyPath: sectionNameKeyPath))
      if sections.last?.name != name {
        guard sectionIndexByName[name] == nil else {
          throw GraphError.sectionOutOfOrder(
            name, at: index, keyPath: sectionNameKeyPath, entity: object.entityName)
        }
        sectionIndexByName[name] = sections.count
        sections.append(FetchedResultsSection(name: name, objects: []))
      }
      let path = ResultIndexPath(
        section: sections.count - 1, item: sections[sections.count - 1].objects.count)
      sections[sections.count - 1].objects.append(object)
      indexPaths[object] = path
    }
  }
}

extension GraphError {
  static func sectionOutOfOrder(_ name: String, at index: Int, keyPath: String, entity: String)
    -> GraphError
  {
    GraphError(
      .invalidPredicate,
      "the fetched object at index \(index) has an out of order section name \"\(name)\": "
        + "sort by \"\(keyPath)\" first",
      at: InputLocation(entity: entity, property: keyPath))
  }

  static func noSortDescriptors(entity: String) -> GraphError {
    GraphError(
      .invalidPredicate,
      "a fetched results controller needs a fetch request with at least one sort descriptor",
      at: InputLocation(entity: entity))
  }

  static func noObject(at indexPath: ResultIndexPath, sectionCount: Int, objectCount: Int?)
    -> GraphError
  {
    let detail =
      objectCount.map { "section \(indexPath.section) has \($0) objects" }
      ?? "there are \(sectionCount) sections"
    return GraphError(.objectNotFound, "no object at index path \(indexPath): \(detail)")
  }

  static func notFetched() -> GraphError {
    GraphError(
      .objectNotFound, "the fetched results controller has no results: call performFetch() first")
  }
}
