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
  /// (`uppercase:($source.name)`). A key path's steps spelled like keywords print escaped
  /// (`$source.#in`), and its base in parentheses when no key path may follow it as it prints
  /// (`($source.a + 1).b`, `(now()).b`, `(5).b`). A key path whose steps are not names and `@`
  /// operators, or a built-in or variable name that is not a name (or is a keyword, `TERNARY`
  /// or `FUNCTION`), prints as it is and does not parse back.
  public var description: String {
    switch self {
    case .constant(let constant):
      return constant.description
    case .variable(let name):
      return "$" + name
    case .keyPath(let base, let path):
      let written = QueryExpression.describe(path: path)
      return (base.takesKeyPath ? base.description : "(\(base))") + "." + written
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

  /// Whether a key path may follow the expression as it prints, `base.key`, as FolioQuery's
  /// grammar reads it: after a variable, a key path, `FUNCTION(…)`, a string and a constant
  /// that prints as a `CAST`; not after a number literal, `YES`, `NO`, `nil`, an operator or a
  /// built-in function's call.
  private var takesKeyPath: Bool {
    switch self {
    case .variable, .keyPath, .function: true
    case .builtin: false
    case .constant(let constant):
      switch constant {
      case .string, .date: true
      case .double(let number): number.isNaN || number.isInfinite
      case .null, .boolean, .integer: false
      }
    }
  }

  /// How tightly an expression binds, for deciding where parentheses go.
  enum Precedence: Int, Comparable {
    case additive
    case multiplicative
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
