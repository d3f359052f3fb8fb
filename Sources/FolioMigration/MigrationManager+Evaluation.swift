import FolioModel
import FolioStores
import Foundation

extension MigrationManager {
  /// The value of `expression` for one source object and the destination object made of it.
  func evaluate(
    _ expression: MappingExpression, source: Int64?, destination: Int64?,
    _ mapping: EntityMapping, _ property: PropertyMapping
  ) throws(MigrationError) -> MigrationValue {
    func fail(_ message: String) -> MigrationError {
      MigrationError(
        .invalidMapping, "\(mapping.name).\(property.name) = \(expression): \(message)",
        at: InputLocation(entity: mapping.destinationEntityName, property: property.name))
    }
    func value(_ expression: MappingExpression) throws(MigrationError) -> MigrationValue {
      switch expression {
      case .constant(let constant):
        return constant.attributeValue.map(MigrationValue.value) ?? .null
      case .variable("source"):
        return source.map { .sources([$0]) } ?? .null
      case .variable("destination"):
        return destination.map { .destinations([$0]) } ?? .null
      case .variable(let name):
        throw fail("$\(name) is not a value")
      case .keyPath(let base, let path):
        return try walk(try value(base), path.split(separator: ".").map(String.init), fail)
      case .function(.variable("manager"), let selector, let arguments):
        guard arguments.count == 2, case .constant(.string(let name)) = arguments[0] else {
          throw fail("$manager has no function \(selector) of \(arguments.count) arguments")
        }
        let origins: [Int64]
        switch try value(arguments[1]) {
        case .sources(let ids): origins = ids
        case .null: origins = []
        default: throw fail("the source instances are not source objects")
        }
        switch selector {
        case MappingExpression.entityMappingSelector:
          guard mappingModel.entityMapping(named: name) != nil else {
            throw fail("there is no entity mapping named \(name)")
          }
          let made = forward[name] ?? [:]
          return .destinations(origins.flatMap { made[$0] ?? [] })
        case MappingExpression.sourceRelationshipSelector:
          // Of each target's destination objects, those the destination relationship takes.
          let made = origins.flatMap { destinationsOfSource[$0] ?? [] }
          guard
            let kind = destinationEntities[mapping.destinationEntityName ?? ""]?.relationships[
              property.name]?.destinationEntityName
          else { return .destinations(made) }
          return .destinations(made.filter { isDestination($0, kindOf: kind) })
        default:
          throw fail("$manager has no function \(selector)")
        }
      case .function(.variable("source"), "valueForKey:", let arguments),
        .function(.variable("source"), "valueForKeyPath:", let arguments):
        guard arguments.count == 1, case .constant(.string(let path)) = arguments[0] else {
          throw fail("valueForKey: takes one key")
        }
        return try value(.keyPath(.variable("source"), path))
      case .function(.variable("entityPolicy"), let selector, let arguments):
        guard let policy = activePolicies[mapping.name] else {
          throw fail("$entityPolicy is not available here")
        }
        var values: [Any?] = []
        for argument in arguments { values.append(swiftValue(of: try value(argument))) }
        let result: Any?
        do {
          result = try policy.value(ofFunction: selector, arguments: values, manager: self)
        } catch {
          throw MigrationError(
            .policyFailed,
            "\(mapping.name).\(property.name): the migration policy's function \(selector) failed: \(error.message)",
            at: error.location
              ?? InputLocation(entity: mapping.destinationEntityName, property: property.name),
            underlying: error)
        }
        guard let converted = migrationValue(of: result) else {
          throw fail(
            "the migration policy's function \(selector) returned a value of no attribute type")
        }
        return converted
      case .function(let receiver, let selector, _):
        throw fail("\(receiver) has no function \(selector)")
      case .builtin(let name, let arguments):
        var values: [MigrationValue] = []
        for argument in arguments { values.append(try value(argument)) }
        return try builtin(name, values, fail)
      }
    }
    return try value(expression)
  }

