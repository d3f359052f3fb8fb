import FolioGraph
import FolioModel
import Foundation

// The graph benchmark (issue 3): insert 1,000,000 objects of two attributes and one to-one
// relationship (whose inverse is a to-many on 1,000 owners), and report ns per insert, ns per
// attribute set and bytes per object, as ratios against the issue's limits, from one run.
// Run in release: `make bench`.

/// The process's resident and peak resident memory, in bytes, from /proc/self/status.
func memory() -> (resident: Int, peak: Int) {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
    return (0, 0)
  }
  func field(_ name: String) -> Int {
    for line in status.split(separator: "\n") where line.hasPrefix(name) {
      let digits = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
      return digits * 1024
    }
    return 0
  }
  return (field("VmRSS:"), field("VmHWM:"))
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

struct Case {
  var title: String
  var value: Double
  var unit: String
  var limit: Double?
}

let objectCount = 1_000_000
let ownerCount = 1_000
let model = try ManagedObjectModel {
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

var results: [Case] = []
let before = memory()
let context = ManagedObjectContext(model: model)
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
let insertNanoseconds = Double(now() - start) / Double(objectCount)
results.append(
  Case(title: "insert (ns per object)", value: insertNanoseconds, unit: "ns", limit: nil))

start = now()
for (index, item) in items.enumerated() {
  try item.setValue("item \(index % 100_000)", forKey: "name")
  try item.setValue(index, forKey: "quantity")
}
let setNanoseconds = Double(now() - start) / Double(2 * objectCount)
results.append(
  Case(title: "attribute set (ns per set)", value: setNanoseconds, unit: "ns", limit: nil))

start = now()
for (index, item) in items.enumerated() {
  try item.setValue(owners[index % ownerCount], forKey: "owner")
}
let relateNanoseconds = Double(now() - start) / Double(objectCount)
results.append(
  Case(
    title: "to-one set with inverse (ns per set)", value: relateNanoseconds, unit: "ns", limit: nil)
)

let after = memory()
items.removeAll()  // the context alone holds the graph from here
let bytesPerObject = Double(after.peak - before.resident) / Double(objectCount + ownerCount)
results.append(
  Case(
    title: "memory (bytes per object, peak RSS delta)", value: bytesPerObject, unit: "B", limit: 250
  ))

// Check the work was done.
let check = try context.objects(ofEntity: "Item", includingSubentities: false)
guard check.count == objectCount,
  try check[objectCount - 1].value(forKey: "quantity", as: Int.self) == objectCount - 1,
  (try owners[0].value(forKey: "items") as? Set<ManagedObject>)?.count == objectCount / ownerCount
else {
  print("benchmark did not do its work")
  exit(1)
}

print(
  "Folio graph benchmark: \(objectCount) objects (2 attributes, 1 to-one), \(ownerCount) owners")
for result in results {
  let figure = String(format: "%10.1f %@", result.value, result.unit)
  if let limit = result.limit {
    print(
      "  \(result.title): \(figure)  (limit \(Int(limit)) \(result.unit): ratio \(String(format: "%.2f", result.value / limit)))"
    )
  } else {
    print("  \(result.title): \(figure)")
  }
}
