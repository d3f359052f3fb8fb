import Folio

/// Reads a script's text into commands, one line at a time.
///
/// The language is line-based: a command never spans lines, so a line that does not parse
/// spoils only itself. It becomes a ``ScriptCommand/Kind/invalid(_:)`` command, and ``Script``
/// decides whether the script may still run (only when `expect error syntax` follows it).
/// Each line is read by recursive descent over the tokens the ``Lexer`` hands out on demand.
struct Parser {
  /// Every command name, for suggestions.
  static let commandNames = ScriptCommand.Name.allCases.map(\.rawValue)

  /// How deeply lists may nest: `[[1]]` is two levels. Reading, comparing and printing values
  /// recurse once per level, and a few thousand levels overflow the stack.
  static let maximumListDepth = 32

  /// The most UTF-8 bytes in one line (its line break not counted): 1 MiB. A longer line is a
  /// syntax error at its first byte past the limit, and is not read further.
  static let maximumLineBytes = 1 << 20

  private var lexer: Lexer
  private var lookahead: Token?
  /// How many lists enclose the value being read.
  private var listDepth = 0

  private init(lexer: Lexer) { self.lexer = lexer }

  /// The commands of `text`, one per line that is not blank or a comment.
  static func commands(in text: String, file: String) -> [ScriptCommand] {
    var commands: [ScriptCommand] = []
    var scalars = Array(text.unicodeScalars)
    if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
    let lines = scalars.split(separator: "\n", omittingEmptySubsequences: false)
    for (index, rawLine) in lines.enumerated() {
      let line = rawLine.last == "\r" ? rawLine.dropLast() : rawLine
      if line.count > maximumLineBytes / 4, let overlong = overlong(line, file: file, index) {
        commands.append(overlong)
        continue
      }
      var parser = Parser(lexer: Lexer(Array(line), file: file, line: index + 1))
      if let command = parser.command() { commands.append(command) }
    }
    return commands
  }

  /// An invalid command for `line` (number `index + 1`) when it is longer than
  /// ``maximumLineBytes``.
  private static func overlong(_ line: ArraySlice<Unicode.Scalar>, file: String, _ index: Int)
    -> ScriptCommand?
  {
    var bytes = 0
    for (offset, scalar) in line.enumerated() {
      bytes += UTF8.width(scalar)
      guard bytes > maximumLineBytes else { continue }
      let location = InputLocation(file: file, line: index + 1, column: offset + 1)
      let error = ScriptError(
        .syntax, "the line is longer than the limit of \(maximumLineBytes) bytes", at: location)
      let first = line.prefix(40).map(Character.init)
      return ScriptCommand(
        .invalid(error.syntax), at: InputLocation(file: file, line: index + 1, column: 1),
        text: String(first) + "…")
    }
    return nil
  }

  // MARK: Commands

  /// The line's command, an invalid command for a syntax error, or `nil` for a blank line.
  private mutating func command() -> ScriptCommand? {
    let start: Token
    do {
      start = try next()
    } catch {
      let first = lexer.scalars.firstIndex { !Lexer.isSpace($0) } ?? 0
      let text = lexer.text(from: first, to: lexer.scalars.count)
      return ScriptCommand(.invalid(error.syntax), at: lexer.location(first), text: text)
    }
    if start.kind == .end { return nil }
    do throws(ScriptError) {
      guard case .word(let name) = start.kind else {
        throw ScriptError.expected("a command", found: start.found, at: location(of: start))
      }
      let kind = try command(named: name, at: start)
      let end = try next()
      guard end.kind == .end else {
        throw ScriptError.expected("the end of the line", found: end.found, at: location(of: end))
      }
      return ScriptCommand(
        kind, at: location(of: start), text: lexer.text(from: start.start, to: end.start))
    } catch {
      let text = lexer.text(from: start.start, to: lexer.scalars.count)
      return ScriptCommand(.invalid(error.syntax), at: location(of: start), text: text)
    }
  }