  /// A value as a migration policy's function takes it: a Swift value, an array of them, or
  /// source or destination objects.
  private func swiftValue(of value: MigrationValue) -> Any? {
    switch value {
    case .null: nil
    case .value(let value): value.swiftValue
    case .values(let values): values.map(\.swiftValue)
    case .sources(let ids): ids.map { MigrationSourceObject(id: $0, manager: self) }
    case .destinations(let ids): ids.map { MigrationObject(id: $0, manager: self) }
    }
  }

  /// What a migration policy's function returned, as a value; `nil` for what no attribute or
  /// relationship holds.
  private func migrationValue(of result: Any?) -> MigrationValue? {
    guard let result else { return .null }
    switch result {
    case let object as MigrationSourceObject: return .sources([object.id])
    case let objects as [MigrationSourceObject]: return .sources(objects.map(\.id))
    case let object as MigrationObject: return .destinations([object.id])
    case let objects as [MigrationObject]: return .destinations(objects.map(\.id))
    case let values as [Any]:
      var converted: [AttributeValue] = []
      for value in values {
        guard let attribute = AttributeValue(swiftValue: value) else { return nil }
        converted.append(attribute)
      }
      return .values(converted)
    default:
      return AttributeValue(swiftValue: result).map(MigrationValue.value)
    }
  }

  /// Follows `keys` from `start`, with Cocoa's collection operators.
  private func walk(
    _ start: MigrationValue, _ keys: [String], _ fail: (String) -> MigrationError
  ) throws(MigrationError) -> MigrationValue {
    var current = start
    var many = false
    var index = 0
    while index < keys.count {
      let key = keys[index]
      index += 1
      if key.hasPrefix("@") {
        let rest = Array(keys[index...])
        return try collection(key, of: current, rest, fail)
      }
      let isSource: Bool
      let ids: [Int64]
      switch current {
      case .null: return .null
      case .sources(let found): (isSource, ids) = (true, found)
      case .destinations(let found): (isSource, ids) = (false, found)
      case .value, .values:
        throw fail("a value has no key \(key)")
      }
      var objects: [Int64] = []
      var values: [AttributeValue] = []
      var reachedObjects = false
      for id in ids {
        guard let record = isSource ? sourceRecord(id) : destinationRecord(id),
          let entity = (isSource ? sourceEntities : destinationEntities)[record.entityName]
        else { continue }
        if entity.attributes[key] != nil {
          if let value = record.attribute(key) { values.append(value) }
        } else if let relationship = entity.relationships[key] {
          reachedObjects = true
          if relationship.isToMany { many = true }
          objects += record.relationships[key] ?? []
        } else {
          throw fail("\(record.entityName) has no property \(key)")
        }
      }
      if ids.count > 1 { many = true }
      if reachedObjects {
        let reached = many ? objects : Array(objects.prefix(1))
        current = isSource ? .sources(reached) : .destinations(reached)
      } else if many {
        current = .values(values)
      } else {
        current = values.first.map(MigrationValue.value) ?? .null
      }
    }
    return current
  }

  private func sourceRecord(_ id: Int64) -> StoreRecord? {
    sourcePosition[id].map { sources[$0] }
  }

  private func destinationRecord(_ id: Int64) -> StoreRecord? {
    destinationPosition[id].map { destinations[$0] }
  }

