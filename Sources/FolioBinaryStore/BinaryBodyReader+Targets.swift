internal import CFolioSupport
import FolioModel
import FolioStores
import Foundation

// Relationship targets of the second pass: each checked against the entity directory, and the
// shared one-target lists (see BinaryBodyReader.swift).
extension BinaryBodyReader {
  /// The relationships of object `row`, whose only target is in column `column`.
  mutating func sharedRelationships(
    of columns: inout RelationshipColumns, _ column: Int, row: Int, entity: EntityDescription
  ) throws(StoreError) -> [String: [Int64]] {
    let position = columns.next[column]
    columns.next[column] = position + 1
    prefetchShared(columns.targets[column], after: position)
    let target = try checkedTarget(columns.targets[column], columns, column, position, entity)
    let key = columns.names[column]
    if sharedKey != key {
      // A block with a second column of lone to-one references shares only the first's: were
      // the table built again at each change of column, rows alternating between two such
      // columns would build it once per row, a time quadratic in the objects.
      guard sharedBlock != currentBlock else { return [key: [ids[target]]] }
      buildShared(key, targets: columns.targets[column], block: currentBlock)
    }
    if let relationships = shared[target] { return relationships }
    let relationships = [key: [ids[target]]]
    shared[target] = relationships
    return relationships
  }

  /// Asks the processor to fetch what the records a few rows after `position` will use: the
  /// shared relationships of the target 16 rows on, and the slot in `shared` of the target 32
  /// rows on, whose address the first fetch will read. Taking a shared dictionary writes its
  /// reference count, an atomic write that waits for its line: without these fetches, nearly
  /// every record waits once for memory.
  ///
  /// The address is read from the slot's bits without retaining the dictionary (a retain is
  /// the very write to avoid): an optional dictionary is one reference, nil when zero.
  @inline(__always)
  func prefetchShared(_ targets: UnsafeRawBufferPointer, after position: Int) {
    guard MemoryLayout<[String: [Int64]]?>.size == MemoryLayout<UnsafeRawPointer?>.size else {
      return
    }
    func target(_ position: Int) -> Int? {
      guard position < targets.count / 4 else { return nil }
      let index = Int(
        UInt32(
          littleEndian: targets.loadUnaligned(fromByteOffset: position * 4, as: UInt32.self)))
      return index < shared.count ? index : nil
    }
    shared.withUnsafeBufferPointer { slots in
      guard let base = slots.baseAddress.map(UnsafeRawPointer.init) else { return }
      let stride = MemoryLayout<[String: [Int64]]?>.stride
      if let far = target(position + 32) { folio_prefetch(base + far * stride) }
      if let near = target(position + 16),
        let object = (base + near * stride).load(as: UnsafeRawPointer?.self)
      {
        folio_prefetch(object)
      }
    }
  }

  /// Builds `shared` for relationship `key`, whose column's targets are `targets`, while
  /// reading block `block`.
  mutating func buildShared(
    _ key: String, targets: UnsafeRawBufferPointer, block: Int
  ) {
    sharedKey = key
    sharedBlock = block
    sharedTableBuilds += 1
    shared = Self.sharedRelationships(key, targets: targets, ids: ids)
  }

  /// The shared relationships `[key: [id]]` of every object index that `targets` (a column's
  /// targets, not yet checked) names, built in index order.
  ///
  /// Each record takes its shared dictionary by retaining it, and a retain is an atomic write
  /// to the dictionary's header that waits for the line: when the dictionaries lie scattered
  /// among the records built so far, nearly every retain is a cache miss (a quarter of a
  /// load's time, measured). Built together before the records, they lie side by side, a
  /// small fraction of the heap that stays in cache. An index past the objects is left out;
  /// the records' pass refuses it where it stands.
  static func sharedRelationships(
    _ key: String, targets: UnsafeRawBufferPointer, ids: [Int64]
  ) -> [[String: [Int64]]?] {
    var isNamed = [Bool](repeating: false, count: ids.count)
    for position in 0..<targets.count / 4 {
      let target = Int(
        UInt32(
          littleEndian: targets.loadUnaligned(fromByteOffset: position * 4, as: UInt32.self)))
      if target < ids.count { isNamed[target] = true }
    }
    var shared: [[String: [Int64]]?] = Array(repeating: nil, count: ids.count)
    for target in ids.indices where isNamed[target] { shared[target] = [key: [ids[target]]] }
    return shared
  }

  /// The IDs of the targets of object `row` in relationship column `column`, checked.
  @inline(__always)
  mutating func targets(
    of columns: inout RelationshipColumns, _ column: Int, row: Int, entity: EntityDescription
  ) throws(StoreError) -> [Int64] {
    let count = columns.count(column, row)
    let first = columns.next[column]
    columns.next[column] = first + count
    if count == 1, sharesTargets {
      let target = try checkedTarget(columns.targets[column], columns, column, first, entity)
      if singleTargets.isEmpty { singleTargets = Array(repeating: nil, count: ids.count) }
      if let shared = singleTargets[target] { return shared }
      let single = [ids[target]]
      singleTargets[target] = single
      return single
    }
    var targets: [Int64] = []
    targets.reserveCapacity(count)
    let raw = columns.targets[column]
    for position in first..<first + count {
      targets.append(ids[try checkedTarget(raw, columns, column, position, entity)])
    }
    return targets
  }

  /// The object index at `position` of `targets`, column `column`'s targets, checked.
  @inline(__always)
  func checkedTarget(
    _ targets: UnsafeRawBufferPointer, _ columns: borrowing RelationshipColumns, _ column: Int,
    _ position: Int, _ entity: EntityDescription
  ) throws(StoreError) -> Int {
    // The first pass sliced exactly as many targets as the counts add up to.
    let target = Int(
      UInt32(littleEndian: targets.loadUnaligned(fromByteOffset: position * 4, as: UInt32.self)))
    if columns.firstAllowed[column].contains(target) { return target }
    return try checkedTarget(target, columns, column, position, entity)
  }

  /// `target`, which is not in the first range column `column` allows, checked.
  func checkedTarget(
    _ target: Int, _ columns: borrowing RelationshipColumns, _ column: Int, _ position: Int,
    _ entity: EntityDescription
  ) throws(StoreError) -> Int {
    let targetOffset = columns.targetsOffsets[column] + position * 4
    let name = columns.names[column]
    guard target < ids.count else {
      throw located(
        reader.error(
          .danglingReference, "target index \(target) is past the store's \(ids.count) objects",
          at: targetOffset), entity.name, name)
    }
    guard columns.allowed[column].contains(where: { $0.contains(target) }) else {
      let block = blocks.first { $0.range.contains(target) }
      throw located(
        reader.error(
          .typeMismatch,
          "a target of \(entity.name).\(name) is a \(block?.name ?? "?"), not a"
            + " \(columns.relationships[column].destinationEntityName)", at: targetOffset),
        entity.name, name)
    }
    return target
  }
}
