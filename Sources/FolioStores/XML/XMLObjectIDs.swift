import FolioModel
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
    let parts = type.split(separator: "/", omittingEmptySubsequences: false)
    return parts.count == 2
      && parts.allSatisfy { part in !part.isEmpty && part.utf8.allSatisfy { $0 &- 48 < 10 } }
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

  /// The record ID of the object `text` defines in hierarchy `root`, for the record at
  /// `record`.
  ///
  /// - Throws: what `duplicate` makes of the line where the ID was first defined.
  mutating func define(
    _ text: String, root: Int32, line: Int, record: Int, duplicate: (Int) -> StoreError
  ) throws(StoreError) -> (id: Int64, key: Key) {
    let number = number(Substring(text).utf8, root: root) { text }
    let key = Key(root: root, number: number)
    if let first = indexByKey[key] { throw duplicate(Int(lines[first])) }
    indexByKey[key] = record
    lines.append(Int32(clamping: line))
    guard number > 0 else { return (number, key) }
    if let owner = rootByNumber[number], owner != root { return (newProvisional(text), key) }
    rootByNumber[number] = root
    return (number, key)
  }

  /// The numbers of an `idrefs` list in hierarchy `root`, in order.
  mutating func references(_ idrefs: String, root: Int32) -> [Int64] {
    if idrefs.isEmpty { return [] }
    var result: [Int64] = []
    for part in idrefs.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }) {
      result.append(number(part.utf8, root: root) { String(part) })
    }
    return result
  }

  /// The line of the `<object>` of the record at `index`.
  func line(ofRecord index: Int) -> Int { Int(lines[index]) }

  /// The position of the record with `number` in hierarchy `root`, or `nil`.
  func index(of number: Int64, root: Int32) -> Int? { indexByKey[Key(root: root, number: number)] }

  /// The ID as the file wrote it.
  func text(of number: Int64) -> String { originalText[number] ?? "z\(number)" }

  /// Gives provisional record IDs their numbers, above every `z` ID and `nextObjectID - 1`.
  mutating func renumber(_ records: inout [StoreRecord], after nextObjectID: Int64) {
    guard hasProvisionalIDs else { return }
    let base = max(largest, nextObjectID - 1)
    var texts: [Int64: String] = [:]
    for (id, text) in originalText { texts[base - id] = text }
    for index in records.indices where records[index].id < 0 {
      records[index].id = base - records[index].id
    }
    originalText.merge(texts) { old, _ in old }
  }
}
