import Foundation

/// Follows a key path from a value, one key at a time, with Cocoa's collection operators.
///
/// A step through a to-many value fans out: later steps apply to every element, and the
/// result is a flat array without nils (`spendings.category`). A step starting with `@` is a
/// collection operator applied to everything reached so far; all but `@count` take the rest of
/// the path as the key path to read from each element (`spendings.@sum.amount`), or the
/// elements themselves when nothing follows (`tags.@max`). A nil along the way makes the
/// whole key path nil.
struct KeyPathWalker {
  let path: String

  private enum Reached {
    case single(Any?)
    case many([Any])
  }

  func value(from root: Any?) throws(QueryError) -> Any? {
    // One key read from an object, the most common path, skips splitting the path and asking
    // whether the object is a collection (it is not: collections are not key-value readable).
    if let object = root as? any KeyValueReadable, !path.utf8.contains(UInt8(ascii: ".")),
      path.utf8.first != UInt8(ascii: "@")
    {
      let next = try read(path, fromObject: object)
      return Self.elements(of: next) ?? next
    }
    let steps = path.split(separator: ".", omittingEmptySubsequences: false)
    return try walk(steps[...], from: root)
  }

  private func walk(_ steps: ArraySlice<Substring>, from root: Any?) throws(QueryError) -> Any? {
    var reached = Reached.single(root)
    var remaining = steps
    while let step = remaining.first {
      remaining = remaining.dropFirst()
      let key = String(step)
      if key.hasPrefix("@") {
        return try apply(key, rest: remaining, to: reached)
      }
      switch reached {
      case .single(let value):
        guard let value else { return nil }
        if let elements = Self.elements(of: value) {
          reached = .many(try read(key, fromEach: elements))
        } else {
          let next = try read(key, from: value)
          reached = Self.elements(of: next).map { .many($0) } ?? .single(next)
        }
      case .many(let values):
        reached = .many(try read(key, fromEach: values))
      }
    }
    switch reached {
    case .single(let value): return value
    case .many(let values): return values
    }
  }

  private func read(_ key: String, fromEach values: [Any]) throws(QueryError) -> [Any] {
    var results: [Any] = []
    for value in values {
      let next = try read(key, from: value)
      if let collection = Self.elements(of: next) {
        results.append(contentsOf: collection)
      } else if let next {
        results.append(next)
      }
    }
    return results
  }

  private func read(_ key: String, from value: Any) throws(QueryError) -> Any? {
    if let object = value as? any KeyValueReadable {
      return try read(key, fromObject: object)
    }
    if let dictionary = value as? [String: Any] {
      return dictionary[key].flatMap { Self.flatten($0) }
    }
    throw QueryError.notAnObject(key, in: path, found: value)
  }

  private func read(_ key: String, fromObject object: any KeyValueReadable) throws(QueryError)
    -> Any?
  {
    do {
      return Self.flatten(try object.value(forKeyPath: key))
    } catch let error as QueryError {
      throw error
    } catch {
      throw QueryError.unknownKey(key, in: path, underlying: error)
    }
  }

  /// `value`, with an `Optional` that was boxed in `Any` unwrapped.
  static func flatten(_ value: Any?) -> Any? {
    guard let value else { return nil }
    if isPlainScalar(value) { return value }
    guard let optional = value as? any OptionalValue else { return value }
    return flatten(optional.wrappedValue)
  }

  /// Whether `value` is one of the attribute value types a key path most often reaches —
  /// neither a collection nor an optional — told by exact type, far cheaper than the casts
  /// to `[Any]` and to a protocol that would otherwise decide it.
  static func isPlainScalar(_ value: Any) -> Bool {
    let type = type(of: value)
    return type == String.self || type == Double.self || type == Int.self
      || type == Int64.self || type == Int32.self || type == Int16.self || type == Bool.self
      || type == Date.self || type == Float.self || type == Decimal.self
  }

  /// The elements of an array or set, or `nil` when `value` is neither.
  static func elements(of value: Any?) -> [Any]? {
    guard let value else { return nil }
    if isPlainScalar(value) || value is Data { return nil }
    if let array = value as? [Any] { return array }
    if let set = value as? Set<AnyHashable> { return set.map(\.base) }
    return nil
  }

  private func apply(_ step: String, rest: ArraySlice<Substring>, to reached: Reached)
    throws(QueryError) -> Any?
  {
    let elements: [Any]
    switch reached {
    case .many(let values): elements = values
    case .single(let value):
      guard let value else { return nil }
      guard let collection = Self.elements(of: value) else {
        throw QueryError.operatorOnSingleValue(step, in: path, found: value)
      }
      elements = collection
    }
    let known = [
      "@count", "@sum", "@avg", "@min", "@max", "@unionOfObjects", "@distinctUnionOfObjects",
    ]
    guard known.contains(step) else { throw QueryError.unknownOperator(step, in: path) }
    if step == "@count" {
      guard rest.isEmpty else { return try walk(rest, from: elements.count) }
      return elements.count
    }
    var values: [Any] = []
    if rest.isEmpty {
      values = elements
    } else {
      for element in elements {
        let value = try walk(rest, from: element)
        if let collection = Self.elements(of: value) {
          values.append(contentsOf: collection)
        } else if let value {
          values.append(value)
        }
      }
    }
    switch step {
    case "@sum": return try QueryValues.sum(values, step: step, path: path)
    case "@avg": return try QueryValues.average(values, step: step, path: path)
    case "@min": return try QueryValues.extreme(values, keepLess: true)
    case "@max": return try QueryValues.extreme(values, keepLess: false)
    case "@unionOfObjects": return values
    default: return QueryValues.distinct(values)
    }
  }
}

/// An `Optional` seen through `Any`, so a nil boxed in `Any` reads as nil.
protocol OptionalValue {
  var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
  var wrappedValue: Any? { self.map { $0 } }
}
