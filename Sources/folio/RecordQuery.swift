import Folio
import Foundation

/// A query answered from a store's records as they are read, without a context: for a
/// predicate, sort keys and columns that read only the entity's stored attributes, each record
/// of the entity (or a subentity) is tested as it comes, and only the matches are kept, with
/// their attributes alone.
struct RecordQuery: StoreRecordConsumer {
  /// The names of the entity and its subentities.
  private let entities: Set<String>
  private let predicate: QueryPredicate?
  /// The keys a match keeps the values of: the columns, then the sort keys.
  let kept: [String]
  /// The matches so far, in the order they were read: their IDs and the values of `kept`.
  private(set) var matches: [(id: Int64, values: [AttributeValue?])] = []
  /// Whether a record's evaluation failed: the query is then not answered here (a context
  /// answers it, and reports the failure as a fetch does).
  private(set) var failed = false

  /// The query, or `nil` when it reads something other than stored attributes of `entity`
  /// (relationships, key paths through them, collection operators, variables, `SELF`,
  /// subqueries, transient attributes), which only a context can answer.
  init?(
    model: ManagedObjectModel, entity name: String, predicate: QueryPredicate?,
    sortKeys: [String], columns: [String]
  ) {
    guard let entity = model.entity(named: name) else { return nil }
    let stored = Set(entity.allAttributes.filter { !$0.isTransient }.map(\.name))
    var keys = sortKeys + columns
    if let predicate {
      guard let read = Self.keys(of: predicate) else { return nil }
      keys += read
    }
    guard keys.allSatisfy(stored.contains) else { return nil }
    entities = Set(
      model.entities.filter { model.entity($0, isKindOf: entity) }.map(\.name))
    self.predicate = predicate
    kept = columns + sortKeys
  }

  /// The keys `predicate` reads, or `nil` when it reads anything but single keys.
  private static func keys(of predicate: QueryPredicate) -> [String]? {
    switch predicate {
    case .constant: return []
    case .comparison(let comparison):
      guard let left = keys(of: comparison.left), let right = keys(of: comparison.right) else {
        return nil
      }
      return left + right
    case .and(let parts), .or(let parts):
      var all: [String] = []
      for part in parts {
        guard let keys = keys(of: part) else { return nil }
        all += keys
      }
      return all
    case .not(let inner): return keys(of: inner)
    }
  }

  private static func keys(of expression: QueryExpression) -> [String]? {
    switch expression {
    case .constant: return []
    case .keyPath(let path):
      return path.contains(".") || path.hasPrefix("@") ? nil : [path]
    case .aggregate(let members):
      var all: [String] = []
      for member in members {
        guard let keys = keys(of: member) else { return nil }
        all += keys
      }
      return all
    case .evaluatedObject, .variable, .keyPathFrom, .subquery, .function, .conditional: return nil
    }
  }

  mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?) {}

  mutating func consume(_ record: StoreRecord) {
    guard !failed, entities.contains(record.entityName) else { return }
    if let predicate {
      do {
        guard try predicate.evaluate(with: RecordKeyValues(record: record)) else {
          return
        }
      } catch {
        failed = true
        matches = []
        return
      }
    }
    matches.append((record.id, kept.map { record.attribute($0) }))
  }

  mutating func finish() {}
}

/// A record's attributes, read by key as a predicate reads an object's.
struct RecordKeyValues: KeyValueReadable {
  let record: StoreRecord

  func value(forKeyPath keyPath: String) -> Any? { record.attribute(keyPath)?.readerValue }
}
