import Foundation

struct PredicateParser {
  /// How deeply parentheses, `NOT`, lists and `SUBQUERY` may nest unless a reader asks for
  /// less. The parser, the printer and the evaluator recurse once per level, and a few
  /// thousand levels overflow the stack.
  static let maximumDepth = 100

  let tokens: [PredicateToken]
  let source: [Character]
  let arguments: [Any?]
  /// How deeply constructs may nest: ``maximumDepth``, or less for text that a larger
  /// expression holds.
  let depthLimit: Int
  /// Whether the text is a mapping model's value expression
  /// (``QueryExpression/init(mappingFormat:depthLimit:)``): any name may be called with any
  /// number of arguments, forms a mapping expression cannot hold are refused, and depth is
  /// measured as `PredicateParser+Mapping.swift` says.
  let readsMappingExpression: Bool
  var index = 0
  var argumentIndex = 0
  /// What the parse passed over that a caller may want to know: arguments no placeholder took.
  var warnings: [QueryError] = []
  /// How many nesting constructs enclose the current token.
  var depth = 0

  /// For each `(` token, the index of the `)` that closes it; -1 for none.
  let closing: [Int]

  init(
    tokens: [PredicateToken], source: [Character], arguments: [Any?],
    depthLimit: Int = maximumDepth, readsMappingExpression: Bool = false
  ) {
    self.tokens = tokens
    self.source = source
    self.arguments = arguments
    self.depthLimit = depthLimit
    self.readsMappingExpression = readsMappingExpression
    var closing = Array(repeating: -1, count: tokens.count)
    var open: [Int] = []
    for (index, token) in tokens.enumerated() {
      if token.kind == .symbol("(") {
        open.append(index)
      } else if token.kind == .symbol(")"), let start = open.popLast() {
        closing[start] = index
      }
    }
    self.closing = closing
  }

