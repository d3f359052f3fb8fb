import FolioGraph
import FolioModel
import FolioQuery
import FolioStores
import Foundation

// A batch request is checked against the model before it reaches the store, so the store can
// trust it: the entity exists, every key is a stored attribute (relationships, transient and
// derived attributes cannot be set), and every constant fits its attribute's type, as
// `setValue(_:forKey:)` checks it. Validation rules (optional, ranges, patterns, uniqueness)
// are not run, as Core Data's batch requests do not run them.

extension BatchDeleteRequest {
  /// The request as the store executes it.
  ///
  /// - Throws: `GraphError.unknownEntity`; `.unknownKey` for a key the predicate reads that the
  ///   entity lacks; `.invalidFetchRequest` for IDs of several entities or of unsaved objects.
  package func storeBatch(model: ManagedObjectModel) throws(GraphError) -> StoreBatch {
    let entity = try BatchChecks.entity(entityName, in: model)
    var batch = StoreBatch(entityName: entity.name, operation: .delete)
    batch.includesSubentities = includesSubentities
    if let objectIDs {
      var keys: [Int64] = []
      for id in objectIDs {
        guard id.entityName == entity.name, let key = id.primaryKey else {
          throw GraphError(
            .invalidFetchRequest,
            id.isTemporaryID
              ? "\(id) is the ID of an object not saved yet, which the store does not hold"
              : "a batch deletion by IDs takes objects of one entity: \(id) is not a \(entity.name)",
            at: InputLocation(entity: id.entityName))
        }
        keys.append(key)
      }
      batch.selection = .ids(keys)
    } else {
      if let predicate { try BatchChecks.check(predicate, on: entity) }
      batch.selection = .predicate(predicate)
    }
    return batch
  }
}

extension BatchUpdateRequest {
  /// The request as the store executes it.
  ///
  /// - Throws: `GraphError.unknownEntity`, `.unknownKey`; `.typeMismatch` for a value that
  ///   does not fit its attribute, or a key that is not a stored attribute; `.readOnly` for a
  ///   derived attribute.
  package func storeBatch(model: ManagedObjectModel) throws(GraphError) -> StoreBatch {
    let entity = try BatchChecks.entity(entityName, in: model)
    var values: [String: StoreBatch.Value] = [:]
    for (key, value) in propertiesToUpdate {
      let attribute = try BatchChecks.attribute(key, of: entity, settingIn: "a batch update")
      if let expression = value as? QueryExpression {
        try BatchChecks.check(expression, on: entity)
        values[key] = .expression(expression)
      } else {
        values[key] = .constant(try BatchChecks.value(value, for: attribute, of: entity))
      }
    }
    var batch = StoreBatch(
      entityName: entity.name, operation: .update(values), selection: .predicate(predicate))
    batch.includesSubentities = includesSubentities
    if let predicate { try BatchChecks.check(predicate, on: entity) }
    return batch
  }
}

extension BatchInsertRequest {
  /// The request as the store executes it: each object's values, with the default values of
  /// the attributes it leaves out.
  ///
  /// - Throws: `GraphError.unknownEntity`, `.abstractEntity`, `.unknownKey`; `.typeMismatch`
  ///   for a value that does not fit its attribute, or a key that is not a stored attribute,
  ///   naming the object by its place in the list; `.readOnly` for a derived attribute.
  package func storeBatch(model: ManagedObjectModel) throws(GraphError) -> StoreBatch {
    let entity = try BatchChecks.entity(entityName, in: model)
    guard !entity.isAbstract else { throw GraphError.abstractEntity(entity.name) }
    var defaults: [String: AttributeValue] = [:]
    for attribute in entity.allAttributes where !attribute.isTransient && !attribute.isDerived {
      defaults[attribute.name] = attribute.defaultValue
    }
    var rows: [[String: AttributeValue]] = []
    for (index, object) in objects.enumerated() {
      var row = defaults
      do throws(GraphError) {
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
          let attribute = try BatchChecks.attribute(key, of: entity, settingIn: "a batch insert")
          row[key] = try BatchChecks.value(value, for: attribute, of: entity)
        }
      } catch {
        var located = error
        located.message += " (object \(index + 1) of \(objects.count))"
        throw located
      }
      rows.append(row)
    }
    return StoreBatch(entityName: entity.name, operation: .insert(rows))
  }
}

