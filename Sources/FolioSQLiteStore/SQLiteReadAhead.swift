import FolioStores
import Foundation

/// Reads a SQLite store's rows on a second thread while the caller's consumer takes the
/// records already read: SQLite's stepping and the decoding of values overlap with what the
/// consumer does with them (building a graph takes about as long on a big store).
///
/// The reading thread collects records in batches and hands each over through a queue of two;
/// the caller takes them in order, so the consumer sees the records, and a reading error after
/// them, exactly as a read on one thread gives them. The database belongs to the reading
/// thread until ``run(reading:into:)`` returns. When the consumer throws, the reading thread
/// stops at its next batch, and the error is the caller's.
package final class SQLiteReadAhead: @unchecked Sendable {
  /// How many records a batch holds.
  let batchSize: Int

  /// What the reading thread hands over: a batch, or how the reading ended.
  fileprivate enum Item {
    case batch([StoreRecord])
    case end(StoreError?)
  }

  /// Guards everything below; the two threads wait on it for room, items and the end.
  private let condition = NSCondition()
  private var queue: [Item] = []
  /// Set by the caller when its consumer threw: the reading thread stops.
  private var isStopped = false
  private var hasEnded = false

  package init(batchSize: Int = 8_192) { self.batchSize = max(1, batchSize) }

  /// Collects records into batches on the reading thread.
  package struct Batcher: StoreRecordConsumer {
    fileprivate let owner: SQLiteReadAhead
    private var batch: [StoreRecord] = []

    fileprivate init(owner: SQLiteReadAhead) { self.owner = owner }

    package mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?) {}

    package mutating func consume(_ record: StoreRecord) throws(StoreError) {
      if batch.isEmpty { batch.reserveCapacity(owner.batchSize) }
      batch.append(record)
      if batch.count >= owner.batchSize { try flush() }
    }

    /// Hands the batch over; throws to unwind the reader when the caller stopped.
    mutating func flush() throws(StoreError) {
      guard !batch.isEmpty else { return }
      guard owner.push(.batch(batch)) else { throw StoreError(.malformedStore, "stopped") }
      batch = []
    }

    package mutating func finish() {}
  }

  /// What the reading thread runs, carried to it.
  private struct Work: @unchecked Sendable {
    let read: (inout Batcher) throws(StoreError) -> Void
  }

  /// Queues `item` once there is room; `false` when the caller stopped reading.
  fileprivate func push(_ item: Item) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while queue.count >= 2, !isStopped { condition.wait() }
    guard !isStopped else { return false }
    queue.append(item)
    condition.broadcast()
    return true
  }

  private func pop() -> Item {
    condition.lock()
    defer { condition.unlock() }
    while queue.isEmpty { condition.wait() }
    let item = queue.removeFirst()
    condition.broadcast()
    return item
  }

  /// Runs `read` — the reader's loop over every table, handing its records to the batcher it
  /// is given — on a second thread, and gives the records to `consumer` on this one.
  package func run<Consumer: StoreRecordConsumer>(
    reading read: @escaping (inout Batcher) throws(StoreError) -> Void,
    into consumer: inout Consumer
  ) throws(StoreError) {
    let work = Work(read: read)
    let thread = Thread { [self] in
      var batcher = Batcher(owner: self)
      var failure: StoreError?
      do throws(StoreError) {
        try work.read(&batcher)
      } catch {
        failure = error
      }
      // The records read before a failure go first, as on one thread.
      do throws(StoreError) {
        try batcher.flush()
      } catch {
        failure = failure ?? error
      }
      _ = push(.end(failure))
      condition.lock()
      hasEnded = true
      condition.broadcast()
      condition.unlock()
    }
    thread.name = "folio.sqlite.read-ahead"
    thread.stackSize = 1 << 23
    thread.start()
    defer {
      condition.lock()
      while !hasEnded { condition.wait() }
      condition.unlock()
    }
    while true {
      switch pop() {
      case .batch(let records):
        do throws(StoreError) {
          for record in records { try consumer.consume(record) }
        } catch {
          stop()
          throw error
        }
      case .end(let failure):
        if let failure { throw failure }
        return
      }
    }
  }

  /// Stops the reading thread: its next hand-over finds the queue closed.
  private func stop() {
    condition.lock()
    isStopped = true
    queue.removeAll()
    condition.broadcast()
    condition.unlock()
  }
}
