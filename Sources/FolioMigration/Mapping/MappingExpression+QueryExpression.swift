import FolioQuery
import Foundation

// The format text of a value expression, as `description` writes it and Xcode's mapping
// editor shows it, is read by FolioQuery's expression grammar (`Formats/predicate-format.md`
// §3), with what is particular to mapping expressions (`Formats/xcmappingmodel.md` §7): any
// function name with any number of arguments, no key path from the evaluated object, no list,
// SUBQUERY, TERNARY, index or CAST of a value that is not a constant, and depth measured so
// that the text `description` prints for a value within the limit reads back within it. The
// expression FolioQuery reads is then converted, part by part.

extension MappingExpression {
  /// How deeply an expression may nest: each operator, call and key path after an expression
  /// is a level of the value, and parentheses, calls' argument lists and the like are levels of
  /// the text.
  static let maximumDepth = 100

  /// Parses `format`, an expression in `NSExpression`'s format syntax: the text
  /// ``description`` writes.
  ///
  /// It reads FolioQuery's expressions (`Formats/predicate-format.md` §3) that a mapping
  /// expression can hold: constants (`"text"` with `\"`, `\\`, `\n`, `\t`, `\r`, `\0` and
  /// `\uXXXX` escapes; integers; doubles; `YES`, `NO`, `TRUE`, `FALSE`, `nil`, `NULL`;
  /// `CAST(seconds, "NSDate")`, `@2024-05-01`; `CAST("inf", "NSNumber")`), variables
  /// (`$source`), key paths from an expression with collection operators
  /// (`$source.countries.@distinctUnionOfSets.moods`), `FUNCTION(receiver, "selector:",
  /// arguments…)`, functions of any name (`now()`, `uppercase:($source.name)`), and the
  /// operators with parentheses, which become the built-ins `add:to:`, `from:subtract:`,
  /// `multiply:by:`, `divide:by:` and the others NSExpression names. Keywords may be written in
  /// any case. A key path is kept as one string after the expression it starts from:
  /// `$source.a.b` is `.keyPath(.variable("source"), "a.b")`.
  ///
  /// ```swift
  /// let rename = try MappingExpression(format: "$source.companyName")
  /// // .keyPath(.variable("source"), "companyName")
  /// ```
  ///
  /// - Throws: `MappingModelError.syntax` with the 1-based column of the bad token: text that
  ///   does not parse as FolioQuery's grammar, a key path that starts from no variable (`name`
  ///   rather than `$source.name`), `SELF`, a list, `SUBQUERY`, `TERNARY`, an index, a `CAST`
  ///   of a value that is not a constant or of a constant to a type a mapping constant is not,
  ///   or nesting deeper than 100 levels.
  public init(format: String) throws(MappingModelError) {
    try self.init(format: format, heldLevelsDeep: 0)
  }

  /// Parses `format` as ``init(format:)`` does, for an expression that a larger one holds
  /// `levels` levels deep, and that may therefore nest that many levels less.
  init(format: String, heldLevelsDeep levels: Int) throws(MappingModelError) {
    let parsed: QueryExpression
    do {
      parsed = try QueryExpression(mappingFormat: format, depthLimit: Self.maximumDepth - levels)
    } catch {
      throw MappingModelError.syntax(error)
    }
    self = try Self(converting: parsed)
  }

  /// The mapping expression of an expression FolioQuery read in mapping format: constants,
  /// variables, key paths from an expression (a key path from a key path joined into one),
  /// `FUNCTION` calls and other functions. The parser refuses every other form where it reads
  /// it, naming its column; one met here is refused without one.
  private init(converting expression: QueryExpression) throws(MappingModelError) {
    switch expression {
    case .constant(let value):
      if let constant = MappingConstant(value) {
        self = .constant(constant)
        return
      }
    case .variable(let name):
      self = .variable(name)
      return
    case .keyPathFrom(let base, let path):
      let converted = try Self(converting: base)
      if case .keyPath(let inner, let first) = converted {
        self = .keyPath(inner, first + "." + path)
      } else {
        self = .keyPath(converted, path)
      }
      return
    case .function("FUNCTION", let arguments):
      guard arguments.count >= 2, case .constant(.string(let selector)) = arguments[1] else {
        break
      }
      self = .function(
        receiver: try Self(converting: arguments[0]), selector: selector,
        arguments: try Self.converting(arguments.dropFirst(2)))
      return
    case .function(let name, let arguments):
      self = .builtin(name, arguments: try Self.converting(arguments))
      return
    case .evaluatedObject, .keyPath, .aggregate, .subquery, .conditional:
      break
    }
    throw MappingModelError.syntax(QueryError.notMappable(expression, column: nil))
  }

  /// The mapping expressions of `expressions`, in order.
  private static func converting(_ expressions: some Collection<QueryExpression>)
    throws(MappingModelError) -> [MappingExpression]
  {
    var converted: [MappingExpression] = []
    converted.reserveCapacity(expressions.count)
    for expression in expressions {
      converted.append(try MappingExpression(converting: expression))
    }
    return converted
  }
}

extension MappingConstant {
  /// The mapping constant of a FolioQuery constant: nil, a string, an integer, a double, a
  /// Boolean, or a date as its seconds since 2001; `nil` for a constant of another type.
  fileprivate init?(_ value: QueryValue) {
    switch value {
    case .null: self = .null
    case .string(let text): self = .string(text)
    case .integer(let number): self = .integer(Int64(number))
    case .double(let number): self = .double(number)
    case .boolean(let flag): self = .boolean(flag)
    case .date(let date): self = .date(date.timeIntervalSinceReferenceDate)
    case .decimal, .binaryData, .uuid, .uri, .object: return nil
    }
  }
}
