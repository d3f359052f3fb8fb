import Foundation

// The grammar, loosest binding first, as Core Data's NSPredicate reads it:
//
//   predicate   := and ( (OR | ||) and )*
//   and         := unary ( (AND | &&) unary )*
//   unary       := (NOT | !) unary | '(' predicate ')' | TRUEPREDICATE | FALSEPREDICATE
//                | [ANY | ALL | NONE | SOME] expression operator ['[' c|d|cd ']'] expression
//   expression  := constant | key.path.@op.key | SELF | $var | %@ | %K | %d | %i | %f
//                | '{' expression, … '}' | SUBQUERY(expression, $var, predicate)
//                | CAST(constant, "NSDate")            (a constant: no key path may follow)
//
// There is no arithmetic, so an opening parenthesis always starts a nested predicate. `NONE`
// becomes `NOT ANY` and `SOME` becomes `ANY`, as in Core Data, so they print back that way.

extension QueryPredicate {
  /// Parses a predicate in Core Data's format syntax, filling `%@`, `%K`, `%d`, `%i` and `%f`
  /// placeholders from `arguments` in order.
  ///
  /// Keywords are case-insensitive; a key that is spelled like a keyword is escaped with `#`
  /// (`#in`). Strings take single or double quotes and the escapes `\"`, `\'`, `\\`, `\n`,
  /// `\t`, `\r`, `\0` and `\uXXXX`. `%@` takes a constant, an object (compared by identity),
  /// or an array or set of constants (a `{…}` list); `%K` takes a key path string. Leave
  /// `$VARIABLE`s for ``withSubstitutionVariables(_:)`` or pass them to
  /// ``evaluate(with:variables:)``.
  ///
  /// ```swift
  /// let predicate = try QueryPredicate(
  ///   format: "%K BEGINSWITH[cd] %@ AND ANY spendings.amount > %f", arguments: ["name", "ce", 9.5])
  /// ```
  ///
  /// - Throws: `QueryError.syntax` naming the column and what was expected;
  ///   `.missingArgument` and `.invalidArgument` for placeholders, and `.unusedArgument` when
  ///   `arguments` has more values than the format has placeholders.
  public init(format: String, arguments: [Any?] = []) throws(QueryError) {
    guard format.utf8.count <= Self.maximumFormatBytes else {
      throw QueryError.tooLong(format, limit: Self.maximumFormatBytes)
    }
    var parser = PredicateParser(
      tokens: try PredicateLexer.tokens(of: format), source: Array(format), arguments: arguments)
    self = try parser.parseWhole()
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
