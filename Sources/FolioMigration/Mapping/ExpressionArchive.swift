import FolioModel
import FolioStores
import Foundation

// A stored value expression is an NSKeyedArchiver archive (a binary property list) of one
// NSExpression. The archive is a dictionary: `$archiver` "NSKeyedArchiver", `$top` whose
// `root` refers to the expression, and `$objects`, the flat list of every object; object 0 is
// the string `$null`, and a reference to it means nil. An archived object is a dictionary of
// its keys plus `$class`, a reference to `{$classname, $classes}`. Keys hold numbers and
// booleans inline, and strings and objects as references (UIDs, or `{"CF$UID": n}`).
//
// The expression classes a mapping model uses, and their keys:
//
// - NSConstantValueExpression: `NSConstantValue`, a plist value, an NSString, NSMutableString
//   or NSDate, or absent for nil. As the operand of a built-in function it has, instead,
//   `NSConstantValueClassName` "_NSPredicateUtilities", the class that implements them.
// - NSVariableExpression: `NSVariable`, the name without `$`.
// - NSKeyPathExpression: `NSOperand`, the expression the path starts from; `NSSelectorName`
//   "valueForKeyPath:"; `NSArguments`, an array of one NSKeyPathSpecifierExpression whose
//   `NSKeyPath` is the whole dotted path ("continent.numericISO3166Code").
// - NSFunctionExpression: `NSOperand`, `NSSelectorName` and `NSArguments`. An operand naming
//   `_NSPredicateUtilities` makes it a built-in (`now()`), any other a `FUNCTION(…)` call.
//
// The archive (`KeyedArchive`) resolves references one at a time and the walk over
// expressions is limited in depth, so an archive whose objects refer to themselves ends in an
// error, not a loop.

/// What is wrong with an archived expression, for the reader to word with its place.
enum ExpressionArchiveProblem: Error {
  /// Not a keyed archive of an expression; the text completes "the value expression …".
  case malformed(String, underlying: StoreError?)
  /// An expression, or a constant, of a class that a ``MappingExpression`` does not hold;
  /// `what` names it ("an expression", "a constant").
  case unsupported(className: String, what: String)
}

/// One keyed archive of an expression, decoded into a ``MappingExpression``.
struct ExpressionArchive {
  private let archive: KeyedArchive<ExpressionArchiveProblem>

  /// The archive in `data`, a binary property list.
  init(_ data: Data) throws(ExpressionArchiveProblem) {
    let node: PropertyListNode
    do {
      node = try BinaryPropertyList.decode(data, file: nil)
    } catch {
      throw .malformed(
        "is not a binary property list: \(error.message)", underlying: error)
    }
    archive = try KeyedArchive(node) { .malformed($0, underlying: nil) }
  }

  /// The expression the archive holds.
  func expression() throws(ExpressionArchiveProblem) -> MappingExpression {
    try expression(archive.rootReference, depth: 0)
  }

  /// The string `value` stands for, which must be there.
  private func string(_ value: PropertyListNode?, for what: String)
    throws(ExpressionArchiveProblem) -> String
  {
    guard let text = try archive.string(value, for: what) else {
      throw .malformed("has no \(what)", underlying: nil)
    }
    return text
  }

  // MARK: Expressions

  private static let builtinsClassName = "_NSPredicateUtilities"

  private func expression(_ value: PropertyListNode?, depth: Int)
    throws(ExpressionArchiveProblem) -> MappingExpression
  {
    guard depth < MappingExpression.maximumDepth else {
      throw .malformed(
        "nests more than \(MappingExpression.maximumDepth) expressions deep", underlying: nil)
    }
    guard let object = try archive.instance(value, for: "an expression") else {
      throw .malformed("has nil where an expression must be", underlying: nil)
    }
    switch object.className {
    case "NSConstantValueExpression":
      if object["NSConstantValueClassName"] != nil {
        throw .malformed(
          "has a class constant outside a built-in function's operand", underlying: nil)
      }
      return .constant(try constant(object["NSConstantValue"]))
    case "NSVariableExpression":
      return .variable(try string(object["NSVariable"], for: "a variable name"))
    case "NSKeyPathExpression":
      let base = try expression(object["NSOperand"], depth: depth + 1)
      let arguments = try archive.elements(object["NSArguments"], for: "key path arguments")
      guard arguments.count == 1,
        let specifier = try archive.instance(arguments[0], for: "a key path"),
        specifier.className == "NSKeyPathSpecifierExpression"
      else {
        throw .malformed(
          "has a key path expression whose argument is not one key path specifier",
          underlying: nil)
      }
      let path = try string(specifier["NSKeyPath"], for: "a key path")
      // `$source.a` then `.b` is the one path `$source.a.b`, as the format text reads it.
      if case .keyPath(let inner, let first) = base { return .keyPath(inner, first + "." + path) }
      return .keyPath(base, path)
    case "NSFunctionExpression":
      let selector = try string(object["NSSelectorName"], for: "a function's selector")
      var arguments: [MappingExpression] = []
      for argument in try archive.elements(object["NSArguments"], for: "function arguments") {
        arguments.append(try expression(argument, depth: depth + 1))
      }
      if let operand = try archive.instance(object["NSOperand"], for: "a function's operand"),
        operand.className == "NSConstantValueExpression",
        let className = try archive.resolve(operand["NSConstantValueClassName"])
      {
        let name = try string(className, for: "a function's class")
        guard name == Self.builtinsClassName else {
          throw .unsupported(className: name, what: "a built-in function")
        }
        return .builtin(selector, arguments: arguments)
      }
      let receiver = try expression(object["NSOperand"], depth: depth + 1)
      return .function(receiver: receiver, selector: selector, arguments: arguments)
    default:
      throw .unsupported(className: object.className, what: "an expression")
    }
  }

  /// The constant value `value` stands for.
  private func constant(_ value: PropertyListNode?) throws(ExpressionArchiveProblem)
    -> MappingConstant
  {
    guard let node = try archive.resolve(value) else { return .null }
    switch node {
    case .string(let text): return .string(text)
    case .integer(let number): return .integer(number)
    case .real(let number): return .double(number)
    case .boolean(let flag): return .boolean(flag)
    case .date(let date): return .date(date.timeIntervalSinceReferenceDate)
    case .dictionary:
      if let text = try archive.stringObject(node, for: "a constant") { return .string(text) }
      guard let object = try archive.instance(node, for: "a constant") else { return .null }
      if object.className == "NSDate" {
        switch try archive.resolve(object["NS.time"]) {
        case .real(let seconds)?: return .date(seconds)
        case .integer(let seconds)?: return .date(Double(seconds))
        default: throw .malformed("has a date constant with no \"NS.time\"", underlying: nil)
        }
      }
      throw .unsupported(className: object.className, what: "a constant")
    case .data, .uid, .array, .set, .null:
      throw .malformed("has a constant that is \(node.kindDescription)", underlying: nil)
    }
  }
}
