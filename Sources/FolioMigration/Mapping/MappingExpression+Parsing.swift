import Foundation

// The format text of a value expression, as `description` writes it and Xcode's mapping
// editor shows it. The grammar (`Formats/xcmappingmodel.md` gives it in EBNF):
//
//   expression = term { ("+" | "-") term }        operators group to the left
//   term       = factor { ("*" | "/") factor }
//   factor     = primary { "." key }              key: a name or an @operator
//   primary    = constant | "$" name | "(" expression ")" | "-" number
//              | FUNCTION "(" expression "," string { "," expression } ")"
//              | CAST "(" expression "," string ")" | builtin "(" [expression {"," expression}] ")"
//
// Text is read a Unicode scalar at a time, so a column counts scalars. Two limits keep the
// recursion bounded, each `maximumDepth` levels: the value's depth (operators, calls and key
// paths), on which the printer and equality recurse, and the text's nesting (parentheses and
// argument lists), on which the parser recurses. Both are measured so that the text
// `description` prints for a value within them is within them too: parentheses and a CAST,
// which the printer adds or drops, are not levels of the value, and a CAST's arguments may
// nest two levels past the limit, for the CASTs the printer writes for a date and for an
// infinity or NaN (`CAST(CAST("nan", "NSNumber"), "NSDate")`).

extension MappingExpression {
  /// How deeply an expression may nest: each operator, call and key path after an
  /// expression is a level of the value; each pair of parentheses and each call's argument
  /// list a level of the text.
  static let maximumDepth = 100

  /// Parses `format`, an expression in `NSExpression`'s format syntax: the text
  /// ``description`` writes.
  ///
  /// It reads constants (`"text"` with `\"`, `\\`, `\n`, `\t`, `\r`, `\0` and `\uXXXX`
  /// escapes; integers; doubles; `YES`, `NO`, `TRUE`, `FALSE`, `nil`, `NULL`;
  /// `CAST(seconds, "NSDate")`; `CAST("inf", "NSNumber")`), variables (`$source`), key paths
  /// from an expression with collection operators (`$source.countries.@distinctUnionOfSets.moods`),
  /// `FUNCTION(receiver, "selector:", arguments…)`, built-in functions (`now()`,
  /// `uppercase:($source.name)`), and `+ - * /` with parentheses, which become the built-ins
  /// `add:to:`, `from:subtract:`, `multiply:by:` and `divide:by:`. Keywords may be written in
  /// any case. A key path is kept as one string after the expression it starts from:
  /// `$source.a.b` is `.keyPath(.variable("source"), "a.b")`.
  ///
  /// ```swift
  /// let rename = try MappingExpression(format: "$source.companyName")
  /// // .keyPath(.variable("source"), "companyName")
  /// ```
  ///
  /// - Throws: `MappingModelError.syntax` with the 1-based column of the bad token: a key path
  ///   that starts from no variable (`name` rather than `$source.name`), an unknown character
  ///   or escape, a string without its closing quote, a `CAST` to a type other than `NSDate`
  ///   or `NSNumber`, or nesting deeper than 100 levels.
  public init(format: String) throws(MappingModelError) {
    var parser = try MappingExpressionParser(format)
    self = try parser.parseWhole()
  }

  /// Parses `format` as ``init(format:)`` does, for an expression that a larger one holds
  /// `levels` levels deep, and that may therefore nest that many levels less.
  init(format: String, heldLevelsDeep levels: Int) throws(MappingModelError) {
    var parser = try MappingExpressionParser(format, limit: Self.maximumDepth - levels)
    self = try parser.parseWhole()
  }
}

/// A recursive-descent parser over the tokens of one format text.
struct MappingExpressionParser {
  /// An expression and how deeply it nests.
  private typealias Parsed = (expression: MappingExpression, depth: Int)

  private let tokens: [MappingExpressionToken]
  private var index = 0
  /// How many parentheses and calls enclose the current token: checked on the way down, so
  /// that deep input is refused before the recursion goes deep.
  private var nesting = 0

  /// How deeply the value and the text may nest: ``MappingExpression/maximumDepth``, less
  /// for text that a larger expression holds.
  private let limit: Int

  /// How far past ``limit`` a CAST's arguments may nest: the two CASTs `description` writes
  /// around a constant it has no literal for.
  private static let castNesting = 2

  init(_ text: String, limit: Int = MappingExpression.maximumDepth) throws(MappingModelError) {
    self.limit = limit
    var lexer = MappingExpressionLexer(text)
    var tokens: [MappingExpressionToken] = []
    while true {
      let token = try lexer.next()
      tokens.append(token)
      if token.kind == .end { break }
    }
    self.tokens = tokens
  }

  private var current: MappingExpressionToken { tokens[index] }

  private mutating func advance() -> MappingExpressionToken {
    let token = tokens[index]
    if index < tokens.count - 1 { index += 1 }
    return token
  }

