import FolioModel
import Foundation

extension PredicateParser {
  /// An expression with NSExpression's operators, loosest first: `|`, `^`, `&`, `<<` `>>`,
  /// `+` `-`, `*` `/`, `**` (right-associative), then the prefix `-` and `~`.
  ///
  /// Nesting (`{…}`, `(…)`, calls, `SUBQUERY`) recurses through this function,
  /// ``parsePrimary(parenthesisLevels:)`` and the function that reads the form, which keep
  /// small frames: the operators are parsed in functions of their own, called only when an
  /// operator is there, and each form in its own, so a predicate nested to the limit fits a
  /// small stack.
  mutating func parseExpression() throws(QueryError) -> QueryExpression {
    var first = isSymbol("-") || isSymbol("~") ? try parsePrefixed() : try parsePrimary()
    if isSymbol("[") { first = try parseIndexes(after: first) }
    return isOperatorAhead ? try parseOperators(after: first, above: 0) : first
  }

  /// Whether the current token continues an expression with an operator: one of
  /// ``ArithmeticOperator``'s symbols, or a number with a sign where `-` stands.
  private var isOperatorAhead: Bool {
    switch current.kind {
    case .symbol(let text): return ArithmeticOperator(symbol: text) != nil
    case .integer, .double: return current.text.hasPrefix("-")
    default: return false
    }
  }

  /// `first` and what follows it joined by operators that bind tighter than `level`.
  @inline(never)
  private mutating func parseOperators(after first: QueryExpression, above level: Int)
    throws(QueryError) -> QueryExpression
  {
    var left = first
    // Each operator nests the expression so far one level deeper: a chain counts as nesting.
    var chained = 0
    while true {
      let operatorIndex = index
      let column = current.column
      let op: ArithmeticOperator
      var right: QueryExpression?
      switch current.kind {
      case .symbol(let text):
        guard let found = ArithmeticOperator(symbol: text), found.level > level else {
          return left
        }
        op = found
        _ = advance()
      case .integer(let value) where current.text.hasPrefix("-"):
        // `a -1`: the lexer read a negative number where a subtraction stands.
        guard ArithmeticOperator.subtract.level > level else { return left }
        guard value != .min else { throw subtractedIntegerOutOfRange() }
        op = .subtract
        right = .constant(.integer(-value))
        _ = advance()
      case .double(let value) where current.text.hasPrefix("-"):
        guard ArithmeticOperator.subtract.level > level else { return left }
        op = .subtract
        right = .constant(.double(-value))
        _ = advance()
      default:
        return left
      }
      if right == nil {
        guard canStartExpression else { throw valueExpected(after: operatorIndex) }
        right = try nested(at: column) { (parser) throws(QueryError) in
          // Parentheses around the operand are the operator's level, as the tree has it.
          var operand =
            parser.isSymbol("-") || parser.isSymbol("~")
            ? try parser.parsePrefixed()
            : try parser.parsePrimary(parenthesisLevels: 0)
          if parser.isSymbol("[") { operand = try parser.parseIndexes(after: operand) }
          return try parser.parseOperators(
            after: operand, above: op.isRightAssociative ? op.level - 1 : op.level)
        }
      }
      chained += 1
      guard depth + chained <= depthLimit else { throw tooDeep(at: column) }
      if let right {
        left = .function(op.function, [left, right])
        try checkDepth(of: left, at: column)
      }
    }
  }

  /// The error for an operator, the token at `operatorIndex`, with no value after it.
  @inline(never)
  private func valueExpected(after operatorIndex: Int) -> QueryError {
    expected("a value after \"\(tokens[operatorIndex].text)\"")
  }

  /// The error for `-9223372036854775808` read as a subtraction of 9223372036854775808, at the
  /// current token.
  @inline(never)
  private func subtractedIntegerOutOfRange() -> QueryError {
    QueryError.integerOutOfRange(String(current.text.dropFirst()), column: current.column)
  }

