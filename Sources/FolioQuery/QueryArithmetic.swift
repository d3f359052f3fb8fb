import Foundation

/// The infix operators of NSExpression's format syntax. Each stands for the function
/// NSExpression names it by (`a + b` is `add:to:(a, b)`), and a parsed operator is a
/// ``QueryExpression/function(_:_:)`` of that name, as NSExpression keeps it.
///
/// From loosest to tightest: `|`, `^`, `&`, `<<` and `>>`, `+` and `-`, `*` and `/`, `**`; then
/// the prefix `-` and `~`. All are left-associative but `**`.
enum ArithmeticOperator: CaseIterable {
  case bitwiseOr, bitwiseXor, bitwiseAnd, leftShift, rightShift, add, subtract, multiply, divide
  case power

  /// How the format syntax writes it.
  var symbol: String {
    switch self {
    case .bitwiseOr: "|"
    case .bitwiseXor: "^"
    case .bitwiseAnd: "&"
    case .leftShift: "<<"
    case .rightShift: ">>"
    case .add: "+"
    case .subtract: "-"
    case .multiply: "*"
    case .divide: "/"
    case .power: "**"
    }
  }

  /// The NSExpression function it stands for.
  var function: String {
    switch self {
    case .bitwiseOr: "bitwiseOr:with:"
    case .bitwiseXor: "bitwiseXor:with:"
    case .bitwiseAnd: "bitwiseAnd:with:"
    case .leftShift: "leftshift:by:"
    case .rightShift: "rightshift:by:"
    case .add: "add:to:"
    case .subtract: "from:subtract:"
    case .multiply: "multiply:by:"
    case .divide: "divide:by:"
    case .power: "raise:toPower:"
    }
  }

  /// How tightly it binds: higher binds tighter.
  var level: Int {
    switch self {
    case .bitwiseOr: 1
    case .bitwiseXor: 2
    case .bitwiseAnd: 3
    case .leftShift, .rightShift: 4
    case .add, .subtract: 5
    case .multiply, .divide: 6
    case .power: 7
    }
  }

  var isRightAssociative: Bool { self == .power }

  /// The level of the prefix operators, and of what binds tighter still.
  static let prefixLevel = 8
  static let primaryLevel = 9

  private static let bySymbol = Dictionary(uniqueKeysWithValues: allCases.map { ($0.symbol, $0) })
  private static let byFunction = Dictionary(
    uniqueKeysWithValues: allCases.map { ($0.function, $0) })

  /// The operator written `symbol`, if any.
  init?(symbol: String) {
    guard let found = Self.bySymbol[symbol] else { return nil }
    self = found
  }

  /// The operator standing for `function` with two arguments, if any: looked up once per
  /// evaluation, so by hash.
  init?(function: String) {
    guard let found = Self.byFunction[function] else { return nil }
    self = found
  }

  /// The function of the prefix `~`.
  static let onesComplement = "onesComplement:"
}

extension QueryExpression {
  /// How tightly the expression binds as written: an operator's level, the prefix level for
  /// `-x` and `~x`, else the level of a primary expression.
  var bindingLevel: Int {
    guard case .function(let name, let arguments) = self else {
      return ArithmeticOperator.primaryLevel
    }
    if isNegation || (name == ArithmeticOperator.onesComplement && arguments.count == 1) {
      return ArithmeticOperator.prefixLevel
    }
    if arguments.count == 2, let op = ArithmeticOperator(function: name) { return op.level }
    return ArithmeticOperator.primaryLevel
  }

  /// Whether the expression is `-x`: `from:subtract:(0, x)` with an `x` that is not a number
  /// constant (`-5` is the constant itself).
  var isNegation: Bool {
    guard case .function("from:subtract:", let arguments) = self, arguments.count == 2,
      case .constant(.integer(0)) = arguments[0]
    else { return false }
    return !arguments[1].isNumberConstant
  }

  var isNumberConstant: Bool {
    switch self {
    case .constant(.integer), .constant(.double), .constant(.decimal): true
    default: false
    }
  }