  private mutating func command(named name: String, at token: Token) throws(ScriptError)
    -> ScriptCommand.Kind
  {
    guard let command = ScriptCommand.Name(rawValue: name) else {
      throw ScriptError.unknownCommand(name, known: Self.commandNames, at: location(of: token))
    }
    switch command {
    case .model: return .model(path: try path(required: true) ?? "")
    case .new: return .new
    case .insert:
      let entity = try word("an entity name")
      let variable = try variable()
      var assignments: [Assignment] = []
      while try peek().kind != .end {
        let key = try key()
        try symbol("=", "\"=\" after \"\(key)\"")
        assignments.append(Assignment(key: key, value: try value()))
      }
      return .insert(entity: entity, variable: variable, assignments: assignments)
    case .set:
      let (variable, key) = try variableKey()
      try symbol("=", "\"=\"")
      return .set(variable: variable, key: key, value: try value())
    case .add:
      let (variable, key) = try variableKey()
      return .add(variable: variable, key: key, value: try value())
    case .remove:
      let (variable, key) = try variableKey()
      return .remove(variable: variable, key: key, value: try value())
    case .delete: return .delete(variable: try variable())
    case .validate: return .validate
    case .process: return .process
    case .expect: return .expect(try expression(isExpect: true))
    case .print: return .print(try expression(isExpect: false))
    case .dump: return .dump
    case .turn: return .turn
    case .begin:
      if try peek().kind == .end { return .begin(name: nil) }
      return .begin(name: try string("an undo action name"))
    case .end: return .end
    case .name: return .name(try string("an undo action name"))
    case .undo: return .undo
    case .redo: return .redo
    case .undoNested: return .undoNested
    case .levels: return .levels(try count("a number of levels (0 or more)"))
    case .disable: return .disable
    case .enable: return .enable
    case .groupsByEvent:
      let token = try next()
      switch token.kind {
      case .word("on"): return .groupsByEvent(true)
      case .word("off"): return .groupsByEvent(false)
      default:
        throw ScriptError.expected("\"on\" or \"off\"", found: token.found, at: location(of: token))
      }
    case .rollback: return .rollback
    case .reset: return .reset
    case .refresh:
      let variable = try variable()
      if try peek().kind == .word("merge") {
        _ = try next()
        return .refresh(variable: variable, merge: true)
      }
      return .refresh(variable: variable, merge: false)
    case .refreshAll: return .refreshAll
    case .open: return .open(path: try path(required: true) ?? "")
    case .save: return .save(path: try path(required: false))
    case .close: return .close
    case .fetch: return .fetch(try fetch())
    case .context: return .context(name: try word("a context name"))
    case .child: return .child(name: try word("a context name"))
    case .mergePolicy:
      let token = try next()
      guard case .word(let name) = token.kind else {
        throw ScriptError.expected(
          "a merge policy", found: token.found, at: location(of: token))
      }
      guard let policy = MergePolicy(scriptName: name) else {
        throw ScriptError.unknownMergePolicy(name, at: location(of: token))
      }
      return .mergePolicy(policy)
    case .copy: return .copy(variables: try variables(allowingAs: false).objects)
    case .paste: return .paste(variable: try binding())
    case .duplicate:
      let (objects, variable) = try variables(allowingAs: true)
      return .duplicate(variables: objects, variable: variable)
    }
  }

  /// One or more `$variable`s, then `as $var` when `allowingAs`.
  private mutating func variables(allowingAs: Bool) throws(ScriptError) -> (
    objects: [String], variable: String?
  ) {
    var objects = [try variable()]
    while case .variable = try peek().kind { objects.append(try variable()) }
    guard allowingAs else { return (objects, nil) }
    return (objects, try binding())
  }

  /// `as $var`, or `nil` at the end of the line.
  private mutating func binding() throws(ScriptError) -> String? {
    let token = try peek()
    switch token.kind {
    case .end: return nil
    case .word("as"):
      _ = try next()
      return try variable()
    default:
      throw ScriptError.expected(
        "\"as\" or the end of the line", found: token.found, at: location(of: token))
    }
  }