  /// `base[index]`, `base[FIRST]`, `base[LAST]`, `base[SIZE]`, each perhaps followed by a key
  /// path, at a `[` after an operand: NSExpression's `objectFrom:withIndex:`, its symbolic
  /// indexes as the functions `FIRST`, `LAST` and `SIZE` of no arguments.
  @inline(never)
  mutating func parseIndexes(after base: QueryExpression) throws(QueryError) -> QueryExpression {
    var result = base
    var levels = 0
    while isSymbol("[") {
      let open = advance()
      levels += 1
      guard depth + levels <= depthLimit else { throw tooDeep(at: open.column) }
      let position: QueryExpression
      if case .identifier(let word, false) = current.kind,
        let symbol = QueryFunctions.indexSymbols.first(where: {
          $0.caseInsensitiveCompare(word) == .orderedSame
        }),
        self.index + 1 < tokens.count, tokens[self.index + 1].kind == .symbol("]")
      {
        _ = advance()
        position = .function(symbol, [])
      } else {
        guard canStartExpression else { throw expected("an index, FIRST, LAST or SIZE") }
        position = try nested(at: open.column) { (parser) throws(QueryError) in
          try parser.parseExpression()
        }
      }
      try expectSymbol("]", "\"]\" to close \"[\" at column \(open.column)")
      try checkIndexMappable(at: open.column)
      result = try parseSteps(after: .function(QueryFunctions.index, [result, position]))
    }
    return result
  }

  /// `-x` or `~x`, at a `-` or `~`.
  @inline(never)
  private mutating func parsePrefixed() throws(QueryError) -> QueryExpression {
    let prefix = advance()
    guard canStartExpression else { throw expected("a value after \"\(prefix.text)\"") }
    let operand = try nested(at: prefix.column) { (parser) throws(QueryError) in
      var operand =
        parser.isSymbol("-") || parser.isSymbol("~")
        ? try parser.parsePrefixed() : try parser.parsePrimary()
      if parser.isSymbol("[") { operand = try parser.parseIndexes(after: operand) }
      return operand
    }
    return try applying(prefix, to: operand)
  }

  /// `-operand` or `~operand`, for the `-` or `~` token `prefix`.
  @inline(never)
  private func applying(_ prefix: PredicateToken, to operand: QueryExpression) throws(QueryError)
    -> QueryExpression
  {
    let result =
      prefix.text == "~"
      ? QueryExpression.function(ArithmeticOperator.onesComplement, [operand])
      : .negation(of: operand)
    try checkDepth(of: result, at: prefix.column)
    return result
  }

  /// A constant, a key path, a call or another operand, with what follows it that binds to it.
  /// Parentheses around an expression open `parenthesisLevels` levels (one but where a mapping
  /// expression's operator counts them).
  ///
  /// Nesting recurses through here, so each form is read by a function of its own, and this
  /// one keeps a small frame.
  mutating func parsePrimary(parenthesisLevels: Int = 1) throws(QueryError) -> QueryExpression {
    switch current.kind {
    case .symbol("("): return try parseParenthesised(levels: parenthesisLevels)
    case .symbol("{"): return try parseList()
    case .identifier(_, false) where !PredicateLexer.isKeyword(current.text):
      return try parseNamed()
    default: return try parseOperand()
    }
  }

  /// `(expression)` and a key path after it, at `(`.
  @inline(never)
  private mutating func parseParenthesised(levels: Int) throws(QueryError) -> QueryExpression {
    let open = advance()
    let inner = try nested(at: open.column, levels: levels) { (parser) throws(QueryError) in
      guard parser.canStartExpression else { throw parser.expected("a value after \"(\"") }
      return try parser.parseExpression()
    }
    guard isSymbol(")") else {
      throw expected("\")\" to close \"(\" at column \(open.column)")
    }
    _ = advance()
    return try parseSteps(after: inner)
  }

  /// `{a, b, …}` and a key path after it, at `{`.
  @inline(never)
  private mutating func parseList() throws(QueryError) -> QueryExpression {
    let open = advance()
    let list = try nested(at: open.column) { (parser) throws(QueryError) in
      try parser.parseElements(closedBy: "}", open: open, each: "a value in \"{…}\"")
    }
    return try parseSteps(after: .aggregate(list), refusingUnmappableAt: open.column)
  }

