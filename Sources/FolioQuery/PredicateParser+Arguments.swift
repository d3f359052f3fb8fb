import FolioModel
import Foundation

/// Format arguments: what `%@`, `%K` and the number specifiers stand for.
extension PredicateParser {
  /// The argument for the placeholder `placeholder` at `token`, the next one given; a mapping
  /// expression, which is given none, has no placeholders.
  mutating func nextArgument(_ placeholder: String, token: PredicateToken) throws(QueryError)
    -> Any?
  {
    guard !readsMappingExpression else {
      throw QueryError.notMappable("a placeholder \"\(placeholder)\"", column: token.column)
    }
    guard argumentIndex < arguments.count else {
      throw QueryError.missingArgument(
        placeholder, number: argumentIndex + 1, given: arguments.count, column: token.column)
    }
    defer { argumentIndex += 1 }
    return arguments[argumentIndex]
  }

  mutating func parsePlaceholder(_ specifier: FormatSpecifier, token: PredicateToken)
    throws(QueryError) -> QueryExpression
  {
    switch specifier.kind {
    case .keyPath:
      return try parseSteps(after: .keyPath(try keyPathArgument(specifier, token: token)))
    case .object:
      let argument = try nextArgument(specifier.text, token: token)
      return try parseSteps(
        after: try Self.expression(for: argument, placeholder: specifier.text, column: token.column)
      )
    case .integer(let bits, let isUnsigned):
      let argument = try nextArgument(specifier.text, token: token)
      let integer: Int
      switch QueryValue(argument) {
      case .integer(let value)?: integer = value
      case .double(let value)? where value.rounded() == value && abs(value) < 1e18:
        integer = Int(value)
      case .boolean(let value)?: integer = value ? 1 : 0
      default:
        throw QueryError.invalidArgument(
          specifier.text, expected: "an integer", found: argument, column: token.column)
      }
      let range = Self.range(bits: bits, isUnsigned: isUnsigned)
      guard range.contains(integer) else {
        throw QueryError.argumentOutOfRange(
          specifier.text, integer, bits: bits, isUnsigned: isUnsigned, column: token.column)
      }
      return .constant(.integer(integer))
    case .double:
      let argument = try nextArgument(specifier.text, token: token)
      switch QueryValue(argument) {
      case .integer(let value)?: return .constant(.double(Double(value)))
      case .double(let value)?: return .constant(.double(value))
      case .decimal(let value)?:
        return .constant(.double(NSDecimalNumber(decimal: value).doubleValue))
      default:
        throw QueryError.invalidArgument(
          specifier.text, expected: "a number", found: argument, column: token.column)
      }
    }
  }

  /// The integers a specifier of `bits` bits takes.
  static func range(bits: Int, isUnsigned: Bool) -> ClosedRange<Int> {
    if bits >= 64 { return isUnsigned ? 0...Int.max : Int.min...Int.max }
    return isUnsigned ? 0...(1 << bits) - 1 : -(1 << (bits - 1))...(1 << (bits - 1)) - 1
  }

  /// The key path a `%K`'s argument names.
  mutating func keyPathArgument(_ specifier: FormatSpecifier, token: PredicateToken)
    throws(QueryError) -> String
  {
    let argument = try nextArgument(specifier.text, token: token)
    guard let path = argument as? String, !path.isEmpty else {
      throw QueryError.invalidArgument(
        specifier.text, expected: "a key path string", found: argument, column: token.column)
    }
    return path
  }

  /// A `%@` argument: a constant, or a list for an array or set.
  static func expression(for argument: Any?, placeholder: String, column: Int?)
    throws(QueryError)
    -> QueryExpression
  {
    if let argument, !(argument is String), !(argument is Data) {
      if let array = argument as? [Any?] {
        var elements: [QueryExpression] = []
        for element in array {
          elements.append(try expression(for: element, placeholder: placeholder, column: column))
        }
        return .aggregate(elements)
      }
      if let set = argument as? Set<AnyHashable> {
        var elements: [QueryExpression] = []
        for element in set {
          elements.append(
            try expression(for: element.base, placeholder: placeholder, column: column))
        }
        return .aggregate(elements)
      }
    }
    guard let value = QueryValue(argument) else {
      throw QueryError.invalidArgument(
        placeholder, expected: "a constant, an object or a collection", found: argument,
        column: column)
    }
    return .constant(value)
  }
}