  /// A collection operator (`@count`, `@sum`, `@avg`, `@min`, `@max`, `@unionOfObjects`,
  /// `@distinctUnionOfObjects`, `@unionOfSets`, `@distinctUnionOfSets`, `@unionOfArrays`,
  /// `@distinctUnionOfArrays`) applied to `value`, reading `rest` from each element.
  private func collection(
    _ operation: String, of value: MigrationValue, _ rest: [String],
    _ fail: (String) -> MigrationError
  ) throws(MigrationError) -> MigrationValue {
    func each() throws(MigrationError) -> [MigrationValue] {
      var results: [MigrationValue] = []
      switch value {
      case .sources(let ids):
        for id in ids {
          results.append(rest.isEmpty ? .sources([id]) : try walk(.sources([id]), rest, fail))
        }
      case .destinations(let ids):
        for id in ids {
          results.append(
            rest.isEmpty ? .destinations([id]) : try walk(.destinations([id]), rest, fail))
        }
      case .values(let values): results = values.map(MigrationValue.value)
      case .value(let single): results = [.value(single)]
      case .null: break
      }
      return results
    }
    func numbers() throws(MigrationError) -> [Double] {
      var numbers: [Double] = []
      for element in try each() {
        switch element {
        case .value(let value):
          guard let number = value.number else { throw fail("\(operation) of a non-number") }
          numbers.append(number)
        case .values(let values):
          for value in values {
            guard let number = value.number else { throw fail("\(operation) of a non-number") }
            numbers.append(number)
          }
        case .null: continue
        default: throw fail("\(operation) of objects")
        }
      }
      return numbers
    }
    switch operation {
    case "@count":
      switch value {
      case .sources(let ids), .destinations(let ids): return .value(.integer(Int64(ids.count)))
      case .values(let values): return .value(.integer(Int64(values.count)))
      case .value: return .value(.integer(1))
      case .null: return .value(.integer(0))
      }
    case "@sum": return .value(.double(try numbers().reduce(0, +)))
    case "@avg":
      let found = try numbers()
      return found.isEmpty ? .null : .value(.double(found.reduce(0, +) / Double(found.count)))
    case "@min": return try numbers().min().map { .value(.double($0)) } ?? .null
    case "@max": return try numbers().max().map { .value(.double($0)) } ?? .null
    case "@unionOfObjects", "@distinctUnionOfObjects", "@unionOfSets", "@distinctUnionOfSets",
      "@unionOfArrays", "@distinctUnionOfArrays":
      let distinct = operation.hasPrefix("@distinct")
      var sourceIDs: [Int64] = []
      var destinationIDs: [Int64] = []
      var values: [AttributeValue] = []
      for element in try each() {
        switch element {
        case .sources(let ids): sourceIDs += ids
        case .destinations(let ids): destinationIDs += ids
        case .value(let value): values.append(value)
        case .values(let more): values += more
        case .null: continue
        }
      }
      func unique<T: Hashable>(_ list: [T]) -> [T] {
        guard distinct else { return list }
        var seen: Set<T> = []
        return list.filter { seen.insert($0).inserted }
      }
      if !sourceIDs.isEmpty { return .sources(unique(sourceIDs)) }
      if !destinationIDs.isEmpty { return .destinations(unique(destinationIDs)) }
      return .values(unique(values))
    default:
      throw fail("there is no collection operator \(operation)")
    }
  }

  /// One of `NSExpression`'s built-in functions.
  private func builtin(
    _ name: String, _ arguments: [MigrationValue], _ fail: (String) -> MigrationError
  ) throws(MigrationError) -> MigrationValue {
    func number(_ value: MigrationValue) throws(MigrationError) -> AttributeValue? {
      switch value {
      case .null: return nil
      case .value(let value) where value.number != nil: return value
      default: throw fail("\(name) takes numbers")
      }
    }
    func arithmetic(
      _ integers: (Int64, Int64) -> (Int64, Bool)?, _ doubles: (Double, Double) -> Double
    ) throws(MigrationError) -> MigrationValue {
      guard arguments.count == 2 else { throw fail("\(name) takes two arguments") }
      guard let left = try number(arguments[0]), let right = try number(arguments[1]) else {
        return .null
      }
      if case .integer(let x) = left, case .integer(let y) = right,
        let (result, overflow) = integers(x, y),
        !overflow
      {
        return .value(.integer(result))
      }
      return .value(.double(doubles(left.number ?? 0, right.number ?? 0)))
    }
    switch name {
    case "now", "now()":
      return .value(.date(Date()))
    case "add:to:":
      return try arithmetic({ $0.addingReportingOverflow($1) }, +)
    case "from:subtract:":
      return try arithmetic({ $0.subtractingReportingOverflow($1) }, -)
    case "multiply:by:":
      return try arithmetic({ $0.multipliedReportingOverflow(by: $1) }, *)
    case "divide:by:":
      return try arithmetic({ _, _ in nil }, /)
    case "uppercase:", "lowercase:":
      guard arguments.count == 1 else { throw fail("\(name) takes one argument") }
      switch arguments[0] {
      case .null: return .null
      case .value(.string(let text)):
        return .value(.string(name == "uppercase:" ? text.uppercased() : text.lowercased()))
      default: throw fail("\(name) takes a string")
      }
    default:
      throw fail("there is no function \(name)")
    }
  }