  /// `-operand`: a number constant negated, anything else `from:subtract:(0, operand)`.
  static func negation(of operand: QueryExpression) -> QueryExpression {
    switch operand {
    case .constant(.integer(let value)) where value != .min: return .constant(.integer(-value))
    case .constant(.double(let value)): return .constant(.double(-value))
    case .constant(.decimal(let value)): return .constant(.decimal(-value))
    default: return .function("from:subtract:", [.constant(.integer(0)), operand])
    }
  }
}

/// NSExpression's arithmetic over the values key paths give.
///
/// Integers stay integers through `+`, `-` and `*` unless the result overflows, when it is a
/// double (as `@sum` does); a decimal makes the result a decimal; anything else is a double. `/`
/// and `**` always give a double (a decimal for decimals), so `7 / 2` is 3.5 and a division
/// by zero is an infinity or NaN, as IEEE 754 says; a decimal divided by zero is an error.
/// A date counts as its seconds since 2001-01-01. The bitwise operators take integers only. A
/// nil operand makes the result nil, as SQL's arithmetic does, so a comparison with it is
/// false.
enum QueryArithmetic {
  static func apply(_ op: ArithmeticOperator, _ left: Any?, _ right: Any?) throws(QueryError)
    -> Any?
  {
    guard let left, let right else { return nil }
    let a = try number(left, op.symbol)
    let b = try number(right, op.symbol)
    switch op {
    case .add, .subtract, .multiply:
      if case .integer(let x) = a, case .integer(let y) = b {
        let (result, overflow) =
          switch op {
          case .add: x.addingReportingOverflow(y)
          case .subtract: x.subtractingReportingOverflow(y)
          default: x.multipliedReportingOverflow(by: y)
          }
        if !overflow { return result }
      }
      if a.isDecimal || b.isDecimal, let x = a.decimal, let y = b.decimal,
        let result = QueryValues.decimal(
          op == .add ? .add : op == .subtract ? .subtract : .multiply, x, y)
      {
        return result
      }
      // A result a decimal cannot hold, or an operand it cannot, goes on in doubles.
      switch op {
      case .add: return a.double + b.double
      case .subtract: return a.double - b.double
      default: return a.double * b.double
      }
    case .divide:
      if a.isDecimal || b.isDecimal, let x = a.decimal, let y = b.decimal {
        guard !y.isZero else { throw QueryError.divisionByZero(left, right) }
        if let result = QueryValues.decimal(.divide, x, y) { return result }
      }
      return a.double / b.double
    case .power:
      return Foundation.pow(a.double, b.double)
    case .bitwiseOr, .bitwiseXor, .bitwiseAnd, .leftShift, .rightShift:
      let x = try integer(a, left, op.symbol)
      let y = try integer(b, right, op.symbol)
      switch op {
      case .bitwiseOr: return x | y
      case .bitwiseXor: return x ^ y
      case .bitwiseAnd: return x & y
      default:
        guard (0..<Int.bitWidth).contains(y) else {
          throw QueryError.badShift(y, operator: op.symbol)
        }
        return op == .leftShift ? x << y : x >> y
      }
    }
  }

  /// `~value`.
  static func onesComplement(_ value: Any?) throws(QueryError) -> Any? {
    guard let value else { return nil }
    return ~(try integer(try number(value, "~"), value, "~"))
  }

  private static func number(_ value: Any, _ symbol: String) throws(QueryError)
    -> QueryValues.Number
  {
    if let date = value as? Date { return .double(date.timeIntervalSinceReferenceDate) }
    guard let number = QueryValues.number(value) else {
      throw QueryError.notArithmetic(value, operator: symbol)
    }
    return number
  }

  private static func integer(_ number: QueryValues.Number, _ value: Any, _ symbol: String)
    throws(QueryError) -> Int
  {
    guard case .integer(let integer) = number else {
      throw QueryError.notArithmetic(value, operator: symbol, needsInteger: true)
    }
    return integer
  }
}
