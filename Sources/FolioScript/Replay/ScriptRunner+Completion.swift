import Folio
import Foundation

/// What Tab completes on a line being typed: the word under the cursor and the words it can
/// become.
///
/// A candidate replaces ``word`` whole. A line editor that finds one candidate puts it in
/// followed by a space, unless the candidate ends in `=`, `.` or `/` — a key waiting for its
/// value, a key path for its next key, a folder for a file in it.
public struct ScriptCompletion: Sendable, Hashable {
  /// The end of the line's text that the candidates replace; empty at the start of a word.
  public var word: String
  /// What the word can become, sorted; empty when nothing fits.
  public var candidates: [String]

  public init(word: String, candidates: [String]) {
    self.word = word
    self.candidates = candidates
  }

  /// Whether a unique candidate is a whole word, to be followed by a space.
  public static func isComplete(_ candidate: String) -> Bool {
    !(candidate.hasSuffix("=") || candidate.hasSuffix(".") || candidate.hasSuffix("/"))
  }

  /// The longest text every candidate starts with.
  public var commonPrefix: String {
    guard var prefix = candidates.first else { return word }
    for candidate in candidates.dropFirst() {
      prefix = String(prefix.commonPrefix(with: candidate))
    }
    return prefix
  }
}

extension ScriptRunner {
  /// The words of the language that can follow `line` — commands, entity names, keys,
  /// variables, key paths, clause words, files — as the session stands: the model and the
  /// variables bound so far.
  ///
  /// `line` is the text before the cursor. Nothing is completed inside a string or a comment.
  ///
  /// ```swift
  /// runner.completions(for: "insert Sp")             // word "Sp", candidates ["Spending"]
  /// runner.completions(for: "set $tea.am")           // candidates ["$tea.amount"]
  /// ```
  ///
  /// - Parameter folder: Where relative paths of `open`, `save` and `model` start.
  public func completions(for line: String, in folder: String = ".") -> ScriptCompletion {
    guard let (words, word) = Self.split(line) else {
      return ScriptCompletion(word: "", candidates: [])
    }
    let candidates = candidates(after: words, word: word, folder: folder)
    return ScriptCompletion(
      word: word, candidates: Array(Set(candidates.filter { $0.hasPrefix(word) })).sorted())
  }

  /// The commands a line can start with: the language's, and the shell's own.
  static let commandNames =
    ScriptCommandHelp.all.map(\.name) + ScriptCommandHelp.shell.map(\.name)

  /// The words an expression of `expect` or `print` can start with.
  static let expressionWords = [
    "count", "has-changes", "deleted", "can-undo", "can-redo", "undo-name", "redo-name",
    "grouping-level", "context", "error", "true", "false", "nil",
  ]

  /// The words before the cursor and the one it is in; `nil` inside a string or a comment.
  static func split(_ line: String) -> (words: [String], word: String)? {
    var words: [String] = []
    var word = ""
    var inString = false
    var escaped = false
    for character in line {
      if inString {
        word.append(character)
        if escaped {
          escaped = false
        } else if character == "\\" {
          escaped = true
        } else if character == "\"" {
          inString = false
        }
        continue
      }
      switch character {
      case "\"":
        inString = true
        word.append(character)
      case "#": return nil
      case _ where character.isWhitespace:
        if !word.isEmpty { words.append(word) }
        word = ""
      default: word.append(character)
      }
    }
    return inString ? nil : (words, word)
  }

  private func candidates(after words: [String], word: String, folder: String) -> [String] {
    if word.hasPrefix("$") { return keyPathCandidates(word, after: words) }
    guard let command = words.first else { return Self.commandNames }
    let position = words.count
    switch ScriptCommand.Name(rawValue: command) {
    case .insert:
      if position == 1 { return entityNames(insertable: true) }
      if position == 2 { return [] }
      return assignmentCandidates(word, entity: model?.entity(named: words[1]))
    case .set:
      if position == 1 { return variableCandidates(then: ".") }
      if position == 2 { return ["="] }
      return valueWords
    case .add, .remove:
      if position == 1 { return variableCandidates(then: ".") }
      return position == 2 ? variableCandidates() : []
    case .delete: return position == 1 ? variableCandidates() : []
    case .refresh:
      if position == 1 { return variableCandidates() }
      return position == 2 ? ["merge"] : []
    case .fetch: return fetchCandidates(after: words)
    case .open, .save, .model: return position == 1 ? fileCandidates(word, in: folder) : []
    case .mergePolicy: return position == 1 ? MergePolicy.allCases.map(\.scriptName) : []
    case .groupsByEvent: return position == 1 ? ["on", "off"] : []
    case .context: return position == 1 ? contexts.map(\.name) : []
    case .expect, .print: return expressionCandidates(after: words)
    case .copy: return variableCandidates()
    case .paste: return position == 1 ? ["as"] : []
    case .duplicate:
      if words.contains("as") { return [] }
      return position == 1 ? variableCandidates() : variableCandidates() + ["as"]
    default: return []
    }
  }

