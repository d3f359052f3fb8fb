import FolioModel
import Foundation

// A mapping model's value expression (FolioMigration's `MappingExpression`) is format text of
// this grammar, read by this parser with `readsMappingExpression` set. What differs:
//
// - Any name may be called with any number of arguments, and keeps the name as written
//   (`foo(1)`, `add:to:(1)`, `uppercase(x)` is the function `uppercase`), since a mapping model
//   may hold any selector; `FUNCTION` takes any selector string with any number of arguments.
// - What a mapping expression cannot hold is refused where it is read: a key path from the
//   evaluated object (`name`, `SELF`), a list, `SUBQUERY`, `TERNARY`, an index, a `CAST` of a
//   value that is not a constant, a constant other than nil, a string, a number, a Boolean or
//   a date, and a placeholder (a mapping expression has no format arguments).
// - Depth is measured so that the text a mapping expression prints for a value within the limit
//   reads back within it. The value's depth (each operator, call and key path after an
//   expression one level more than its deepest part, constants and variables none) is checked
//   as each part is made, at the operator, the call's name or the key path's first `.`.
//   Parentheses that are an operator's operand are that operator's level, and a `CAST`'s
//   arguments may nest two levels past the limit, for the CASTs a date or an infinite number
//   prints as (`CAST(CAST("inf", "NSNumber"), "NSDate")`), neither of which is a level of the
//   value.

extension QueryExpression {
  /// Parses the format text of a mapping model's value expression: this grammar, with any
  /// function name and number of arguments, and without what a mapping expression cannot hold
  /// (see `PredicateParser+Mapping.swift`). `depthLimit` is how deeply it may nest: 100, or
  /// less for text that a larger expression holds.
  ///
  /// - Throws: `QueryError` with the column of the bad token: what ``init(format:arguments:)``
  ///   throws, and `.syntax` for a form a mapping expression cannot hold.
  package init(mappingFormat format: String, depthLimit: Int) throws(QueryError) {
    guard format.utf8.count <= QueryPredicate.maximumFormatBytes else {
      throw QueryError.tooLong(format, limit: QueryPredicate.maximumFormatBytes, what: "expression")
    }
    var parser = PredicateParser(
      tokens: try PredicateLexer.tokens(of: format), source: Array(format), arguments: [],
      depthLimit: depthLimit, readsMappingExpression: true)
    self = try parser.parseWholeExpression()
  }

  /// How many levels deep the expression's tree nests: none for a constant, a variable, `SELF`
  /// or a key path, and for any other expression one more than its deepest part.
  var treeDepth: Int {
    switch self {
    case .constant, .variable, .evaluatedObject, .keyPath:
      return 0
    case .keyPathFrom(let base, _), .subquery(let base, _, _):
      return base.treeDepth + 1
    case .aggregate(let parts), .function(_, let parts):
      return (parts.lazy.map(\.treeDepth).max() ?? 0) + 1
    case .conditional(_, let whenTrue, let whenFalse):
      return max(whenTrue.treeDepth, whenFalse.treeDepth) + 1
    }
  }

  /// Whether a mapping expression can hold this kind of expression (its parts aside): a
  /// constant of a mapping constant's type, a variable, a key path from an expression or a
  /// function.
  var isMappable: Bool {
    switch self {
    case .constant(let value):
      switch value {
      case .null, .string, .integer, .double, .boolean, .date: return true
      case .decimal, .uuid, .uri, .binaryData, .object: return false
      }
    case .variable, .keyPathFrom, .function:
      return true
    case .evaluatedObject, .keyPath, .aggregate, .subquery, .conditional:
      return false
    }
  }
}

extension QueryExpression {
  /// Whether `text` reads as one name of the format syntax: a key, a key path's step (escaped
  /// with `#` when it is spelled like a keyword), a variable's name after `$`. `_` or a
  /// letter, then those and numbers, a character at a time.
  package static func isName(_ text: some StringProtocol) -> Bool {
    PredicateLexer.isName(text)
  }

  /// Whether `text` is spelled like a keyword of the format syntax, in any case: `AND`, `in`,
  /// `Self`. A key spelled so is escaped with `#`; a function so named cannot be called.
  package static func isKeyword(_ text: some StringProtocol) -> Bool {
    PredicateLexer.isKeyword(text)
  }
}

extension PredicateParser {
  /// How many levels past the limit a `CAST`'s arguments may nest in a mapping expression: the
  /// two CASTs an infinite date prints as.
  static let mappingCastNesting = 2

