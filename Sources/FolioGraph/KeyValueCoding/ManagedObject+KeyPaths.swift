import Foundation

/// Key paths through relationships, with Cocoa's collection operators.
///
/// A key path is keys joined by dots, read left to right: `manager.manager.department.name`.
/// A step through a to-many relationship fans out, and later steps apply to every object it
/// reached; the result is then an array, flattened (a to-many step after another one does not
/// nest) and without empty values: `departments.employees.lastName`. An ordered relationship
/// keeps its order; an unordered one gives its objects in no promised order.
///
/// A step that starts with `@` is a collection operator applied to everything reached so far;
/// all but `@count` take the rest of the path as the key path to apply to each element:
///
/// | operator | result |
/// |---|---|
/// | `@count` | the number of elements |
/// | `@sum.k` | the sum: `Int` for integers, `Double` once a floating-point value is seen, `Decimal` once a decimal is |
/// | `@avg.k` | the mean, `Double` (or `Decimal` for decimals); `nil` for no elements |
/// | `@min.k`, `@max.k` | the least / greatest of numbers, strings or dates; `nil` for none |
/// | `@unionOfObjects.k` | the values, as an array |
/// | `@distinctUnionOfObjects.k` | the values without repeats, first occurrences kept in order |
extension ManagedObject {
  /// The value at `keyPath`: `department.employees.@sum.salary`.
  ///
  /// - Throws: `GraphError.unknownKey` naming the entity where a key is missing;
  ///   `.invalidKeyPath` for an unknown operator, an operator on a single value, or an empty
  ///   step.
  public func value(forKeyPath keyPath: String) throws(GraphError) -> Any? {
    let steps = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard !steps.contains(where: \.isEmpty) else {
      throw GraphError(.invalidKeyPath, "key path \"\(keyPath)\" has an empty step")
    }
    return try KeyPathEvaluator(path: keyPath).evaluate(steps[...], on: .single(self))
  }
}

extension ManagedObject {
  /// The value of `key` for a key-path step: like ``value(forKey:)``, but a to-many
  /// relationship's objects come as an array in storage order, so results are deterministic.
  func stepValue(forKey key: String) throws(GraphError) -> Any? {
    let slot = try slot(of: key)
    guard let context = owner else { throw GraphError.notRegistered(entityName) }
    if let relationship = layout.properties[slot].relationship, relationship.isToMany {
      return context.primitiveTargets(of: self, slot: slot).compactMap { context.object(atRow: $0) }
    }
    if case .fetched(let property) = layout.properties[slot].kind {
      return try context.fetchedObjects(of: self, slot: slot, property: property)
    }
    return context.publicValue(slots[slot], slot: slot, of: self)
  }
}

/// The value reached so far along a key path: one value, or many after a to-many step.
enum Reached {
  case single(Any?)
  case many([Any])

  var asAny: Any? {
    switch self {
    case .single(let value): return value
    case .many(let values): return values
    }
  }
}

struct KeyPathEvaluator {
  let path: String

  func evaluate(_ steps: ArraySlice<String>, on reached: Reached) throws(GraphError) -> Any? {
    guard let step = steps.first else { return reached.asAny }
    let rest = steps.dropFirst()
    if step.hasPrefix("@") {
      return try apply(step, rest: rest, to: reached)
    }
    switch reached {
    case .single(let value):
      guard let value else { return nil }
      guard let object = value as? ManagedObject else {
        throw GraphError(
          .invalidKeyPath,
          "\"\(step)\" in \"\(path)\" follows a value that is not an object (\(Slot.describe(value)))"
        )
      }
      let next = try object.stepValue(forKey: step)
      if let collection = Self.elements(of: next) {
        return try evaluate(rest, on: .many(collection))
      }
      return try evaluate(rest, on: .single(next))
    case .many(let values):
      var results: [Any] = []
      for value in values {
        guard let object = value as? ManagedObject else {
          throw GraphError(
            .invalidKeyPath,
            "\"\(step)\" in \"\(path)\" follows a value that is not an object (\(Slot.describe(value)))"
          )
        }
        let next = try object.stepValue(forKey: step)
        if let collection = Self.elements(of: next) {
          results.append(contentsOf: collection)
        } else if let next {
          results.append(next)
        }
      }
      return try evaluate(rest, on: .many(results))
    }
  }

  /// The elements of a to-many value, or `nil` when `value` is not one.
  static func elements(of value: Any?) -> [Any]? {
    switch value {
    case let array as [ManagedObject]: return array
    case let set as Set<ManagedObject>: return Array(set)
    case let array as [Any]: return array
    default: return nil
    }
  }

