import FolioModel
import FolioStores
import Foundation

/// The object IDs of a store being read.
///
/// Core Data writes `id="z102"` and `idrefs="z103 z104"`, numbering each entity hierarchy on
/// its own (as its primary keys are): two objects of unrelated entities may share `z190`, and an
/// idref is looked up among the objects of its relationship's destination hierarchy. A record's
/// ID is the number when no other hierarchy took it first. Any other object gets a provisional
/// negative number, as does any ID that is not `z` and a number without leading zeros
/// (`atom0`, `z0`); ``renumber(_:after:)`` then gives each the next number above every `z` ID
/// and the store's `nextObjectID - 1`, in the order the objects appeared. The original text is
/// kept for error messages.
struct XMLObjectIDs {
  /// An object's identity in the file: its hierarchy and its number there.
  struct Key: Hashable {
    let root: Int32
    let number: Int64
  }

  /// Where a number's first object is, for numbers below a bound that grows with the store:
  /// its hierarchy and record index (`index` -1 when free). Others are in the dictionaries.
  private struct Slot {
    var root: Int32 = -1
    var index: Int32 = -1
  }
  private var slots: [Slot] = []
  private var indexByKey: [Key: Int] = [:]
  private var rootByNumber: [Int64: Int32] = [:]
  private var lines: [Int32] = []
  private var provisional: [String: Int64] = [:]
  private var originalText: [Int64: String] = [:]
  private var largest: Int64 = 0
  private var provisionalCount: Int64 = 0
  private(set) var hasProvisionalIDs = false

  /// Whether `type` has the form of a relationship type, `M/N` (`1/1`, `0/0`, `0/1`).
  static func isRelationshipType(_ type: String) -> Bool {
    var type = type
    return type.withUTF8 { isRelationshipType($0) }
  }

  /// Whether the bytes `type` have the form of a relationship type, `M/N`.
  static func isRelationshipType(_ type: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let slash = type.firstIndex(of: UInt8(ascii: "/")), slash > 0,
      slash + 1 < type.count
    else { return false }
    for (offset, byte) in type.enumerated() where offset != slash {
      guard byte &- 48 < 10 else { return false }
    }
    return true
  }

  /// The number of `z…` with no sign or leading zero, or `nil`.
  static func coreDataNumber<Text: Collection<UInt8>>(_ text: Text) -> Int64? {
    var iterator = text.makeIterator()
    guard iterator.next() == UInt8(ascii: "z") else { return nil }
    var value: Int64 = 0
    var count = 0
    while let byte = iterator.next() {
      let digit = byte &- UInt8(ascii: "0")
      guard digit < 10, !(count == 0 && digit == 0) else { return nil }
      let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times.addingReportingOverflow(Int64(digit))
      guard !overflow1, !overflow2 else { return nil }
      value = sum
      count += 1
    }
    return count > 0 ? value : nil
  }

  private mutating func newProvisional(_ text: String) -> Int64 {
    provisionalCount += 1
    hasProvisionalIDs = true
    originalText[-provisionalCount] = text
    return -provisionalCount
  }

  /// The number an ID text has in hierarchy `root`.
  private mutating func number(_ text: Substring.UTF8View, root: Int32, _ string: () -> String)
    -> Int64
  {
    if let value = Self.coreDataNumber(text) {
      largest = max(largest, value)
      return value
    }
    let key = "\(root) " + string()
    if let value = provisional[key] { return value }
    let value = newProvisional(string())
    provisional[key] = value
    return value
  }

  /// The record ID of the object the bytes `text` define in hierarchy `root`, for the record at
  /// `record`.
  ///
  /// - Throws: what `duplicate` makes of the line where the ID was first defined.
  mutating func define(
    bytes text: UnsafeBufferPointer<UInt8>, root: Int32, line: Int, record: Int,
    duplicate: (Int) -> StoreError
  ) throws(StoreError) -> (id: Int64, key: Key) {
    let number: Int64
    if let value = Self.coreDataNumber(text) {
      largest = max(largest, value)
      number = value
    } else {
      let string = String(decoding: text, as: UTF8.self)
      number = self.number(Substring(string).utf8, root: root) { string }
    }
    return try define(number: number, root: root, line: line, record: record, duplicate: duplicate)
    {
      String(decoding: text, as: UTF8.self)
    }
  }

