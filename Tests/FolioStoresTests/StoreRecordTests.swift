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
}
