import FolioModel

/// An error from a query: a predicate format string that does not parse, a substitution that
/// does not fit, or a predicate or sort descriptor that cannot be evaluated over an object.
///
/// Parse errors carry the 1-based column of the bad token in ``location`` and print it first:
/// `column 12: expected a value after "==", found end of input`. Errors raised while evaluating
/// name the key path concerned, and an error thrown by the object itself (an unknown key) is
/// kept in ``underlying``. The static factories below are the only places that word a message,
/// and the tests assert them word for word.
public typealias QueryError = CodedError<QueryErrorCode>

/// What went wrong in a `QueryError`, to switch on: `QueryError.Code`.
public struct QueryErrorCode: Hashable, Sendable, CustomStringConvertible {
  /// The format string is not a predicate.
  public static let syntax = QueryErrorCode(.syntax)
  /// A `%@`, `%K`, `%d`, `%lld`, `%f`… with no argument left for it.
  public static let missingArgument = QueryErrorCode(.missingArgument)
  /// An argument of the wrong kind for its placeholder.
  public static let invalidArgument = QueryErrorCode(.invalidArgument)
  /// More arguments than the format has placeholders for: not an error, as Apple's parser
  /// passes over them too, but the warning ``QueryPredicate/parse(format:arguments:)`` gives.
  public static let unusedArgument = QueryErrorCode(.unusedArgument)
  /// A `$VARIABLE` with no value.
  public static let unboundVariable = QueryErrorCode(.unboundVariable)
  /// The object could not answer a key of a key path; ``QueryError/underlying`` says why.
  public static let unknownKey = QueryErrorCode(.unknownKey)
  /// A key path that cannot be followed: a key after a value that is not an object, an
  /// unknown collection operator.
  public static let invalidKeyPath = QueryErrorCode(.invalidKeyPath)
  /// An operator applied to values it does not take: ordering a string against a number,
  /// `ANY` over a single value, `BETWEEN` without two bounds.
  public static let invalidOperand = QueryErrorCode(.invalidOperand)
  /// A `MATCHES` pattern that is not a regular expression.
  public static let invalidRegularExpression = QueryErrorCode(.invalidRegularExpression)
  /// `FUNCTION` named a selector that nothing answers (see ``QueryFunctionRegistry``), or a
  /// registered function threw; ``QueryError/underlying`` holds what it threw.
  public static let function = QueryErrorCode(.function)

  private enum Kind: Hashable, Sendable {
    case syntax, missingArgument, invalidArgument, unusedArgument, unboundVariable, unknownKey,
      invalidKeyPath, invalidOperand, invalidRegularExpression, function
  }

  private var kind: Kind

  private init(_ kind: Kind) { self.kind = kind }

  /// The member's name: `syntax`.
  public var description: String { "\(kind)" }
}

extension QueryError {
  static func expected(_ what: String, found: String, column: Int) -> QueryError {
    QueryError(.syntax, "expected \(what), found \(found)", at: InputLocation(column: column))
  }

  static func tooDeep(_ limit: Int, column: Int) -> QueryError {
    QueryError(
      .syntax,
      "the predicate nests more than \(limit) levels deep "
        + "(parentheses, NOT, operators, lists, SUBQUERY, CAST)",
      at: InputLocation(column: column))
  }

  /// A format string longer than `limit` bytes; `what` names what it holds.
  static func tooLong(_ format: String, limit: Int, what: String = "predicate") -> QueryError {
    let past = format.utf8.index(format.startIndex, offsetBy: limit)
    return QueryError(
      .syntax,
      "the \(what) is \(format.utf8.count) bytes long, more than the limit of"
        + " \(limit) bytes", at: InputLocation(column: format[..<past].count + 1))
  }

  static func unterminatedString(column: Int) -> QueryError {
    QueryError(.syntax, "string has no closing quote", at: InputLocation(column: column))
  }

  /// An escape the format does not have. A letter's escape is most often a regular expression's
  /// (`\w`, `\d`) written with one backslash, which NSPredicate reads as the bare letter.
  static func badEscape(_ escape: String, column: Int) -> QueryError {
    let hint =
      escape.count == 1 && escape != "u"
      ? ": a backslash is written \"\\\\\" (a regular expression's \\\(escape) as \"\\\\\(escape)\";"
        + " NSPredicate would drop the backslash)" : ""
    return QueryError(
      .syntax, "unknown escape \"\\\(escape)\" in a string" + hint,
      at: InputLocation(column: column))
  }

  static func unexpectedCharacter(_ character: Character, column: Int) -> QueryError {
    QueryError(.syntax, "unexpected character \"\(character)\"", at: InputLocation(column: column))
  }

