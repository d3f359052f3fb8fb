internal import CFolioSupport
import FolioModel
import FolioStores
import Foundation

/// A block's attribute columns between the two passes, one array per field.
struct AttributeColumns {
  var names: [String] = []
  var types: [AttributeType] = []
  var composites: [String?] = []
  var bitmaps: [UnsafeRawBufferPointer] = []
  /// Where each fixed-width column's next value is in the content.
  var offsets: [Int] = []
  /// Each variable-width column's values, decoded by the first pass.
  var decoded: [[AttributeValue]] = []
  var nextDecoded: [Int] = []

  /// Whether object `row` of the block has a value in column `column`.
  @inline(__always)
  func isPresent(_ column: Int, _ row: Int) -> Bool {
    bitmaps[column][row >> 3] & (1 << UInt8(row & 7)) != 0
  }
}

extension AttributeColumns {
  /// Moves each column's cursor past the values of the first `rows` rows.
  mutating func skip(rows: Int) {
    for column in names.indices {
      let bitmap = bitmaps[column]
      var present = 0
      for byte in bitmap.prefix(rows / 8) { present += byte.nonzeroBitCount }
      if rows % 8 != 0 {
        present +=
          (bitmap[rows / 8] & UInt8(truncatingIfNeeded: (1 << (rows % 8)) - 1))
          .nonzeroBitCount
      }
      if let width = types[column].binaryWidth {
        offsets[column] += present * width
      } else {
        nextDecoded[column] += present
      }
    }
  }
}

extension RelationshipColumns {
  /// Moves each column's cursor past the targets of the first `rows` rows.
  mutating func skip(rows: Int) {
    for column in names.indices {
      for row in 0..<rows { next[column] += count(column, row) }
    }
  }
}

/// Where records built from a block go when the whole store is read: straight into the
/// result's storage, from `base` on, which the caller frees or keeps.
struct RecordSink: StoreRecordConsumer {
  let base: UnsafeMutablePointer<StoreRecord>
  /// The records written from `base` on.
  var count = 0

  init(_ base: UnsafeMutablePointer<StoreRecord>) { self.base = base }

  mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?) {}

  @inline(__always)
  mutating func consume(_ record: StoreRecord) {
    (base + count).initialize(to: record)
    count += 1
  }

  mutating func finish() {}
}

/// A block's relationship columns between the two passes, one array per field.
struct RelationshipColumns {
  var relationships: [RelationshipDescription] = []
  var names: [String] = []
  /// A `UInt32` target count per object of the block.
  var counts: [UnsafeRawBufferPointer] = []
  /// All targets, as `UInt32` object indices; their number is the counts' sum.
  var targets: [UnsafeRawBufferPointer] = []
  /// Where each column's targets start in the content.
  var targetsOffsets: [Int] = []
  /// The position in `targets` of the next object's first target.
  var next: [Int] = []
  /// The object indices the targets may have, and the first such range alone.
  var allowed: [[Range<Int>]] = []
  var firstAllowed: [Range<Int>] = []

  @inline(__always)
  func count(_ column: Int, _ row: Int) -> Int {
    Int(
      UInt32(
        littleEndian: counts[column].loadUnaligned(fromByteOffset: row * 4, as: UInt32.self)))
  }
}

extension BinaryStore {
  /// The records of a BODY section's inflated `content`, read with `model` as a whole-store
  /// read builds them, except that blocks of at least `parallelRows` rows are built in two
  /// halves at once (a file's read uses 32,768); and how many tables of shared to-one lists
  /// the reader built. Errors name the byte of `content` in a file called `body`.
  ///
  /// For the tests and the fuzz harness, which drive the two-half path with small bodies; no
  /// file is read, so no header, checksum or metadata is checked. With `streamed`, the records
  /// are built as a reader that takes them one by one gets them (a context's loader), not as
  /// a whole-store read keeps them.
  package static func records(
    ofBody content: UnsafeRawBufferPointer, model: ManagedObjectModel, parallelRows: Int,
    streamed: Bool = false
  ) throws(StoreError) -> (records: [StoreRecord], sharedTableBuilds: Int) {
    let place = BinaryPlace(file: "body", section: "BODY", fileOffset: 0, isInflated: true)
    var reader = try BinaryBodyReader.open(ByteReader(content, place: place), model: model)
    reader.parallelRows = parallelRows
    if streamed {
      var taker = RecordTaker()
      try reader.readRecords(into: &taker)
      return (taker.records, reader.sharedTableBuilds)
    }
    var collector = StoreContentsCollector()
    try reader.readRecords(into: &collector)
    return (collector.records, reader.sharedTableBuilds)
  }
}

/// Takes records one by one, as a context's loader does, keeping them.
private struct RecordTaker: StoreRecordConsumer {
  var records: [StoreRecord] = []
  mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?) {}
  mutating func consume(_ record: StoreRecord) { records.append(record) }
  mutating func finish() {}
}
