import ArgumentParser
import Foundation

/// A command that could not do its work for a reason that is not the command line's: a file
/// that exists, a key a store does not have. One line on standard error, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// An option's value that does not parse, said where (a predicate's column): one line on
/// standard error, exit status 64 (bad usage), without the usage block, which would not show
/// what is wrong inside the value.
struct ArgumentValueError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// How `folio` reports an error: which text goes where, and the exit status. The rules are
/// the same for every command:
///
/// - a command line of the wrong shape (a missing argument, an unknown option or command,
///   options that exclude each other; `ValidationError`): the message, the command's usage
///   (`Usage: folio …`) and where help is, on standard error; status 64;
/// - a value inside an option that does not parse (`ArgumentValueError`): one line; 64;
/// - anything else (a file, a store, a model that is wrong, a refusal): one line naming the
///   place; 1;
/// - `--help` and `--version`: on standard output; 0, or 1 when it cannot be written.
enum ErrorReport {
  /// The text and status for `error`, which `command` (a subcommand of `folio`, or `folio`)
  /// threw.
  static func report(_ error: any Error, of command: any ParsableCommand.Type) -> (
    text: String, status: Int32, toStandardOutput: Bool
  ) {
    switch error {
    case let value as ArgumentValueError:
      return ("Error: \(value.description)", ExitCode.validationFailure.rawValue, false)
    case let failure as CommandFailure:
      return ("Error: \(failure.description)", ExitCode.failure.rawValue, false)
    case let validation as ValidationError:
      // Thrown by `run()`, after parsing: the usage is the subcommand's, named from the root.
      let usage = FolioCommand.usageString(for: command)
      let name = commandName(of: command)
      let text =
        "Error: \(validation.message)\nUsage: \(usage)\n  See '\(name) --help' for more information."
      return (text, ExitCode.validationFailure.rawValue, false)
    default:
      let status = FolioCommand.exitCode(for: error).rawValue
      let text = FolioCommand.fullMessage(for: error)
      return (text, status, status == 0)
    }
  }

  /// `folio` and the names of the subcommands down to `command`: `folio model info`.
  static func commandName(of command: any ParsableCommand.Type) -> String {
    func path(
      to target: any ParsableCommand.Type, from node: any ParsableCommand.Type
    ) -> [String]? {
      let name = node.configuration.commandName ?? String(describing: node).lowercased()
      if ObjectIdentifier(node) == ObjectIdentifier(target) { return [name] }
      for child in node.configuration.subcommands {
        if let rest = path(to: target, from: child) { return [name] + rest }
      }
      return nil
    }
    return path(to: command, from: FolioCommand.self)?.joined(separator: " ") ?? "folio"
  }
}

/// A command line whose command is not one of `folio`'s (`folio inof`, `folio model ifno`):
/// reported with the closest command, as git does, before anything is parsed.
struct UnknownCommand {
  let message: String

  /// `nil` when `arguments` name commands `folio` has, down to the first argument that is an
  /// option or an operand.
  init?(_ arguments: [String]) {
    var node: any ParsableCommand.Type = FolioCommand.self
    for argument in arguments {
      let children = node.configuration.subcommands
      guard !children.isEmpty, !argument.hasPrefix("-") else { return nil }
      let names = children.map(Self.name) + ["help"]
      guard let next = children.first(where: { Self.name($0) == argument }) else {
        if argument == "help" { return nil }
        let parent = ErrorReport.commandName(of: node)
        var text = "Error: '\(argument)' is not a \(parent) command"
        if let closest = Self.closest(to: argument, among: names) {
          text += " (did you mean '\(closest)'?)"
        }
        text += "\nUsage: \(FolioCommand.usageString(for: node))"
        text += "\n  See '\(parent) --help' for the commands."
        message = text
        return
      }
      node = next
    }
    return nil
  }

  static func name(_ command: any ParsableCommand.Type) -> String {
    command.configuration.commandName ?? String(describing: command).lowercased()
  }

  /// The name among `names` nearest `word` by edit distance (a swap of neighbours counting
  /// one), when it is near enough to be a typo: at most a third of the word's letters.
  static func closest(to word: String, among names: [String]) -> String? {
    let scored = names.map { (name: $0, distance: distance(word.lowercased(), $0)) }
    guard let best = scored.min(by: { $0.distance < $1.distance }),
      best.distance <= max(1, word.count / 3)
    else { return nil }
    return best.name
  }

  /// The optimal string alignment distance between `a` and `b`.
  static func distance(_ a: String, _ b: String) -> Int {
    let x = Array(a)
    let y = Array(b)
    guard !x.isEmpty else { return y.count }
    guard !y.isEmpty else { return x.count }
    var table = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
    for i in 0...x.count { table[i][0] = i }
    for j in 0...y.count { table[0][j] = j }
    for i in 1...x.count {
      for j in 1...y.count {
        let cost = x[i - 1] == y[j - 1] ? 0 : 1
        table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
        if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
          table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
        }
      }
    }
    return table[x.count][y.count]
  }
}
