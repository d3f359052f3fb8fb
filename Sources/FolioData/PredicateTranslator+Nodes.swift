import FolioQuery
import Foundation

// Each node of a predicate's expression tree that has a `QueryPredicate` equivalent.

extension PredicateExpressions.Variable: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    guard let name = context.names[key] else { throw UntranslatablePredicate(node: self) }
    return .expression(name)
  }
}

extension PredicateExpressions.KeyPath: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    let base = try context.expression(of: root)
    if let name = context.translator.propertyName(keyPath) {
      return .expression(context.keyPath(base, name))
    }
    // A to-many relationship's count.
    if let collection = Root.Output.self as? any CountedCollection.Type,
      keyPath == collection.countKeyPath
    {
      return .expression(context.keyPath(base, "@count"))
    }
    throw UntranslatablePredicate(node: self)
  }
}

extension PredicateExpressions.Value: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    if let constant = QueryValue(value) { return .expression(.constant(constant)) }
    // A collection of constants: `[1, 2].contains($0.x)`.
    if let elements = value as? any Sequence {
      var constants: [QueryExpression] = []
      for element in elements {
        guard let constant = QueryValue(element) else { throw UntranslatablePredicate(node: self) }
        constants.append(.constant(constant))
      }
      return .expression(.aggregate(constants))
    }
    throw UntranslatablePredicate(node: self)
  }
}

extension PredicateExpressions.NilLiteral: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    .expression(.constant(.null))
  }
}

extension PredicateExpressions.Equal: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    try context.comparison(lhs, .equalTo, rhs)
  }
}

extension PredicateExpressions.NotEqual: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    try context.comparison(lhs, .notEqualTo, rhs)
  }
}

extension PredicateExpressions.Comparison: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    let symbol: QueryComparison.Operator =
      switch op {
      case .lessThan: .lessThan
      case .lessThanOrEqual: .lessThanOrEqualTo
      case .greaterThan: .greaterThan
      case .greaterThanOrEqual: .greaterThanOrEqualTo
      @unknown default: throw UntranslatablePredicate(node: self)
      }
    // Strings compare by their Unicode scalars in Swift, and by a collation in a store:
    // only numbers and dates are ordered here.
    guard !(LHS.Output.self == String.self) else { throw UntranslatablePredicate(node: self) }
    return try context.comparison(lhs, symbol, rhs)
  }
}

extension PredicateExpressions.Conjunction: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    .predicate(.and([try context.predicate(of: lhs), try context.predicate(of: rhs)]))
  }
}

extension PredicateExpressions.Disjunction: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    .predicate(.or([try context.predicate(of: lhs), try context.predicate(of: rhs)]))
  }
}

extension PredicateExpressions.Negation: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    .predicate(.not(try context.predicate(of: wrapped)))
  }
}

extension PredicateExpressions.CollectionContainsCollection: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    // A substring, compared character by character as `String.contains` does.
    guard Base.Output.self == String.self else { throw UntranslatablePredicate(node: self) }
    return try context.comparison(base, .contains, other)
  }
}

extension PredicateExpressions.SequenceStartsWith: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    guard Base.Output.self == String.self else { throw UntranslatablePredicate(node: self) }
    return try context.comparison(base, .beginsWith, prefix)
  }
}

extension PredicateExpressions.SequenceContains: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    try context.comparison(element, .in, sequence)
  }
}

extension PredicateExpressions.SequenceContainsWhere: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    let matches = try context.subquery(sequence, variable: variable.key, test)
    return .predicate(
      .comparison(
        QueryComparison(
          .keyPathFrom(matches, "@count"), .greaterThan, .constant(.integer(0)))))
  }
}

extension PredicateExpressions.SequenceAllSatisfy: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    // Every element satisfies the test: none fails it.
    let failing = try context.subquery(
      sequence, variable: variable.key, PredicateExpressions.Negation(test))
    return .predicate(
      .comparison(
        QueryComparison(.keyPathFrom(failing, "@count"), .equalTo, .constant(.integer(0)))))
  }
}

extension PredicateExpressions.OptionalFlatMap: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    // `$0.person?.name`: the transform's variable stands for the wrapped value, which a key
    // path through a missing object reads as nil, as optional chaining does.
    var inner = context
    inner.names[variable.key] = try context.expression(of: wrapped)
    return .expression(try inner.expression(of: transform))
  }
}

extension PredicateExpressions.ForcedUnwrap: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    .expression(try context.expression(of: inner))
  }
}

extension PredicateExpressions.Conditional: TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
  {
    .expression(
      .conditional(
        try context.predicate(of: test), try context.expression(of: trueBranch),
        try context.expression(of: falseBranch)))
  }
}

/// The collections a to-many relationship is held in, whose `count` is `@count`.
protocol CountedCollection {
  static var countKeyPath: AnyKeyPath { get }
}

extension Array: CountedCollection {
  static var countKeyPath: AnyKeyPath { \Self.count }
}

extension Set: CountedCollection {
  static var countKeyPath: AnyKeyPath { \Self.count }
}
