extension QueryPredicate {
  /// A copy with each `$VARIABLE` replaced by its value in `variables`, as Core Data's
  /// `withSubstitutionVariables(_:)` does.
  ///
  /// A value may be a constant, `nil`, an object, or an array or set of constants (a `{…}`
  /// list). A `SUBQUERY`'s own variable is left alone inside it. A key path from a variable
  /// bound to an object (`$SOURCE.name`) is read from the object now, and its value stands in
  /// the predicate.
  ///
  /// ```swift
  /// let template = try QueryPredicate(format: "age > $minimum")
  /// let adults = try template.withSubstitutionVariables(["minimum": 17])
  /// ```
  ///
  /// - Throws: `QueryError.unboundVariable` for a variable missing from `variables`;
  ///   `.invalidArgument` for a value that cannot stand in a predicate.
  public func withSubstitutionVariables(_ variables: [String: Any?]) throws(QueryError)
    -> QueryPredicate
  {
    try substituting(variables, bound: [])
  }

  func substituting(_ variables: [String: Any?], bound: Set<String>) throws(QueryError)
    -> QueryPredicate
  {
    switch self {
    case .constant: return self
    case .comparison(var comparison):
      comparison.left = try comparison.left.substituting(variables, bound: bound)
      comparison.right = try comparison.right.substituting(variables, bound: bound)
      return .comparison(comparison)
    case .and(let parts):
      var result: [QueryPredicate] = []
      for part in parts { result.append(try part.substituting(variables, bound: bound)) }
      return .and(result)
    case .or(let parts):
      var result: [QueryPredicate] = []
      for part in parts { result.append(try part.substituting(variables, bound: bound)) }
      return .or(result)
    case .not(let inner): return .not(try inner.substituting(variables, bound: bound))
    }
  }
}

extension QueryExpression {
  func substituting(_ variables: [String: Any?], bound: Set<String>) throws(QueryError)
    -> QueryExpression
  {
    switch self {
    case .constant, .evaluatedObject, .keyPath: return self
    case .variable(let name):
      if bound.contains(name) { return self }
      guard let value = variables[name] else { throw QueryError.unboundVariable(name) }
      return try PredicateParser.expression(for: value, placeholder: "$" + name, column: nil)
    case .keyPathFrom(.variable(let name), let path)
    where !bound.contains(name) && variables[name].flatMap({ $0 }) is KeyValueReadable:
      // `$OBJECT.path`: the path is read from the object now, in its own domain, as a
      // predicate keeps only the identity of the objects it holds.
      guard let object = variables[name].flatMap({ $0 }) as? KeyValueReadable else {
        return self
      }
      let value: Any?
      do {
        value = try object.value(forKeyPath: path)
      } catch {
        throw QueryError.unknownKey(path, in: "$\(name).\(path)", underlying: error)
      }
      return try PredicateParser.expression(
        for: value, placeholder: "$\(name).\(path)", column: nil)
    case .keyPathFrom(let base, let path):
      return .keyPathFrom(try base.substituting(variables, bound: bound), path)
    case .aggregate(let elements):
      var result: [QueryExpression] = []
      for element in elements { result.append(try element.substituting(variables, bound: bound)) }
      return .aggregate(result)
    case .subquery(let collection, let variable, let predicate):
      return .subquery(
        try collection.substituting(variables, bound: bound), variable: variable,
        try predicate.substituting(variables, bound: bound.union([variable])))
    case .function(let name, let arguments):
      var result: [QueryExpression] = []
      for argument in arguments {
        result.append(try argument.substituting(variables, bound: bound))
      }
      // A CAST whose value became a constant converts now, as the parser converts it: the
      // same text, the same tree.
      if name == QueryFunctions.cast, result.count == 2, case .constant(let value) = result[0],
        case .constant(.string(let type)) = result[1]
      {
        guard let cast = QueryValue.cast(value, to: type) else {
          throw QueryError.runtimeCast(value.anyValue, to: type)
        }
        return .constant(cast)
      }
      return .function(name, result)
    case .conditional(let predicate, let whenTrue, let whenFalse):
      return .conditional(
        try predicate.substituting(variables, bound: bound),
        try whenTrue.substituting(variables, bound: bound),
        try whenFalse.substituting(variables, bound: bound))
    }
  }
}
