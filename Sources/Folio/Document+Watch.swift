import FolioGraph
import FolioStores
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension Document {
  /// Looks every `interval` for saves other processes made to the document's store (its
  /// file's stamp, a SQLite store's `data_version`, a PostgreSQL document's save history: a
  /// `stat` or one statement) and merges them as ``mergeChangesFromOtherWriters()`` does,
  /// each merge a work item of `queue` of its own, so it falls between the app's turns;
  /// `onMerge` is told what each merge brought. A merge that fails leaves the document as it
  /// was and sets ``otherWritersProblem``; it is tried again once the store changes again.
  ///
  /// A PostgreSQL document does not wait for the interval: its server notifies the document's
  /// connection of each other client's save, and the watch, waiting on that connection,
  /// merges at once. The interval then only covers a connection made again after a restart.
  ///
  /// The document belongs to `queue` (by default the main queue): it is used there only, as
  /// the watch uses it there. Calling this again replaces the watch;
  /// ``stopWatchingForChangesFromOtherWriters()`` ends it.
  public func watchForChangesFromOtherWriters(
    every interval: Duration = .milliseconds(250), on queue: DispatchQueue = .main,
    onMerge: ((ObjectIDChanges) -> Void)? = nil
  ) {
    stopWatchingForChangesFromOtherWriters()
    // The handlers run on `queue`, where the document is used and only there.
    nonisolated(unsafe) weak let document = self
    nonisolated(unsafe) let onMerge = onMerge
    let watch = DocumentWatch(queue: queue, interval: interval) {
      document?.mergeForWatch(onMerge: onMerge)
    }
    self.watch = watch
    watch.follow(coordinator.persistentStores.first?.connection?.changeNotifier)
  }

  /// Ends ``watchForChangesFromOtherWriters(every:on:onMerge:)``.
  public func stopWatchingForChangesFromOtherWriters() {
    watch?.cancel()
    watch = nil
  }

  /// The watch's work, at each tick and each notification: a merge when the store changed.
  private func mergeForWatch(onMerge: ((ObjectIDChanges) -> Void)?) {
    defer { watch?.follow(coordinator.persistentStores.first?.connection?.changeNotifier) }
    guard isChangedOnDisk else { return }
    let state = watchedState
    if otherWritersProblem != nil, state == watch?.failedState { return }
    do {
      let changes = try mergeChangesFromOtherWriters()
      otherWritersProblem = nil
      if !changes.isEmpty { onMerge?(changes) }
    } catch {
      otherWritersProblem = error as? StoreError ?? StoreError(.unreadable, "\(error)")
      watch?.failedState = state
    }
  }

  /// What the watch compares to know whether the store changed since a merge failed: the
  /// file's identity, size and time of change, and a connection's change counter.
  private var watchedState: DocumentWatch.State {
    var state = DocumentWatch.State()
    if let path = fileURL?.path,
      let attributes = try? FileManager.default.attributesOfItem(
        atPath: path)
    {
      var file: [FileAttributeKey: AnyHashable] = [:]
      for key in [FileAttributeKey.systemFileNumber, .size, .modificationDate] {
        file[key] = attributes[key] as? AnyHashable
      }
      state.file = file
    }
    state.counter = try? coordinator.persistentStores.first?.connection?.changeCounter()
    return state
  }
}

/// What watches a document for other writers' saves: a timer, and for a store whose connection
/// hears of other writers' commits (``ChangeNotifier``), a read source on a duplicate of that
/// connection's descriptor, followed to the new one when the connection is made again.
final class DocumentWatch {
  /// What the watch saw of the store.
  struct State: Equatable {
    var file: [FileAttributeKey: AnyHashable]?
    var counter: Int64?
  }

  private let queue: DispatchQueue
  private let timer: DispatchSourceTimer
  private let check: () -> Void
  private var reader: DispatchSourceRead?
  /// Whether the reader waits for the next tick: what arrived was not read by the check.
  private var isReaderSuspended = false
  private var notifier: ChangeNotifier?
  /// What the watch saw when a merge it tried last failed, so it is not tried again until the
  /// store changes.
  var failedState: State?

  init(queue: DispatchQueue, interval: Duration, check: @escaping () -> Void) {
    self.queue = queue
    self.check = check
    timer = DispatchSource.makeTimerSource(queue: queue)
    nonisolated(unsafe) weak let watch = self
    timer.setEventHandler { watch?.tick() }
    let milliseconds =
      Int(interval.components.seconds * 1000)
      + Int(interval.components.attoseconds / 1_000_000_000_000_000)
    timer.schedule(
      deadline: .now() + .milliseconds(milliseconds), repeating: .milliseconds(max(1, milliseconds))
    )
    timer.resume()
  }

  /// The timer's work: the check, and the reader waiting again.
  private func tick() {
    check()
    if isReaderSuspended, let reader {
      isReaderSuspended = false
      reader.resume()
    }
  }

  /// Waits on `notifier` from now on, unless it is the one waited on already.
  ///
  /// The read source watches a duplicate of the descriptor, closed when the source is
  /// cancelled: the connection may close its own (a restart) while the source still has it.
  func follow(_ notifier: ChangeNotifier?) {
    guard notifier != self.notifier else { return }
    stopReading()
    self.notifier = notifier
    guard let notifier else { return }
    let descriptor = dup(notifier.descriptor)
    guard descriptor >= 0 else { return }
    let reader = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
    nonisolated(unsafe) let check = check
    // A socket the server closed stays readable, empty: waiting on it would spin, so the
    // watch stops waiting until the connection is made again.
    nonisolated(unsafe) weak let watch = self
    reader.setEventHandler {
      var byte: UInt8 = 0
      if recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0 {
        watch?.stopReading()
        return
      }
      check()
      // Something the check did not read (it read nothing from a store it found unchanged
      // by its stamp) would wake the reader at once again: it waits for the next tick.
      if recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0, let watch,
        let reader = watch.reader, !watch.isReaderSuspended
      {
        watch.isReaderSuspended = true
        reader.suspend()
      }
    }
    reader.setCancelHandler { close(descriptor) }
    self.reader = reader
    reader.resume()
  }

  private func stopReading() {
    guard let reader else { return }
    // A suspended source is cancelled, and its descriptor closed, only once resumed.
    if isReaderSuspended { reader.resume() }
    isReaderSuspended = false
    reader.cancel()
    self.reader = nil
  }

  func cancel() {
    timer.cancel()
    stopReading()
  }
}
