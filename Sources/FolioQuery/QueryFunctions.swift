import Foundation

/// NSExpression's built-in functions, by the selector-style names the format syntax gives
/// them: `sum:(spendings.amount)`, `raise:toPower:(2, 10)`, `now()`. A one-word function is also
/// written as a call, `sum(…)`, `uppercase(name)`, which names the same function.
///
/// The operators' functions (`add:to:`…, [ArithmeticOperator]) are among them and may be
/// written either way: `add:to:(1, 2)` is `1 + 2`.
enum QueryFunctions {
  /// Indexing, `array[2]`: NSExpression's name for it.
  static let index = "objectFrom:withIndex:"
  /// `CAST(value, "type")` of a value known only when evaluated: NSExpression's name for it.
  static let cast = "castObject:toType:"
  /// `FUNCTION(receiver, "selector:", arguments…)`: a method of ``QueryFunctionRegistry``.
  static let method = "FUNCTION"
  /// The symbolic indexes, `array[FIRST]`, as functions of no arguments that only an index
  /// holds.
  static let indexSymbols = ["FIRST", "LAST", "SIZE"]

  /// Every built-in and the number of its arguments.
  static let arities: [String: Int] = {
    var arities: [String: Int] = [
      "sum:": 1, "count:": 1, "min:": 1, "max:": 1, "average:": 1, "median:": 1, "mode:": 1,
      "stddev:": 1, "sqrt:": 1, "log:": 1, "ln:": 1, "exp:": 1, "raise:toPower:": 2, "abs:": 1,
      "ceiling:": 1, "floor:": 1, "trunc:": 1, "modulus:by:": 2, "uppercase:": 1,
      "lowercase:": 1, "now": 0, "random": 0, "randomn:": 1, "noindex:": 1,
      ArithmeticOperator.onesComplement: 1,
    ]
    for op in ArithmeticOperator.allCases { arities[op.function] = 2 }
    return arities
  }()

  /// The function a call `name(…)` with `count` arguments names: `sum` with one is `sum:`,
  /// `now` with none is `now`; `nil` when there is none.
  static func function(calling name: String, arguments count: Int) -> String? {
    let selector = count == 0 ? name : name + ":"
    return arities[selector] == count ? selector : nil
  }

  /// `name` applied to `values`.
  static func evaluate(_ name: String, _ values: [Any?]) throws(QueryError) -> Any? {
    if values.count == 2, let op = ArithmeticOperator(function: name) {
      return try QueryArithmetic.apply(op, values[0], values[1])
    }
    switch (name, values.count) {
    case (index, 2): return try element(of: values[0], at: values[1])
    case (cast, 2):
      guard let type = values[1] as? String else {
        throw QueryError.notText(values[1], function: "CAST")
      }
      return try QueryValue.cast(values[0], to: type)
    case (method, 2...):
      guard let selector = values[1] as? String else {
        throw QueryError.notText(values[1], function: method)
      }
      return try QueryFunctionRegistry.call(selector, on: values[0], Array(values.dropFirst(2)))
    case (ArithmeticOperator.onesComplement, 1):
      return try QueryArithmetic.onesComplement(values[0])
    case ("FIRST", 0): return IndexSymbol.first
    case ("LAST", 0): return IndexSymbol.last
    case ("SIZE", 0): return IndexSymbol.size
    case ("now", 0): return Date()
    case ("random", 0): return Double.random(in: 0..<1)
    case ("noindex:", 1): return values[0]
    case ("sum:", 1), ("count:", 1), ("min:", 1), ("max:", 1), ("average:", 1), ("median:", 1),
      ("mode:", 1), ("stddev:", 1):
      return try aggregate(name, values[0])
    case ("uppercase:", 1), ("lowercase:", 1):
      guard let value = values[0] else { return nil }
      guard let text = value as? String else { throw QueryError.notText(value, function: name) }
      return name == "uppercase:" ? text.uppercased() : text.lowercased()
    case ("randomn:", 1):
      guard let value = values[0] else { return nil }
      guard case .integer(let bound)? = QueryValues.number(value), bound > 0 else {
        throw QueryError.notArithmetic(value, operator: name, needsInteger: true)
      }
      return Int.random(in: 0..<bound)
    case ("modulus:by:", 2):
      guard let a = values[0], let b = values[1] else { return nil }
      let (x, y) = (try number(a, name), try number(b, name))
      if case .integer(let i) = x, case .integer(let j) = y {
        guard j != 0 else { throw QueryError.divisionByZero(a, b, kind: "an integer") }
        return i % j
      }
      return fmod(x.double, y.double)
    case (_, 1):
      guard let value = values[0] else { return nil }
      return try math(name, try number(value, name))
    default:
      throw QueryError.unknownFunction(name, arguments: values.count)
    }
  }