  private func isSymbol(_ symbol: Character) -> Bool {
    current.kind == .symbol(symbol)
  }

  private func expected(_ what: String) -> MappingModelError {
    MappingModelError.expected(what, found: current.found, column: current.column)
  }

  private mutating func expectSymbol(_ symbol: Character, _ what: String)
    throws(MappingModelError)
  {
    guard isSymbol(symbol) else { throw expected(what) }
    _ = advance()
  }

  /// The depth of a node whose deepest part is `depth` levels deep, checked against the limit
  /// at the token at `column`.
  private func deeper(_ depth: Int, column: Int) throws(MappingModelError) -> Int {
    guard depth < limit else {
      throw MappingModelError.tooDeep(limit, column: column)
    }
    return depth + 1
  }

  mutating func parseWhole() throws(MappingModelError) -> MappingExpression {
    if current.kind == .end { throw expected("an expression") }
    let parsed = try parseSum()
    guard current.kind == .end else { throw expected("an operator or end of input") }
    return parsed.expression
  }

  /// Runs `body` one level deeper, for the parenthesis or call that starts at `column`;
  /// `extra` levels past the limit are allowed.
  private mutating func nested<Result>(
    at column: Int, extra: Int = 0,
    _ body: (inout MappingExpressionParser) throws(MappingModelError) -> Result
  ) throws(MappingModelError) -> Result {
    guard nesting < limit + extra else {
      throw MappingModelError.tooDeep(limit, column: column)
    }
    nesting += 1
    defer { nesting -= 1 }
    return try body(&self)
  }

  private mutating func parseSum() throws(MappingModelError) -> Parsed {
    var left = try parseProduct()
    while isSymbol("+") || isSymbol("-") {
      let symbol = advance()
      let right = try parseProduct()
      left = try combine(left, symbol, right)
    }
    return left
  }

  private mutating func parseProduct() throws(MappingModelError) -> Parsed {
    var left = try parseFactor()
    while isSymbol("*") || isSymbol("/") {
      let symbol = advance()
      let right = try parseFactor()
      left = try combine(left, symbol, right)
    }
    return left
  }

  private func combine(_ left: Parsed, _ symbol: MappingExpressionToken, _ right: Parsed)
    throws(MappingModelError) -> Parsed
  {
    guard let name = MappingExpression.builtinName(ofOperator: symbol.text) else {
      preconditionFailure("operator token \"\(symbol.text)\" has no built-in")
    }
    let depth = try deeper(max(left.depth, right.depth), column: symbol.column)
    return (.builtin(name, arguments: [left.expression, right.expression]), depth)
  }

  /// A primary followed by key path steps, all joined into one key path string; steps after a
  /// key path in parentheses join its path (`($source.a).b` is `$source.a.b`), as
  /// `description` prints it and as an archived key path from a key path reads.
  private mutating func parseFactor() throws(MappingModelError) -> Parsed {
    let base = try parsePrimary()
    var steps: [String] = []
    var firstDot: MappingExpressionToken?
    while isSymbol(".") {
      let dot = advance()
      if firstDot == nil { firstDot = dot }
      switch current.kind {
      case .name(let name), .collectionOperator(let name):
        _ = advance()
        steps.append(name)
      default:
        throw expected("a key or @operator after \".\"")
      }
    }
    guard let firstDot else { return base }
    let path = steps.joined(separator: ".")
    if case .keyPath(let inner, let first) = base.expression {
      return (.keyPath(inner, first + "." + path), base.depth)
    }
    return (.keyPath(base.expression, path), try deeper(base.depth, column: firstDot.column))
  }

  private mutating func parsePrimary() throws(MappingModelError) -> Parsed {
    let token = current
    switch token.kind {
    case .string(let text):
      _ = advance()
      return (.constant(.string(text)), 0)
    case .number(let text, let isFraction):
      _ = advance()
      return (.constant(try Self.number(text, isFraction: isFraction, column: token.column)), 0)
    case .symbol("-"):
      _ = advance()
      guard case .number(let text, let isFraction) = current.kind else {
        throw expected("a number after \"-\"")
      }
      _ = advance()
      return (
        .constant(try Self.number("-" + text, isFraction: isFraction, column: token.column)), 0
      )
    case .variable(let name):
      _ = advance()
      return (.variable(name), 0)
    case .symbol("("):
      _ = advance()
      let inner = try nested(at: token.column) { (parser) throws(MappingModelError) in
        try parser.parseSum()
      }
      guard isSymbol(")") else {
        throw expected("\")\" to close \"(\" at column \(token.column)")
      }
      _ = advance()
      // Parentheses are not part of the value: `description` writes only those it needs.
      return inner
    case .functionName(let name):
      _ = advance()
      return try parseCall(name, at: token)
    case .name(let name):
      switch token.keyword {
      case "YES", "TRUE":
        _ = advance()
        return (.constant(.boolean(true)), 0)
      case "NO", "FALSE":
        _ = advance()
        return (.constant(.boolean(false)), 0)
      case "NIL", "NULL":
        _ = advance()
        return (.constant(.null), 0)
      case "FUNCTION":
        _ = advance()
        return try parseFunction(at: token)
      case "CAST":
        _ = advance()
        return try parseCast(at: token)
      default:
        _ = advance()
        if isSymbol("(") { return try parseCall(name, at: token) }
        throw MappingModelError.keyPathFromSelf(name, column: token.column)
      }
    default:
      throw expected("an expression")
    }
  }

