import FolioGraph
import FolioModel

// How a fetched results controller finds what changed in a turn.
//
// After each processed turn the controller fetches again and compares the new layout (sections
// and index paths) with the one it held. The comparison states the change the way a list view
// applies a batch update, as Core Data's NSFetchedResultsController does:
//
// - A section whose name is gone is deleted, at its old index; a new name is inserted, at its
//   new index. Sections keep their order, since the first sort descriptor orders them.
// - An object that left the results (deleted, or stopped matching the predicate) is deleted, at
//   its old index path; one that joined them is inserted, at its new index path.
// - An object in a different section than before moved, from its old path to its new one.
// - Within a section, objects that stayed shift when others come and go; that is not a move.
//   An object moved only if its order relative to the other staying objects changed. The
//   fewest moves that explain the new order are the objects outside a longest subsequence of
//   staying objects whose old order agrees with the new. Many subsequences can be longest (two
//   objects that swap: either one moved), so the subsequence is weighted to keep the objects
//   whose sort keys did not change in the turn: the one whose sort key was edited is the one
//   that moved.
//   Finding a heaviest increasing subsequence takes O(n log n) with a Fenwick tree of prefix
//   maxima over the old positions.
// - An object that stayed put but whose values changed in the turn (it is among the
//   notification's `updatedObjects`) is updated. A moved object is reported as a move only:
//   the list redraws a row it moves.
//
// Deletes (of sections and objects) use the old layout and inserts the new, so a view removes
// first and then inserts; a move names both. Nothing is reported when nothing changed.

/// What happened to an object or a section of a ``FetchedResultsController``'s results.
///
/// The counterpart of Core Data's `NSFetchedResultsChangeType`.
public enum FetchedResultsChangeType: Sendable, Hashable, CustomStringConvertible {
  /// It joined the results: inserted, or it started to match the predicate.
  case insert
  /// It left the results: deleted, or it stopped matching the predicate.
  case delete
  /// Its position changed: a new place in the order, or a different section.
  case move
  /// Its values changed and it stayed in its place.
  case update

  /// `insert`, `delete`, `move` or `update`.
  public var description: String {
    switch self {
    case .insert: return "insert"
    case .delete: return "delete"
    case .move: return "move"
    case .update: return "update"
    }
  }
}

/// A change to one object of a ``FetchedResultsController``'s results.
public struct FetchedResultsObjectChange: Hashable, CustomStringConvertible {
  /// The object that changed.
  public var object: ManagedObject
  /// What happened to it.
  public var type: FetchedResultsChangeType
  /// Where it was, in the layout before the change; `nil` for an insert.
  public var indexPath: ResultIndexPath?
  /// Where it is, in the layout after the change; `nil` for a delete.
  ///
  /// An update has both paths: they differ when objects before it came or went. A batch update
  /// reloads a row by its old path.
  public var newIndexPath: ResultIndexPath?

  /// Creates a change of `object`.
  public init(
    object: ManagedObject, type: FetchedResultsChangeType, indexPath: ResultIndexPath?,
    newIndexPath: ResultIndexPath?
  ) {
    self.object = object
    self.type = type
    self.indexPath = indexPath
    self.newIndexPath = newIndexPath
  }

  /// `type object old -> new`.
  public var description: String {
    "\(type) \(object) \(indexPath.map(\.description) ?? "nil") -> "
      + (newIndexPath.map(\.description) ?? "nil")
  }
}

/// A section that appeared in or disappeared from a ``FetchedResultsController``'s results.
public struct FetchedResultsSectionChange: Hashable, CustomStringConvertible {
  /// The section: as it is now for an insert, as it was for a delete.
  public var section: FetchedResultsSection
  /// ``FetchedResultsChangeType/insert`` or ``FetchedResultsChangeType/delete``.
  public var type: FetchedResultsChangeType
  /// The section's index: in the new layout for an insert, in the old one for a delete.
  public var sectionIndex: Int

  /// Creates a change of `section`.
  public init(section: FetchedResultsSection, type: FetchedResultsChangeType, sectionIndex: Int) {
    self.section = section
    self.type = type
    self.sectionIndex = sectionIndex
  }

  /// `type section "name" at index`.
  public var description: String { "\(type) section \"\(section.name)\" at \(sectionIndex)" }
}

/// Everything that changed in a ``FetchedResultsController``'s results in one processed turn.
///
/// The values the controller's ``FetchedResultsController/changes()`` stream delivers; its
/// delegate is told the same changes one by one, in the same order.
public struct FetchedResultsChanges: Hashable {
  /// Sections deleted (by old index, ascending), then sections inserted (by new index).
  public var sectionChanges: [FetchedResultsSectionChange] = []
  /// Objects deleted (by old index path), inserted (by new index path), moved (by new index
  /// path), then updated (by old index path).
  public var objectChanges: [FetchedResultsObjectChange] = []

