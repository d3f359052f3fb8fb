import FolioSupport
import Foundation

extension QueryPredicate: CustomStringConvertible {
  /// The predicate in canonical format syntax, which parses back to an equal predicate:
  /// `age >= 18 AND (name BEGINSWITH[c] "a" OR NOT ANY tags == "x")`.
  ///
  /// Keywords print in upper case, strings in double quotes, `NONE` as `NOT ANY`, dates as
  /// `CAST(seconds, "NSDate")`, and a nested `AND` or `OR` in parentheses. An object given as
  /// a `%@` argument prints as its own description, which does not parse back; an empty `AND`
  /// prints as `TRUEPREDICATE` and an empty `OR` as `FALSEPREDICATE`.
  public var description: String {
    switch self {
    case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
    case .comparison(let comparison): return comparison.description
    case .and(let parts): return Self.join(parts, "AND", empty: "TRUEPREDICATE")
    case .or(let parts): return Self.join(parts, "OR", empty: "FALSEPREDICATE")
    case .not(let inner): return "NOT " + inner.operandDescription
    }
  }

  private static func join(_ parts: [QueryPredicate], _ word: String, empty: String) -> String {
    guard !parts.isEmpty else { return empty }
    return parts.map(\.operandDescription).joined(separator: " \(word) ")
  }

  /// The description, in parentheses when it is a compound with several parts.
  private var operandDescription: String {
    switch self {
    case .and(let parts) where parts.count > 1, .or(let parts) where parts.count > 1:
      return "(\(description))"
    default:
      return description
    }
  }
}

extension QueryComparison: CustomStringConvertible {
  /// The comparison in format syntax: `ANY tags ==[c] "swift"`.
  public var description: String {
    let prefix =
      switch modifier {
      case .direct: ""
      case .any: "ANY "
      case .all: "ALL "
      }
    return "\(prefix)\(left) \(`operator`.symbol)\(options.symbol) \(right)"
  }
}

extension QueryExpression: CustomStringConvertible {
  /// The expression in format syntax: `friend.name`, `"Ann"`, `{1, 2}`, `$x.age`.
  public var description: String {
    switch self {
    case .constant(let value): return value.description
    case .evaluatedObject: return "SELF"
    case .keyPath(let path): return Self.describe(path: path)
    case .variable(let name): return "$" + name
    case .keyPathFrom(let base, let path):
      return (base.takesKeyPath ? "\(base)" : "(\(base))") + "." + Self.describe(path: path)
    case .aggregate(let elements):
      return "{" + elements.map(\.description).joined(separator: ", ") + "}"
    case .subquery(let collection, let variable, let predicate):
      return "SUBQUERY(\(collection), $\(variable), \(predicate))"
    case .function(let name, let arguments):
      return Self.describe(function: name, arguments)
    case .conditional(let predicate, let whenTrue, let whenFalse):
      return "TERNARY(\(predicate), \(whenTrue), \(whenFalse))"
    }
  }

  /// Whether a key path may follow the expression as it prints, `base.key`: it prints as a
  /// form the parser lets a path follow. A number would read the `.` as its decimal point,
  /// `YES` and `nil` take none, an operator would take the path for its last operand, and a
  /// built-in function call takes none.
  fileprivate var takesKeyPath: Bool {
    switch self {
    case .evaluatedObject, .keyPath, .variable, .keyPathFrom, .aggregate, .subquery,
      .conditional:
      return true
    case .constant(let value):
      switch value {
      case .string, .decimal, .date, .binaryData, .uuid, .uri: return true
      case .double(let number): return number.isNaN || number.isInfinite
      case .null, .boolean, .integer, .object: return false
      }
    case .function(let name, let arguments):
      return name == QueryFunctions.method || (name == QueryFunctions.cast && arguments.count == 2)
        || (name == QueryFunctions.index && arguments.count == 2)
    }
  }

