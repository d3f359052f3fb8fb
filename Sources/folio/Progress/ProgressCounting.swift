import Folio
import Foundation

/// A store format that reads as `base` does and tells `progress` how many objects have been
/// read: what a command hands a coordinator, or reads through, to count objects it never sees
/// one by one. Everything else is `base`'s.
struct ProgressCountingFormat: StoreFormat {
  let base: any StoreFormat
  let progress: ProgressReporter

  var typeName: String { base.typeName }
  var fileExtension: String { base.fileExtension }

  func recognizes(_ prefix: Data) -> Bool { base.recognizes(prefix) }

  func readMetadata(from url: URL) throws(StoreError) -> StoreMetadata {
    try base.readMetadata(from: url)
  }

  /// `base`'s whole store; a binary store's counted, as its whole read is its streaming read
  /// collected.
  func read(from url: URL, model: ManagedObjectModel) throws(StoreError) -> StoreContents {
    guard progress.isShown, base is BinaryStore else {
      return try base.read(from: url, model: model)
    }
    var collector = ContentsCollector()
    try read(from: url, model: model, into: &collector)
    return collector.contents
  }

  func read<Consumer: StoreRecordConsumer>(
    from url: URL, model: ManagedObjectModel, into consumer: inout Consumer
  ) throws(StoreError) {
    guard progress.isShown else { return try base.read(from: url, model: model, into: &consumer) }
    var counting = ProgressCountingConsumer(base: consumer, progress: progress)
    // The consumer keeps what it met even when reading fails (`dump` keeps its output's
    // failure), so it goes back to the caller either way.
    defer { consumer = counting.base }
    try base.read(from: url, model: model, into: &counting)
  }

  func writeMetadata(_ metadata: StoreMetadata, to url: URL) throws(StoreError) {
    try base.writeMetadata(metadata, to: url)
  }

  func write(_ contents: StoreContents, model: ManagedObjectModel, to url: URL)
    throws(StoreError)
  {
    try base.write(contents, model: model, to: url)
  }
}

/// Hands records on to `base`, counting them for `progress`.
struct ProgressCountingConsumer<Base: StoreRecordConsumer>: StoreRecordConsumer {
  var base: Base
  let progress: ProgressReporter
  private var count = 0

  init(base: Base, progress: ProgressReporter) {
    self.base = base
    self.progress = progress
  }

  mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?)
    throws(StoreError)
  {
    if let recordCount { progress.setTotal(objects: recordCount) }
    try base.begin(metadata: metadata, nextObjectID: nextObjectID, recordCount: recordCount)
  }

  mutating func consume(_ record: StoreRecord) throws(StoreError) {
    try base.consume(record)
    count += 1
    progress.count(objects: count)
  }

  mutating func finish() throws(StoreError) { try base.finish() }

  var wantsEveryRelationship: Bool { base.wantsEveryRelationship }
}

/// Collects records into `StoreContents` as `BinaryStore.read(from:model:)` does.
struct ContentsCollector: StoreRecordConsumer {
  private var metadata = StoreMetadata(storeType: "")
  private var records: [StoreRecord] = []
  private var nextObjectID: Int64 = 1

  mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?) {
    self.metadata = metadata
    self.nextObjectID = nextObjectID
    if let recordCount { records.reserveCapacity(recordCount) }
  }

  mutating func consume(_ record: StoreRecord) { records.append(record) }

  mutating func finish() {}

  var contents: StoreContents {
    StoreContents(metadata: metadata, records: records, nextObjectID: nextObjectID)
  }
}
