import FolioGraph
import FolioModel
import FolioQuery
import Foundation

// Predicates and grouped fetches: the parse time of each format string of the corpus of
// predicates gathered from public code, and a grouped aggregate over `count` objects (sum,
// count and maximum per category) beside the same totals computed by hand in Swift over an
// array of structs (the floor) and over the graph's objects through typed reads.

/// The corpus's format strings, with arguments of the kinds their specifiers take, as the
/// corpus test gives them.
func predicateCorpus() throws -> [(String, [Any?])] {
  let url = URL(fileURLWithPath: "Tests/FolioQueryTests/Fixtures/predicate-corpus.txt")
  let text = try String(contentsOf: url, encoding: .utf8)
  return text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map { line in
    let format = String(line)
    var arguments: [Any?] = []
    var characters = format[...]
    while let percent = characters.firstIndex(of: "%") {
      characters = characters[characters.index(after: percent)...]
      guard let conversion = characters.first(where: { $0.isLetter || $0 == "@" || $0 == "%" })
      else { break }
      switch conversion {
      case "%": break
      case "K": arguments.append("name")
      case "d", "i", "u", "o", "x", "X", "D", "U", "O", "c": arguments.append(1)
      case "f", "F", "e", "E", "g", "G", "a", "A": arguments.append(1.5)
      default: arguments.append("text")
      }
      characters = characters.drop { $0 != conversion }.dropFirst()
    }
    return (format, arguments)
  }
}

func queryBenchmark(objects count: Int) throws -> [Case] {
  var results: [Case] = []
  // Parsing: every corpus string that parses, many times over.
  let corpus = try predicateCorpus().filter { format, arguments in
    (try? QueryPredicate(format: format, arguments: arguments)) != nil
  }
  let rounds = 200
  var parsed = 0
  let parseStart = now()
  for _ in 0..<rounds {
    for (format, arguments) in corpus {
      parsed += (try? QueryPredicate(format: format, arguments: arguments)) == nil ? 0 : 1
    }
  }
  let parseTime = Double(now() - parseStart) / Double(rounds * corpus.count)
  guard parsed == rounds * corpus.count else { throw BenchmarkFailure("a parse failed") }
  let printStart = now()
  var printed = 0
  let predicates = try corpus.map { try QueryPredicate(format: $0.0, arguments: $0.1) }
  for _ in 0..<rounds {
    for predicate in predicates { printed += predicate.description.utf8.count }
  }
  let printTime = Double(now() - printStart) / Double(rounds * predicates.count)
  let length =
    Double(corpus.reduce(0) { $0 + $1.0.utf8.count }) / Double(max(corpus.count, 1))
  results.append(
    Case(
      title: "parse a corpus predicate (\(corpus.count) strings, \(Int(length)) bytes on average)",
      value: parseTime / 1000, unit: "µs"))
  results.append(Case(title: "print it back", value: printTime / 1000, unit: "µs"))

  // A grouped aggregate.
  let model = try ManagedObjectModel {
    EntityDescription("Sale") {
      AttributeDescription("category", .string)
      AttributeDescription("amount", .double)
      AttributeDescription("quantity", .integer64)
    }
  }
  let context = ManagedObjectContext(model: model, undoManager: nil)
  struct Sale {
    var category: String
    var amount: Double
    var quantity: Int
  }
  var plain: [Sale] = []
  plain.reserveCapacity(count)
  var objects: [ManagedObject] = []
  objects.reserveCapacity(count)
  for index in 0..<count {
    let sale = Sale(
      category: "c\(index % 100)", amount: Double(index % 1_000) / 4, quantity: index % 17)
    let object = try context.insertNewObject(forEntityName: "Sale")
    try object.setValue(sale.category, forKey: "category")
    try object.setValue(sale.amount, forKey: "amount")
    try object.setValue(sale.quantity, forKey: "quantity")
    plain.append(sale)
    objects.append(object)
  }
  try context.save()
  var request = FetchRequest<[String: Any]>(entityName: "Sale")
  request.propertiesToFetch = [
    "category",
    try FetchProperty(name: "total", format: "sum:(amount)"),
    try FetchProperty(name: "n", format: "count:(quantity)"),
    try FetchProperty(name: "most", format: "max:(quantity)"),
  ]
  request.propertiesToGroupBy = ["category"]
  func timed<T>(_ body: () throws -> T) rethrows -> (Double, T) {
    let start = now()
    let result = try body()
    return (Double(now() - start) / Double(count), result)
  }
  let (fetch, rows) = try timed { try context.fetch(request) }
  struct Totals: Equatable {
    var total = 0.0
    var n = 0
    var most = Int.min
  }
  let (floor, byHand) = timed {
    var totals: [String: Totals] = [:]
    for sale in plain {
      totals[sale.category, default: Totals()].total += sale.amount
      totals[sale.category, default: Totals()].n += 1
      totals[sale.category, default: Totals()].most = max(
        totals[sale.category, default: Totals()].most, sale.quantity)
    }
    return totals
  }
  let (objectFloor, byObject) = try timed {
    var totals: [String: Totals] = [:]
    for object in objects {
      guard let category = try object.value(forKey: "category") as? String,
        let amount = try object.value(forKey: "amount") as? Double,
        let quantity = try object.value(forKey: "quantity") as? Int
      else { continue }
      var entry = totals[category, default: Totals()]
      entry.total += amount
      entry.n += 1
      entry.most = max(entry.most, quantity)
      totals[category] = entry
    }
    return totals
  }
  guard rows.count == byHand.count, byObject == byHand,
    rows.allSatisfy({ row in
      guard let category = row["category"] as? String, let expected = byHand[category] else {
        return false
      }
      return row["total"] as? Double == expected.total && row["n"] as? Int == expected.n
        && row["most"] as? Int == expected.most
    })
  else { throw BenchmarkFailure("grouped totals differ from the hand-written ones") }
  results.append(
    Case(
      title: "sum, count, max by category: grouped fetch (ns per object)", value: fetch,
      unit: "ns"))
  results.append(
    Case(title: "the same by hand over structs (ns per object)", value: floor, unit: "ns"))
  results.append(
    Case(
      title: "the same by hand over the graph's objects (ns per object)", value: objectFloor,
      unit: "ns"))
  results.append(Case(title: "grouped fetch / structs by hand", value: fetch / floor, unit: "x"))
  results.append(
    Case(title: "grouped fetch / objects by hand", value: fetch / objectFloor, unit: "x"))
  return results
}
