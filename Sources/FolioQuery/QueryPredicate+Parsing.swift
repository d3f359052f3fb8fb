import Foundation

// The grammar, loosest binding first, as Core Data's NSPredicate reads it:
//
//   predicate   := and ( (OR | ||) and )*
//   and         := unary ( (AND | &&) unary )*
//   unary       := (NOT | !) unary | '(' predicate ')' | TRUEPREDICATE | FALSEPREDICATE
//                | [ANY | ALL | NONE | SOME] expression operator ['[' c|d|cd ']'] expression
//   expression  := constant | key.path.@op.key | SELF | $var | %@ | %K | %d, %lld, %f…
//                | '{' expression, … '}' | SUBQUERY(expression, $var, predicate)
//                | CAST(constant, "NSDate")            (a constant: no key path may follow)
//
// There is no arithmetic, so an opening parenthesis always starts a nested predicate. `NONE`
// becomes `NOT ANY` and `SOME` becomes `ANY`, as in Core Data, so they print back that way.

extension QueryPredicate {
  /// Parses a predicate in Core Data's format syntax, filling its placeholders from
  /// `arguments` in order.
  ///
  /// Keywords are case-insensitive; a key that is spelled like a keyword is escaped with `#`
  /// (`#in`). Strings take single or double quotes and the escapes `\"`, `\'`, `\\`, `\n`,
  /// `\t`, `\r`, `\0` and `\uXXXX`. `%@` takes a constant, an object (compared by identity),
  /// or an array or set of constants (a `{…}` list); `%K` takes a key path string, also as a
  /// step of one (`%K.%K`, `$x.%K`); the numeric specifiers take numbers, in the range their
  /// length modifier states (`%d` 32 bits, `%ld` and `%lld` 64, `%hd` 16, `%u` unsigned;
  /// `%f`, `%lf`, `%e`, `%g` any number). A placeholder in quotes (`'%@'`) is text. Leave
  /// `$VARIABLE`s for ``withSubstitutionVariables(_:)`` or pass them to
  /// ``evaluate(with:variables:)``.
  ///
  /// ```swift
  /// let predicate = try QueryPredicate(
  ///   format: "%K BEGINSWITH[cd] %@ AND ANY spendings.amount > %f", arguments: ["name", "ce", 9.5])
  /// ```
  ///
  /// Arguments beyond the placeholders are passed over, as Apple's parser passes over them;
  /// ``parse(format:arguments:)`` says so.
  ///
  /// - Throws: `QueryError.syntax` naming the column and what was expected;
  ///   `.missingArgument` and `.invalidArgument` for placeholders.
  public init(format: String, arguments: [Any?] = []) throws(QueryError) {
    self = try Self.parse(format: format, arguments: arguments).predicate
  }

  /// Parses a predicate as ``init(format:arguments:)`` does, and says what it passed over:
  /// `.unusedArgument` when `arguments` has more values than the format has placeholders.
  ///
  /// - Throws: see ``init(format:arguments:)``.
  public static func parse(format: String, arguments: [Any?] = []) throws(QueryError)
    -> (predicate: QueryPredicate, warnings: [QueryError])
  {
    guard format.utf8.count <= Self.maximumFormatBytes else {
      throw QueryError.tooLong(format, limit: Self.maximumFormatBytes)
    }
    var parser = PredicateParser(
      tokens: try PredicateLexer.tokens(of: format), source: Array(format), arguments: arguments)
    let predicate = try parser.parseWhole()
    return (predicate, parser.warnings)
  }

  /// Parses a predicate in Core Data's format syntax with variadic arguments.
  ///
  /// - Throws: see ``init(format:arguments:)``.
  public init(format: String, _ arguments: Any?...) throws(QueryError) {
    try self.init(format: format, arguments: arguments)
  }
}

extension QueryPredicate {
  /// The most UTF-8 bytes in a format string: 1 MiB. A longer one is refused before it is
  /// read, naming the column of its first character past the limit.
  public static let maximumFormatBytes = 1 << 20
}

extension QueryExpression {
  /// Parses an expression in Core Data's format syntax, as `NSExpression(format:)` does: a
  /// key path, a constant, arithmetic, a function (`sum:(spendings.amount) / 2`), filling its
  /// placeholders from `arguments` in order, as ``QueryPredicate/init(format:arguments:)``
  /// fills a predicate's. Arguments beyond the placeholders are passed over.
  ///
  /// - Throws: `QueryError.syntax` naming the column and what was expected;
  ///   `.missingArgument` and `.invalidArgument` for placeholders.
  public init(format: String, arguments: [Any?] = []) throws(QueryError) {
    guard format.utf8.count <= QueryPredicate.maximumFormatBytes else {
      throw QueryError.tooLong(format, limit: QueryPredicate.maximumFormatBytes)
    }
    var parser = PredicateParser(
      tokens: try PredicateLexer.tokens(of: format), source: Array(format), arguments: arguments)
    self = try parser.parseWholeExpression()
  }

  /// Parses an expression with variadic arguments.
  ///
  /// - Throws: see ``init(format:arguments:)``.
  public init(format: String, _ arguments: Any?...) throws(QueryError) {
    try self.init(format: format, arguments: arguments)
  }
}
