/// Where an object sits in a ``FetchedResultsController``'s results: a section and an item in it.
///
/// The counterpart of the two-index `IndexPath` that Core Data's fetched results controller uses.
/// Foundation's `IndexPath` exists on Linux, but only as a general array of indexes: its
/// `section` and `item` accessors and `init(item:section:)` come from UIKit and AppKit, which
/// Linux does not have. A plain value with exactly two named indexes says what it holds, cannot
/// be built with the wrong number of indexes, and compares as a list view expects.
///
/// Index paths order by section, then by item.
public struct ResultIndexPath: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The index of the section.
  public var section: Int
  /// The index of the object within its section.
  public var item: Int

  /// Creates the index path of item `item` of section `section`.
  public init(section: Int, item: Int) {
    self.section = section
    self.item = item
  }

  /// Whether `lhs` comes before `rhs`: an earlier section, or an earlier item of the same one.
  public static func < (lhs: ResultIndexPath, rhs: ResultIndexPath) -> Bool {
    (lhs.section, lhs.item) < (rhs.section, rhs.item)
  }

  /// `[section, item]`, as Foundation prints an index path.
  public var description: String { "[\(section), \(item)]" }
}