/// The checks every batch request makes of its keys and values.
enum BatchChecks {
  static func entity(_ name: String, in model: ManagedObjectModel) throws(GraphError)
    -> EntityDescription
  {
    guard let entity = model.entity(named: name) else {
      throw GraphError.unknownEntity(name, known: model.entities.map(\.name))
    }
    return entity
  }

  /// The stored attribute `key` of `entity`, which `what` (`a batch update`) may set.
  static func attribute(_ key: String, of entity: EntityDescription, settingIn what: String)
    throws(GraphError) -> AttributeDescription
  {
    guard let property = entity.property(named: key) else {
      throw GraphError.unknownKey(
        key, entity: entity.name, known: entity.allAttributes.map(\.name))
    }
    guard let attribute = property.attribute else {
      throw GraphError.typeMismatch(
        "\"\(key)\" is a relationship; \(what) sets attributes only", entity: entity.name, key: key)
    }
    guard !attribute.isTransient else {
      throw GraphError.typeMismatch(
        "\"\(key)\" is transient; \(what) sets stored attributes only", entity: entity.name,
        key: key)
    }
    guard !attribute.isDerived else { throw GraphError.readOnly(entity: entity.name, key: key) }
    return attribute
  }

  /// `value` as a value of `attribute`, checked as `setValue(_:forKey:)` checks it; `NSNull`
  /// and a nil optional are nil.
  static func value(_ value: Any, for attribute: AttributeDescription, of entity: EntityDescription)
    throws(GraphError) -> AttributeValue?
  {
    let unwrapped: Any? =
      value is NSNull
      ? nil
      : Mirror(reflecting: value).displayStyle == .optional
        ? Mirror(reflecting: value).children.first?.value : value
    return try Slot.checked(unwrapped, for: attribute, entity: entity.name)
      .attributeValue(as: attribute.attributeType)
  }

  /// Checks that every key path of `predicate` starts with a property of `entity`.
  static func check(_ predicate: QueryPredicate, on entity: EntityDescription) throws(GraphError) {
    switch predicate {
    case .constant: return
    case .and(let parts), .or(let parts):
      for part in parts { try check(part, on: entity) }
    case .not(let inner): try check(inner, on: entity)
    case .comparison(let comparison):
      try check(comparison.left, on: entity)
      try check(comparison.right, on: entity)
    }
  }

  /// Checks that every key path of `expression` read from the object starts with a property of
  /// `entity` (those inside a subquery read its elements, and are left to evaluation).
  static func check(_ expression: QueryExpression, on entity: EntityDescription)
    throws(GraphError)
  {
    switch expression {
    case .keyPath(let path):
      guard let key = path.split(separator: ".").first.map(String.init), !key.hasPrefix("@")
      else { return }
      guard entity.property(named: key) != nil else {
        throw GraphError.unknownKey(
          key, entity: entity.name, known: entity.properties.map(\.name))
      }
    case .aggregate(let elements):
      for element in elements { try check(element, on: entity) }
    case .function(_, let arguments):
      for argument in arguments { try check(argument, on: entity) }
    case .conditional(let predicate, let whenTrue, let whenFalse):
      try check(predicate, on: entity)
      try check(whenTrue, on: entity)
      try check(whenFalse, on: entity)
    case .subquery(let collection, _, _): try check(collection, on: entity)
    case .keyPathFrom(let base, _): try check(base, on: entity)
    case .constant, .evaluatedObject, .variable: return
    }
  }
}
