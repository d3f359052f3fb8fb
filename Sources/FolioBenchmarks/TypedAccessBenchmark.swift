import FolioGraph
import FolioModel
import Foundation

// Typed against keyed access: the properties of an entity class read and write the same slots
// as `value(forKey:)` and `setValue(_:forKey:)`. Target: each typed figure within 1.1× of its
// keyed counterpart.

/// The benchmark model's `Owner`, as `folio codegen` writes an entity class.
final class BenchOwner: ManagedObject {
  override class var entityName: String { "Owner" }
}

/// The benchmark model's `Item`, as `folio codegen` writes an entity class.
final class BenchItem: ManagedObject {
  override class var entityName: String { "Item" }
  var name: String? {
    get { attributeValue(forKey: "name") }
    set { setAttributeValue(newValue, forKey: "name") }
  }
  var quantity: Int64 {
    get { attributeValue(forKey: "quantity") }
    set { setAttributeValue(newValue, forKey: "quantity") }
  }
  var owner: BenchOwner? {
    get { relatedObject(forKey: "owner") }
    set { setRelatedObject(newValue, forKey: "owner") }
  }
}

func typedAccessBenchmark(objects objectCount: Int) throws -> [Case] {
  var model = try itemModel()
  try model.register([BenchOwner.self, BenchItem.self])
  let context = ManagedObjectContext(model: model, undoManager: nil)
  let owners = (0..<1_000).map { _ in BenchOwner(context: context) }
  let items = (0..<objectCount).map { _ in BenchItem(context: context) }
  let names = (0..<1_000).map { "item \($0)" }

  // Each pass is timed several times, keyed and typed alternating, and the fastest run of
  // each counts: the two doors are measured under the same conditions.
  func fastest(_ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<3 {
      let start = now()
      try body()
      best = min(best, perOperation(since: start, count: objectCount))
    }
    return best
  }
  var checksum = 0
  let keyedSet = try fastest {
    for (index, item) in items.enumerated() {
      try item.setValue(names[index % 1_000], forKey: "name")
      try item.setValue(index, forKey: "quantity")
    }
  }
  let typedSet = fastest {
    for (index, item) in items.enumerated() {
      item.name = names[(index + 1) % 1_000]
      item.quantity = Int64(index + 1)
    }
  }
  let keyedGet = try fastest {
    for item in items {
      checksum &+= try item.value(forKey: "name", as: String.self)?.utf8.count ?? 0
      checksum &+= try item.value(forKey: "quantity", as: Int.self) ?? 0
    }
  }
  // With Observation on, the first typed read of an object makes its registrar: timed on its
  // own, with the memory the registrars take, on a context of its own.
  let observed = ManagedObjectContext(model: model, undoManager: nil)
  observed.tracksObservation = true
  let observedItems = (0..<objectCount).map { _ in BenchItem(context: observed) }
  for item in observedItems { item.name = "item" }
  let before = memory().resident
  var start = now()
  for item in observedItems { checksum &+= item.name?.utf8.count ?? 0 }
  let firstTypedRead = perOperation(since: start, count: objectCount)
  let registrarBytes = Double(memory().resident - before) / Double(objectCount)
  start = now()
  for item in observedItems { checksum &+= item.name?.utf8.count ?? 0 }
  let laterTypedRead = perOperation(since: start, count: objectCount)
  start = now()
  for item in observedItems {
    checksum &+= try item.value(forKey: "name", as: String.self)?.utf8.count ?? 0
  }
  let keyedRead = perOperation(since: start, count: objectCount)
  let typedGet = fastest {
    for item in items {
      checksum &+= item.name?.utf8.count ?? 0
      checksum &+= Int(item.quantity)
    }
  }
  let keyedLink = try fastest {
    for (index, item) in items.enumerated() {
      try item.setValue(owners[index % 1_000], forKey: "owner")
    }
  }
  let typedLink = fastest {
    for (index, item) in items.enumerated() { item.owner = owners[(index + 1) % 1_000] }
  }
  let keyedFollow = try fastest {
    for item in items {
      checksum &+= (try item.value(forKey: "owner") as? ManagedObject)?.hashValue ?? 0
    }
  }
  let typedFollow = fastest {
    for item in items { checksum &+= item.owner?.hashValue ?? 0 }
  }
  guard checksum != 0, items[0].owner === owners[1] else {
    throw BenchmarkFailure("the typed access benchmark did not do its work")
  }
  func pair(_ what: String, _ keyed: Double, _ typed: Double) -> [Case] {
    [
      Case(title: "\(what), keyed (ns per object)", value: keyed, unit: "ns"),
      Case(title: "\(what), typed (ns per object)", value: typed, unit: "ns"),
      Case(title: "\(what), typed ÷ keyed", value: typed / keyed, unit: "×", limit: 1.1),
    ]
  }
  // Observation is off by default; these figures are what turning it on costs.
  return [
    Case(title: "observed: first typed read (ns)", value: firstTypedRead, unit: "ns"),
    Case(title: "observed: later typed read (ns)", value: laterTypedRead, unit: "ns"),
    Case(title: "observed: keyed read (ns)", value: keyedRead, unit: "ns"),
    Case(
      title: "observed: registrar (bytes per object read typed)", value: registrarBytes, unit: "B"),
  ]
    + pair("two attribute sets", keyedSet, typedSet)
    + pair("two attribute reads", keyedGet, typedGet)
    + pair("to-one set with inverse", keyedLink, typedLink)
    + pair("to-one read", keyedFollow, typedFollow)
}