  static func unknownOption(_ text: String, column: Int) -> QueryError {
    QueryError(
      .syntax, "unknown option \"[\(text)]\", expected [c], [d], [cd] or [n]",
      at: InputLocation(column: column))
  }

  static func unknownPlaceholder(_ text: String, column: Int) -> QueryError {
    QueryError(
      .syntax,
      "unknown placeholder \"\(text)\", expected %@, %K or a number's (%d, %ld, %lld, %u, %x,"
        + " %f, %lf, %e, %g…)",
      at: InputLocation(column: column))
  }

  static func badNumber(_ text: String, column: Int) -> QueryError {
    QueryError(.syntax, "\"\(text)\" is not a number", at: InputLocation(column: column))
  }

  static func integerOutOfRange(_ text: String, asDouble double: String? = nil, column: Int)
    -> QueryError
  {
    let hint = double.map { " (write \($0) for a double)" } ?? ""
    return QueryError(
      .syntax, "\"\(text)\" does not fit a 64-bit integer\(hint)", at: InputLocation(column: column)
    )
  }

  static func badDate(_ text: String, reason: String, column: Int) -> QueryError {
    QueryError(.syntax, "invalid date \"\(text)\": \(reason)", at: InputLocation(column: column))
  }

  static func unsupportedCast(_ type: String, column: Int) -> QueryError {
    QueryError(
      .syntax,
      "cannot CAST to \"\(type)\", expected \"NSDate\", \"NSNumber\", \"NSDecimalNumber\", "
        + "\"NSString\", \"NSUUID\", \"NSURL\" or \"NSData\"",
      at: InputLocation(column: column))
  }

  static func badCast(_ value: String, to type: String, reason: String? = nil, column: Int)
    -> QueryError
  {
    QueryError(
      .syntax, "cannot CAST \(value) to \"\(type)\"" + (reason.map { ": \($0)" } ?? ""),
      at: InputLocation(column: column))
  }

  static func missingArgument(_ placeholder: String, number: Int, given: Int, column: Int)
    -> QueryError
  {
    QueryError(
      .missingArgument,
      "\(placeholder) needs argument \(number), but \(given) "
        + (given == 1 ? "was" : "were") + " given",
      at: InputLocation(column: column))
  }

  static func unusedArguments(taken: Int, given: Int, column: Int) -> QueryError {
    QueryError(
      .unusedArgument,
      "format takes \(taken) argument\(taken == 1 ? "" : "s"), but \(given) "
        + (given == 1 ? "was" : "were") + " given",
      at: InputLocation(column: column))
  }

  static func argumentOutOfRange(
    _ placeholder: String, _ value: Int, bits: Int, isUnsigned: Bool, column: Int
  ) -> QueryError {
    let range = PredicateParser.range(bits: bits, isUnsigned: isUnsigned)
    let wider = bits < 64 ? " (%ld or %lld take 64 bits)" : ""
    return QueryError(
      .invalidArgument,
      "\(placeholder) takes \(isUnsigned ? "an unsigned" : "a") \(bits)-bit integer, from"
        + " \(range.lowerBound) to \(range.upperBound), found \(value)\(wider)",
      at: InputLocation(column: column))
  }

  static func invalidArgument(
    _ placeholder: String, expected: String, found: Any?, column: Int?
  ) -> QueryError {
    QueryError(
      .invalidArgument,
      "\(placeholder) needs \(expected), found \(QueryValue.describe(found))",
      at: column.map { InputLocation(column: $0) })
  }

  static func unboundVariable(_ name: String) -> QueryError {
    QueryError(.unboundVariable, "no value for variable $\(name)")
  }

  static func unknownKey(_ key: String, in keyPath: String, underlying: any Error & Sendable)
    -> QueryError
  {
    QueryError(
      .unknownKey, "cannot read \"\(key)\" of key path \"\(keyPath)\": \(underlying)",
      at: InputLocation(property: key), underlying: underlying)
  }

  static func notAnObject(_ key: String, in keyPath: String, found: Any) -> QueryError {
    QueryError(
      .invalidKeyPath,
      "\"\(key)\" in key path \"\(keyPath)\" follows \(QueryValue.describe(found)), "
        + "which is not an object",
      at: InputLocation(property: key))
  }

  static func unknownOperator(_ step: String, in keyPath: String) -> QueryError {
    QueryError(
      .invalidKeyPath,
      "unknown collection operator \"\(step)\" in key path \"\(keyPath)\", expected @count, "
        + "@sum, @avg, @min, @max, @unionOfObjects or @distinctUnionOfObjects")
  }

  static func operatorOnSingleValue(_ step: String, in keyPath: String, found: Any?)
    -> QueryError
  {
    QueryError(
      .invalidKeyPath,
      "\(step) in key path \"\(keyPath)\" applies to a collection, found "
        + QueryValue.describe(found))
  }

