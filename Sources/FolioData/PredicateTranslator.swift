import FolioQuery
import Foundation

/// Translates Foundation's `Predicate` — what `#Predicate` builds — into Folio's
/// `QueryPredicate`, so that a fetch with it uses the store's indexes and SQL and Folio's
/// compiled comparisons, as a predicate in format syntax does.
///
/// A predicate's expression tree is walked node by node: key paths of model classes become
/// key paths by the names of the properties they read (`propertyName`), optional chaining
/// (`$0.person?.name`) a key path through the relationship, values constants, and the
/// operators Folio's: `==`, `!=`, `<`, `<=`, `>`, `>=` (of numbers and dates), `&&`, `||`, `!`,
/// `String.contains` as `CONTAINS`, `starts(with:)` as `BEGINSWITH`, `collection.contains(value)`
/// as `IN`, a to-many relationship's `count` as `@count`, its `contains(where:)` and
/// `allSatisfy` as subqueries, and `condition ? a : b` as `TERNARY`. Foundation on Linux has no
/// `localizedStandardContains` in predicates.
/// Anything else (a node of another kind, a key path the namer does not know) makes the
/// predicate untranslatable: ``UntranslatablePredicate`` names the node, and the caller
/// evaluates the predicate itself (`Predicate.evaluate`) on each object instead.
package struct PredicateTranslator: Sendable {
  /// The name of the property of a model class that `keyPath` reads, or `nil` when it is not
  /// one (a computed property, a key path of another type).
  package let propertyName: @Sendable (AnyKeyPath) -> String?

  package init(propertyName: @escaping @Sendable (AnyKeyPath) -> String?) {
    self.propertyName = propertyName
  }

  /// `predicate` as a `QueryPredicate` on the object it is evaluated with.
  package func translate<Input>(_ predicate: Predicate<Input>) throws(UntranslatablePredicate)
    -> QueryPredicate
  {
    var context = Context(translator: self)
    context.names[predicate.variable.key] = .evaluatedObject
    return try context.predicate(of: predicate.expression)
  }

  /// What the walk knows: the expression each variable of the predicate stands for.
  struct Context {
    let translator: PredicateTranslator
    var names: [PredicateExpressions.VariableID: QueryExpression] = [:]
    var subqueries = 0

    func predicate(of node: Any) throws(UntranslatablePredicate) -> QueryPredicate {
      switch try translated(node) {
      case .predicate(let predicate): return predicate
      case .expression(let expression):
        // A Boolean value used as a condition.
        return .comparison(QueryComparison(expression, .equalTo, .constant(.boolean(true))))
      }
    }

    func expression(of node: Any) throws(UntranslatablePredicate) -> QueryExpression {
      switch try translated(node) {
      case .expression(let expression): return expression
      case .predicate(let predicate):
        return .conditional(predicate, .constant(.boolean(true)), .constant(.boolean(false)))
      }
    }

    func translated(_ node: Any) throws(UntranslatablePredicate) -> Translated {
      guard let node = node as? any TranslatableExpression else {
        throw UntranslatablePredicate(node: node)
      }
      return try node.translated(in: self)
    }

    /// `base` followed by the property `name`.
    func keyPath(_ base: QueryExpression, _ name: String) -> QueryExpression {
      switch base {
      case .evaluatedObject: return .keyPath(name)
      case .keyPath(let path): return .keyPath(path + "." + name)
      case .keyPathFrom(let root, let path): return .keyPathFrom(root, path + "." + name)
      default: return .keyPathFrom(base, name)
      }
    }

    /// A comparison of two nodes.
    func comparison(
      _ left: Any, _ operator: QueryComparison.Operator, _ right: Any,
      options: QueryComparison.Options = []
    ) throws(UntranslatablePredicate) -> Translated {
      .predicate(
        .comparison(
          QueryComparison(
            try expression(of: left), `operator`, try expression(of: right), options: options)))
    }

    /// The node `transform` with its variable standing for `collection`'s elements, as a
    /// subquery's condition: the subquery, and the variable's name.
    func subquery(
      _ collection: Any, variable: PredicateExpressions.VariableID, _ condition: Any
    ) throws(UntranslatablePredicate) -> QueryExpression {
      var inner = self
      inner.subqueries += 1
      let name = "element\(inner.subqueries)"
      inner.names[variable] = .variable(name)
      return .subquery(
        try expression(of: collection), variable: name, try inner.predicate(of: condition))
    }
  }

  /// A node translated: a condition, or a value.
  enum Translated {
    case predicate(QueryPredicate)
    case expression(QueryExpression)
  }
}

/// A predicate with a node ``PredicateTranslator`` cannot translate: the caller evaluates the
/// predicate itself instead.
package struct UntranslatablePredicate: Error, CustomStringConvertible {
  /// The node's type, as Swift names it: `PredicateExpressions.NilCoalesce<…>`.
  package let node: String

  init(node: Any) { self.node = String(describing: type(of: node)) }

  package var description: String { "a predicate Folio cannot translate: \(node)" }
}

/// A node of a predicate's expression tree that ``PredicateTranslator`` translates.
protocol TranslatableExpression {
  func translated(in context: PredicateTranslator.Context) throws(UntranslatablePredicate)
    -> PredicateTranslator.Translated
}

extension PredicateTranslator {
  /// `descriptor` as a `QuerySortDescriptor`: the property its key path reads and its order;
  /// strings compared by none or `.lexical`, as Folio's default comparison compares them.
  ///
  /// - Throws: ``UntranslatablePredicate`` naming the descriptor when its key path reads no
  ///   property the namer knows, or the comparator when it is another.
  package func translate<Compared>(_ descriptor: SortDescriptor<Compared>)
    throws(UntranslatablePredicate) -> QuerySortDescriptor
  {
    guard let keyPath = descriptor.keyPath, let name = propertyName(keyPath) else {
      throw UntranslatablePredicate(node: descriptor)
    }
    // Foundation on Linux offers `.lexical` alone; any other comparator is left untranslated.
    if let comparator = descriptor.stringComparator, comparator != .lexical {
      throw UntranslatablePredicate(node: comparator)
    }
    return QuerySortDescriptor(keyPath: name, ascending: descriptor.order == .forward)
  }
}