  private mutating func fetch() throws(ScriptError) -> ScriptFetch {
    var fetch = ScriptFetch(entity: try word("an entity name"))
    // Clauses in their order: where, group-by, having, keys, sort…, limit, as.
    let clauses = ["where", "group-by", "having", "keys", "sort", "limit", "as"]
    // The index of the last clause read.
    var stage = -1
    while true {
      let token = try peek()
      let clause: Int?
      if case .word(let word) = token.kind, let index = clauses.firstIndex(of: word),
        index > stage || (index == stage && word == "sort"),
        word != "having" || fetch.groupBy != nil
      {
        clause = index
      } else {
        clause = nil
      }
      switch clause {
      case 0?:
        _ = try next()
        fetch.predicate = try string("a predicate in quotes")
      case 1?:
        _ = try next()
        fetch.groupBy = try string("keys to group by in quotes")
      case 2?:
        _ = try next()
        fetch.having = try string("a predicate in quotes")
      case 3?:
        _ = try next()
        fetch.keys = try string("keys in quotes")
      case 4?:
        _ = try next()
        let key = try word("a key to sort by")
        let direction = try next()
        switch direction.kind {
        case .word("asc"): fetch.sorts.append(ScriptFetch.Sort(keyPath: key, isAscending: true))
        case .word("desc"): fetch.sorts.append(ScriptFetch.Sort(keyPath: key, isAscending: false))
        default:
          throw ScriptError.expected(
            "\"asc\" or \"desc\"", found: direction.found, at: location(of: direction))
        }
      case 5?:
        _ = try next()
        fetch.limit = try count("a limit (0 or more)")
      case 6?:
        guard !fetch.printsRows else {
          throw ScriptError.expected(
            "the end of the line (a fetch with group-by or keys prints rows and binds no"
              + " object)", found: token.found, at: location(of: token))
        }
        _ = try next()
        fetch.variable = try variable()
      default:
        guard token.kind == .end else {
          let allowed = clauses.indices.filter { index in
            index > stage || (index == stage && clauses[index] == "sort")
          }.map { clauses[$0] }.filter { $0 != "having" || fetch.groupBy != nil }
          let words = allowed.map { "\"\($0)\"" }.joined(separator: ", ")
          throw ScriptError.expected(
            words.isEmpty ? "the end of the line" : "\(words) or the end of the line",
            found: token.found, at: location(of: token))
        }
        return fetch
      }
      stage = clause ?? stage
    }
  }

  // MARK: Expressions

  private mutating func expression(isExpect: Bool) throws(ScriptError) -> ScriptExpression {
    let token = try next()
    switch token.kind {
    case .symbol("!"):
      let inner = try next()
      guard let flag = try flag(inner) else {
        throw ScriptError.expected(
          "has-changes, can-undo, can-redo or deleted after \"!\"", found: inner.found,
          at: location(of: inner))
      }
      return .not(flag)
    case .word("error"):
      guard isExpect else { throw ScriptError.errorOnlyAfterExpect(at: location(of: token)) }
      let code = try next()
      guard case .word(let name) = code.kind else {
        throw ScriptError.expected("an error code", found: code.found, at: location(of: code))
      }
      guard ScriptError.knownNames.contains(name) else {
        throw ScriptError.unknownErrorCode(name, at: location(of: code))
      }
      return .error(code: name)
    default:
      if let flag = try flag(token) { return flag }
    }
    let operand: ScriptExpression
    switch token.kind {
    case .variable(let name, let path):
      operand = .keyPath(variable: name, path: path.isEmpty ? nil : path.joined(separator: "."))
    case .word("count"):
      let entity = try word("an entity name")
      var predicate: String?
      if try peek().kind == .word("where") {
        _ = try next()
        predicate = try string("a predicate in quotes")
      }
      operand = .count(entity: entity, predicate: predicate)
    case .word("undo-name"): operand = .undoName
    case .word("redo-name"): operand = .redoName
    case .word("grouping-level"): operand = .groupingLevel
    case .word("context"): operand = .context
    default:
      throw ScriptError.expected(
        isExpect ? "an expression to check" : "an expression to print", found: token.found,
        at: location(of: token))
    }
    let operation = try peek()
    guard case .symbol(let symbol) = operation.kind,
      let comparison = ComparisonOperator(rawValue: symbol)
    else {
      if !isExpect { return operand }
      throw ScriptError.expected(
        "a comparison (==, !=, <, <=, >, >=)", found: operation.found,
        at: location(of: operation))
    }
    _ = try next()
    return .comparison(operand, comparison, try value())
  }

  /// `has-changes`, `can-undo`, `can-redo` or `deleted $var`, or `nil` for another token.
  private mutating func flag(_ token: Token) throws(ScriptError) -> ScriptExpression? {
    switch token.kind {
    case .word("has-changes"): return .hasChanges
    case .word("can-undo"): return .canUndo
    case .word("can-redo"): return .canRedo
    case .word("deleted"): return .deleted(variable: try variable())
    default: return nil
    }
  }