  static func notANumber(_ step: String, in keyPath: String, found: Any) -> QueryError {
    QueryError(
      .invalidOperand,
      "\(step) in key path \"\(keyPath)\" reached \(QueryValue.describe(found)), not a number")
  }

  static func notOrderable(_ left: Any?, _ right: Any?, operator name: String) -> QueryError {
    QueryError(
      .invalidOperand,
      "cannot compare \(QueryValue.describe(left)) \(name) \(QueryValue.describe(right))")
  }

  static func notAString(_ value: Any?, operator name: String) -> QueryError {
    QueryError(
      .invalidOperand, "\(name) needs strings, found \(QueryValue.describe(value))")
  }

  static func notArithmetic(_ value: Any?, operator symbol: String, needsInteger: Bool = false)
    -> QueryError
  {
    QueryError(
      .invalidOperand,
      "\(symbol) needs \(needsInteger ? "integers" : "numbers"), found \(QueryValue.describe(value))"
    )
  }

  static func divisionByZero(_ left: Any?, _ right: Any?, kind: String = "a decimal")
    -> QueryError
  {
    QueryError(
      .invalidOperand,
      "cannot divide \(QueryValue.describe(left)) by \(QueryValue.describe(right)): \(kind)"
        + " has no infinity")
  }

  static func notText(_ value: Any?, function name: String) -> QueryError {
    QueryError(.invalidOperand, "\(name) needs a string, found \(QueryValue.describe(value))")
  }

  static func unknownFunctionName(_ name: String, arguments: Int, column: Int) -> QueryError {
    QueryError(
      .syntax,
      "no function \"\(name)\" of \(arguments) argument\(arguments == 1 ? "" : "s")",
      at: InputLocation(column: column))
  }

  static func unknownFunction(_ name: String, arguments: Int) -> QueryError {
    QueryError(
      .invalidOperand,
      "no function \"\(name)\" of \(arguments) argument\(arguments == 1 ? "" : "s")")
  }

  static func notAggregate(_ expression: QueryExpression) -> QueryError {
    QueryError(
      .invalidOperand,
      "\(expression) is not an aggregate function (sum:, count:, min:, max:, average:, median:,"
        + " mode:, stddev: of one argument)")
  }

  static func unregisteredFunction(_ selector: String) -> QueryError {
    QueryError(
      .function,
      "no function \"\(selector)\" is registered: FUNCTION calls the built-in selectors and those"
        + " given to QueryFunctionRegistry.register")
  }

  static func functionFailed(_ selector: String, underlying: any Error) -> QueryError {
    QueryError(
      .function, "FUNCTION \"\(selector)\" failed: \(underlying)",
      underlying: underlying)
  }

  static func notOneKey(_ path: String, function name: String) -> QueryError {
    QueryError(
      .invalidKeyPath,
      "\(name) reads one key, found the key path \"\(path)\" (valueForKeyPath: reads one)")
  }

  static func badMethodCall(column: Int) -> QueryError {
    QueryError(
      .syntax, "FUNCTION takes a receiver, a selector string such as \"name:\", and its arguments",
      at: InputLocation(column: column))
  }

  static func badSelector(_ selector: String, arguments: Int, column: Int) -> QueryError {
    QueryError(
      .syntax,
      "FUNCTION's selector \"\(selector)\" takes \(QueryFunctionRegistry.arity(of: selector))"
        + " argument\(QueryFunctionRegistry.arity(of: selector) == 1 ? "" : "s") (one per colon),"
        + " found \(arguments)",
      at: InputLocation(column: column))
  }

  static func runtimeCast(_ value: Any?, to type: String) -> QueryError {
    QueryError(.invalidOperand, "cannot CAST \(QueryValue.describe(value)) to \"\(type)\"")
  }

  static func indexOutOfRange(_ index: Int, count: Int) -> QueryError {
    QueryError(
      .invalidOperand,
      "index \(index) is outside a collection of \(count) element\(count == 1 ? "" : "s")")
  }

  static func badShift(_ count: Int, operator symbol: String) -> QueryError {
    QueryError(
      .invalidOperand, "\(symbol) shifts by 0 to 63 bits, found \(count)")
  }

  static func notACollection(_ value: Any?, for use: String) -> QueryError {
    QueryError(
      .invalidOperand, "\(use) needs a collection, found \(QueryValue.describe(value))")
  }

  static func badBounds(_ value: Any?) -> QueryError {
    QueryError(
      .invalidOperand,
      "BETWEEN needs two bounds such as {1, 10}, found \(QueryValue.describe(value))")
  }

  static func invalidPattern(_ pattern: String, underlying: any Error & Sendable) -> QueryError {
    QueryError(
      .invalidRegularExpression, "\"\(pattern)\" is not a regular expression",
      underlying: underlying)
  }
}
