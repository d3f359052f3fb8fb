import FolioModel
import FolioQuery
import Foundation

/// A store's records read as a graph of objects, for predicates and expressions evaluated
/// without a context: each record answers its attributes as a managed object does (`Int`,
/// `Double`, `String`, `Date`…) and its relationships with the objects of the records they
/// name, so key paths through relationships, `ANY`, `@count` and `SUBQUERY` work as they do
/// on a context's objects.
///
/// A relationship a record leaves out (a store keeps one side of a pair) is completed from the
/// records that give its inverse, its members in ID order, as a whole read completes it.
package final class RecordGraph {
  package let model: ManagedObjectModel
  package private(set) var records: [StoreRecord]
  private var positionOfID: [Int64: Int] = [:]
  /// One object per record, made when first asked for, so the same record is the same object
  /// (objects compare by identity).
  private var objects: [RecordObject?]
  /// The members of relationships records leave out, found from their inverses: by position,
  /// then relationship name.
  private var completed: [Int: [String: [Int64]]]?

  package init(records: [StoreRecord], model: ManagedObjectModel) {
    self.records = records
    self.model = model
    objects = Array(repeating: nil, count: records.count)
    for (position, record) in records.enumerated() { positionOfID[record.id] = position }
  }

  /// The position of the record with ID `id`, if there is one.
  package func position(of id: Int64) -> Int? { positionOfID[id] }

  /// The object of the record at `position`.
  package func object(at position: Int) -> RecordObject {
    if let known = objects[position] { return known }
    let made = RecordObject(graph: self, position: position)
    objects[position] = made
    return made
  }

  /// The IDs of the objects `relationship` of the record at `position` names: as the record
  /// gives them, or completed from their inverses when it leaves the relationship out.
  package func targets(of position: Int, _ relationship: RelationshipDescription) -> [Int64] {
    if let given = records[position].relationships[relationship.name] { return given }
    if completed == nil { completed = completion() }
    return completed?[position]?[relationship.name] ?? []
  }

  private func completion() -> [Int: [String: [Int64]]] {
    var added: [Int: [String: Set<Int64>]] = [:]
    var inverses: [String: [String: String]] = [:]
    for record in records {
      let names: [String: String]
      if let known = inverses[record.entityName] {
        names = known
      } else {
        var found: [String: String] = [:]
        for relationship in model.entity(named: record.entityName)?.allRelationships ?? [] {
          if let inverse = model.inverse(of: relationship) {
            found[relationship.name] = inverse.name
          }
        }
        inverses[record.entityName] = found
        names = found
      }
      for (name, targets) in record.relationships {
        guard let inverse = names[name] else { continue }
        for target in targets {
          guard let position = positionOfID[target],
            records[position].relationships[inverse] == nil
          else { continue }
          added[position, default: [:]][inverse, default: []].insert(record.id)
        }
      }
    }
    return added.mapValues { lists in lists.mapValues { $0.sorted() } }
  }
}

/// A record read by key as a predicate reads a managed object.
package final class RecordObject: KeyValueReadable {
  private unowned let graph: RecordGraph
  package let position: Int

  init(graph: RecordGraph, position: Int) {
    self.graph = graph
    self.position = position
  }

  package var record: StoreRecord { graph.records[position] }

  package func value(forKeyPath keyPath: String) throws -> Any? {
    let record = self.record
    guard let entity = graph.model.entity(named: record.entityName) else {
      throw RecordKeyError(key: keyPath, entity: record.entityName)
    }
    if entity.attribute(named: keyPath) != nil {
      return record.attribute(keyPath)?.readerValue
    }
    guard let relationship = entity.relationship(named: keyPath) else {
      throw RecordKeyError(key: keyPath, entity: record.entityName)
    }
    let objects = graph.targets(of: position, relationship).compactMap { id in
      graph.position(of: id).map { graph.object(at: $0) }
    }
    return relationship.isToMany ? objects : objects.first
  }
}

/// A key a record's entity does not have.
struct RecordKeyError: Error, CustomStringConvertible {
  let key: String
  let entity: String

  var description: String { "\"\(entity)\" has no property \"\(key)\"" }
}
