// Support for the sample predicate table: the documents, their objects as the oracles read
// them, and the Foundation-only helpers the oracles use.

import FolioGraph
import FolioModel
import FolioQuery
import FolioStores
import FolioTestSupport
import FolioXMLStore
import Foundation
import Testing

/// One object of a sample document, read through typed accessors for the oracles.
final class SampleItem {
  let object: ManagedObject
  /// A person's name, or a spending's content: what failure messages show.
  let label: String
  var name: String?
  var amount: Double?
  var content: String?
  var date: Date?
  var person: SampleItem?
  var spendings: [SampleItem] = []

  init(object: ManagedObject, label: String) {
    self.object = object
    self.label = label
  }

  var amounts: [Double] { spendings.compactMap(\.amount) }
}

/// A sample document opened through a coordinator, with its objects read for the oracles.
struct SampleDocument {
  let context: ManagedObjectContext
  let people: [SampleItem]
  let spendings: [SampleItem]

  static let paths = ["Samples/Expenses/Expenses.xml", "Samples/Expenses/Expenses-session.xml"]

  init(_ path: String) throws {
    let model = try ManagedObjectModel(
      contentsOf: packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld"))
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(
      at: packageRoot.appendingPathComponent(path), format: XMLStore())
    context = try ManagedObjectContext(coordinator: coordinator)
    var byObject: [ManagedObject: SampleItem] = [:]
    var people: [SampleItem] = []
    for object in try context.fetch(FetchRequest(entityName: "Person")) {
      let name = try object.value(forKey: "name", as: String.self)
      let item = SampleItem(object: object, label: name ?? "?")
      item.name = name
      people.append(item)
      byObject[object] = item
    }
    var spendings: [SampleItem] = []
    for object in try context.fetch(FetchRequest(entityName: "Spending")) {
      let content = try object.value(forKey: "content", as: String.self)
      let item = SampleItem(object: object, label: content ?? "?")
      item.content = content
      item.amount = try object.value(forKey: "amount", as: Double.self)
      item.date = try object.value(forKey: "date", as: Date.self)
      if let owner = try object.value(forKey: "person", as: ManagedObject.self) {
        item.person = byObject[owner]
      }
      spendings.append(item)
      byObject[object] = item
    }
    for person in people {
      let objects = try person.object.value(forKey: "spendings", as: Set<ManagedObject>.self)
      person.spendings = (objects ?? []).compactMap { byObject[$0] }
    }
    self.people = people
    self.spendings = spendings
  }

  func items(of entity: String) -> [SampleItem] {
    entity == "Person" ? people : spendings
  }

  func object(labelled label: String) -> ManagedObject? {
    (people + spendings).first { $0.label == label }?.object
  }
}

/// A `%@` argument or a `$VARIABLE` value: a constant, or objects found by label.
enum SampleArgument: Sendable {
  case value(any Sendable)
  case null
  case object(String)
  case objects([String])

  var holdsObject: Bool {
    switch self {
    case .object, .objects: return true
    case .value, .null: return false
    }
  }

  func resolve(in document: SampleDocument) -> Any? {
    switch self {
    case .value(let value): return value
    case .null: return nil
    case .object(let label): return document.object(labelled: label)
    case .objects(let labels): return labels.compactMap { document.object(labelled: $0) }
    }
  }
}

/// One row: a format, its arguments or variables, the entity, and the oracle.
struct SampleRow: Sendable, CustomTestStringConvertible {
  var format: String
  var entity: String
  var arguments: [SampleArgument] = []
  var variables: [String: SampleArgument] = [:]
  var oracle: @Sendable (SampleItem) -> Bool

  var testDescription: String { "\(entity): \(format)" }

  var holdsObject: Bool {
    arguments.contains(where: \.holdsObject) || variables.values.contains(where: \.holdsObject)
  }

  static func person(
    _ format: String, _ arguments: [SampleArgument] = [],
    variables: [String: SampleArgument] = [:],
    _ oracle: @escaping @Sendable (SampleItem) -> Bool
  ) -> SampleRow {
    SampleRow(
      format: format, entity: "Person", arguments: arguments, variables: variables,
      oracle: oracle)
  }

  static func spending(
    _ format: String, _ arguments: [SampleArgument] = [],
    variables: [String: SampleArgument] = [:],
    _ oracle: @escaping @Sendable (SampleItem) -> Bool
  ) -> SampleRow {
    SampleRow(
      format: format, entity: "Spending", arguments: arguments, variables: variables,
      oracle: oracle)
  }
}

// MARK: - Oracle helpers, built on Foundation only

/// `text` folded as `[c]`, `[d]` or `[cd]` fold it.
/// The oracles' helpers, on Foundation alone.
enum Oracle {
  static func fold(_ text: String, _ options: String) -> String {
    var folding: String.CompareOptions = []
    if options.contains("c") { folding.insert(.caseInsensitive) }
    if options.contains("d") { folding.insert(.diacriticInsensitive) }
    return text.folding(options: folding, locale: nil)
  }

  /// Whether `text` matches the `LIKE` pattern: `*` is any run of characters, `?` one character.
  static func like(_ text: String, _ pattern: String) -> Bool {
    func match(_ text: Substring, _ pattern: Substring) -> Bool {
      guard let first = pattern.first else { return text.isEmpty }
      if first == "*" {
        var rest = text
        while true {
          if match(rest, pattern.dropFirst()) { return true }
          if rest.isEmpty { return false }
          rest = rest.dropFirst()
        }
      }
      guard let head = text.first, first == "?" || first == head else { return false }
      return match(text.dropFirst(), pattern.dropFirst())
    }
    return match(text[...], pattern[...])
  }

  /// Whether the regular expression `pattern` matches the whole of `text`.
  static func matches(_ text: String, _ pattern: String, ignoringCase: Bool = false) -> Bool {
    let options: NSRegularExpression.Options = ignoringCase ? [.caseInsensitive] : []
    guard let regex = try? NSRegularExpression(pattern: pattern, options: options) else {
      return false
    }
    let whole = NSRange(text.startIndex..., in: text)
    return regex.firstMatch(in: text, options: [.anchored], range: whole)?.range == whole
  }

  /// `test` of an optional string; a missing string matches no string operator.
  static func has(_ text: String?, _ test: (String) -> Bool) -> Bool {
    text.map(test) ?? false
  }

  static func date(_ seconds: Double) -> Date { Date(timeIntervalSinceReferenceDate: seconds) }

  static func before(_ value: Date?, _ seconds: Double) -> Bool {
    value.map { $0 < date(seconds) } ?? false
  }

  static func average(_ values: [Double]) -> Double? {
    values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
  }
}
