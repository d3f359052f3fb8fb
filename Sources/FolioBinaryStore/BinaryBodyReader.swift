internal import CFolioSupport
import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

// Reading the BODY section's inflated content back into records (the layout is described in
// BinaryBodyWriter.swift and Formats/binary-store.md).
//
// Nothing from the file is trusted: each count is checked against the bytes left before
// anything is allocated for it, each string index and object index against its table, each
// column's name, type tag and relationship kind against the model, and each target's entity
// against the relationship's destination.
//
// The body is stored by column but records are built by row, each in one go. A block is read
// in two passes. The first walks its columns' structure: names, tags, kinds, presence bitmaps
// and target counts are checked, and each column's values are stepped over (fixed-width
// values by their count; the rare variable-width ones are decoded then and kept), leaving a
// cursor at the start of each column's values. The second pass builds one record per object,
// taking the next value from each column that has one.
//
// A record's attribute values are a row: an array of the values present, in column order,
// beside the names of those columns, one ``RecordNames`` shared by every record of the block
// with the same columns present (a dictionary per record would take twice the memory, and
// memory a load touches for the first time is what a large load mostly waits for). Its
// relationships are a dictionary copied from a template holding its keys (one per set of
// present columns), each target list stored through the index its key has in the template;
// a copied dictionary keeps its original's layout, so no key is hashed per record. When the
// records are all kept (read whole, not streamed), an object's lone to-one reference is a
// dictionary built once per target and shared, all of them built side by side before the
// records and fetched ahead of use (``prefetchShared``), for one such column per block (the
// first met); a streamed record lives only until
// its consumer returns, and shared lists kept to the end would leave holes in the heap
// between the objects built meanwhile.

//
// When the whole store is read, a block of at least `parallelRows` rows is built in two halves
// at once, the second on another thread (``readRowsInHalves(of:_:_:into:)``): building rows is
// mostly waiting for memory touched for the first time, and two cores wait side by side. The
// columns are read once; the second half's cursors are moved past the first half's values.

/// Decodes a BODY section's content into records.
struct BinaryBodyReader {
  let model: ManagedObjectModel
  var reader: ByteReader
  var values: BinaryValueDecoder
  /// Every object's ID, by object index.
  var ids: [Int64] = []
  /// Each entity block: its entity, its name as stored, and the range of its objects' indices.
  var blocks: [(entity: EntityDescription, name: String, range: Range<Int>)] = []
  /// The shared one-target list of each object index, built when first needed.
  var singleTargets: [[Int64]?] = []
  /// The relationships of objects whose only target is one object through relationship
  /// `sharedKey`, by the target's index: built when first needed, then shared.
  var shared: [[String: [Int64]]?] = []
  var sharedKey: String?
  /// The block being read, and the block that built `shared`: a block builds it at most once.
  var currentBlock = 0
  var sharedBlock = -1
  /// How many times `shared` was built, for tests: at most once per block.
  var sharedTableBuilds = 0
  /// Whether one-target lists are shared between records (see above).
  var sharesTargets = false
  /// The fewest rows of a block whose records are built in two halves at once, when the whole
  /// store is read.
  var parallelRows = 32_768

  init(_ reader: ByteReader, model: ManagedObjectModel) {
    self.reader = reader
    self.model = model
    self.values = BinaryValueDecoder(model: model, strings: [])
  }

  /// A reader of `reader`'s bytes, which must be a whole BODY content, past its string table
  /// and entity directory: every object's ID is known, no record is read yet.
  ///
  /// - Throws: `StoreError` naming the byte of the inflated content: `.truncated`,
  ///   `.malformedStore`, `.modelMismatch`.
  static func open(_ reader: ByteReader, model: ManagedObjectModel) throws(StoreError)
    -> BinaryBodyReader
  {
    var body = BinaryBodyReader(reader, model: model)
    try body.readStrings()
    try body.readDirectory()
    return body
  }

  /// The number of objects in the body.
  var objectCount: Int { ids.count }
  /// The largest object ID in the body, 0 when it has none.
  var maximumID: Int64 { ids.max() ?? 0 }