  /// `TERNARY(…)`, `FUNCTION(…)`, a function call or a key path, at a name that is not a
  /// keyword.
  @inline(never)
  private mutating func parseNamed() throws(QueryError) -> QueryExpression {
    let column = current.column
    if isCall(to: "TERNARY") {
      return try nested(at: column) { (parser) throws(QueryError) in
        try parser.parseTernary()
      }
    }
    if isCall(to: QueryFunctions.method) {
      return try nested(at: column) { (parser) throws(QueryError) in
        try parser.parseMethodCall()
      }
    }
    if let call = try parseFunctionCall() { return call }
    return try parseKeyPathFromObject(at: column)
  }

  /// A literal, a variable, a placeholder, a key path from a collection operator, a keyword's
  /// value, `SELF`, `SUBQUERY(…)` or `CAST(…)`, at the current token.
  @inline(never)
  private mutating func parseOperand() throws(QueryError) -> QueryExpression {
    let token = current
    switch token.kind {
    case .integer(let value):
      _ = advance()
      return .constant(.integer(value))
    case .double(let value):
      _ = advance()
      return .constant(.double(value))
    case .string(let value):
      _ = advance()
      return try parseSteps(after: .constant(.string(value)))
    case .date(let value):
      _ = advance()
      return .constant(.date(value))
    case .variable(let name):
      _ = advance()
      return try parseSteps(after: .variable(name))
    case .placeholder(let specifier):
      _ = advance()
      return try parsePlaceholder(specifier, token: token)
    case .collectionOperator:
      return try parseKeyPathFromObject(at: token.column)
    case .identifier:
      switch token.keyword {
      case nil:
        return try parseNamed()
      case "NIL", "NULL":
        _ = advance()
        return .constant(.null)
      case "TRUE", "YES":
        _ = advance()
        return .constant(.boolean(true))
      case "FALSE", "NO":
        _ = advance()
        return .constant(.boolean(false))
      case "SELF":
        _ = advance()
        return try parseSteps(after: .evaluatedObject, refusingUnmappableAt: token.column)
      case "SUBQUERY":
        _ = advance()
        let subquery = try nested(at: token.column) { (parser) throws(QueryError) in
          try parser.parseSubquery()
        }
        return try parseSteps(after: subquery, refusingUnmappableAt: token.column)
      case "CAST":
        _ = advance()
        return try parseSteps(
          after: try nested(at: token.column, extra: castNesting) { (parser) throws(QueryError) in
            try parser.mappableCast(try parser.parseCast(), at: token.column)
          })
      default:
        throw expected("a value")
      }
    default:
      throw expected("a value")
    }
  }

  /// Whether `word` (in any case, not escaped with `#`) stands here with `(` after it.
  private func isCall(to word: String) -> Bool {
    guard case .identifier(let name, false) = current.kind, index + 1 < tokens.count,
      tokens[index + 1].kind == .symbol("("), name.utf8.count == word.utf8.count
    else { return false }
    // ASCII only, as keywords are: no Unicode spelling upper-cases into the word.
    return name.utf8.allSatisfy { $0 < 0x80 } && name.uppercased() == word
  }

  /// `TERNARY(predicate, whenTrue, whenFalse)`, at `TERNARY`.
  private mutating func parseTernary() throws(QueryError) -> QueryExpression {
    let token = advance()
    let open = index
    try expectSymbol("(", "\"(\" after TERNARY")
    let predicate = try parseOr(after: open)
    try expectSymbol(",", "\",\" after the predicate in TERNARY")
    guard canStartExpression else { throw expected("a value in TERNARY") }
    let whenTrue = try parseExpression()
    try expectSymbol(",", "\",\" after the first value in TERNARY")
    guard canStartExpression else { throw expected("a value in TERNARY") }
    let whenFalse = try parseExpression()
    try expectSymbol(")", "\")\" to close TERNARY")
    return try parseSteps(
      after: .conditional(predicate, whenTrue, whenFalse), refusingUnmappableAt: token.column)
  }

