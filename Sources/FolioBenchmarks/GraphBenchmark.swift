import FolioGraph
import FolioModel
import Foundation

// The graph benchmark: insert 1,000,000 objects of two attributes and one to-one
// relationship (whose inverse is a to-many on 1,000 owners), and report ns per insert, ns per
// attribute set and bytes per object, as ratios against the issue's limits, from one run.

/// The process's resident and peak resident memory, in bytes, from /proc/self/status.
func memory() -> (resident: Int, peak: Int) {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
    return (0, 0)
  }
  func field(_ name: String) -> Int {
    for line in status.split(separator: "\n") where line.hasPrefix(name) {
      return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }
    return 0
  }
  return (field("VmRSS:"), field("VmHWM:"))
}

/// Resets the peak resident memory to the current one (Linux's `clear_refs` value 5), so each
/// benchmark measures its own peak.
func resetPeak() {
  try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// The resident memory now, after resetting the peak to it.
func baseline() -> Int {
  resetPeak()
  return memory().resident
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Nanoseconds per operation of `count` operations that took from `start` to now.
func perOperation(since start: UInt64, count: Int) -> Double {
  Double(now() - start) / Double(max(count, 1))
}

struct Case {
  var title: String
  var value: Double
  var unit: String
  var limit: Double?
  /// Whether `limit` is a floor the value must reach rather than a ceiling.
  var isMinimum = false
}

struct BenchmarkFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

func report(_ title: String, _ results: [Case]) {
  print(title)
  for result in results {
    let figure = String(format: "%10.1f %@", result.value, result.unit)
    if let limit = result.limit, result.isMinimum {
      // Reported the same way as a ceiling: a ratio at or under 1 meets the target.
      let ratio = String(format: "%.2f", limit / result.value)
      print("  \(result.title): \(figure)  (minimum \(limit) \(result.unit): ratio \(ratio))")
    } else if let limit = result.limit {
      let ratio = String(format: "%.2f", result.value / limit)
      print("  \(result.title): \(figure)  (limit \(limit) \(result.unit): ratio \(ratio))")
    } else {
      print("  \(result.title): \(figure)")
    }
  }
}

/// A model of owners and items: each item has two attributes and a to-one `owner` whose
/// inverse is the owner's to-many `items`.
func itemModel() throws -> ManagedObjectModel {
  try ManagedObjectModel {
    EntityDescription("Owner") {
      AttributeDescription("name", .string)
      RelationshipDescription("items", to: "Item", inverse: "owner", toMany: true)
    }
    EntityDescription("Item") {
      AttributeDescription("name", .string)
      AttributeDescription("quantity", .integer64)
      RelationshipDescription("owner", to: "Owner", inverse: "items")
    }
  }
}

func graphBenchmark() throws {
  let objectCount = 1_000_000
  let ownerCount = 1_000
  var results: [Case] = []
  let before = baseline()
  // Undo is off here: this measures the graph alone; the undo benchmark measures the context
  // with its undo manager.
  let context = ManagedObjectContext(model: try itemModel(), undoManager: nil)
  let owners = try (0..<ownerCount).map { index in
    let owner = try context.insertNewObject(forEntityName: "Owner")
    try owner.setValue("owner \(index)", forKey: "name")
    return owner
  }
  var items: [ManagedObject] = []
  items.reserveCapacity(objectCount)
  var start = now()
  for _ in 0..<objectCount {
    items.append(try context.insertNewObject(forEntityName: "Item"))
  }
  results.append(
    Case(
      title: "insert (ns per object)", value: perOperation(since: start, count: objectCount),
      unit: "ns"))
  start = now()
  for (index, item) in items.enumerated() {
    try item.setValue("item \(index % 100_000)", forKey: "name")
    try item.setValue(index, forKey: "quantity")
  }
  results.append(
    Case(
      title: "attribute set (ns per set)",
      value: perOperation(since: start, count: 2 * objectCount), unit: "ns"))
  start = now()
  for (index, item) in items.enumerated() {
    try item.setValue(owners[index % ownerCount], forKey: "owner")
  }
  results.append(
    Case(
      title: "to-one set with inverse (ns per set)",
      value: perOperation(since: start, count: objectCount), unit: "ns"))
  let after = memory()
  let bytesPerObject = Double(after.peak - before) / Double(objectCount + ownerCount)
  results.append(
    Case(
      title: "memory (bytes per object, peak RSS delta)", value: bytesPerObject, unit: "B",
      limit: 250))
  let last = try items[objectCount - 1].value(forKey: "quantity", as: Int.self)
  let firstOwnerItems = (try owners[0].value(forKey: "items") as? Set<ManagedObject>)?.count
  guard try context.objects(ofEntity: "Item").count == objectCount, last == objectCount - 1,
    firstOwnerItems == objectCount / ownerCount
  else { throw BenchmarkFailure("the graph benchmark did not do its work") }
  report(
    "Graph: \(objectCount) objects (2 attributes, 1 to-one), \(ownerCount) owners", results)
}