  /// An operator infix with its operands, in parentheses where they bind more loosely (or as
  /// loosely, on the side the operator does not associate to); `-x` and `~x` prefix.
  private static func describe(function name: String, _ arguments: [QueryExpression]) -> String {
    func operand(_ expression: QueryExpression, tighterThan level: Int) -> String {
      expression.bindingLevel > level ? expression.description : "(\(expression))"
    }
    if arguments.count == 2, arguments[0] == .constant(.integer(0)),
      QueryExpression.function(name, arguments).isNegation
    {
      return "-" + operand(arguments[1], tighterThan: ArithmeticOperator.prefixLevel - 1)
    }
    if name == QueryFunctions.index, arguments.count == 2 {
      let base = operand(arguments[0], tighterThan: ArithmeticOperator.primaryLevel - 1)
      if case .function(let symbol, []) = arguments[1],
        QueryFunctions.indexSymbols.contains(symbol)
      {
        return "\(base)[\(symbol)]"
      }
      return "\(base)[\(arguments[1])]"
    }
    if name == QueryFunctions.cast, arguments.count == 2 {
      return "CAST(\(arguments[0]), \(arguments[1]))"
    }
    if name == ArithmeticOperator.onesComplement, arguments.count == 1 {
      return "~" + operand(arguments[0], tighterThan: ArithmeticOperator.prefixLevel - 1)
    }
    guard arguments.count == 2, let op = ArithmeticOperator(function: name) else {
      return name + "(" + arguments.map(\.description).joined(separator: ", ") + ")"
    }
    let left = operand(arguments[0], tighterThan: op.isRightAssociative ? op.level : op.level - 1)
    let right = operand(arguments[1], tighterThan: op.isRightAssociative ? op.level - 1 : op.level)
    return "\(left) \(op.symbol) \(right)"
  }

  /// Escapes steps spelled like keywords with `#`.
  package static func describe(path: String) -> String {
    path.split(separator: ".", omittingEmptySubsequences: false).map { step in
      PredicateLexer.isKeyword(step) ? "#" + step : String(step)
    }.joined(separator: ".")
  }
}

extension QueryValue: CustomStringConvertible {
  /// The constant in format syntax: `nil`, `YES`, `30`, `2.5`, `"Ann"`,
  /// `CAST(726868800.0, "NSDate")`.
  public var description: String {
    switch self {
    case .null: return "nil"
    case .boolean(let value): return value ? "YES" : "NO"
    case .integer(let value): return String(value)
    case .double(let value): return Self.describe(value)
    case .decimal(let value):
      return "CAST(\(Quoting.formatString(value.description)), \"NSDecimalNumber\")"
    case .string(let value): return Quoting.formatString(value)
    case .date(let value):
      return "CAST(\(Self.describe(value.timeIntervalSinceReferenceDate)), \"NSDate\")"
    case .binaryData(let value):
      return "CAST(\(Quoting.formatString(value.base64EncodedString())), \"NSData\")"
    case .uuid(let value): return "CAST(\(Quoting.formatString(value.uuidString)), \"NSUUID\")"
    case .uri(let value): return "CAST(\(Quoting.formatString(value.absoluteString)), \"NSURL\")"
    case .object(let value): return value.description
    }
  }

  /// A double in format syntax: Swift's shortest form that reads back to the same value, which
  /// always has a `.` or an exponent (`2.5`, `-0.0`, `1e+300`, `5e-324`); the infinities and
  /// NaN, which have no literal, as the `CAST` of a string that reads them back
  /// (`CAST("-inf", "NSNumber")`).
  package static func describe(_ value: Double) -> String {
    if value.isNaN { return "CAST(\"nan\", \"NSNumber\")" }
    if value.isInfinite {
      return value < 0 ? "CAST(\"-inf\", \"NSNumber\")" : "CAST(\"inf\", \"NSNumber\")"
    }
    return value.description
  }
}