  /// `FUNCTION(receiver, "selector:", arguments…)`, at `FUNCTION`: the selector a constant
  /// string with one colon per argument (in a mapping expression, any string and any number of
  /// arguments, as a mapping model may hold them).
  private mutating func parseMethodCall() throws(QueryError) -> QueryExpression {
    let token = advance()
    let open = advance()
    let arguments = try parseElements(closedBy: ")", open: open, each: "an argument")
    return try parseSteps(after: try methodCall(arguments, at: token.column))
  }

  /// `FUNCTION(arguments…)` at `column`, its arguments read: checked as ``parseMethodCall()``
  /// says.
  @inline(never)
  private func methodCall(_ arguments: [QueryExpression], at column: Int) throws(QueryError)
    -> QueryExpression
  {
    guard arguments.count >= 2, case .constant(.string(let selector)) = arguments[1],
      readsMappingExpression || !selector.isEmpty
    else {
      throw QueryError.badMethodCall(column: column)
    }
    guard
      readsMappingExpression || QueryFunctionRegistry.arity(of: selector) == arguments.count - 2
    else {
      throw QueryError.badSelector(selector, arguments: arguments.count - 2, column: column)
    }
    let call = QueryExpression.function(QueryFunctions.method, arguments)
    try checkDepth(of: call, at: column)
    return call
  }

  /// `name:(…)`, `raise:toPower:(…)` or `name(…)` at the current key, if a call stands there:
  /// a built-in function of ``QueryFunctions``; in a mapping expression, any name with any
  /// number of arguments, named as written.
  private mutating func parseFunctionCall() throws(QueryError) -> QueryExpression? {
    let column = current.column
    guard let (name, isSelectorForm) = try readFunctionName() else { return nil }
    let open = advance()
    let arguments = try nested(at: column) { (parser) throws(QueryError) in
      try parser.parseElements(closedBy: ")", open: open, each: "an argument")
    }
    return try functionCall(name, isSelectorForm: isSelectorForm, arguments, at: column)
  }

  /// The name of the call at the current key, `name` or `raise:toPower:`, with the parser left
  /// at its `(`; `nil`, with the parser where it was, when no call stands there.
  @inline(never)
  private mutating func readFunctionName() throws(QueryError)
    -> (name: String, isSelectorForm: Bool)?
  {
    guard case .identifier(let first, false) = current.kind else { return nil }
    var selector = first
    var next = index + 1
    var isSelectorForm = false
    // `raise` `:` `toPower` `:` `(`: a piece before each colon but the first.
    while next < tokens.count, tokens[next].kind == .symbol(":") {
      isSelectorForm = true
      selector += ":"
      if next + 2 < tokens.count, case .identifier(let piece, false) = tokens[next + 1].kind,
        tokens[next + 2].kind == .symbol(":")
      {
        selector += piece
        next += 2
      } else {
        next += 1
      }
    }
    guard next < tokens.count, tokens[next].kind == .symbol("(") else {
      guard isSelectorForm else { return nil }
      index = next
      throw expected("\"(\" after \"\(selector)\"")
    }
    index = next
    return (isSelectorForm ? selector : first, isSelectorForm)
  }

  /// A call of `name`, written `name:(…)` when `isSelectorForm` and `name(…)` otherwise, at
  /// `column`, its arguments read: a built-in function, or in a mapping expression any.
  @inline(never)
  private func functionCall(
    _ name: String, isSelectorForm: Bool, _ arguments: [QueryExpression], at column: Int
  ) throws(QueryError) -> QueryExpression {
    let function =
      readsMappingExpression
      ? name
      : isSelectorForm
        ? (QueryFunctions.arities[name] == arguments.count ? name : nil)
        : QueryFunctions.function(calling: name, arguments: arguments.count)
    guard let function else {
      throw QueryError.unknownFunctionName(name, arguments: arguments.count, column: column)
    }
    let call = QueryExpression.function(function, arguments)
    try checkDepth(of: call, at: column)
    return call
  }

  /// `a.b.@sum.c`, from the current token.
  mutating func parseKeyPath() throws(QueryError) -> String {
    var steps = [try parseStep()]
    while isSymbol(".") {
      _ = advance()
      steps.append(try parseStep())
    }
    return steps.joined(separator: ".")
  }

