import Folio
import Foundation

/// Other processes' saves: several editor servers may serve one document, a PostgreSQL
/// document (each server keeps a connection to it) or a file. A tab's save reaches the other
/// tabs of its own server at once (``save(tab:)``); the other servers learn of it by looking.
///
/// Looking is cheap: the store's `isChangedOnDisk` compares a file's stamp (a `stat`), or asks
/// the store's connection for its change counter — for SQLite its `data_version`, for
/// PostgreSQL the last save another client recorded in the document's history, one indexed
/// query. When it changed, the coordinator takes the other writer's save in once, and the hub
/// merges the objects it changed into every tab's context, as it merges a tab's save: each
/// tab's fetched results controllers report the rows to its live channel, which then hears
/// `saved` with no tab.
extension DocumentHub {
  /// Takes in what other processes saved to the document since the hub last looked, saved or
  /// opened it, and merges it into every tab, keeping each tab's unsaved changes. Returns
  /// whether anything was merged.
  ///
  /// Undo: registers nothing in any tab.
  ///
  /// - Throws: `EditorError` (`store`) when the document cannot be read (the file was
  ///   replaced, the server cannot be reached); the tabs are then as they were.
  @discardableResult
  public func mergeChangesFromOtherWriters() throws(EditorError) -> Bool {
    guard coordinator.persistentStores.first?.isChangedOnDisk == true else { return false }
    let changes: ObjectIDChanges
    do {
      changes = try coordinator.takeInChangesFromOtherWriters()
    } catch {
      throw EditorError(error)
    }
    guard !changes.isEmpty else { return false }
    merge(changes, savedBy: nil)
    return true
  }

  /// Looks every `interval` for other processes' saves and merges them into every tab
  /// (``mergeChangesFromOtherWriters()``), in a task on the hub's actor, so a look falls
  /// between requests. A look that fails is written to standard error once, and tried again at
  /// the next interval. Calling this again replaces the watch;
  /// ``stopWatchingForOtherWriters()`` ends it, as the hub does when it goes.
  public func watchForOtherWriters(every interval: Duration = .milliseconds(200)) {
    watch?.cancel()
    watch = Task { [weak self] in
      while !Task.isCancelled {
        try? await Task.sleep(for: interval)
        guard let self else { return }
        await self.lookForOtherWriters()
      }
    }
  }

  /// Ends ``watchForOtherWriters(every:)``.
  public func stopWatchingForOtherWriters() {
    watch?.cancel()
    watch = nil
  }

  /// One look of the watch.
  private func lookForOtherWriters() {
    do {
      try mergeChangesFromOtherWriters()
      otherWritersProblem = nil
    } catch {
      guard otherWritersProblem != error.message else { return }
      otherWritersProblem = error.message
      FileHandle.standardError.write(
        Data("folio-editor: cannot take in other writers' saves: \(error.description)\n".utf8))
    }
  }
}
