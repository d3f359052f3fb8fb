import FolioQuery
import FolioSupport
import Foundation

extension MappingExpression: CustomStringConvertible {
  /// The expression in `NSExpression`'s format syntax, which ``init(format:)`` parses back to
  /// an equal expression: `$source.name`, `"Unknown"`, `now()`,
  /// `($source.temperature - 32.0) / 1.8`,
  /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:",
  /// "PersonToPerson", $source.owner)`.
  ///
  /// The four arithmetic built-ins with two arguments print as operators (`add:to:` as `+`,
  /// `from:subtract:` as `-`, `multiply:by:` as `*`, `divide:by:` as `/`), with the parentheses
  /// their order needs; any other built-in prints as its name and its arguments in parentheses
  /// (`uppercase:($source.name)`). A key path whose steps are not names and `@` operators, or
  /// a built-in or variable name that is not a name, prints as it is and does not parse back.
  public var description: String {
    switch self {
    case .constant(let constant):
      return constant.description
    case .variable(let name):
      return "$" + name
    case .keyPath(let base, let path):
      return base.operandDescription(above: .postfix) + "." + path
    case .function(let receiver, let selector, let arguments):
      let parts =
        [receiver.description, Quoting.formatString(selector)] + arguments.map(\.description)
      return "FUNCTION(" + parts.joined(separator: ", ") + ")"
    case .builtin(let name, let arguments):
      if let (symbol, level) = Self.infixOperator(name), arguments.count == 2 {
        return arguments[0].operandDescription(above: level, isRight: false) + " \(symbol) "
          + arguments[1].operandDescription(above: level, isRight: true)
      }
      return name + "(" + arguments.map(\.description).joined(separator: ", ") + ")"
    }
  }

  /// How tightly an expression binds, for deciding where parentheses go.
  enum Precedence: Int, Comparable {
    case additive
    case multiplicative
    /// A key path step: `.key` after an operand.
    case postfix
    case primary

    static func < (left: Precedence, right: Precedence) -> Bool {
      left.rawValue < right.rawValue
    }
  }

  /// The operator symbol and precedence of an arithmetic built-in: `NSExpression`'s names.
  static func infixOperator(_ name: String) -> (String, Precedence)? {
    switch name {
    case "add:to:": ("+", .additive)
    case "from:subtract:": ("-", .additive)
    case "multiply:by:": ("*", .multiplicative)
    case "divide:by:": ("/", .multiplicative)
    default: nil
    }
  }

  /// The built-in name of an arithmetic operator symbol.
  static func builtinName(ofOperator symbol: String) -> String? {
    switch symbol {
    case "+": "add:to:"
    case "-": "from:subtract:"
    case "*": "multiply:by:"
    case "/": "divide:by:"
    default: nil
    }
  }

  private var precedence: Precedence {
    if case .builtin(let name, let arguments) = self, arguments.count == 2,
      let (_, level) = Self.infixOperator(name)
    {
      return level
    }
    return .primary
  }

  /// The description as an operand of an operator of precedence `level`: in parentheses when
  /// it binds less tightly, or as tightly on the right (the operators group to the left).
  private func operandDescription(above level: Precedence, isRight: Bool = false) -> String {
    let own = precedence
    return own < level || (isRight && own == level) ? "(\(description))" : description
  }
}

extension MappingConstant: CustomStringConvertible {
  /// The constant in format syntax: `nil`, `"text"`, `42`, `2.5`, `YES`, `NO`, and
  /// `CAST(726868800.0, "NSDate")` for a date.
  ///
  /// A double prints in Swift's shortest form that reads back to the same value, which always
  /// has a `.` or an exponent (`32.0`, `1e-05`); the infinities and NaN, which have no literal,
  /// as the `CAST` of a string (`CAST("inf", "NSNumber")`).
  public var description: String {
    switch self {
    case .null: return "nil"
    case .string(let text): return Quoting.formatString(text)
    case .integer(let value): return String(value)
    case .double(let value): return QueryValue.describe(value)
    case .boolean(let value): return value ? "YES" : "NO"
    case .date(let seconds): return "CAST(\(QueryValue.describe(seconds)), \"NSDate\")"
    }
  }
}