  private mutating func define(
    number: Int64, root: Int32, line: Int, record: Int, duplicate: (Int) -> StoreError,
    text: () -> String
  ) throws(StoreError) -> (id: Int64, key: Key) {
    let key = Key(root: root, number: number)
    // A number gets a slot when the table need grow no further than the store's size allows,
    // so that memory stays bounded by the file.
    if number > 0, number < Int64(slots.count) || number < Int64(16 * (record + 1) + 4096) {
      let position = Int(number)
      if position >= slots.count {
        slots.append(
          contentsOf: repeatElement(Slot(), count: max(position + 1, 2 * slots.count) - slots.count)
        )
      }
      let slot = slots[position]
      if slot.index >= 0 {
        if slot.root == root { throw duplicate(Int(lines[Int(slot.index)])) }
        if let first = indexByKey[key] { throw duplicate(Int(lines[first])) }
        indexByKey[key] = record
        lines.append(Int32(clamping: line))
        return (newProvisional(text()), key)
      }
      if let owner = rootByNumber[number] {
        if let first = indexByKey[key] { throw duplicate(Int(lines[first])) }
        indexByKey[key] = record
        lines.append(Int32(clamping: line))
        return owner == root ? (number, key) : (newProvisional(text()), key)
      }
      slots[position] = Slot(root: root, index: Int32(record))
      lines.append(Int32(clamping: line))
      return (number, key)
    }
    if let first = index(of: number, root: root) { throw duplicate(Int(lines[first])) }
    indexByKey[key] = record
    lines.append(Int32(clamping: line))
    guard number > 0 else { return (number, key) }
    if let owner = owner(of: number), owner != root { return (newProvisional(text()), key) }
    if owner(of: number) == nil { rootByNumber[number] = root }
    return (number, key)
  }

  /// The hierarchy that first defined `number`.
  private func owner(of number: Int64) -> Int32? {
    if number > 0, number < Int64(slots.count), slots[Int(number)].index >= 0 {
      return slots[Int(number)].root
    }
    return rootByNumber.isEmpty ? nil : rootByNumber[number]
  }

  /// The numbers of an `idrefs` list (bytes) in hierarchy `root`, in order.
  mutating func references(bytes idrefs: UnsafeBufferPointer<UInt8>, root: Int32) -> [Int64] {
    var result: [Int64] = []
    var start = 0
    let count = idrefs.count
    while start < count {
      while start < count, Self.isSeparator(idrefs[start]) { start += 1 }
      var end = start
      while end < count, !Self.isSeparator(idrefs[end]) { end += 1 }
      if end > start {
        let part = UnsafeBufferPointer(rebasing: idrefs[start..<end])
        if let value = Self.coreDataNumber(part) {
          largest = max(largest, value)
          result.append(value)
        } else {
          let string = String(decoding: part, as: UTF8.self)
          result.append(number(Substring(string).utf8, root: root) { string })
        }
      }
      start = end
    }
    return result
  }

  private static func isSeparator(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t")
  }

  /// The line of the `<object>` of the record at `index`.
  func line(ofRecord index: Int) -> Int { Int(lines[index]) }

  /// The position of the record with `number` in hierarchy `root`, or `nil`.
  func index(of number: Int64, root: Int32) -> Int? {
    if number > 0, number < Int64(slots.count) {
      let slot = slots[Int(number)]
      if slot.index >= 0, slot.root == root { return Int(slot.index) }
    }
    return indexByKey.isEmpty ? nil : indexByKey[Key(root: root, number: number)]
  }

  /// The ID as the file wrote it.
  func text(of number: Int64) -> String { originalText[number] ?? "z\(number)" }

  /// Gives provisional record IDs (`ids`, by record) their numbers, above every `z` ID and
  /// `nextObjectID - 1`.
  mutating func renumber(_ ids: inout [Int64], after nextObjectID: Int64) {
    guard hasProvisionalIDs else { return }
    let base = renumberTexts(after: nextObjectID)
    for index in ids.indices where ids[index] < 0 { ids[index] = base - ids[index] }
  }

  /// Keeps each provisional ID's text under its final number too; returns the base the
  /// final numbers count from.
  private mutating func renumberTexts(after nextObjectID: Int64) -> Int64 {
    let base = max(largest, nextObjectID - 1)
    var texts: [Int64: String] = [:]
    for (id, text) in originalText { texts[base - id] = text }
    originalText.merge(texts) { old, _ in old }
    return base
  }
}