  /// Reads the records, block by block, handing each to `consumer` as it is built.
  ///
  /// - Throws: `StoreError` naming the byte of the inflated content: `.truncated`,
  ///   `.malformedStore`, `.modelMismatch`, `.typeMismatch` or `.danglingReference`; and
  ///   whatever `consumer` throws.
  mutating func readRecords<Consumer: StoreRecordConsumer>(into consumer: inout Consumer)
    throws(StoreError)
  {
    sharesTargets = Consumer.self == StoreContentsCollector.self
    // The whole store is read: its records are built straight into one array (the casts
    // only name the type `sharesTargets` found; the empty collector leaves `collector` the
    // only owner of the records reserved so far).
    if sharesTargets, var collector = consumer as? StoreContentsCollector,
      let empty = StoreContentsCollector() as? Consumer
    {
      consumer = empty
      collector.adopt(try readAllRecords())
      if let filled = collector as? Consumer { consumer = filled }
    } else {
      for block in blocks.indices {
        currentBlock = block
        var (attributes, relationships) = try readColumns(of: block)
        try readRows(
          0..<blocks[block].range.count, of: block, &attributes, &relationships, into: &consumer)
      }
    }
    guard reader.isAtEnd else {
      throw reader.error(.malformedStore, "\(reader.remaining) bytes follow the last column")
    }
  }

