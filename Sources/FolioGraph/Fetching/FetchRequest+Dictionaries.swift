import FolioModel
import FolioQuery
import Foundation

extension ManagedObjectContext {
  /// For each object `request` describes, a dictionary of its
  /// ``FetchRequest/propertiesToFetch`` (every attribute when `nil`); with
  /// ``FetchRequest/propertiesToGroupBy``, or when every property is an aggregate, one
  /// dictionary per group instead.
  ///
  /// Without grouping, each object gives a dictionary, in the request's order and window;
  /// ``FetchRequest/returnsDistinctResults`` keeps the first of equal dictionaries, before the
  /// window is applied (as SQL's `SELECT DISTINCT … LIMIT`).
  ///
  /// With grouping, the matching objects whose group-by values are equal make one group, in the
  /// order their first object is found; each gives one dictionary, holding its group-by values
  /// (under the names of the fetched properties that are grouped) and its aggregates, each
  /// computed over the group's objects (``QueryExpression/aggregateValue(over:variables:)``).
  /// ``FetchRequest/havingPredicate`` keeps the dictionaries it holds for; the sort
  /// descriptors then order the dictionaries by their keys, and the window applies last.
  /// Aggregates without grouping make one group of every match: one dictionary, even when
  /// nothing matches. A value that is nil is left out of its dictionary, as Core Data leaves
  /// it out.
  ///
  /// - Throws: as ``fetch(_:)-(FetchRequest<ManagedObject>)``; `.invalidFetchRequest` for a
  ///   fetched property that is neither grouped nor an aggregate in a grouped request, for a
  ///   having predicate without grouping, or for aggregates mixed with per-object values;
  ///   `.unknownKey` for a key the entity does not have, or, in a having predicate or sort
  ///   descriptor of a grouped request, one the dictionaries do not have; `.typeMismatch` for a
  ///   value its property's result type cannot hold.
  public func fetchDictionaries<Result>(_ request: FetchRequest<Result>) throws(GraphError)
    -> [[String: Any]]
  {
    guard let layout = layoutByName[request.entityName] else {
      throw GraphError.unknownEntity(request.entityName, known: layouts.map(\.name))
    }
    let properties =
      request.propertiesToFetch ?? layout.entity.allAttributes.map { FetchProperty($0.name) }
    let grouping = request.propertiesToGroupBy ?? []
    try Self.checkGrouping(properties, grouping, request: request)
    guard !grouping.isEmpty || properties.contains(where: \.isAggregate) else {
      return try objectDictionaries(request, properties: properties, entity: layout.name)
    }
    var whole = request
    whole.sortDescriptors = []
    whole.fetchLimit = 0
    whole.fetchOffset = 0
    let objects = try fetchObjects(whole)
    var groups: [[ManagedObject]] = []
    var keys: [[Any?]] = []
    if grouping.isEmpty {
      groups = [objects]
      keys = [[]]
    } else {
      var groupByKey: [GroupKey: Int] = [:]
      let readers = grouping.map { ValueReader($0.expression, layout: layout) }
      for object in objects {
        var values: [Any?] = []
        for reader in readers { values.append(try reader.value(for: object)) }
        let key = GroupKey(values)
        if let group = groupByKey[key] {
          groups[group].append(object)
        } else {
          groupByKey[key] = groups.count
          groups.append([object])
          keys.append(values)
        }
      }
    }
    var rows: [[String: Any]] = []
    rows.reserveCapacity(groups.count)
    for (members, values) in zip(groups, keys) {
      var row: [String: Any] = [:]
      for property in properties {
        let value: Any?
        if property.isAggregate, case .function(_, let arguments) = property.expression {
          let reader = ValueReader(arguments[0], layout: layout)
          var values: [Any?] = []
          values.reserveCapacity(members.count)
          for member in members { values.append(try reader.value(for: member)) }
          do {
            value = try property.expression.aggregateValue(ofArgumentValues: values)
          } catch {
            throw Self.fetchError(error, entity: layout.name)
          }
        } else {
          // Checked above: the property is one of the grouped ones.
          let index = grouping.firstIndex { $0.expression == property.expression } ?? 0
          value = values[index]
        }
        if let value = try property.converted(value) { row[property.name] = value }
      }
      rows.append(row)
    }
    let names = Set(properties.map(\.name))
    if let having = request.havingPredicate {
      var kept: [[String: Any]] = []
      for row in rows {
        do {
          if try having.evaluate(with: FetchedRow(values: row, names: names)) { kept.append(row) }
        } catch {
          throw Self.fetchError(error, entity: layout.name)
        }
      }
      rows = kept
    }
    if !request.sortDescriptors.isEmpty {
      do {
        rows = try rows.map { FetchedRow(values: $0, names: names) }
          .sorted(by: request.sortDescriptors).map(\.values)
      } catch {
        throw Self.fetchError(error, entity: layout.name)
      }
    }
    return Self.window(rows, request)
  }

