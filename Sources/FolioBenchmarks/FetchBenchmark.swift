import FolioGraph
import FolioModel
import FolioQuery
import Foundation

// Fetching: predicates over 1,000,000 objects — an indexed equality, an unindexed
// comparison, CONTAINS[cd], and a two-key sort — in ns per object scanned, beside a plain Swift
// filter / sorted over an array of structs holding the same data (the floor). Targets: within
// 3x of the floor for unindexed scans; indexed equality at least 100x faster than the scan.

struct PlainItem {
  var code: String
  var amount: Double
  var name: String
}

/// The same data in heap objects, one allocation each, as a graph keeps its objects: the
/// floor for any design where objects are class instances.
final class PlainObject {
  var values: PlainItem
  init(_ values: PlainItem) { self.values = values }
}

func fetchBenchmark(objects count: Int) throws -> [Case] {
  var code = AttributeDescription("code", .string)
  code.isIndexed = true
  let model = try ManagedObjectModel {
    EntityDescription("Item") {
      code
      AttributeDescription("amount", .double)
      AttributeDescription("name", .string)
    }
  }
  let context = ManagedObjectContext(model: model, undoManager: nil)
  var plain: [PlainItem] = []
  plain.reserveCapacity(count)
  let names = ["Zoë", "zoe", "Ana", "Émile", "emil", "Bob", "Chloé", "Dana"]
  for index in 0..<count {
    let item = try context.insertNewObject(forEntityName: "Item")
    let values = PlainItem(
      code: "k\(index % 10_000)", amount: Double(index % 1_000) / 10,
      name: names[index % names.count] + "\(index % 97)")
    try item.setValue(values.code, forKey: "code")
    try item.setValue(values.amount, forKey: "amount")
    try item.setValue(values.name, forKey: "name")
    plain.append(values)
  }
  try context.save()
  func time(_ body: () throws -> Int) rethrows -> (Double, Int) {
    let start = now()
    let result = try body()
    return (Double(now() - start) / Double(count), result)
  }
  var results: [Case] = []
  // Unindexed comparison.
  let comparison = FetchRequest(
    entityName: "Item", predicate: try QueryPredicate(format: "amount > 90"))
  // The first fetch reads every object's value into the attribute's column; a repeated fetch,
  // with no change in between, scans the column alone.
  let (scan, scanned) = try time { try context.fetch(comparison).count }
  let (repeated, rescanned) = try time { try context.fetch(comparison).count }
  let (floor, floorCount) = time { plain.filter { $0.amount > 90 }.count }
  let objects = plain.map(PlainObject.init)
  let (objectFloor, _) = time { objects.filter { $0.values.amount > 90 }.count }
  guard scanned == floorCount, rescanned == floorCount else {
    throw BenchmarkFailure("comparison results differ")
  }
  results.append(
    Case(title: "amount > 90: first fetch (ns per object)", value: scan, unit: "ns"))
  results.append(
    Case(title: "amount > 90: repeated fetch (ns per object)", value: repeated, unit: "ns"))
  results.append(Case(title: "amount > 90: Swift filter (ns per object)", value: floor, unit: "ns"))
  results.append(
    Case(title: "amount > 90: first fetch / floor", value: scan / floor, unit: "x", limit: 3))
  results.append(
    Case(
      title: "amount > 90: repeated fetch / floor", value: repeated / floor, unit: "x", limit: 3))
  results.append(
    Case(
      title: "amount > 90: Swift filter over class instances (ns per object)",
      value: objectFloor, unit: "ns"))
  // Indexed equality (the first fetch builds the index; the next ones use it).
  let equality = FetchRequest(
    entityName: "Item", predicate: try QueryPredicate(format: "code == 'k1234'"))
  _ = try context.fetch(equality)
  let (indexed, found) = try time { try context.fetch(equality).count }
  let (equalityFloor, floorFound) = time { plain.filter { $0.code == "k1234" }.count }
  guard found == floorFound else { throw BenchmarkFailure("indexed results differ") }
  results.append(
    Case(title: "code == 'k1234' (indexed): fetch (ns per object)", value: indexed, unit: "ns"))
  results.append(
    Case(title: "code == 'k1234': Swift filter (ns per object)", value: equalityFloor, unit: "ns"))
  results.append(
    Case(
      title: "indexed equality, times faster than the first comparison scan (target >= 100)",
      value: scan / indexed, unit: "x", limit: 100, isMinimum: true))
  // CONTAINS[cd].
  let contains = FetchRequest(
    entityName: "Item", predicate: try QueryPredicate(format: "name CONTAINS[cd] 'zoe'"))
  let (fold, folded) = try time { try context.fetch(contains).count }
  let (foldFloor, floorFolded) = time {
    plain.filter {
      $0.name.range(of: "zoe", options: [.caseInsensitive, .diacriticInsensitive]) != nil
    }.count
  }
  guard folded == floorFolded else { throw BenchmarkFailure("CONTAINS[cd] results differ") }
  results.append(
    Case(title: "name CONTAINS[cd] 'zoe': fetch (ns per object)", value: fold, unit: "ns"))
  results.append(
    Case(
      title: "name CONTAINS[cd] 'zoe': Swift filter (ns per object)", value: foldFloor, unit: "ns"))
  results.append(
    Case(title: "CONTAINS[cd]: fetch / floor", value: fold / foldFloor, unit: "x", limit: 3))
  // Two-key sort.
  let sorted = FetchRequest(
    entityName: "Item",
    sortDescriptors: [
      QuerySortDescriptor(keyPath: "amount", ascending: false),
      QuerySortDescriptor(keyPath: "name"),
    ])
  let (sort, _) = try time { try context.fetch(sorted).count }
  let (sortFloor, _) = time {
    plain.sorted { ($0.amount, $1.name) > ($1.amount, $0.name) }.count
  }
  results.append(
    Case(title: "sort by amount desc, name: fetch (ns per object)", value: sort, unit: "ns"))
  results.append(Case(title: "sort: Swift sorted (ns per object)", value: sortFloor, unit: "ns"))
  results.append(Case(title: "sort: fetch / floor", value: sort / sortFloor, unit: "x", limit: 3))
  return results
}
