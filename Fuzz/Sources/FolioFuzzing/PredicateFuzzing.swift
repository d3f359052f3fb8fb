import FolioQuery
import Foundation

/// The predicate parser: any bytes, as UTF-8 text (invalid sequences replaced, as a `String`
/// made from them would be), parsed as a predicate format.
///
/// The placeholders take the first arguments of a fixed list (a key, a string, numbers, a date,
/// a list, nil), as many as the format takes (more would be passed over, with a warning). A
/// predicate that parses must print as a format that parses back to an equal predicate, as
/// `description` promises; the harness traps when it does not. The predicate is then
/// evaluated on a small graph of objects, which must throw or answer, never crash.
package enum PredicateFuzzing: FuzzTarget {
  static var arguments: [Any?] {
    ["name", "Ada", 42, 2.5, Date(timeIntervalSinceReferenceDate: 0), ["a", "b"], nil, "friends"]
  }

  /// Builds the object graph and warms the parser and evaluator up.
  package static func prepare() {
    _ = FuzzObject.graph
    run(Data("name MATCHES[cd] %@ AND date < %@ AND ANY friends.age > 1".utf8))
  }

  /// `format` parsed with as many of ``arguments`` as it takes: as many as it has `%`
  /// placeholders, else (a `%` in a string) each count in turn.
  static func parse(_ format: String) -> QueryPredicate? {
    let all = arguments
    let placeholders = format.split(separator: "%", omittingEmptySubsequences: false).count - 1
    var counts = [min(placeholders, all.count)]
    counts += (0...all.count).filter { $0 != counts[0] }
    for count in counts {
      do {
        return try QueryPredicate(format: format, arguments: Array(all.prefix(count)))
      } catch  where error.code == .missingArgument || error.code == .unusedArgument {
        continue
      } catch {
        attempt("parsing") { throw error }
        return nil
      }
    }
    return nil
  }

  /// Runs one input.
  package static func run(_ input: Data) {
    let format = String(decoding: input, as: UTF8.self)
    guard let predicate = parse(format) else { return }
    let printed = predicate.description
    do {
      let again = try QueryPredicate(format: printed)
      precondition(again == predicate, "\(format) prints as \(printed), which parses differently")
    } catch {
      preconditionFailure("\(format) prints as \(printed), which does not parse: \(error)")
    }
    attempt("evaluation") {
      try predicate.evaluate(with: FuzzObject.graph, variables: ["limit": 10, "name": "Ada"])
    }
  }
}

/// An object with a value of each kind a predicate compares, and relationships to a few more.
struct FuzzObject: KeyValueReadable, @unchecked Sendable {
  struct UnknownKey: Error {}

  var values: [String: Any?]

  static let graph: FuzzObject = {
    let ada = FuzzObject(level: 0, name: "Ada")
    let bob = FuzzObject(level: 0, name: "Bob")
    var root = FuzzObject(level: 1, name: "Çelik")
    root.values["friends"] = [ada, bob]
    root.values["friend"] = ada
    root.values["spendings"] = [bob]
    return root
  }()

  init(level: Int, name: String) {
    values = [
      "name": name, "age": 36 + level, "amount": 12.5, "ratio": Float(0.25),
      "price": Decimal(string: "19.99"), "isActive": true,
      "date": Date(timeIntervalSinceReferenceDate: 86_400), "data": Data([1, 2, 3]),
      "id": UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)),
      "url": URL(string: "https://example.com/a"), "tags": ["swift", "core data"],
      "scores": [1, 2, 3], "nothing": nil, "friends": [FuzzObject](), "friend": nil,
      // The keys of the predicate tests, whose formats seed this target.
      "city": "Zürich", "balance": Decimal(-1.5), "birthday": Date(timeIntervalSince1970: 0),
      "height": 1.65, "email": "ann@example.com", "motto": "it's ok", "greek": "σίσυφος",
      "languages": ["en", "fr"], "avatar": Data([1, 2, 3]), "spendings": [FuzzObject](),
      "homepage": URL(string: "https://ann.example"), "lastName": "Lovelace", "quantity": 2,
    ]
  }

  func value(forKeyPath keyPath: String) throws -> Any? {
    guard let value = values[keyPath] else { throw UnknownKey() }
    return value
  }
}