  /// One dictionary per object, for a request without grouping or aggregates.
  private func objectDictionaries<Result>(
    _ request: FetchRequest<Result>, properties: [FetchProperty], entity: String
  ) throws(GraphError) -> [[String: Any]] {
    var all = request
    if request.returnsDistinctResults {
      all.fetchLimit = 0
      all.fetchOffset = 0
    }
    var rows: [[String: Any]] = []
    var seen: Set<GroupKey> = []
    guard let layout = layoutByName[request.entityName] else { return [] }
    let readers = properties.map { ValueReader($0.expression, layout: layout) }
    for object in try fetchObjects(all) {
      var row: [String: Any] = [:]
      var values: [Any?] = []
      for (property, reader) in zip(properties, readers) {
        let value = try property.converted(try reader.value(for: object))
        if request.returnsDistinctResults { values.append(value) }
        if let value { row[property.name] = value }
      }
      if request.returnsDistinctResults, !seen.insert(GroupKey(values)).inserted { continue }
      rows.append(row)
    }
    return request.returnsDistinctResults ? Self.window(rows, request) : rows
  }

  /// `rows` in `request`'s window.
  private static func window<Result>(_ rows: [[String: Any]], _ request: FetchRequest<Result>)
    -> [[String: Any]]
  {
    let start = min(request.fetchOffset, rows.count)
    var end = rows.count
    if request.fetchLimit > 0 { end = start + min(end - start, request.fetchLimit) }
    return Array(rows[start..<end])
  }

  /// `expression`'s value for `object`: a key path read the object's way (so an unknown key
  /// is the object's error), anything else evaluated.
  fileprivate static func value(
    of expression: QueryExpression, for object: ManagedObject, entity: String
  ) throws(GraphError) -> Any? {
    if case .keyPath(let path) = expression { return try object.value(forKeyPath: path) }
    do {
      return try expression.value(with: object)
    } catch {
      throw fetchError(error, entity: entity)
    }
  }

  /// Refuses what a grouped fetch cannot answer: a fetched property neither grouped nor an
  /// aggregate, a having predicate without grouping, aggregates beside per-object values.
  private static func checkGrouping<Result>(
    _ properties: [FetchProperty], _ grouping: [FetchProperty], request: FetchRequest<Result>
  ) throws(GraphError) {
    func refuse(_ message: String) -> GraphError {
      GraphError(.invalidFetchRequest, message, at: InputLocation(entity: request.entityName))
    }
    if let aggregate = grouping.first(where: \.isAggregate) {
      throw refuse("\(aggregate.name) is an aggregate: a group is made of values of objects")
    }
    if grouping.isEmpty {
      if request.havingPredicate != nil {
        throw refuse("a having predicate tests groups: it needs propertiesToGroupBy")
      }
      if let aggregate = properties.first(where: \.isAggregate),
        let plain = properties.first(where: { !$0.isAggregate })
      {
        throw refuse(
          "\(aggregate.name) aggregates every match, \(plain.name) is a value of each object:"
            + " group by \(plain.name), or fetch aggregates alone")
      }
      return
    }
    for property in properties where !property.isAggregate {
      guard grouping.contains(where: { $0.expression == property.expression }) else {
        throw refuse(
          "\(property.name) is neither grouped nor an aggregate: add it to propertiesToGroupBy"
            + " (grouped: \(grouping.map(\.name).joined(separator: ", ")))")
      }
    }
  }
}

/// Reads an expression's value from objects: a stored attribute of the entity straight from
/// its slot, as `value(forKey:)` gives it, without a key path's lookups; anything else as
/// `value(forKeyPath:)` and evaluation give it.
private struct ValueReader {
  let expression: QueryExpression
  let layout: EntityLayout
  /// The attribute's slot and type, when the expression is one of `layout`'s attributes.
  let attribute: (slot: Int, type: AttributeType)?

  init(_ expression: QueryExpression, layout: EntityLayout) {
    self.expression = expression
    self.layout = layout
    if case .keyPath(let key) = expression, let slot = layout.slotByName[key],
      case .attribute(let description) = layout.properties[slot].kind
    {
      attribute = (slot, description.attributeType)
    } else {
      attribute = nil
    }
  }

  func value(for object: ManagedObject) throws(GraphError) -> Any? {
    // A subentity's object may keep the attribute in another slot: it is read by name.
    if let attribute, object.layout === layout {
      return object.slots[attribute.slot].publicValue(as: attribute.type)
    }
    return try ManagedObjectContext.value(of: expression, for: object, entity: layout.name)
  }
}

/// A group's values, as a dictionary key: equal when every value is equal (objects by
/// identity, nils equal to each other).
struct GroupKey: Hashable {
  private let values: [AnyHashable?]

  init(_ values: [Any?]) {
    self.values = values.map { value in
      guard let value else { return nil }
      if let object = value as? ManagedObject { return AnyHashable(ObjectIdentifier(object)) }
      if let hashable = value as? AnyHashable { return hashable }
      // Collections of objects and other values without Hashable: by their description.
      return AnyHashable(String(describing: value))
    }
  }
}

/// A result dictionary as a having predicate and sort descriptors read it: a name it does not
/// have is an unknown key, not a nil.
private struct FetchedRow: KeyValueReadable {
  var values: [String: Any]
  var names: Set<String>

  func value(forKeyPath keyPath: String) throws -> Any? {
    guard names.contains(keyPath) else { throw UnknownResultKey(key: keyPath, names: names) }
    return values[keyPath]
  }
}

/// A key that no fetched property names.
private struct UnknownResultKey: Error, CustomStringConvertible {
  var key: String
  var names: Set<String>
  var description: String {
    "the dictionaries have no key \"\(key)\" (they have \(names.sorted().joined(separator: ", ")))"
  }
}