  /// `collection[index]`: an element by number from 0, the first, the last, or the count;
  /// a dictionary's value by key. Nil for a nil collection.
  private static func element(of collection: Any?, at index: Any?) throws(QueryError) -> Any? {
    guard let collection else { return nil }
    if let dictionary = collection as? [String: Any?], let key = index as? String {
      return dictionary[key] ?? nil
    }
    guard let elements = KeyPathWalker.elements(of: collection) else {
      throw QueryError.notACollection(collection, for: "[…]")
    }
    switch index {
    case let symbol as IndexSymbol:
      switch symbol {
      case .first: return elements.first
      case .last: return elements.last
      case .size: return elements.count
      }
    default:
      guard let index, case .integer(let position)? = QueryValues.number(index) else {
        throw QueryError.notArithmetic(index, operator: "[…]", needsInteger: true)
      }
      guard elements.indices.contains(position) else {
        throw QueryError.indexOutOfRange(position, count: elements.count)
      }
      return elements[position]
    }
  }

  /// A symbolic index's value while an index is evaluated.
  enum IndexSymbol { case first, last, size }

  private static func number(_ value: Any, _ name: String) throws(QueryError) -> QueryValues.Number
  {
    if let date = value as? Date { return .double(date.timeIntervalSinceReferenceDate) }
    guard let number = QueryValues.number(value) else {
      throw QueryError.notArithmetic(value, operator: name)
    }
    return number
  }

  /// The one-number functions: `abs:` keeps an integer an integer; the others give doubles.
  private static func math(_ name: String, _ number: QueryValues.Number) throws(QueryError)
    -> Any
  {
    let x = number.double
    switch name {
    case "abs:":
      if case .integer(let value) = number, value != .min { return abs(value) }
      if case .decimal(let value) = number { return abs(value) }
      return abs(x)
    case "sqrt:": return x.squareRoot()
    case "log:": return log10(x)
    case "ln:": return log(x)
    case "exp:": return exp(x)
    case "ceiling:": return x.rounded(.up)
    case "floor:": return x.rounded(.down)
    case "trunc:": return x.rounded(.towardZero)
    default: throw QueryError.unknownFunction(name, arguments: 1)
    }
  }

  /// The aggregate functions over a collection (a to-many key path, a `{…}` list, an array or
  /// set argument); its nil elements are left out, as the collection operators leave them.
  private static func aggregate(_ name: String, _ value: Any?) throws(QueryError) -> Any? {
    guard let value else { return name == "count:" ? 0 : nil }
    guard let collection = KeyPathWalker.elements(of: value) else {
      throw QueryError.notACollection(value, for: name)
    }
    let elements = collection.filter { !isNil($0) }
    switch name {
    case "count:": return elements.count
    case "min:": return try QueryValues.extreme(elements, keepLess: true)
    case "max:": return try QueryValues.extreme(elements, keepLess: false)
    default: break
    }
    var numbers: [QueryValues.Number] = []
    for element in elements { numbers.append(try number(element, name)) }
    let plain: [Any] = numbers.map { number in
      switch number {
      case .integer(let value): value
      case .double(let value): value
      case .decimal(let value): value
      }
    }
    switch name {
    case "sum:": return try QueryValues.sum(plain, step: name, path: name)
    case "average:": return try QueryValues.average(plain, step: name, path: name)
    default: break
    }
    guard !numbers.isEmpty else { return nil }
    let doubles = numbers.map(\.double)
    switch name {
    case "median:":
      let sorted = doubles.sorted()
      let middle = sorted.count / 2
      return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    case "mode:":
      // Every most frequent value, in the order they first appear, as NSExpression's mode.
      var counts: [Double: Int] = [:]
      for value in doubles { counts[value, default: 0] += 1 }
      let most = counts.values.max() ?? 0
      var seen = Set<Double>()
      return plain.enumerated().filter { index, _ in
        counts[doubles[index]] == most && seen.insert(doubles[index]).inserted
      }.map(\.element)
    default:  // stddev:, the population's.
      let mean = doubles.reduce(0, +) / Double(doubles.count)
      let variance = doubles.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(doubles.count)
      return variance.squareRoot()
    }
  }