  private static func number(_ text: String, isFraction: Bool, column: Int)
    throws(MappingModelError) -> MappingConstant
  {
    if !isFraction, let value = Int64(text) { return .integer(value) }
    // Digits beyond 64 bits read as a double, as NSExpression reads them.
    guard let value = Double(text) else { throw MappingModelError.badNumber(text, column: column) }
    return .double(value)
  }

  /// The arguments of a call whose name is read: `(`, expressions separated by commas, `)`;
  /// each with the column where it starts. They may nest `extraNesting` levels past the limit.
  private mutating func parseArguments(
    of token: MappingExpressionToken, extraNesting: Int = 0
  ) throws(MappingModelError) -> (arguments: [(MappingExpression, column: Int)], depth: Int) {
    try expectSymbol("(", "\"(\" after \"\(token.text)\"")
    var arguments: [(MappingExpression, column: Int)] = []
    var depth = 0
    if !isSymbol(")") {
      while true {
        let column = current.column
        let argument = try nested(at: token.column, extra: extraNesting) {
          (parser) throws(MappingModelError) in
          try parser.parseSum()
        }
        arguments.append((argument.expression, column))
        depth = max(depth, argument.depth)
        if isSymbol(")") { break }
        try expectSymbol(",", "\",\" or \")\" in the arguments of \"\(token.text)\"")
      }
    }
    _ = advance()
    return (arguments, try deeper(depth, column: token.column))
  }

  private mutating func parseCall(_ name: String, at token: MappingExpressionToken)
    throws(MappingModelError) -> Parsed
  {
    let (arguments, depth) = try parseArguments(of: token)
    return (.builtin(name, arguments: arguments.map(\.0)), depth)
  }

  private mutating func parseFunction(at token: MappingExpressionToken)
    throws(MappingModelError) -> Parsed
  {
    let close = current
    let (arguments, depth) = try parseArguments(of: token)
    guard arguments.count >= 2 else {
      throw MappingModelError.expected(
        "a receiver and a selector string in FUNCTION",
        found: arguments.count == 1 ? "1 argument" : "no arguments", column: close.column)
    }
    guard case .constant(.string(let selector)) = arguments[1].0 else {
      throw MappingModelError.expected(
        "a selector string as the second argument of FUNCTION",
        found: "\"\(arguments[1].0)\"", column: arguments[1].column)
    }
    let rest = arguments.dropFirst(2).map(\.0)
    return (.function(receiver: arguments[0].0, selector: selector, arguments: rest), depth)
  }

  private mutating func parseCast(at token: MappingExpressionToken)
    throws(MappingModelError) -> Parsed
  {
    let open = current
    // A CAST makes a constant, which is no level of the value (`description` may write a
    // constant as a CAST, or a CAST as a literal); its text may nest past the limit for the
    // CASTs `description` writes.
    let (arguments, _) = try parseArguments(of: token, extraNesting: Self.castNesting)
    guard arguments.count == 2 else {
      throw MappingModelError.expected(
        "a value and a type name string in CAST",
        found: arguments.count == 1 ? "1 argument" : "\(arguments.count) arguments",
        column: open.column)
    }
    let (value, typeExpression) = (arguments[0].0, arguments[1].0)
    guard case .constant(.string(let type)) = typeExpression else {
      throw MappingModelError.expected(
        "a type name string as the second argument of CAST", found: "\"\(typeExpression)\"",
        column: arguments[1].column)
    }
    switch type {
    case "NSDate":
      switch value {
      case .constant(.integer(let seconds)): return (.constant(.date(Double(seconds))), 0)
      case .constant(.double(let seconds)): return (.constant(.date(seconds)), 0)
      default: break
      }
    case "NSNumber":
      switch value {
      case .constant(.string(let text)):
        if let number = Double(text) { return (.constant(.double(number)), 0) }
      case .constant(.integer), .constant(.double):
        return (value, 0)
      default: break
      }
    default:
      throw MappingModelError.unsupportedCast(type, column: arguments[1].column)
    }
    throw MappingModelError.badCast(value.description, to: type, column: arguments[0].column)
  }
}
