import FolioModel
import Foundation
import Testing

@testable import FolioStores

/// A record read from a store keeps its values in a row with shared names; it must behave
/// exactly as a record with a dictionary of its own.
@Suite("Store records: rows and dictionaries")
struct StoreRecordTests {
  /// The same values as a row and as a dictionary, with `count` attributes.
  func pair(count: Int) -> (row: StoreRecord, dictionary: StoreRecord) {
    let names = (0..<count).map { "attribute\($0)" }
    let values: [AttributeValue] = (0..<count).map {
      $0.isMultiple(of: 2) ? .integer(Int64($0)) : .string("value \($0)")
    }
    let row = StoreRecord(
      entityName: "Thing", id: 7, names: RecordNames(names), row: values,
      relationships: ["owner": [3]])
    let dictionary = StoreRecord(
      entityName: "Thing", id: 7,
      attributes: Dictionary(uniqueKeysWithValues: zip(names, values)),
      relationships: ["owner": [3]])
    return (row, dictionary)
  }

  @Test("a row reads, compares and hashes as its dictionary", arguments: [1, 3, 8, 9, 40])
  func rowIsItsDictionary(count: Int) {
    let (row, dictionary) = pair(count: count)
    #expect(row == dictionary)
    #expect(dictionary == row)
    #expect(row.hashValue == dictionary.hashValue)
    #expect(row.attributes == dictionary.attributes)
    #expect(row.attributeCount == count)
    for name in dictionary.attributes.keys {
      #expect(row.attribute(name) == dictionary.attribute(name))
      #expect(row.attribute(name) != nil)
    }
    #expect(row.attribute("missing") == nil)
    #expect(row.attribute("attribute\(count)") == nil)
    var seen: [String: AttributeValue] = [:]
    row.forEachAttribute { name, value in seen[name] = value }
    #expect(seen == dictionary.attributes)
  }

  @Test("rows with shared names compare by value, and differ where their values do")
  func sharedNames() {
    let names = RecordNames(["a", "b"])
    let first = StoreRecord(
      entityName: "T", id: 1, names: names, row: [.integer(1), .integer(2)], relationships: [:])
    let same = StoreRecord(
      entityName: "T", id: 1, names: names, row: [.integer(1), .integer(2)], relationships: [:])
    let other = StoreRecord(
      entityName: "T", id: 1, names: names, row: [.integer(1), .integer(3)], relationships: [:])
    let reordered = StoreRecord(
      entityName: "T", id: 1, names: RecordNames(["b", "a"]), row: [.integer(2), .integer(1)],
      relationships: [:])
    #expect(first == same)
    #expect(first != other)
    #expect(first == reordered)
    #expect(first.hashValue == reordered.hashValue)
  }

  @Test("changing a row's attributes changes that record alone")
  func mutation() {
    let (row, dictionary) = pair(count: 3)
    var changed = row
    changed.attributes["attribute1"] = .string("changed")
    changed.attributes["added"] = .boolean(true)
    changed.attributes["attribute0"] = nil
    #expect(changed.attribute("attribute1") == .string("changed"))
    #expect(changed.attribute("added") == .boolean(true))
    #expect(changed.attribute("attribute0") == nil)
    #expect(changed.attributeCount == 3)
    #expect(row == dictionary)
    #expect(row.attribute("attribute1") == .string("value 1"))
    var replaced = row
    replaced.attributes = [:]
    #expect(replaced.attributeCount == 0)
    #expect(replaced != row)
  }

  /// `count` records of `width` values each, their rows written into shared blocks as a
  /// reader writes them, beside the same records with dictionaries.
  func sharedRows(count: Int, width: Int) -> [(shared: StoreRecord, dictionary: StoreRecord)] {
    let names = RecordNames((0..<width).map { "attribute\($0)" })
    var block: RowBlock?
    return (0..<count).map { index in
      let values: [AttributeValue] = (0..<width).map {
        $0.isMultiple(of: 2) ? .integer(Int64(index * 100 + $0)) : .string("value \(index).\($0)")
      }
      let room = RowBlock.room(for: width, in: block)
      block = room
      let start = room.end
      for value in values { room.append(value) }
      let shared = StoreRecord(
        entityName: "Thing", id: Int64(index + 1), names: names, block: room, start: start,
        links: .dictionary([:]))
      let dictionary = StoreRecord(
        entityName: "Thing", id: Int64(index + 1),
        attributes: Dictionary(uniqueKeysWithValues: zip(names.names, values)))
      return (shared, dictionary)
    }
  }

