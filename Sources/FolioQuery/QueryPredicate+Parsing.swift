import FolioModel
import Foundation

// The grammar, loosest binding first, as Core Data's NSPredicate reads it:
//
//   predicate   := and ( (OR | ||) and )*
//   and         := unary ( (AND | &&) unary )*
//   unary       := (NOT | !) unary | '(' predicate ')' | TRUEPREDICATE | FALSEPREDICATE
//                | [ANY | ALL | NONE | SOME] expression operator ['[' c|d|cd ']'] expression
//   expression  := constant | key.path.@op.key | SELF | $var | %@ | %K | %d, %lld, %f…
//                | '{' expression, … '}' | SUBQUERY(expression, $var, predicate)
//                | CAST(constant, "NSDate")            (a constant: no key path may follow)
//
// There is no arithmetic, so an opening parenthesis always starts a nested predicate. `NONE`
// becomes `NOT ANY` and `SOME` becomes `ANY`, as in Core Data, so they print back that way.

extension QueryPredicate {
  /// Parses a predicate in Core Data's format syntax, filling its placeholders from
  /// `arguments` in order.
  ///
  /// Keywords are case-insensitive; a key that is spelled like a keyword is escaped with `#`
  /// (`#in`). Strings take single or double quotes and the escapes `\"`, `\'`, `\\`, `\n`,
  /// `\t`, `\r`, `\0` and `\uXXXX`. `%@` takes a constant, an object (compared by identity),
  /// or an array or set of constants (a `{…}` list); `%K` takes a key path string, also as a
  /// step of one (`%K.%K`, `$x.%K`); the numeric specifiers take numbers, in the range their
  /// length modifier states (`%d` 32 bits, `%ld` and `%lld` 64, `%hd` 16, `%u` unsigned;
  /// `%f`, `%lf`, `%e`, `%g` any number). A placeholder in quotes (`'%@'`) is text. Leave
  /// `$VARIABLE`s for ``withSubstitutionVariables(_:)`` or pass them to
  /// ``evaluate(with:variables:)``.
  ///
  /// ```swift
  /// let predicate = try QueryPredicate(
  ///   format: "%K BEGINSWITH[cd] %@ AND ANY spendings.amount > %f", arguments: ["name", "ce", 9.5])
  /// ```
  ///
  /// Arguments beyond the placeholders are passed over, as Apple's parser passes over them;
  /// ``parse(format:arguments:)`` says so.
  ///
  /// - Throws: `QueryError.syntax` naming the column and what was expected;
  ///   `.missingArgument` and `.invalidArgument` for placeholders.
  public init(format: String, arguments: [Any?] = []) throws(QueryError) {
    self = try Self.parse(format: format, arguments: arguments).predicate
  }

  /// Parses a predicate as ``init(format:arguments:)`` does, and says what it passed over:
  /// `.unusedArgument` when `arguments` has more values than the format has placeholders.
  ///
  /// - Throws: see ``init(format:arguments:)``.
  public static func parse(format: String, arguments: [Any?] = []) throws(QueryError)
    -> (predicate: QueryPredicate, warnings: [QueryError])
  {
    guard format.utf8.count <= Self.maximumFormatBytes else {
      throw QueryError.tooLong(format, limit: Self.maximumFormatBytes)
    }
    var parser = PredicateParser(
      tokens: try PredicateLexer.tokens(of: format), source: Array(format), arguments: arguments)
    let predicate = try parser.parseWhole()
    return (predicate, parser.warnings)
  }

  /// Parses a predicate in Core Data's format syntax with variadic arguments.
  ///
  /// - Throws: see ``init(format:arguments:)``.
  public init(format: String, _ arguments: Any?...) throws(QueryError) {
    try self.init(format: format, arguments: arguments)
  }
}

extension QueryPredicate {
  /// The most UTF-8 bytes in a format string: 1 MiB. A longer one is refused before it is
  /// read, naming the column of its first character past the limit.
  public static let maximumFormatBytes = 1 << 20
}

