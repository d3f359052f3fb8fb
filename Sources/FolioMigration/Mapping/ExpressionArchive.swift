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
//
// An archive names each object once and refers to it by number, so one expression may be the
// operand or argument of many. Each object is read once, and a second reference to it gives
// the expression read the first time. That expression is still a tree: whoever prints,
// resolves or evaluates it walks it once for each place it is used, so a chain of calls each
// taking the next twice stands for 2^n expressions in a few bytes a link. The reader counts
// what the archive expands to, each expression once for each place it is used and each byte
// of its text, and refuses an archive expanding past four values per byte of it. An archived
// expression takes a few bytes of the archive, and its text as many bytes as it has, so only
// an archive that refers to the same objects from many places comes near.

/// What is wrong with an archived expression, for the reader to word with its place.
enum ExpressionArchiveProblem: Error {
  /// Not a keyed archive of an expression; the text completes "the value expression …".
  case malformed(String, underlying: StoreError?)
  /// An expression, or a constant, of a class that a ``MappingExpression`` does not hold;
  /// `what` names it ("an expression", "a constant").
  case unsupported(className: String, what: String)
}

/// One keyed archive of an expression, decoded into a ``MappingExpression``.
///
/// Each archived object is read once; the reader keeps what it read, so it reads one archive
/// and is then let go.
final class ExpressionArchive {
  /// How many values an archive may expand to per byte of it: expressions, counted once for
  /// each place they are used, and bytes of their text.
  static let maximumValuesPerByte = 4

  private let archive: KeyedArchive<ExpressionArchiveProblem>
  /// How many values the archive may expand to.
  private let maximumValues: Int
  /// Each expression read, by object number: the expression, how many levels it nests below
  /// its own, and how many values it expands to, itself included.
  private var read: [UInt64: (expression: MappingExpression, height: Int, count: Int)] = [:]
  /// How many values the archive has expanded to so far.
  private(set) var valuesRead = 0
  /// The deepest level the expression being read has reached.
  private var deepest = 0
  /// How many archived expressions have been read, each once however often it is used.
  private(set) var expressionsRead = 0

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
    maximumValues = Self.maximumValuesPerByte * max(data.count, 1)
  }

  /// The expression the archive holds.
  func expression() throws(ExpressionArchiveProblem) -> MappingExpression {
    try expression(archive.rootReference, depth: 0)
  }

  /// Adds `values` to what the archive expands to, refusing it past ``maximumValues``.
  private func counting(_ values: Int, at number: UInt64?) throws(ExpressionArchiveProblem) {
    valuesRead += values
    guard valuesRead <= maximumValues else {
      let place = number.map { "object \($0)" } ?? "an object held inline"
      throw .malformed(
        "expands to more than \(maximumValues) values (an expression or a byte of its"
          + " text each) at \(place): it refers to the same expressions from too many places",
        underlying: nil)
    }
  }

  /// Counts the bytes of `text` where object `number` uses it, and gives it back.
  private func counted(_ text: String, at number: UInt64?) throws(ExpressionArchiveProblem)
    -> String
  {
    try counting(text.utf8.count, at: number)
    return text
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
    let maximumDepth = MappingExpression.maximumDepth
    guard depth < maximumDepth else {
      throw .malformed("nests more than \(maximumDepth) expressions deep", underlying: nil)
    }
    let number = value.flatMap(KeyedArchive<ExpressionArchiveProblem>.referenceNumber)
    if let number, let known = read[number] {
      // Used again here, the expression nests from this level.
      guard depth + known.height < maximumDepth else {
        throw .malformed("nests more than \(maximumDepth) expressions deep", underlying: nil)
      }
      deepest = max(deepest, depth + known.height)
      try counting(known.count, at: number)
      return known.expression
    }
    let (countBefore, deepestBefore) = (valuesRead, deepest)
    deepest = depth
    try counting(1, at: number)
    expressionsRead += 1
    let expression = try decoded(value, at: number, depth: depth)
    if let number { read[number] = (expression, deepest - depth, valuesRead - countBefore) }
    deepest = max(deepest, deepestBefore)
    return expression
  }

  /// The expression `value`, object `number`, holds, read from the archive.
  private func decoded(_ value: PropertyListNode?, at number: UInt64?, depth: Int)
    throws(ExpressionArchiveProblem) -> MappingExpression
  {
    guard let object = try archive.instance(value, for: "an expression") else {
      throw .malformed("has nil where an expression must be", underlying: nil)
    }
    switch object.className {
    case "NSConstantValueExpression":
      if object["NSConstantValueClassName"] != nil {
        throw .malformed(
          "has a class constant outside a built-in function's operand", underlying: nil)
      }
      let constant = try constant(object["NSConstantValue"])
      if case .string(let text) = constant { _ = try counted(text, at: number) }
      return .constant(constant)
    case "NSVariableExpression":
      return .variable(
        try counted(string(object["NSVariable"], for: "a variable name"), at: number))
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
      if case .keyPath(let inner, let first) = base {
        return .keyPath(inner, try counted(first + "." + path, at: number))
      }
      return .keyPath(base, try counted(path, at: number))
    case "NSFunctionExpression":
      let selector = try counted(
        string(object["NSSelectorName"], for: "a function's selector"), at: number)
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