  @Test(
    "rows in shared blocks read, compare and hash as their dictionaries, across blocks",
    arguments: [(3, 5_000), (7, 1_000), (5_000, 3)])
  func sharedBlocks(width: Int, count: Int) {
    let pairs = sharedRows(count: count, width: width)
    // Rows never straddle blocks, and a row wider than a block gets a block of its own.
    let blocks = Set(pairs.map { ObjectIdentifier(blockOf($0.shared)) })
    #expect(blocks.count >= (width * count) / RowBlock.capacity)
    for (shared, dictionary) in pairs {
      #expect(shared == dictionary)
      #expect(dictionary == shared)
      #expect(shared.hashValue == dictionary.hashValue)
      #expect(shared.attributeCount == width)
      #expect(
        shared.attribute("attribute\(width - 1)") == dictionary.attribute("attribute\(width - 1)"))
      #expect(shared.attribute("missing") == nil)
      var seen: [String: AttributeValue] = [:]
      shared.forEachAttribute { name, value in seen[name] = value }
      #expect(seen == dictionary.attributes)
    }
    #expect(pairs[0].shared != pairs[count - 1].shared)
    var changed = pairs[0].shared
    changed.attributes["attribute0"] = .integer(-1)
    #expect(changed.attribute("attribute0") == .integer(-1))
    #expect(pairs[0].shared == pairs[0].dictionary)
  }

  /// The block a shared row is in, found through its mirror.
  func blockOf(_ record: StoreRecord) -> AnyObject {
    let values = Mirror(reflecting: record).children.first { $0.label == "values" }?.value
    let payload = values.flatMap { Mirror(reflecting: $0).children.first?.value }
    let block = payload.flatMap { Mirror(reflecting: $0).children.dropFirst().first?.value }
    return (block as? RowBlock) ?? NSNull()
  }
}

/// A record read from a store may keep its relationships' targets in a block of IDs that many
/// records share; it must behave exactly as a record with a dictionary of its own.
@Suite("Store records: shared targets and dictionaries")
struct StoreRecordTargetTests {
  static let names = RecordNames(["owner", "items", "tags"])
  static let targets: [[Int64]] = [[3], [9, 4, 7], []]
  static let dictionary: [String: [Int64]] = ["owner": [3], "items": [9, 4, 7], "tags": []]

  @Test("shared targets read, compare and hash as their dictionary, in order")
  func sharedIsDictionary() {
    let shared = StoreRecord(
      entityName: "T", id: 2, attributes: ["a": .integer(1)], linkNames: Self.names,
      targets: Self.targets)
    let plain = StoreRecord(
      entityName: "T", id: 2, attributes: ["a": .integer(1)], relationships: Self.dictionary)
    #expect(shared.relationships == Self.dictionary)
    #expect(shared == plain)
    #expect(plain == shared)
    #expect(shared.hashValue == plain.hashValue)
    #expect(shared.isIdentical(to: plain))
    for name in ["owner", "items", "tags", "missing"] {
      #expect(shared.targets(of: name) == Self.dictionary[name], "\(name)")
      #expect(plain.targets(of: name) == Self.dictionary[name], "\(name)")
    }
    let other = StoreRecord(
      entityName: "T", id: 2, attributes: ["a": .integer(1)], linkNames: Self.names,
      targets: [[3], [9, 7, 4], []])
    #expect(other != shared, "the order of a relationship's targets counts")
  }

  @Test("changing a record's shared targets changes that record alone")
  func changeIsLocal() {
    var first = StoreRecord(
      entityName: "T", id: 1, attributes: [:], linkNames: Self.names, targets: Self.targets)
    let second = first
    first.relationships["owner"] = [5]
    first.relationships["items"]?.append(8)
    #expect(first.relationships == ["owner": [5], "items": [9, 4, 7, 8], "tags": []])
    #expect(second.relationships == Self.dictionary)
  }
}