  /// Whether the `(` at the current token opens an expression, `(a + b) * 2 > 3`, rather than
  /// a predicate, `(a > 1) AND b`: what follows its `)` continues an expression or a
  /// comparison. A `(` never closed opens a predicate, whose error names it.
  var opensExpression: Bool {
    let end = closing[index]
    guard end >= 0, end + 1 < tokens.count else { return false }
    let next = tokens[end + 1]
    switch next.kind {
    case .symbol(let text):
      return ArithmeticOperator(symbol: text) != nil
        || ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", ".", "["].contains(text)
    case .integer, .double:
      return next.text.hasPrefix("-")
    case .identifier:
      return [
        "BETWEEN", "IN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES",
        "UTI-CONFORMS-TO", "UTI-EQUALS",
      ].contains(next.keyword ?? "")
    default:
      return false
    }
  }

  var current: PredicateToken { tokens[index] }

  mutating func advance() -> PredicateToken {
    let token = tokens[index]
    if index < tokens.count - 1 { index += 1 }
    return token
  }

  func isSymbol(_ symbols: String...) -> Bool {
    if case .symbol(let text) = current.kind { return symbols.contains(text) }
    return false
  }

  func isKeyword(_ words: String...) -> Bool {
    guard let keyword = current.keyword else { return false }
    return words.contains(keyword)
  }

  /// The source text from token `start` to the token before the current one.
  func text(from start: Int) -> String {
    guard start < index else { return tokens[start].text }
    return String(source[tokens[start].start..<tokens[index - 1].end])
  }

  /// The error for `what`, expected at the current token.
  @inline(never)
  func expected(_ what: String) -> QueryError {
    QueryError.expected(what, found: current.found, column: current.column)
  }

  mutating func expectSymbol(_ symbol: String, _ what: String) throws(QueryError) {
    guard isSymbol(symbol) else { throw expected(what) }
    _ = advance()
  }

  mutating func parseWhole() throws(QueryError) -> QueryPredicate {
    if current.kind == .end { throw expected("a predicate") }
    let predicate = try parseOr()
    guard current.kind == .end else { throw expected("AND, OR or end of input") }
    noteUnusedArguments()
    return predicate
  }

  /// Apple's parser passes over arguments no placeholder took; so does this one, saying so.
  private mutating func noteUnusedArguments() {
    guard argumentIndex < arguments.count else { return }
    warnings.append(
      QueryError.unusedArguments(
        taken: argumentIndex, given: arguments.count, column: current.column))
  }

  /// A whole format string that is one expression, as `NSExpression(format:)` reads it.
  mutating func parseWholeExpression() throws(QueryError) -> QueryExpression {
    guard canStartExpression else { throw expected("an expression") }
    let expression = try parseExpression()
    guard current.kind == .end else { throw expected("an operator or end of input") }
    noteUnusedArguments()
    return expression
  }

  mutating func parseOr(after start: Int? = nil) throws(QueryError) -> QueryPredicate {
    var parts = [try parseAnd(after: start)]
    while isKeyword("OR") || isSymbol("||") {
      let start = index
      _ = advance()
      parts.append(try parseAnd(after: start))
    }
    return parts.count == 1 ? parts[0] : .or(parts)
  }

  mutating func parseAnd(after start: Int? = nil) throws(QueryError) -> QueryPredicate {
    var parts = [try parseUnary(after: start)]
    while isKeyword("AND") || isSymbol("&&") {
      let start = index
      _ = advance()
      parts.append(try parseUnary(after: start))
    }
    return parts.count == 1 ? parts[0] : .and(parts)
  }

  /// Runs `body` `levels` levels deeper (one unless told), for the nesting construct that
  /// starts at `column`: `(`, `NOT` or `!`, `{`, `SUBQUERY` or `CAST`. Input nested past
  /// ``depthLimit`` is refused; `extra` levels past it are allowed.
  mutating func nested<Result>(
    at column: Int, levels: Int = 1, extra: Int = 0,
    _ body: (inout PredicateParser) throws(QueryError) -> Result
  ) throws(QueryError) -> Result {
    guard depth + levels <= depthLimit + extra else { throw tooDeep(at: column) }
    depth += levels
    defer { depth -= levels }
    return try body(&self)
  }

  /// The error for nesting past ``depthLimit`` at `column`, worded for what is read.
  @inline(never)
  func tooDeep(at column: Int) -> QueryError {
    readsMappingExpression
      ? QueryError.mappingTooDeep(depthLimit, column: column)
      : QueryError.tooDeep(depthLimit, column: column)
  }

  mutating func parseUnary(after start: Int?) throws(QueryError) -> QueryPredicate {
    let what = start.map { "a predicate after \"\(tokens[$0].text)\"" } ?? "a predicate"
    if isKeyword("NOT") || isSymbol("!") {
      let start = index
      let not = advance()
      return .not(
        try nested(at: not.column) { (parser) throws(QueryError) in
          try parser.parseUnary(after: start)
        })
    }
    if isSymbol("("), !opensExpression {
      let openIndex = index
      let open = advance()
      let inner = try nested(at: open.column) { (parser) throws(QueryError) in
        try parser.parseOr(after: openIndex)
      }
      guard isSymbol(")") else {
        throw expected("\")\" to close \"(\" at column \(open.column)")
      }
      _ = advance()
      return inner
    }
    if isKeyword("TRUEPREDICATE") {
      _ = advance()
      return .constant(true)
    }
    if isKeyword("FALSEPREDICATE") {
      _ = advance()
      return .constant(false)
    }
    var modifier = QueryComparison.Modifier.direct
    var isNone = false
    if let keyword = current.keyword, ["ANY", "SOME", "ALL", "NONE"].contains(keyword) {
      modifier = keyword == "ALL" ? .all : .any
      isNone = keyword == "NONE"
      _ = advance()
      guard canStartExpression else { throw expected("a collection after \"\(keyword)\"") }
    }
    guard canStartExpression else { throw expected(what) }
    let leftStart = index
    let left = try parseExpression()
    let comparison = try parseComparison(left: left, leftStart: leftStart, modifier: modifier)
    return isNone ? .not(.comparison(comparison)) : .comparison(comparison)
  }

  mutating func parseComparison(
    left: QueryExpression, leftStart: Int, modifier: QueryComparison.Modifier
  ) throws(QueryError) -> QueryComparison {
    let operatorStart = index
    let symbols: [String: QueryComparison.Operator] = [
      "==": .equalTo, "=": .equalTo, "!=": .notEqualTo, "<>": .notEqualTo, "<": .lessThan,
      "<=": .lessThanOrEqualTo, "=<": .lessThanOrEqualTo, ">": .greaterThan,
      ">=": .greaterThanOrEqualTo, "=>": .greaterThanOrEqualTo,
    ]
    let words: [String: QueryComparison.Operator] = [
      "BETWEEN": .between, "IN": .in, "BEGINSWITH": .beginsWith, "ENDSWITH": .endsWith,
      "CONTAINS": .contains, "LIKE": .like, "MATCHES": .matches,
      "UTI-CONFORMS-TO": .utiConformsTo, "UTI-EQUALS": .utiEquals,
    ]
    let found: QueryComparison.Operator?
    if case .symbol(let text) = current.kind {
      found = symbols[text]
    } else {
      found = current.keyword.flatMap { words[$0] }
    }
    guard let op = found else {
      throw expected("an operator after \"\(text(from: leftStart))\"")
    }
    _ = advance()
    let options = try parseOptions()
    guard canStartExpression else {
      throw expected("a value after \"\(text(from: operatorStart))\"")
    }
    let right = try parseExpression()
    return QueryComparison(left, op, right, modifier: modifier, options: options)
  }

  mutating func parseOptions() throws(QueryError) -> QueryComparison.Options {
    guard isSymbol("[") else { return [] }
    let open = advance()
    guard case .identifier(let letters, false) = current.kind else {
      throw expected("c, d, cd or n after \"[\"")
    }
    var options: QueryComparison.Options = []
    for letter in letters.lowercased() {
      switch letter {
      case "c": options.insert(.caseInsensitive)
      case "d": options.insert(.diacriticInsensitive)
      case "n": options.insert(.normalized)
      default: throw QueryError.unknownOption(letters, column: open.column)
      }
    }
    _ = advance()
    try expectSymbol("]", "\"]\" after \"[\(letters)\"")
    return options
  }

  var canStartExpression: Bool {
    switch current.kind {
    case .end: return false
    case .symbol(let text): return ["{", "(", "-", "~"].contains(text)
    case .identifier:
      guard let keyword = current.keyword else { return true }
      return ["NIL", "NULL", "TRUE", "FALSE", "YES", "NO", "SELF", "SUBQUERY", "CAST"]
        .contains(keyword)
    default: return true
    }
  }
}
