import Folio
import Foundation

/// Copy, paste and duplicate of rows, through the server's ``Clipboard``.
///
/// Copy puts the selected objects, with everything they own through Cascade relationships, on
/// the clipboard as a `Pasteboard`'s JSON, and tells every other tab, whose Paste button then
/// names what it would paste. Paste, in any tab, inserts copies into the tab's context as one
/// undo group, `Paste Spending`; a copy's reference to an object outside what was copied is
/// re-attached where the tab's context has that object (every tab is on the same store), and
/// dropped, and reported, where it has not — an object another tab inserted and has not saved,
/// or one this tab deleted. Duplicate copies and pastes in place as one group, `Duplicate
/// Spending`, leaving the clipboard as it was, as an editor's Duplicate does.
extension DocumentHub {
  /// Puts the objects `ids` name, with what they own, on the clipboard, replacing what it
  /// held, and tells every other tab.
  ///
  /// - Throws: `EditorError` (`badRequest` for no IDs, `objectNotFound`).
  public func copy(objects ids: [String], tab id: String) throws(EditorError) -> StatePayload {
    let tab = try existingTab(id)
    try clipboard.hold(try pasteboard(copying: try objects(ids, in: tab)).data())
    for other in tabs.values where other !== tab {
      other.live?.yield(
        LiveEvent(kind: "copied", entity: nil, changes: [], tab: tab.id, state: other.state))
    }
    return tab.state
  }

  /// Inserts a copy of what the clipboard holds into the tab's context.
  ///
  /// Undo: one group, `Paste Entity`.
  ///
  /// - Throws: `EditorError` (`emptyClipboard`).
  public func paste(tab id: String) throws(EditorError) -> PastePayload {
    let tab = try existingTab(id)
    guard let data = clipboard.data, let entities = clipboard.entities else {
      throw EditorError.emptyClipboard
    }
    let pasteboard: Pasteboard
    do {
      pasteboard = try Pasteboard(data: data)
    } catch {
      preconditionFailure("the clipboard holds a pasteboard it checked: \(error)")
    }
    return try insertCopies(of: pasteboard, in: tab, named: "Paste \(entities)")
  }

  /// Inserts copies of the objects `ids` name, with what they own, beside them; the clipboard
  /// keeps what it held.
  ///
  /// Undo: one group, `Duplicate Entity`.
  ///
  /// - Throws: `EditorError` (`badRequest` for no IDs, `objectNotFound`).
  public func duplicate(objects ids: [String], tab id: String) throws(EditorError)
    -> PastePayload
  {
    let tab = try existingTab(id)
    let objects = try objects(ids, in: tab)
    var entities: [String] = []
    for name in objects.map(\.entityName) where !entities.contains(name) { entities.append(name) }
    return try insertCopies(
      of: try pasteboard(copying: objects), in: tab,
      named: "Duplicate \(entities.joined(separator: ", "))")
  }

  /// The clipboard's pasteboard JSON, as another server's `PUT /api/clipboard` takes it.
  ///
  /// - Throws: `EditorError` (`emptyClipboard`).
  public func clipboardData() throws(EditorError) -> Data {
    guard let data = clipboard.data else { throw EditorError.emptyClipboard }
    return data
  }

  /// Puts a pasteboard's JSON on the clipboard, as if a tab had copied it: what another server
  /// (another document) copied, read from its `GET /api/clipboard`.
  ///
  /// - Returns: What Paste now pastes: `2 Spending`.
  /// - Throws: `EditorError` (`malformedPasteboard`) when `data` is not a pasteboard.
  public func setClipboard(_ data: Data) throws(EditorError) -> String {
    try clipboard.hold(data)
    for tab in tabs.values {
      tab.live?.yield(
        LiveEvent(kind: "copied", entity: nil, changes: [], tab: nil, state: tab.state))
    }
    return clipboard.label ?? ""
  }

  // MARK: Helpers

  /// The objects `ids` name in the tab, at least one.
  private func objects(_ ids: [String], in tab: Tab) throws(EditorError) -> [ManagedObject] {
    guard !ids.isEmpty else {
      throw EditorError(
        status: 400, code: "badRequest", "no rows are selected to copy", place: "body.ids")
    }
    var objects: [ManagedObject] = []
    for text in ids { objects.append(try object(text, in: tab)) }
    return objects
  }

  private func pasteboard(copying objects: [ManagedObject]) throws(EditorError) -> Pasteboard {
    do {
      return try Pasteboard(copying: objects)
    } catch {
      throw EditorError(error)
    }
  }

  /// Pastes `pasteboard` into the tab's context as one turn, the undo group `name`.
  private func insertCopies(of pasteboard: Pasteboard, in tab: Tab, named name: String)
    throws(EditorError) -> PastePayload
  {
    var result: PasteResult?
    try change(in: tab, named: name) { () throws(GraphError) in
      result = try tab.context.paste(pasteboard)
    }
    guard let result else { preconditionFailure("a paste that did not throw gave no result") }
    let dropped = result.droppedReferences.map { reference in
      PastePayload.Dropped(
        id: reference.object.objectID.description,
        place: "\(reference.object.entityName).\(reference.relationship)",
        target: reference.uri.absoluteString, reason: reference.reason.description)
    }
    return PastePayload(
      rows: result.roots.map(row(of:)), inserted: result.objects.count, dropped: dropped,
      state: tab.state)
  }
}
