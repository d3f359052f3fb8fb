import FolioModel
import FolioQuery
import Foundation

/// A batch as a pass over a store's records: what the atomic stores execute, and what a SQLite
/// store falls back on to select objects by a predicate SQL cannot say.
///
/// Deletion first gathers what goes: the selected objects, then, round after round, the
/// targets of their Cascade relationships. A Deny relationship still naming an object outside
/// that set refuses the batch. The rest of the store then lets go of every deleted object: a
/// file never names an object it does not hold, so a reference No Action would have left is
/// dropped too, as a context's save drops it when it writes a whole store.
extension StoreBatch {
  /// Applies the batch to `contents`, whose records fit `model`: deleted records leave,
  /// updated ones take their new values, new ones are added with IDs from
  /// `contents.nextObjectID` on. With a refusal in the outcome, `contents` is as it was.
  package func apply(to contents: inout StoreContents, model: ManagedObjectModel)
    -> StoreBatchOutcome
  {
    var outcome = StoreBatchOutcome()
    if case .insert(let objects) = operation {
      var changed = contents
      insert(objects, into: &changed, outcome: &outcome)
      outcome.refusal = brokenUniqueness(
        in: changed.records, changed: Set(outcome.objects.map(\.id)), model: model)
      if outcome.refusal == nil { contents = changed }
      return outcome
    }
    let graph = RecordGraph(records: contents.records, model: model)
    let selected: [Int]
    switch select(in: graph) {
    case .success(let positions): selected = positions
    case .failure(let refusal):
      outcome.refusal = refusal
      return outcome
    }
    switch operation {
    case .delete:
      delete(selected, in: graph, from: &contents, outcome: &outcome)
    case .update(let values):
      var changed = contents
      update(selected, with: values, in: graph, contents: &changed, outcome: &outcome)
      if outcome.refusal == nil {
        outcome.refusal = brokenUniqueness(
          in: changed.records, changed: Set(outcome.objects.map(\.id)), model: model)
      }
      if outcome.refusal == nil { contents = changed }
    case .insert:
      break
    }
    return outcome
  }

  /// The positions of the records the selection takes, in record order.
  package func select(in graph: RecordGraph) -> Result<[Int], BatchRefusal> {
    let entities = selectedEntities(in: graph.model)
    switch selection {
    case .ids(let ids):
      let positions = ids.compactMap { graph.position(of: $0) }.filter {
        entities.contains(graph.records[$0].entityName)
      }
      return .success(Array(Set(positions)).sorted())
    case .predicate(let predicate):
      var positions: [Int] = []
      for (position, record) in graph.records.enumerated()
      where entities.contains(record.entityName) {
        guard let predicate else {
          positions.append(position)
          continue
        }
        do {
          if try predicate.evaluate(with: graph.object(at: position)) { positions.append(position) }
        } catch {
          return .failure(.evaluation(error, entityName: record.entityName))
        }
      }
      return .success(positions)
    }
  }

  /// The positions of `selected` and of every record their Cascade relationships reach, or
  /// the refusal of a Deny relationship naming a record outside them.
  package static func deletions(of selected: [Int], in graph: RecordGraph)
    -> Result<[Int], BatchRefusal>
  {
    var gone = Set(selected)
    var queue = selected
    while let position = queue.popLast() {
      guard let entity = graph.model.entity(named: graph.records[position].entityName) else {
        continue
      }
      for relationship in entity.allRelationships where relationship.deleteRule == .cascade {
        for id in graph.targets(of: position, relationship) {
          guard let target = graph.position(of: id), gone.insert(target).inserted else { continue }
          queue.append(target)
        }
      }
    }
    for position in gone.sorted() {
      let record = graph.records[position]
      guard let entity = graph.model.entity(named: record.entityName) else { continue }
      for relationship in entity.allRelationships where relationship.deleteRule == .deny {
        let kept = graph.targets(of: position, relationship).filter { id in
          graph.position(of: id).map { !gone.contains($0) } ?? false
        }
        if !kept.isEmpty {
          return .failure(
            .denied(
              entityName: record.entityName, id: record.id, relationship: relationship.name,
              count: kept.count))
        }
      }
    }
    return .success(gone.sorted())
  }