  private func apply(_ step: String, rest: ArraySlice<String>, to reached: Reached)
    throws(GraphError) -> Any?
  {
    let elements: [Any]
    switch reached {
    case .many(let values): elements = values
    case .single(let value):
      guard let value, let collection = Self.elements(of: value) else {
        throw GraphError(
          .invalidKeyPath, "\(step) in \"\(path)\" applies to a to-many value, not a single one")
      }
      elements = collection
    }
    if step == "@count" {
      guard rest.isEmpty else {
        throw GraphError(.invalidKeyPath, "@count in \"\(path)\" must end the key path")
      }
      return elements.count
    }
    let known = [
      "@sum", "@avg", "@min", "@max", "@unionOfObjects", "@distinctUnionOfObjects",
    ]
    guard known.contains(step) else {
      throw GraphError(
        .invalidKeyPath, "unknown collection operator \(step) in \"\(path)\"")
    }
    guard !rest.isEmpty else {
      throw GraphError(.invalidKeyPath, "\(step) in \"\(path)\" needs a key path after it")
    }
    var values: [Any] = []
    for element in elements {
      let value = try evaluate(rest, on: .single(element))
      if let collection = value as? [Any] {
        values.append(contentsOf: collection)
      } else if let value {
        values.append(value)
      }
    }
    switch step {
    case "@sum": return try Aggregate.sum(values, path: path)
    case "@avg": return try Aggregate.average(values, path: path)
    case "@min": return try Aggregate.extreme(values, path: path, keepLess: true)
    case "@max": return try Aggregate.extreme(values, path: path, keepLess: false)
    case "@unionOfObjects": return values
    default: return Aggregate.distinct(values)
    }
  }
}

/// Arithmetic and ordering over the mixed values key paths reach.
enum Aggregate {
  enum Number {
    case integer(Int)
    case double(Double)
    case decimal(Decimal)
  }

  static func number(_ value: Any) -> Number? {
    switch value {
    case let number as Int: return .integer(number)
    case let number as Double: return .double(number)
    case let number as Float: return .double(Double(number))
    case let number as Decimal: return .decimal(number)
    default: return nil
    }
  }

  static func sum(_ values: [Any], path: String) throws(GraphError) -> Any {
    var integer = 0
    var double: Double?
    var decimal: Decimal?
    for value in values {
      guard let number = number(value) else {
        throw GraphError(
          .invalidKeyPath, "@sum in \"\(path)\" reached \(Slot.describe(value)), not a number")
      }
      switch number {
      case .integer(let n):
        let (result, overflow) = integer.addingReportingOverflow(n)
        if overflow {
          double = (double ?? 0) + Double(n)
        } else {
          integer = result
        }
      case .double(let n): double = (double ?? 0) + n
      case .decimal(let n): decimal = (decimal ?? 0) + n
      }
    }
    if let decimal {
      return decimal + Decimal(integer) + Decimal(double ?? 0)
    }
    if let double { return double + Double(integer) }
    return integer
  }

  static func average(_ values: [Any], path: String) throws(GraphError) -> Any? {
    guard !values.isEmpty else { return nil }
    let total = try sum(values, path: path)
    switch total {
    case let decimal as Decimal: return decimal / Decimal(values.count)
    case let double as Double: return double / Double(values.count)
    case let integer as Int: return Double(integer) / Double(values.count)
    default: return nil
    }
  }

  static func extreme(_ values: [Any], path: String, keepLess: Bool) throws(GraphError) -> Any? {
    var best: Any?
    for value in values {
      guard let current = best else {
        best = value
        continue
      }
      guard let order = compare(value, current) else {
        throw GraphError(
          .invalidKeyPath,
          "\(keepLess ? "@min" : "@max") in \"\(path)\" cannot order \(Slot.describe(value)) against \(Slot.describe(current))"
        )
      }
      if keepLess ? order < 0 : order > 0 { best = value }
    }
    return best
  }

  /// The order of two values: numbers by value across integer, floating and decimal types;
  /// strings; dates; `nil` when they cannot be compared.
  static func compare(_ a: Any, _ b: Any) -> Int? {
    func order<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
    if let x = number(a), let y = number(b) {
      switch (x, y) {
      case (.integer(let u), .integer(let v)): return order(u, v)
      case (.decimal, _), (_, .decimal): return order(decimal(x), decimal(y))
      default: return order(double(x), double(y))
      }
    }
    if let x = a as? String, let y = b as? String { return order(x, y) }
    if let x = a as? Date, let y = b as? Date { return order(x, y) }
    if let x = a as? Bool, let y = b as? Bool { return x == y ? 0 : (x ? 1 : -1) }
    return nil
  }

  static func double(_ number: Number) -> Double {
    switch number {
    case .integer(let n): return Double(n)
    case .double(let n): return n
    case .decimal(let n): return NSDecimalNumber(decimal: n).doubleValue
    }
  }

  static func decimal(_ number: Number) -> Decimal {
    switch number {
    case .integer(let n): return Decimal(n)
    case .double(let n): return Decimal(n)
    case .decimal(let n): return n
    }
  }

  /// The values without repeats (by equality of numbers, strings, dates, data, objects).
  static func distinct(_ values: [Any]) -> [Any] {
    var result: [Any] = []
    var seen: Set<AnyHashable> = []
    for value in values {
      if let hashable = normalized(value) {
        if seen.insert(hashable).inserted { result.append(value) }
      } else {
        result.append(value)
      }
    }
    return result
  }

  private static func normalized(_ value: Any) -> AnyHashable? {
    if let number = number(value) {
      switch number {
      case .integer(let n): return AnyHashable(Double(n))
      case .double(let n): return AnyHashable(n)
      case .decimal(let n): return AnyHashable(NSDecimalNumber(decimal: n).doubleValue)
      }
    }
    return value as? AnyHashable
  }
}