  /// Values a `set` or an assignment can take beside numbers and strings.
  private var valueWords: [String] { ["nil", "true", "false"] + variableCandidates() }

  private func entityNames(insertable: Bool = false) -> [String] {
    (model?.entities ?? []).filter { !insertable || !$0.isAbstract }.map(\.name)
  }

  private func variableCandidates(then suffix: String = "") -> [String] {
    bindingOrder.map { "$\($0)\(suffix)" }
  }

  /// `key=` for each key of `entity`; after `key=`, the values it can take.
  private func assignmentCandidates(_ word: String, entity: EntityDescription?) -> [String] {
    guard let entity else { return [] }
    guard let equals = word.firstIndex(of: "=") else {
      return entity.properties.map { "\($0.name)=" }
    }
    let key = word[..<equals]
    let values: [String] =
      entity.relationship(named: String(key)) != nil
      ? ["nil"] + variableCandidates()
      : entity.attribute(named: String(key))?.attributeType == .boolean
        ? ["true", "false", "nil"] : ["nil"]
    return values.map { "\(key)=\($0)" }
  }

  /// `$var.key…` for the keys of the object at the end of the typed path, or the variables
  /// while no `.` is typed.
  private func keyPathCandidates(_ word: String, after words: [String]) -> [String] {
    let steps = word.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
    guard steps.count > 1 else {
      let takesKey = ["set", "add", "remove"].contains(words.first) && words.count == 1
      return variableCandidates(then: takesKey ? "." : "")
    }
    guard let model, var entity = object(named: String(steps[0]))?.entity else { return [] }
    for step in steps.dropFirst().dropLast() {
      guard let relationship = entity.relationship(named: String(step)),
        let destination = model.destination(of: relationship)
      else { return [] }
      entity = destination
    }
    let stem = word[..<(word.lastIndex(of: ".") ?? word.startIndex)]
    return entity.properties.map { "\(stem).\($0.name)" }
  }

  /// `fetch ENTITY [where STRING] {sort KEY asc|desc} [limit N] [as $var]`.
  private func fetchCandidates(after words: [String]) -> [String] {
    guard words.count > 1 else { return entityNames() }
    let entity = model?.entity(named: words[1])
    let previous = words.last ?? ""
    if words.count >= 3, words[words.count - 2] == "sort" { return ["asc", "desc"] }
    switch previous {
    case "sort": return entity?.properties.map(\.name) ?? []
    case "where", "limit", "as": return []
    default:
      // The clauses come in this order, and only `sort` may repeat.
      let clauses = ["where", "sort", "limit", "as"]
      guard let last = words.last(where: clauses.contains).flatMap(clauses.firstIndex(of:))
      else { return clauses }
      return Array(clauses[(clauses[last] == "sort" ? last : last + 1)...])
    }
  }

  private func expressionCandidates(after words: [String]) -> [String] {
    switch words.last {
    case "count": return entityNames()
    case "deleted": return variableCandidates()
    case let word? where words.count >= 2 && words[words.count - 2] == "count":
      return model?.entity(named: word) != nil ? ["where"] : []
    default:
      return words.count == 1 ? Self.expressionWords + variableCandidates() : valueWords
    }
  }

  /// Files and folders whose path starts with `word`, relative to `folder`; folders end in `/`.
  private func fileCandidates(_ word: String, in folder: String) -> [String] {
    let slash = word.lastIndex(of: "/")
    let typedFolder = slash.map { String(word[...$0]) } ?? ""
    let base =
      typedFolder.hasPrefix("/")
      ? typedFolder : URL(fileURLWithPath: folder).appendingPathComponent(typedFolder).path
    let names = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
    let typedName = slash.map { String(word[word.index(after: $0)...]) } ?? word
    return names.filter { !$0.hasPrefix(".") || typedName.hasPrefix(".") }.map { name in
      var isFolder: ObjCBool = false
      let path = URL(fileURLWithPath: base).appendingPathComponent(name).path
      _ = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
      // A model bundle is a folder, but the commands take it whole.
      let isBundle = name.hasSuffix(".xcdatamodeld") || name.hasSuffix(".xcdatamodel")
      return typedFolder + name + (isFolder.boolValue && !isBundle ? "/" : "")
    }
  }
}