  private func delete(
    _ selected: [Int], in graph: RecordGraph, from contents: inout StoreContents,
    outcome: inout StoreBatchOutcome
  ) {
    let positions: [Int]
    switch Self.deletions(of: selected, in: graph) {
    case .success(let found): positions = found
    case .failure(let refusal):
      outcome.refusal = refusal
      return
    }
    let gone = Set(positions.map { graph.records[$0].id })
    outcome.selectedCount = selected.count
    outcome.objects = positions.map { Self.object(graph.records[$0]) }
    var kept: [StoreRecord] = []
    kept.reserveCapacity(contents.records.count - positions.count)
    for record in contents.records where !gone.contains(record.id) {
      var record = record
      if record.relationships.values.contains(where: { $0.contains(where: gone.contains) }) {
        for (name, targets) in record.relationships {
          let left = targets.filter { !gone.contains($0) }
          record.relationships[name] = left.isEmpty ? nil : left
        }
        outcome.touched.append(Self.object(record))
      }
      kept.append(record)
    }
    contents.records = kept
  }

  private func update(
    _ selected: [Int], with values: [String: Value], in graph: RecordGraph,
    contents: inout StoreContents, outcome: inout StoreBatchOutcome
  ) {
    // Every expression is evaluated on the objects as they were before any of them changed.
    var newValues: [(position: Int, values: [String: AttributeValue?])] = []
    for position in selected {
      var given: [String: AttributeValue?] = [:]
      for (key, value) in values {
        switch value {
        case .constant(let constant): given[key] = constant
        case .expression(let expression):
          switch Self.evaluate(expression, on: graph.object(at: position), key: key, graph: graph)
          {
          case .success(let computed): given[key] = computed
          case .failure(let refusal):
            outcome.refusal = refusal
            return
          }
        }
      }
      newValues.append((position, given))
    }
    for (position, given) in newValues {
      for (key, value) in given { contents.records[position].attributes[key] = value }
      outcome.objects.append(Self.object(contents.records[position]))
    }
    outcome.selectedCount = selected.count
  }

  /// The value `expression` gives `key` on `object`, converted to the attribute's type.
  package static func evaluate(
    _ expression: QueryExpression, on object: RecordObject, key: String, graph: RecordGraph
  ) -> Result<AttributeValue?, BatchRefusal> {
    let entity = object.record.entityName
    let computed: Any?
    do {
      computed = try expression.value(with: object)
    } catch {
      return .failure(.evaluation(error, entityName: entity))
    }
    guard let attribute = graph.model.entity(named: entity)?.attribute(named: key) else {
      return .success(nil)
    }
    switch AttributeValue.converting(computed, to: attribute.attributeType) {
    case .success(let value): return .success(value)
    case .failure(let mismatch):
      return .failure(.typeMismatch(entityName: entity, key: key, message: mismatch.message))
    }
  }

  /// The first uniqueness constraint of `model` that two of `records` break, among the
  /// constraints of the batch's entity, its ancestors and its subentities (objects whose
  /// constrained values include a nil break none, as in a UNIQUE index); `nil` when none.
  package func brokenUniqueness(
    in records: [StoreRecord], changed: Set<Int64>, model: ManagedObjectModel
  ) -> BatchRefusal? {
    guard let entity = model.entity(named: entityName) else { return nil }
    let related = model.entities.filter {
      model.entity($0, isKindOf: entity) || model.entity(entity, isKindOf: $0)
    }
    for owner in related {
      let kinds = Set(model.entities.filter { model.entity($0, isKindOf: owner) }.map(\.name))
      for constraint in owner.uniquenessConstraints where !constraint.isEmpty {
        // A duplicate the store held before the batch is not the batch's to refuse.
        var holder: [[AttributeValue]: Int64] = [:]
        for record in records where kinds.contains(record.entityName) {
          let values = constraint.compactMap { record.attribute($0) }
          guard values.count == constraint.count else { continue }
          guard let other = holder[values] else {
            holder[values] = record.id
            continue
          }
          guard changed.contains(record.id) || changed.contains(other) else { continue }
          return .uniqueness(entityName: owner.name, properties: constraint)
        }
      }
    }
    return nil
  }

  private func insert(
    _ objects: [[String: AttributeValue]], into contents: inout StoreContents,
    outcome: inout StoreBatchOutcome
  ) {
    var next = max(contents.nextObjectID, (contents.records.map(\.id).max() ?? 0) + 1)
    for attributes in objects {
      let record = StoreRecord(entityName: entityName, id: next, attributes: attributes)
      contents.records.append(record)
      outcome.objects.append(Self.object(record))
      next += 1
    }
    contents.nextObjectID = next
    outcome.selectedCount = objects.count
  }

  static func object(_ record: StoreRecord) -> StoreBatchOutcome.Object {
    StoreBatchOutcome.Object(entityName: record.entityName, id: record.id)
  }
}
