import FolioGraph
import Foundation

/// Undo history that outlives the document's closing, as Vim's `undofile` keeps it: each save
/// writes the undo and redo stacks beside the file (`NAME.EXT.folio-undo`), and the next
/// session sets them up again, so Undo after reopening goes back past the save, across as
/// many sessions as the history holds.
///
/// ```swift
/// let document = try Document.open(url, model: model, formats: formats)
/// switch document.keepUndoHistory() {
/// case .restored(let undo, _): print("\(undo) steps to undo from earlier sessions")
/// case .discarded(let error): print("history not restored: \(error)")
/// case .none: break
/// }
/// try document.save()            // writes the file, then its history
/// ```
///
/// The history is the stacks as they are at the save, bounded by the undo manager's
/// ``UndoManager/maximumUndoBytes`` (the file is at most that long: the oldest groups go
/// first) and its ``UndoManager/levelsOfUndo`` (as in memory). It names the document's
/// bytes: a history whose document was saved by anyone else since is discarded, never
/// applied. Objects the history brings back (deleted and saved, or inserted and undone) get
/// new IDs when saved again; transient values and actions the app registered itself are not
/// kept (a group holding one ends the history: only newer groups are kept). Each save reads
/// the saved file back once, for the checksum that ties the history to it.
extension Document {
  /// What ``keepUndoHistory()`` found beside the document.
  public enum UndoHistoryRestoration: Sendable {
    /// No history was kept for the document.
    case none
    /// The stacks were set up again: this many groups to undo and to redo.
    case restored(undo: Int, redo: Int)
    /// The history was not applied: damaged (with the byte), kept for another version of the
    /// document, or naming what the document does not have. The next save replaces it.
    case discarded(UndoHistoryError)
  }

  /// Where the document's undo history is kept: beside its file; `nil` while untitled.
  public var undoHistoryURL: URL? { fileURL.map(UndoHistoryFile.url(for:)) }

  /// Turns on ``keepsUndoHistory`` and sets up the undo and redo stacks kept beside the file
  /// by an earlier session, if any. Call it right after opening, before any change: with
  /// unsaved changes the history is discarded.
  @discardableResult
  public func keepUndoHistory() -> UndoHistoryRestoration {
    keepsUndoHistory = true
    guard let fileURL, let historyURL = undoHistoryURL,
      FileManager.default.fileExists(atPath: historyURL.path)
    else { return .none }
    let file = historyURL.path
    do throws(UndoHistoryError) {
      guard !context.hasChanges else {
        throw UndoHistoryError(
          .mismatch, "the document has unsaved changes", at: InputLocation(file: file))
      }
      let data: Data
      let fingerprint: UndoHistoryFile.Fingerprint
      do {
        data = try Data(contentsOf: historyURL)
        fingerprint = try UndoHistoryFile.fingerprint(of: fileURL)
      } catch {
        throw UndoHistoryError(
          .io, "cannot read it: \(error.localizedDescription)", at: InputLocation(file: file),
          underlying: error)
      }
      let payload = try UndoHistoryFile.payload(of: data, file: file, document: fingerprint)
      do {
        try context.restoreUndoHistory(from: payload)
      } catch {
        throw UndoHistoryError(
          error.isMismatch ? .mismatch : .damaged,
          error.path.isEmpty ? error.message : "\(error.path): \(error.message)",
          at: InputLocation(
            file: file, byteOffset: UndoHistoryFile.headerSize, entity: error.entity,
            property: error.key))
      }
    } catch {
      return .discarded(error)
    }
    savePoint = undoManager?.stateIdentifier
    return .restored(undo: undoManager?.undoCount ?? 0, redo: undoManager?.redoCount ?? 0)
  }

  /// Writes the stacks beside the file, after a save, when history is kept.
  func writeUndoHistory() {
    guard keepsUndoHistory, let fileURL, let historyURL = undoHistoryURL else { return }
    do {
      let fingerprint = try UndoHistoryFile.fingerprint(of: fileURL)
      let limit = undoManager?.maximumUndoBytes.map(UndoHistoryFile.payloadLimit(forFileSize:))
      let payload = context.undoHistoryArchive(maximumBytes: limit)
      // Through AtomicFile, as the store: its temporary beside the file, removed when a save
      // is killed and the next one comes.
      try AtomicFile.write(UndoHistoryFile.encode(payload, for: fingerprint), to: historyURL)
      undoHistoryProblem = nil
    } catch let error as StoreError {
      undoHistoryProblem = UndoHistoryError(
        .io, "the undo history was not written: \(error.message)",
        at: InputLocation(file: historyURL.path), underlying: error)
    } catch {
      undoHistoryProblem = UndoHistoryError(
        .io, "the undo history was not written: \(error.localizedDescription)",
        at: InputLocation(file: historyURL.path), underlying: error)
    }
  }
}