  mutating func parseStep() throws(QueryError) -> String {
    switch current.kind {
    case .identifier(let name, let isEscaped) where isEscaped || current.keyword == nil:
      _ = advance()
      return name
    case .placeholder(let specifier) where specifier.kind == .keyPath:
      // `%K` inside a key path (`%K.%K`, `$x.%K`): its argument's path, dots and all.
      let token = advance()
      return try keyPathArgument(specifier, token: token)
    case .collectionOperator(let name):
      _ = advance()
      return name
    default:
      throw expected("a key")
    }
  }

  /// `.key.path` after `$x`, `SELF`, `SUBQUERY(…)` or `{…}`, if any. With a column, `base`,
  /// which starts there, is refused first when a mapping expression cannot hold it.
  mutating func parseSteps(after base: QueryExpression, refusingUnmappableAt column: Int? = nil)
    throws(QueryError) -> QueryExpression
  {
    if let column { try checkMappable(base, at: column) }
    guard isSymbol(".") else { return base }
    let dot = advance()
    let path = base.key(try parseKeyPath())
    try checkDepth(of: path, at: dot.column)
    return path
  }

  /// Expressions separated by `,` after `open`, to `closing`: a `{…}` list's elements, a
  /// call's arguments.
  mutating func parseElements(closedBy closing: String, open: PredicateToken, each what: String)
    throws(QueryError) -> [QueryExpression]
  {
    var elements: [QueryExpression] = []
    if isSymbol(closing) {
      _ = advance()
      return elements
    }
    while true {
      guard canStartExpression else { throw expected(what) }
      elements.append(try parseExpression())
      if isSymbol(",") {
        _ = advance()
        continue
      }
      guard isSymbol(closing) else { throw unclosed(open, by: closing) }
      _ = advance()
      return elements
    }
  }

  /// The error for elements after `open` that `closing` does not close.
  @inline(never)
  private func unclosed(_ open: PredicateToken, by closing: String) -> QueryError {
    expected("\",\" or \"\(closing)\" to close \"\(open.text)\" at column \(open.column)")
  }

  mutating func parseSubquery() throws(QueryError) -> QueryExpression {
    try expectSymbol("(", "\"(\" after SUBQUERY")
    guard canStartExpression else { throw expected("a collection in SUBQUERY") }
    let collection = try parseExpression()
    try expectSymbol(",", "\",\" after the collection in SUBQUERY")
    guard case .variable(let name) = current.kind else {
      throw expected("a $variable in SUBQUERY")
    }
    _ = advance()
    let comma = index
    try expectSymbol(",", "\",\" after $\(name) in SUBQUERY")
    let predicate = try parseOr(after: comma)
    try expectSymbol(")", "\")\" to close SUBQUERY")
    return .subquery(collection, variable: name, predicate)
  }

  mutating func parseCast() throws(QueryError) -> QueryExpression {
    try expectSymbol("(", "\"(\" after CAST")
    let valueToken = current
    guard canStartExpression else { throw expected("a value in CAST") }
    let value = try parseExpression()
    try expectSymbol(",", "\",\" after the value in CAST")
    guard case .string(let type) = current.kind else {
      throw expected("a type name such as \"NSDate\" in CAST")
    }
    let typeToken = advance()
    try expectSymbol(")", "\")\" to close CAST")
    guard case .constant(let constant) = value else {
      guard QueryValue.castTypes.contains(type) else {
        throw QueryError.unsupportedCast(type, column: typeToken.column)
      }
      return .function(QueryFunctions.cast, [value, .constant(.string(type))])
    }
    if type == "NSDate", case .string(let text) = constant {
      do {
        return .constant(.date(try ISODate.date(from: text)))
      } catch {
        throw QueryError.badCast(
          valueToken.text, to: type, reason: error.reason, column: valueToken.column)
      }
    }
    guard let cast = QueryValue.cast(constant, to: type) else {
      if !QueryValue.castTypes.contains(type) {
        throw QueryError.unsupportedCast(type, column: typeToken.column)
      }
      throw QueryError.badCast(valueToken.text, to: type, column: valueToken.column)
    }
    return .constant(cast)
  }
}
