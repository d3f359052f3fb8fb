import FolioGraph
import Foundation

/// `Book`'s Codegen is Category/Extension: the plugin generates its properties, and the class
/// is written here, with logic of its own.
public class Book: Item {
  /// How many times `awakeFromInsert()` ran for this object.
  var awakenings = 0

  override public func awakeFromInsert() {
    super.awakeFromInsert()
    awakenings += 1
    title = "Untitled"
    added = Date(timeIntervalSinceReferenceDate: 0)
  }

  /// The book's chapter titles, in order: custom logic over generated properties.
  var tableOfContents: [String] { chapters.map { $0.title ?? "?" } }
}