  mutating func readStrings() throws(StoreError) {
    let count = try reader.count("the string count", elementSize: 4)
    let lengths = try reader.slice(count * 4, "the string lengths")
    func length(_ index: Int) -> Int {
      Int(UInt32(littleEndian: lengths.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
    }
    // The strings' bytes are checked as one run: valid UTF-8 cut only where a scalar starts
    // is valid in every piece. Only when that fails is each string checked, to name it.
    let start = reader.offset
    var total = 0
    var isCutInScalar = false
    let maximumLength = StoreLimits.current.maximumValueBytes
    for index in 0..<count {
      let length = length(index)
      guard length <= maximumLength else {
        throw reader.error(
          .limitExceeded, "string \(index): " + StoreLimits.current.valueTooLarge(length),
          at: start - (count - index) * 4)
      }
      guard length <= reader.remaining - total else {
        throw reader.error(
          .truncated,
          "string \(index) needs \(length) bytes but only \(reader.remaining - total) remain",
          at: start + total)
      }
      if length > 0, UTF8Check.isContinuation(reader.bytes[start + total]) { isCutInScalar = true }
      total += length
    }
    let utf8 = try reader.slice(total, "the strings")
    if isCutInScalar || !UTF8Check.isValid(utf8) {
      var offset = 0
      for index in 0..<count {
        let piece = UnsafeRawBufferPointer(rebasing: utf8[offset..<offset + length(index)])
        guard UTF8Check.isValid(piece) else {
          throw reader.error(
            .malformedStore, "string \(index) is not valid UTF-8", at: start + offset)
        }
        offset += piece.count
      }
    }
    var strings: [String] = []
    strings.reserveCapacity(count)
    let base = utf8.assumingMemoryBound(to: UInt8.self)
    var offset = 0
    for index in 0..<count {
      let length = length(index)
      strings.append(
        String(
          decoding: UnsafeBufferPointer(rebasing: base[offset..<offset + length]), as: UTF8.self))
      offset += length
    }
    values = BinaryValueDecoder(model: model, strings: strings)
  }

  mutating func readDirectory() throws(StoreError) {
    let count = try reader.count("the entity count", elementSize: 8)
    var minimum = Int64.max
    var maximum = Int64.min
    for _ in 0..<count {
      let start = reader.offset
      let name = try values.string(&reader, "an entity name")
      guard let entity = model.entity(named: name) else {
        throw reader.error(.modelMismatch, "entity \"\(name)\" is not in the model", at: start)
      }
      guard !blocks.contains(where: { $0.entity.name == name }) else {
        throw reader.error(.malformedStore, "entity \"\(name)\" has two blocks", at: start)
      }
      let countOffset = reader.offset
      let objectCount = try reader.count("the object count of \(name)", elementSize: 8)
      let limits = StoreLimits.current
      guard objectCount <= limits.maximumObjectCount - ids.count else {
        throw reader.error(
          .limitExceeded, limits.tooManyObjects(ids.count + objectCount), at: countOffset)
      }
      let idsOffset = reader.offset
      let raw = try reader.slice(objectCount * 8, "the object IDs of \(name)")
      ids.reserveCapacity(ids.count + objectCount)
      let first = ids.count
      for index in 0..<objectCount {
        let id = Int64(
          littleEndian: raw.loadUnaligned(fromByteOffset: index * 8, as: Int64.self))
        guard id >= 1 else {
          throw reader.error(
            .malformedStore, "object ID \(id) is below 1", at: idsOffset + index * 8)
        }
        minimum = min(minimum, id)
        maximum = max(maximum, id)
        ids.append(id)
      }
      blocks.append((entity, name, first..<ids.count))
    }
    var table = ObjectIndexTable(
      minimum: ids.isEmpty ? 0 : minimum, maximum: ids.isEmpty ? -1 : maximum, count: ids.count)
    for (index, id) in ids.enumerated()
    where !table.insert(UInt32(truncatingIfNeeded: index), for: id) {
      throw reader.error(.malformedStore, "object ID \(id) is used twice", at: 0)
    }
  }

  func located(_ error: StoreError, _ entity: String, _ key: String) -> StoreError {
    var error = error
    error.location = error.location?.naming(entity: entity, property: key)
    return error
  }

  /// Every record, block by block, in one array that the records are built into: a large
  /// block's rows are built in two halves at once, one on another thread (see
  /// ``readRowsInHalves(of:_:_:into:)``).
  mutating func readAllRecords() throws(StoreError) -> [StoreRecord] {
    var failure: StoreError?
    let records = [StoreRecord](unsafeUninitializedCapacity: ids.count) { buffer, count in
      guard let base = buffer.baseAddress else { return }
      // The records built so far, from the buffer's start.
      var written = 0
      do throws(StoreError) {
        for block in blocks.indices {
          currentBlock = block
          var (attributes, relationships) = try readColumns(of: block)
          var sink = RecordSink(base + written)
          defer { written += sink.count }
          try readRowsInHalves(of: block, &attributes, &relationships, into: &sink)
        }
        count = written
      } catch {
        base.deinitialize(count: written)
        count = 0
        failure = error
      }
    }
    if let failure { throw failure }
    return records
  }

  /// Builds block `block`'s records into `sink`: a block of at least ``parallelRows`` rows in
  /// two halves at once, the second on another thread.
  ///
  /// The second half reads with a copy of this reader (its arrays are values, so neither half
  /// sees the other's changes) and of the columns, moved on past the first half's values. The
  /// table of shared to-one relationships is built first, so both halves share it. An error
  /// is the first half's when it has one, else the second's: the first in row order, as when
  /// the rows are built in one run.
  mutating func readRowsInHalves(
    of block: Int, _ attributes: inout AttributeColumns,
    _ relationships: inout RelationshipColumns, into sink: inout RecordSink
  ) throws(StoreError) {
    let count = blocks[block].range.count
    guard count >= parallelRows, count >= 2 else {
      try readRows(0..<count, of: block, &attributes, &relationships, into: &sink)
      return
    }
    prepareShared(block, relationships)
    let middle = count / 2
    var second = self
    var secondAttributes = attributes
    var secondRelationships = relationships
    secondAttributes.skip(rows: middle)
    secondRelationships.skip(rows: middle)
    var secondSink = RecordSink(sink.base + middle)
    var firstError: StoreError?
    var secondError: StoreError?
    runAtOnce(
      {
        do throws(StoreError) {
          try readRows(0..<middle, of: block, &attributes, &relationships, into: &sink)
        } catch { firstError = error }
      },
      beside: {
        do throws(StoreError) {
          try second.readRows(
            middle..<count, of: block, &secondAttributes, &secondRelationships,
            into: &secondSink)
        } catch { secondError = error }
      })
    if let firstError {
      secondSink.base.deinitialize(count: secondSink.count)
      throw firstError
    }
    sink.count += secondSink.count
    if let secondError { throw secondError }
  }

  /// Builds the table of shared relationships for the first row of block `block` whose only
  /// relationship is one to-one target, as that row would.
  mutating func prepareShared(_ block: Int, _ columns: RelationshipColumns) {
    guard sharesTargets, sharedBlock != block, columns.names.count <= RecordBuilder.maximumColumns
    else { return }
    for row in 0..<blocks[block].range.count {
      var lone: Int?
      var others = 0
      for column in columns.names.indices where columns.count(column, row) > 0 {
        if columns.count(column, row) == 1, lone == nil { lone = column } else { others += 1 }
      }
      guard let lone, others == 0 else { continue }
      let key = columns.names[lone]
      if sharedKey != key { buildShared(key, targets: columns.targets[lone], block: block) }
      return
    }
  }

  /// Reads block `block`'s columns: their names, types and structure, checked, and where
  /// each column's values start (the first pass).
  mutating func readColumns(of block: Int) throws(StoreError)
    -> (AttributeColumns, RelationshipColumns)
  {
    let (entity, _, range) = blocks[block]
    var seen = Set<String>()
    let attributes = try readAttributeColumns(of: entity, objects: range.count, seen: &seen)
    let relationshipCount = try reader.count("the relationship column count", elementSize: 5)
    var relationships = RelationshipColumns()
    for _ in 0..<relationshipCount {
      try readRelationshipColumn(of: entity, range: range, seen: &seen, into: &relationships)
    }
    return (attributes, relationships)
  }

  /// Builds the records of rows `rows` of block `block` from its columns (the second pass),
  /// whose cursors stand at the first of those rows' values.
  mutating func readRows<Consumer: StoreRecordConsumer>(
    _ rows: Range<Int>, of block: Int, _ attributes: inout AttributeColumns,
    _ relationships: inout RelationshipColumns, into consumer: inout Consumer
  ) throws(StoreError) {
    let (entity, name, range) = blocks[block]
    var builder = RecordBuilder(
      entityName: name, attributeNames: attributes.names,
      relationshipNames: relationships.names)
    var rowBlock: RowBlock?
    var targetBlock: TargetBlock?
    var scratch: [Int64] = []
    let isWide = !builder.isNarrow
    for row in rows {
      let id = ids[range.lowerBound + row]
      if isWide {
        try consumer.consume(
          try wideRecord(
            row, id: id, name: name, entity: entity, &attributes, &relationships))
        continue
      }
      var attributeMask: UInt64 = 0
      for column in attributes.names.indices where attributes.isPresent(column, row) {
        attributeMask |= 1 << UInt64(column)
      }
      var rowStart = 0
      if attributeMask != 0 {
        let block = RecordBuilder.room(for: attributeMask.nonzeroBitCount, in: &rowBlock)
        rowStart = block.end
        var rest = attributeMask
        while rest != 0 {
          let column = rest.trailingZeroBitCount
          rest &= rest - 1
          block.append(try value(of: &attributes, column))
        }
      }
      var mask: UInt64 = 0
      for column in relationships.names.indices where relationships.count(column, row) > 0 {
        mask |= 1 << UInt64(column)
      }
      let links: RecordLinks
      if sharesTargets, mask.nonzeroBitCount == 1,
        relationships.count(mask.trailingZeroBitCount, row) == 1
      {
        // A lone to-one reference (a spending's person): one dictionary per target, shared.
        links = .dictionary(
          try sharedRelationships(
            of: &relationships, mask.trailingZeroBitCount, row: row, entity: entity))
      } else if mask != 0, !sharesTargets {
        // Read as it comes: the targets go in a block that many records share, which the
        // graph reads without a dictionary per record.
        scratch.removeAll(keepingCapacity: true)
        var rest = mask
        while rest != 0 {
          let column = rest.trailingZeroBitCount
          rest &= rest - 1
          let targets = try targets(of: &relationships, column, row: row, entity: entity)
          scratch.append(Int64(targets.count))
          scratch.append(contentsOf: targets)
        }
        links = builder.sharedLinks(mask: mask, targets: scratch, in: &targetBlock)
      } else if mask != 0 {
        let template = builder.template(for: mask)
        var dictionary = template.dictionary
        var rest = mask
        while rest != 0 {
          let column = rest.trailingZeroBitCount
          rest &= rest - 1
          let targets = try targets(of: &relationships, column, row: row, entity: entity)
          dictionary.values[template.slots[column]] = targets
        }
        links = .dictionary(dictionary)
      } else {
        links = .dictionary([:])
      }
      try consumer.consume(
        builder.record(
          id: id, mask: attributeMask, block: rowBlock, start: rowStart, links: links))
    }
  }

  /// The record of row `row` of an entity of more than ``RecordBuilder/maximumColumns``
  /// attributes or relationships, whose values and targets go in dictionaries.
  mutating func wideRecord(
    _ row: Int, id: Int64, name: String, entity: EntityDescription,
    _ attributes: inout AttributeColumns, _ relationships: inout RelationshipColumns
  ) throws(StoreError) -> StoreRecord {
    var attributeValues: [String: AttributeValue] = [:]
    var relationshipValues: [String: [Int64]] = [:]
    for column in attributes.names.indices where attributes.isPresent(column, row) {
      attributeValues[attributes.names[column]] = try value(of: &attributes, column)
    }
    for column in relationships.names.indices where relationships.count(column, row) > 0 {
      relationshipValues[relationships.names[column]] = try targets(
        of: &relationships, column, row: row, entity: entity)
    }
    return StoreRecord(
      entityName: name, id: id, attributes: attributeValues, relationships: relationshipValues)
  }
}