  /// Creates a set of changes; the default is none.
  public init(
    sectionChanges: [FetchedResultsSectionChange] = [],
    objectChanges: [FetchedResultsObjectChange] = []
  ) {
    self.sectionChanges = sectionChanges
    self.objectChanges = objectChanges
  }

  /// Whether nothing changed.
  public var isEmpty: Bool { sectionChanges.isEmpty && objectChanges.isEmpty }
}

extension FetchedResultsChanges {
  /// The changes that turn `old` into `new`, given the objects whose values changed and,
  /// among them, those whose sort keys changed.
  ///
  /// - Complexity: O(*n* log *n*) in the objects of the two layouts.
  init(
    from old: ResultLayout, to new: ResultLayout, updated: Set<ManagedObject>,
    resorted: Set<ManagedObject>
  ) {
    for (index, section) in old.sections.enumerated()
    where new.sectionIndexByName[section.name] == nil {
      sectionChanges.append(.init(section: section, type: .delete, sectionIndex: index))
    }
    for (index, section) in new.sections.enumerated()
    where old.sectionIndexByName[section.name] == nil {
      sectionChanges.append(.init(section: section, type: .insert, sectionIndex: index))
    }
    for object in old.objects where new.indexPaths[object] == nil {
      objectChanges.append(
        .init(object: object, type: .delete, indexPath: old.indexPaths[object], newIndexPath: nil))
    }
    var moves: [FetchedResultsObjectChange] = []
    var updates: [FetchedResultsObjectChange] = []
    for (sectionIndex, section) in new.sections.enumerated() {
      // The objects that were in this section before, in their new order, with their old items.
      var staying: [(object: ManagedObject, item: Int)] = []
      for (item, object) in section.objects.enumerated() {
        let newPath = ResultIndexPath(section: sectionIndex, item: item)
        guard let oldPath = old.indexPaths[object] else {
          objectChanges.append(
            .init(object: object, type: .insert, indexPath: nil, newIndexPath: newPath))
          continue
        }
        if old.sections[oldPath.section].name == section.name {
          staying.append((object, oldPath.item))
        } else {
          moves.append(
            .init(object: object, type: .move, indexPath: oldPath, newIndexPath: newPath))
        }
      }
      let heavy = staying.count + 1
      let kept = Self.heaviestIncreasingSubsequence(
        staying.map(\.item), weights: staying.map { resorted.contains($0.object) ? 1 : heavy })
      for (index, entry) in staying.enumerated() {
        let change = FetchedResultsObjectChange(
          object: entry.object, type: kept.contains(index) ? .update : .move,
          indexPath: old.indexPaths[entry.object], newIndexPath: new.indexPaths[entry.object])
        if change.type == .move {
          moves.append(change)
        } else if updated.contains(entry.object) {
          updates.append(change)
        }
      }
    }
    // Both kinds carry both paths.
    let none = ResultIndexPath(section: -1, item: -1)
    moves.sort { ($0.newIndexPath ?? none) < ($1.newIndexPath ?? none) }
    updates.sort { ($0.indexPath ?? none) < ($1.indexPath ?? none) }
    objectChanges += moves
    objectChanges += updates
  }

  /// The positions in `values` of a subsequence of increasing values with the greatest total
  /// weight; `values` are distinct and not negative, and `weights` positive.
  ///
  /// - Complexity: O(*n* log *m*), *m* the largest value.
  static func heaviestIncreasingSubsequence(_ values: [Int], weights: [Int]) -> Set<Int> {
    guard let largest = values.max() else { return [] }
    // tree[i] holds the best (score, position) among values in a Fenwick range ending at i.
    var tree = [(score: Int, position: Int)](repeating: (0, -1), count: largest + 2)
    var scores = [Int](repeating: 0, count: values.count)
    var previous = [Int](repeating: -1, count: values.count)
    for (position, value) in values.enumerated() {
      var best: (score: Int, position: Int) = (0, -1)
      var index = value  // values strictly below `value`: Fenwick indexes 1...value
      while index > 0 {
        if tree[index].score > best.score { best = tree[index] }
        index -= index & -index
      }
      scores[position] = best.score + weights[position]
      previous[position] = best.position
      index = value + 1
      while index < tree.count {
        if scores[position] > tree[index].score { tree[index] = (scores[position], position) }
        index += index & -index
      }
    }
    var kept: Set<Int> = []
    var position = scores.indices.max { scores[$0] < scores[$1] } ?? -1
    while position >= 0 {
      kept.insert(position)
      position = previous[position]
    }
    return kept
  }
}