  // MARK: Assigning

  /// The destination objects `value` names, for a relationship mapping.
  func destinationTargets(
    _ value: MigrationValue, _ mapping: EntityMapping, _ property: PropertyMapping
  ) throws(MigrationError) -> [Int64] {
    switch value {
    case .null: return []
    case .destinations(let ids): return ids
    default:
      throw MigrationError(
        .invalidMapping,
        "\(mapping.name).\(property.name): the expression gives source objects or values, not destination objects; use FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", …)",
        at: InputLocation(entity: mapping.destinationEntityName, property: property.name))
    }
  }

  /// Sets attribute `key` of destination object `id` to `value`, converted to its type.
  func assignAttribute(
    _ value: MigrationValue, _ key: String, of id: Int64, _ mapping: EntityMapping?
  ) throws(MigrationError) {
    guard let position = destinationPosition[id] else { return }
    let entityName = destinations[position].entityName
    guard let attribute = destinationEntities[entityName]?.attributes[key] else {
      throw MigrationError(
        .invalidMapping, "\(entityName) does not store an attribute \(key)",
        at: InputLocation(entity: entityName, property: key))
    }
    let single: AttributeValue?
    switch value {
    case .null: single = nil
    case .value(let value): single = value
    case .values(let values) where values.count <= 1: single = values.first
    default:
      throw MigrationError(
        .invalidValue,
        "\(mapping.map { "\($0.name): " } ?? "")the value for \(entityName).\(key) is \(Self.text(of: value)), not one value",
        at: InputLocation(entity: entityName, property: key))
    }
    guard let single else {
      // A required attribute with a default (an optional one made required) takes its
      // default where the source had no value, as Core Data's inferred mappings do.
      destinations[position].attributes[key] = attribute.isOptional ? nil : attribute.defaultValue
      return
    }
    guard let converted = single.converted(to: attribute.attributeType) else {
      throw MigrationError(
        .invalidValue,
        "\(mapping.map { "\($0.name): " } ?? "")\(single.modelText) does not fit \(entityName).\(key), of type \(attribute.attributeType.xcodeName) (object \(id))",
        at: InputLocation(entity: entityName, property: key))
    }
    destinations[position].attributes[key] = converted
  }

  /// Sets relationship `key` of destination object `id` to `targets`.
  func assignRelationship(
    _ targets: [Int64], _ key: String, of id: Int64, _ mapping: EntityMapping?
  ) throws(MigrationError) {
    guard let position = destinationPosition[id] else { return }
    let entityName = destinations[position].entityName
    guard let relationship = destinationEntities[entityName]?.relationships[key] else {
      throw MigrationError(
        .invalidMapping, "\(entityName) does not store a relationship \(key)",
        at: InputLocation(entity: entityName, property: key))
    }
    var seen: Set<Int64> = []
    let unique = targets.filter { seen.insert($0).inserted }
    if !relationship.isToMany, unique.count > 1 {
      throw MigrationError(
        .invalidValue,
        "\(mapping.map { "\($0.name): " } ?? "")\(entityName).\(key) is a to-one, but object \(id) gets \(unique.count) objects",
        at: InputLocation(entity: entityName, property: key))
    }
    let destinationEntity = relationship.destinationEntityName
    for target in unique where !isDestination(target, kindOf: destinationEntity) {
      throw MigrationError(
        .invalidValue,
        "\(mapping.map { "\($0.name): " } ?? "")\(entityName).\(key) takes \(destinationEntity) objects, and object \(target) is not one",
        at: InputLocation(entity: entityName, property: key))
    }
    destinations[position].relationships[key] = unique.isEmpty ? nil : unique
  }

  static func text(of value: MigrationValue) -> String {
    switch value {
    case .null: "nil"
    case .value(let value): value.modelText
    case .values(let values): "\(values.count) values"
    case .sources(let ids): "\(ids.count) source objects"
    case .destinations(let ids): "\(ids.count) destination objects"
    }
  }
}
