import Folio
import Foundation

/// The server's clipboard, which every tab shares, as the apps of one desktop share the
/// system pasteboard: what one tab copies, any tab pastes.
///
/// It holds a pasteboard's JSON (`Formats/pasteboard.md`), the form a pasteboard takes between
/// processes, and reads it back at each paste, so a pasteboard copied by another server (`PUT
/// /api/clipboard`) is as good as one copied here. Like the tabs, it belongs to the hub's
/// actor.
final class Clipboard {
  /// The pasteboard's JSON; `nil` until something is copied.
  private(set) var data: Data?
  /// What Paste would paste, for its button: `2 Spending`.
  private(set) var label: String?
  /// The entities of the objects copied, for the undo group's name: `Paste Spending`.
  private(set) var entities: String?

  /// Holds a pasteboard's JSON, replacing what the clipboard held.
  ///
  /// - Throws: `EditorError` (`malformedPasteboard`) naming the body when `data` is not a
  ///   pasteboard.
  func hold(_ data: Data) throws(EditorError) {
    do {
      _ = try Pasteboard(data: data)
    } catch {
      throw EditorError(
        status: 400, code: "malformedPasteboard", "not a pasteboard: \(error)", place: "body")
    }
    // The copied objects are the roots, each an index into `objects` (pasteboard.md §2).
    let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    let objects = json?["objects"] as? [[String: Any]] ?? []
    var counts: [(name: String, count: Int)] = []
    for case let root as Int in json?["roots"] as? [Any] ?? [] where objects.indices.contains(root)
    {
      let name = objects[root]["entity"] as? String ?? "object"
      if let index = counts.firstIndex(where: { $0.name == name }) {
        counts[index].count += 1
      } else {
        counts.append((name, 1))
      }
    }
    self.data = data
    label = counts.map { "\($0.count) \($0.name)" }.joined(separator: ", ")
    entities = counts.map(\.name).joined(separator: ", ")
  }
}