extension QueryExpression {
  /// Parses an expression in Core Data's format syntax, as `NSExpression(format:)` does: a
  /// key path, a constant, arithmetic, a function (`sum:(spendings.amount) / 2`), filling its
  /// placeholders from `arguments` in order, as ``QueryPredicate/init(format:arguments:)``
  /// fills a predicate's. Arguments beyond the placeholders are passed over.
  ///
  /// - Throws: `QueryError.syntax` naming the column and what was expected;
  ///   `.missingArgument` and `.invalidArgument` for placeholders.
  public init(format: String, arguments: [Any?] = []) throws(QueryError) {
    guard format.utf8.count <= QueryPredicate.maximumFormatBytes else {
      throw QueryError.tooLong(format, limit: QueryPredicate.maximumFormatBytes)
    }
    var parser = PredicateParser(
      tokens: try PredicateLexer.tokens(of: format), source: Array(format), arguments: arguments)
    self = try parser.parseWholeExpression()
  }

  /// Parses an expression with variadic arguments.
  ///
  /// - Throws: see ``init(format:arguments:)``.
  public init(format: String, _ arguments: Any?...) throws(QueryError) {
    try self.init(format: format, arguments: arguments)
  }
}

extension QueryExpression {
  /// The expressions of a comma-separated list, as `folio query --keys` and undo scripts'
  /// `keys` write them: `person.name, total=sum:(amount), amount * 2`. Each item is an
  /// expression, perhaps named by `NAME=` before it (a name, then `=` that does not start
  /// `==`); commas inside parentheses, braces, brackets and quotes do not separate.
  ///
  /// - Returns: for each item its name (`nil` without `NAME=`), its text as written (white
  ///   space around it left out) and its expression.
  /// - Throws: `QueryError` for an empty item or one that is not an expression, with columns
  ///   counted in `list`.
  public static func namedList(_ list: String) throws(QueryError)
    -> [(name: String?, text: String, expression: QueryExpression)]
  {
    var items: [(text: Substring, column: Int)] = []
    let characters = Array(list)
    var start = 0
    var depth = 0
    var quote: Character?
    var escaped = false
    for (index, character) in characters.enumerated() {
      if let open = quote {
        if escaped {
          escaped = false
        } else if character == "\\" {
          escaped = true
        } else if character == open {
          quote = nil
        }
      } else if character == "\"" || character == "'" {
        quote = character
      } else if "([{".contains(character) {
        depth += 1
      } else if ")]}".contains(character) {
        depth -= 1
      } else if character == ",", depth == 0 {
        items.append((Substring(String(characters[start..<index])), start))
        start = index + 1
      }
    }
    items.append((Substring(String(characters[start...])), start))
    var result: [(name: String?, text: String, expression: QueryExpression)] = []
    for (item, offset) in items {
      var text = item
      var column = offset + 1
      func skipSpaces() {
        while let first = text.first, first.isWhitespace {
          text = text.dropFirst()
          column += 1
        }
      }
      skipSpaces()
      var name: String?
      if let equals = text.firstIndex(of: "="), text[..<equals].first?.isLetter == true,
        text[..<equals].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
        text[text.index(after: equals)...].first != "="
      {
        name = String(text[..<equals])
        column += text.distance(from: text.startIndex, to: equals) + 1
        text = text[text.index(after: equals)...]
        skipSpaces()
      }
      let format = text.trimmingCharacters(in: .whitespaces)
      guard !format.isEmpty else {
        throw QueryError(
          .syntax, "expected a key or an expression", at: InputLocation(column: column))
      }
      // Parsed behind as many spaces as precede it, so every column an error names (its own
      // and any in its message) is a column of the list.
      let expression = try QueryExpression(
        format: String(repeating: " ", count: column - 1) + format)
      result.append((name, format, expression))
    }
    return result
  }
}
