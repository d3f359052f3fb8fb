import FolioQuery
import Foundation

/// A key that a test object does not have.
struct UnknownKey: Error, CustomStringConvertible {
  var entity: String
  var key: String
  var description: String { "\(entity) has no key \"\(key)\"" }
}

/// A tiny object graph node: an entity name and its values, nil included.
final class Node: KeyValueReadable, CustomStringConvertible {
  let entity: String
  var values: [String: Any?]

  init(_ entity: String, _ values: [String: Any?]) {
    self.entity = entity
    self.values = values
  }

  func value(forKeyPath keyPath: String) throws -> Any? {
    guard let value = values[keyPath] else { throw UnknownKey(entity: entity, key: keyPath) }
    return value
  }

  var name: String { values["name"] as? String ?? "?" }
  var description: String { "\(entity)(\(name))" }
}

func spending(_ amount: Double, _ category: String, quantity: Int = 1) -> Node {
  Node("Spending", ["amount": amount, "category": category, "quantity": quantity])
}

func uuid(_ n: Int) -> UUID {
  UUID(uuidString: "00000000-0000-0000-0000-00000000000\(n)") ?? UUID()
}

/// Five people with every value type, to-one `friend`, to-many `spendings`, and `tags`
/// (an array) and `languages` (a set) of strings:
///
/// | name | age | height | weight | balance | active | city | friend | spendings |
/// |---|---|---|---|---|---|---|---|---|
/// | Ann | 30 | 1.70 | 60.5 | 1234.50 | yes | Zürich | Bob | 10 food, 25.5 books, 4 food |
/// | Bob | 25 | 1.82 | 80 | 0 | no | München | Ann | 100 travel |
/// | Cécile | 41 | 1.65 | 55 | 99.99 | yes | Besançon | – | – |
/// | Dmitri | 35 | – | 90 | 500 | yes | Zurich | Ann | 5 food ×3, 5 books |
/// | eve | – | 1.60 | 52.25 | -20 | no | – | Dmitri | 200 travel, 1 food |
func makePeople() -> [Node] {
  let ann = Node(
    "Person",
    [
      "name": "Ann", "age": 30, "height": 1.70, "weight": Float(60.5),
      "balance": Decimal(string: "1234.50"),
      "birthday": Date(timeIntervalSinceReferenceDate: -220_000_000), "isActive": true,
      "nickname": "Annie", "email": "ann@example.com", "city": "Zürich",
      "tags": ["swift", "rust"], "languages": Set(["en", "de"]), "id": uuid(1),
      "homepage": URL(string: "https://ann.example"), "avatar": Data([1, 2, 3]),
      "motto": "say \"hi\"", "all": 3,
      "spendings": [
        spending(10, "food"), spending(25.5, "books", quantity: 2), spending(4, "food"),
      ],
    ])
  let bob = Node(
    "Person",
    [
      "name": "Bob", "age": 25, "height": 1.82, "weight": Float(80), "balance": Decimal(0),
      "birthday": Date(timeIntervalSinceReferenceDate: -46_000_000), "isActive": false,
      "nickname": nil, "email": "bob@example.org", "city": "München", "tags": ["swift"],
      "languages": Set(["de"]), "id": uuid(2), "homepage": nil, "avatar": nil,
      "motto": "it's ok", "all": 0, "spendings": [spending(100, "travel")],
    ])
  let cecile = Node(
    "Person",
    [
      "name": "Cécile", "age": 41, "height": 1.65, "weight": Float(55),
      "balance": Decimal(string: "99.99"),
      "birthday": Date(timeIntervalSinceReferenceDate: -536_000_000), "isActive": true,
      "nickname": "Cece", "email": "cecile@example.fr", "city": "Besançon", "tags": [String](),
      "languages": Set(["fr"]), "id": uuid(3), "homepage": nil, "avatar": nil,
      "motto": "tab\there", "all": 0, "friend": nil, "spendings": [Node](),
    ])
  let dmitri = Node(
    "Person",
    [
      "name": "Dmitri", "age": 35, "height": nil, "weight": Float(90), "balance": Decimal(500),
      "birthday": Date(timeIntervalSinceReferenceDate: 0), "isActive": true, "nickname": "Dima",
      "email": "dmitri@example.com", "city": "Zurich", "tags": ["go", "swift", "rust"],
      "languages": Set(["ru", "en"]), "id": uuid(4), "homepage": nil, "avatar": nil,
      "motto": "back\\slash", "all": 0, "friend": ann,
      "spendings": [
        spending(5, "food"), spending(5, "food"), spending(5, "food"), spending(5, "books"),
      ],
    ])
  let eve = Node(
    "Person",
    [
      "name": "eve", "age": nil, "height": 1.60, "weight": Float(52.25), "balance": Decimal(-20),
      "birthday": nil, "isActive": false, "nickname": nil, "email": "EVE@EXAMPLE.COM",
      "city": nil, "tags": ["rust"], "languages": Set<String>(), "id": uuid(5),
      "homepage": nil, "avatar": nil, "motto": nil, "all": 0, "friend": dmitri,
      "spendings": [spending(200, "travel", quantity: 2), spending(1, "food")],
    ])
  ann.values["friend"] = bob
  bob.values["friend"] = ann
  return [ann, bob, cecile, dmitri, eve]
}

/// A predicate argument in a test table; people are named and looked up in the graph.
enum Argument: Sendable {
  case value(any Sendable)
  case null
  case person(String)
  case people([String])

  func resolve(in people: [Node]) -> Any? {
    switch self {
    case .value(let value): return value
    case .null: return nil
    case .person(let name): return people.first { $0.name == name }
    case .people(let names): return names.compactMap { name in people.first { $0.name == name } }
    }
  }
}
