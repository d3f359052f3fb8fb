import FolioModel
import Foundation

/// What a store's reader hands its objects to, one record at a time, so that a whole store is
/// never held as records beside the graph built from them.
///
/// A context loading a store is one (its records become objects as they are read); so is the
/// collector behind ``StoreFormat/read(from:model:)``.
public protocol StoreRecordConsumer {
  /// Called once, before the first record: the store's metadata, the next object ID the store
  /// would give out (above every record's ID), and how many records follow when the format
  /// knows it up front.
  mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?)
    throws(StoreError)

  /// Takes the next record. A relationship may name an object whose record comes later.
  mutating func consume(_ record: StoreRecord) throws(StoreError)

  /// Called once, after the last record.
  mutating func finish() throws(StoreError)

  /// Whether each record must give every relationship of its object. A store may leave out
  /// one side of a pair that it keeps only with the other (a SQLite store keeps an unordered
  /// one-to-many as its members' foreign keys) when the consumer completes it from the other
  /// side, as a context loading the store does. The default is `false`; a consumer that takes
  /// records one at a time and hands them on (a dump) says `true`.
  var wantsEveryRelationship: Bool { get }
}

extension StoreRecordConsumer {
  public var wantsEveryRelationship: Bool { false }
}

/// A format whose whole read is its streaming read collected: one that can say, as it reads,
/// how many records it has read so far (a progress line's count).
package protocol CountingWholeRead: StoreFormat {
  /// ``StoreFormat/read(from:model:)``, telling `counted` the records read so far after each
  /// one, and how many there are in all when the store says (see ``CountingConsumer``).
  func read(
    from url: URL, model: ManagedObjectModel, counting counted: (_ done: Int, _ total: Int?) -> Void
  ) throws(StoreError) -> StoreContents
}

/// Hands records on to `base`, telling `counted` the records handed on so far, and how many
/// there are in all when the store says: once before the first (none done), then after each.
package struct CountingConsumer<Base: StoreRecordConsumer>: StoreRecordConsumer {
  package var base: Base
  private let counted: (_ done: Int, _ total: Int?) -> Void
  private var count = 0
  private var total: Int?

  package init(base: Base, counting counted: @escaping (_ done: Int, _ total: Int?) -> Void) {
    self.base = base
    self.counted = counted
  }

  package mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?)
    throws(StoreError)
  {
    total = recordCount
    counted(0, recordCount)
    try base.begin(metadata: metadata, nextObjectID: nextObjectID, recordCount: recordCount)
  }

  package mutating func consume(_ record: StoreRecord) throws(StoreError) {
    try base.consume(record)
    count += 1
    counted(count, total)
  }

  package mutating func finish() throws(StoreError) { try base.finish() }

  package var wantsEveryRelationship: Bool { base.wantsEveryRelationship }
}

/// Collects records into ``StoreContents``.
package struct StoreContentsCollector: StoreRecordConsumer {
  package private(set) var metadata = StoreMetadata(storeType: "")
  package private(set) var records: [StoreRecord] = []
  package private(set) var nextObjectID: Int64 = 1

  package init() {}

  package mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?) {
    self.metadata = metadata
    self.nextObjectID = nextObjectID
    if let recordCount { records.reserveCapacity(recordCount) }
  }

  package mutating func consume(_ record: StoreRecord) { records.append(record) }

  /// Takes `more` records at once, after those taken so far.
  package mutating func adopt(_ more: [StoreRecord]) {
    if records.isEmpty { records = more } else { records.append(contentsOf: more) }
  }

  package mutating func finish() {}

  package var contents: StoreContents {
    StoreContents(metadata: metadata, records: records, nextObjectID: nextObjectID)
  }
}

extension StoreFormat {
  /// Reads the whole store with ``read(from:model:)`` and hands its records to `consumer`: the
  /// default for a format that cannot stream.
  public func read<Consumer: StoreRecordConsumer>(
    from url: URL, model: ManagedObjectModel, into consumer: inout Consumer
  ) throws(StoreError) {
    let contents = try read(from: url, model: model)
    try consumer.begin(
      metadata: contents.metadata, nextObjectID: contents.nextObjectID,
      recordCount: contents.records.count)
    for record in contents.records { try consumer.consume(record) }
    try consumer.finish()
  }
}

extension StoreFormat {
  /// Refuses: this format cannot rewrite its metadata without loading its objects.
  public func writeMetadata(_ metadata: StoreMetadata, to url: URL) throws(StoreError) {
    throw StoreError(
      .writeFailed, "the \(typeName) format cannot rewrite its metadata alone",
      at: InputLocation(file: url.path))
  }
}

extension StoreFormat {
  /// The records of the store at `url` as ``StoreContents``, read through
  /// ``read(from:model:into:)`` with `counted` told of each, as ``CountingConsumer`` tells.
  package func collectRecords(
    from url: URL, model: ManagedObjectModel, counting counted: (_ done: Int, _ total: Int?) -> Void
  ) throws(StoreError) -> StoreContents {
    try withoutActuallyEscaping(counted) { (counted) throws(StoreError) in
      var collector = CountingConsumer(base: StoreContentsCollector(), counting: counted)
      try read(from: url, model: model, into: &collector)
      return collector.base.contents
    }
  }
}