  /// Whether `value` is a nil boxed in `Any`.
  private static func isNil(_ value: Any) -> Bool {
    (value as? any BoxedOptional)?.isNone == true
  }
}

/// An `Optional` seen through `Any`, to tell a boxed nil without reflection.
private protocol BoxedOptional {
  var isNone: Bool { get }
}

extension Optional: BoxedOptional {
  fileprivate var isNone: Bool { self == nil }
}

extension QueryExpression {
  /// The functions that fold a collection into one value, as a grouped fetch applies them to
  /// each group.
  static let aggregateFunctions: Set<String> = [
    "sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:",
  ]

  /// Whether the expression is an aggregate function of one argument, `sum:(amount)`,
  /// `count:(tags)`, `max:(date)`…: NSExpression's functions that fold a collection into one
  /// value (`sum:`, `count:`, `min:`, `max:`, `average:`, `median:`, `mode:`, `stddev:`).
  public var isAggregate: Bool {
    guard case .function(let name, let arguments) = self else { return false }
    return arguments.count == 1 && Self.aggregateFunctions.contains(name)
  }

  /// The aggregate function's value over `objects`, as a fetch with a dictionary result
  /// computes it for a group: its argument evaluated for each object (a collection's elements
  /// each counted, as a to-many key path's rows are in a store), nils left out, and the
  /// function applied to all the values together.
  ///
  /// - Throws: `QueryError` with code `invalidOperand` when the expression is not an aggregate
  ///   (see ``isAggregate``); otherwise as ``value(with:variables:)``.
  public func aggregateValue<Objects: Sequence>(
    over objects: Objects, variables: [String: Any?] = [:]
  ) throws(QueryError) -> Any? where Objects.Element: KeyValueReadable {
    guard case .function(let name, let arguments) = self, isAggregate else {
      throw QueryError.notAggregate(self)
    }
    var evaluator = PredicateEvaluator(variables: variables)
    var values: [Any?] = []
    for object in objects { values.append(try evaluator.value(of: arguments[0], on: object)) }
    return try Self.aggregate(name, values)
  }

  /// The aggregate function's value over its argument's values, one per object, read by the
  /// caller (a fetch reads a stored attribute's straight from the objects): the same as
  /// ``aggregateValue(over:variables:)`` over the objects that gave them.
  ///
  /// - Throws: as ``aggregateValue(over:variables:)``.
  public func aggregateValue(ofArgumentValues values: [Any?]) throws(QueryError) -> Any? {
    guard case .function(let name, _) = self, isAggregate else {
      throw QueryError.notAggregate(self)
    }
    return try Self.aggregate(name, values)
  }

  /// `name` applied to `values` together, a collection's elements each counted, nils left
  /// out.
  private static func aggregate(_ name: String, _ values: [Any?]) throws(QueryError) -> Any? {
    var flat: [Any] = []
    flat.reserveCapacity(values.count)
    for value in values {
      guard let value else { continue }
      if let elements = KeyPathWalker.elements(of: value) {
        flat.append(contentsOf: elements)
      } else {
        flat.append(value)
      }
    }
    return try QueryFunctions.evaluate(name, [flat])
  }
}