  // MARK: Values

  private mutating func value() throws(ScriptError) -> ScriptValue {
    let token = try next()
    switch token.kind {
    case .string(let text): return .string(text)
    case .integer(let number): return .integer(number)
    case .decimal(let number): return .decimal(number)
    case .date(let date): return .date(date)
    case .uuid(let uuid): return .uuid(uuid)
    case .data(let data): return .data(data)
    case .word("true"): return .boolean(true)
    case .word("false"): return .boolean(false)
    case .word("nil"): return .null
    case .variable(let name, let path) where path.isEmpty: return .variable(name)
    case .symbol("["):
      guard listDepth < Self.maximumListDepth else {
        throw ScriptError.listTooDeep(Self.maximumListDepth, at: location(of: token))
      }
      listDepth += 1
      defer { listDepth -= 1 }
      var values: [ScriptValue] = []
      if try peek().kind == .symbol("]") {
        _ = try next()
        return .list(values)
      }
      while true {
        values.append(try value())
        let separator = try next()
        switch separator.kind {
        case .symbol(","): continue
        case .symbol("]"): return .list(values)
        default:
          throw ScriptError.expected(
            "\",\" or \"]\"", found: separator.found, at: location(of: separator))
        }
      }
    default:
      throw ScriptError.expected("a value", found: token.found, at: location(of: token))
    }
  }

  // MARK: Pieces

  private mutating func word(_ what: String) throws(ScriptError) -> String {
    let token = try next()
    guard case .word(let name) = token.kind else {
      throw ScriptError.expected(what, found: token.found, at: location(of: token))
    }
    return name
  }

  /// A property name: a word without dots.
  private mutating func key() throws(ScriptError) -> String {
    let token = try next()
    guard case .word(let name) = token.kind, !name.contains(".") else {
      throw ScriptError.expected("key=value", found: token.found, at: location(of: token))
    }
    return name
  }

  /// `$name`, without a key path.
  private mutating func variable() throws(ScriptError) -> String {
    let token = try next()
    guard case .variable(let name, let path) = token.kind, path.isEmpty else {
      throw ScriptError.expected("a $variable", found: token.found, at: location(of: token))
    }
    return name
  }

  /// `$name.key`: one key, not a key path or an operator.
  private mutating func variableKey() throws(ScriptError) -> (String, String) {
    let token = try next()
    guard case .variable(let name, let path) = token.kind, path.count == 1,
      let key = path.first, !key.hasPrefix("@")
    else {
      throw ScriptError.expected("$variable.key", found: token.found, at: location(of: token))
    }
    return (name, key)
  }

  private mutating func string(_ what: String) throws(ScriptError) -> String {
    let token = try next()
    guard case .string(let text) = token.kind else {
      throw ScriptError.expected(what, found: token.found, at: location(of: token))
    }
    return text
  }

  private mutating func count(_ what: String) throws(ScriptError) -> Int {
    let token = try next()
    guard case .integer(let number) = token.kind, number >= 0, let count = Int(exactly: number)
    else { throw ScriptError.expected(what, found: token.found, at: location(of: token)) }
    return count
  }

  private mutating func symbol(_ symbol: String, _ what: String) throws(ScriptError) {
    let token = try next()
    guard token.kind == .symbol(symbol) else {
      throw ScriptError.expected(what, found: token.found, at: location(of: token))
    }
  }

  private mutating func path(required: Bool) throws(ScriptError) -> String? {
    precondition(lookahead == nil, "a path is read right after its command")
    let token = try lexer.nextPath()
    switch token.kind {
    case .string(let text), .path(let text):
      return text
    default:
      guard required else { return nil }
      throw ScriptError.expected("a path", found: token.found, at: location(of: token))
    }
  }

  // MARK: Tokens

  private mutating func next() throws(ScriptError) -> Token {
    if let token = lookahead {
      lookahead = nil
      return token
    }
    return try lexer.next()
  }

  private mutating func peek() throws(ScriptError) -> Token {
    if let token = lookahead { return token }
    let token = try lexer.next()
    lookahead = token
    return token
  }

  private func location(of token: Token) -> InputLocation { lexer.location(token.start) }
}