  /// How many levels past the limit a `CAST`'s arguments may nest here.
  var castNesting: Int { readsMappingExpression ? Self.mappingCastNesting : 0 }

  // The checks below are functions of their own, out of the recursive parsing functions, so
  // that those keep the small frames that let input nested to the limit fit a small stack.

  /// Refuses an expression that nests past ``depthLimit`` now that `expression`, which starts
  /// at `column`, is made: the tree's depth, however the text is parenthesised, so that every
  /// expression read prints text that reads back.
  @inline(never)
  func checkDepth(of expression: QueryExpression, at column: Int) throws(QueryError) {
    guard expression.treeDepth > depthLimit else { return }
    throw tooDeep(at: column)
  }

  /// Refuses `expression`, which starts at `column`, when a mapping expression is read and
  /// cannot hold it.
  @inline(never)
  func checkMappable(_ expression: QueryExpression, at column: Int) throws(QueryError) {
    guard readsMappingExpression, !expression.isMappable else { return }
    throw QueryError.notMappable(expression, column: column)
  }

  /// Refuses an index, at the `[` at `column`, when a mapping expression is read.
  @inline(never)
  func checkIndexMappable(at column: Int) throws(QueryError) {
    guard readsMappingExpression else { return }
    throw QueryError.notMappable("an index \"[…]\"", column: column)
  }

  /// `CAST(…)` at `column`, unless a mapping expression is read and cannot hold it: a mapping
  /// expression holds only the constant a CAST of a constant makes.
  @inline(never)
  func mappableCast(_ cast: QueryExpression, at column: Int) throws(QueryError) -> QueryExpression {
    guard readsMappingExpression else { return cast }
    guard case .function = cast else {
      try checkMappable(cast, at: column)
      return cast
    }
    throw QueryError.notMappable("a CAST of a value that is not a constant", column: column)
  }

  /// The key path from the evaluated object that starts at `column`, the current token; a
  /// mapping expression, which has no such object, refuses it.
  @inline(never)
  mutating func parseKeyPathFromObject(at column: Int) throws(QueryError) -> QueryExpression {
    let path = QueryExpression.keyPath(try parseKeyPath())
    try checkMappable(path, at: column)
    return path
  }
}

extension QueryError {
  /// Nesting past `limit` in a mapping expression.
  static func mappingTooDeep(_ limit: Int, column: Int) -> QueryError {
    QueryError(
      .syntax, "the expression nests more than \(limit) levels deep",
      at: InputLocation(column: column))
  }

  /// `what`, which a mapping expression cannot hold, at `column`.
  static func notMappable(_ what: String, column: Int?) -> QueryError {
    QueryError(
      .syntax, "\(what) is not a mapping expression", at: column.map { InputLocation(column: $0) })
  }

  /// The error for `expression`, which a mapping expression cannot hold, at `column` when it
  /// is known: a key path from the evaluated object (`name`), `SELF`, a list, `SUBQUERY`,
  /// `TERNARY`, or a constant of another type than a mapping constant's.
  package static func notMappable(_ expression: QueryExpression, column: Int?) -> QueryError {
    switch expression {
    case .keyPath(let path):
      let written = QueryExpression.describe(path: path)
      return QueryError(
        .syntax,
        "the key path \"\(written)\" starts from no variable; write it from one, as in "
          + "\"$source.\(written)\"", at: column.map { InputLocation(column: $0) })
    case .evaluatedObject:
      return QueryError(
        .syntax,
        "SELF is not a mapping expression, which has no object of its own; start from a"
          + " variable, as in \"$source\"", at: column.map { InputLocation(column: $0) })
    case .aggregate: return notMappable("a list \"{…}\"", column: column)
    case .subquery: return notMappable("SUBQUERY", column: column)
    case .conditional: return notMappable("TERNARY", column: column)
    case .constant(let value):
      let kind =
        switch value {
        case .decimal: "a decimal number (NSDecimalNumber)"
        case .uuid: "a UUID (NSUUID)"
        case .uri: "a URL (NSURL)"
        case .binaryData: "data (NSData)"
        case .object: "an object"
        case .null, .string, .integer, .double, .boolean, .date: "\(value)"
        }
      return QueryError(
        .syntax,
        "\(kind) is not a mapping expression, whose constants are nil, strings, numbers,"
          + " Booleans and dates", at: column.map { InputLocation(column: $0) })
    case .variable, .keyPathFrom, .function:
      return notMappable("\(expression)", column: column)
    }
  }
}
