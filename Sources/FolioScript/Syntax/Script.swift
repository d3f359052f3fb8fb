import Folio
import Foundation

/// A parsed undo script: its commands, and the file they came from.
///
/// ```swift
/// let script = try Script(contentsOfFile: "Samples/Expenses/cascade.undo")
/// try ScriptRunner().run(script)
/// ```
public struct Script: Sendable {
  /// The script's path as the user gave it; errors name it.
  public var file: String
  /// The commands, one per line that is not blank or a comment.
  public var commands: [ScriptCommand]

  /// Parses `text`; `file` names the script in errors, and its folder is where relative paths
  /// in the script start.
  ///
  /// A line that does not parse is kept as a ``ScriptCommand/Kind/invalid(_:)`` command when
  /// `expect error syntax` follows it; otherwise the first such line is reported before
  /// anything runs.
  ///
  /// - Throws: `ScriptError.Code.syntax`, located at `file:line:column`.
  public init(parsing text: String, file: String) throws(ScriptError) {
    let commands = Parser.commands(in: text, file: file)
    for (index, command) in commands.enumerated() {
      guard case .invalid(let syntax) = command.kind else { continue }
      let next = commands.indices.contains(index + 1) ? commands[index + 1].kind : nil
      guard next == .expect(.error(code: ScriptError.Code.syntax.rawValue)) else {
        throw syntax.error
      }
    }
    self.file = file
    self.commands = commands
  }

  /// Reads and parses the script at `path`.
  ///
  /// - Throws: `ScriptError.Code.io` when the file cannot be read or is not UTF-8, `.syntax`.
  public init(contentsOfFile path: String) throws(ScriptError) {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw ScriptError.fileNotFound(path)
    }
    guard !isDirectory.boolValue else { throw ScriptError.isFolder(path) }
    let data: Data
    do {
      data = try Data(contentsOfFile: URL(fileURLWithPath: path))
    } catch {
      throw ScriptError.unreadable(path, reason: error.localizedDescription)
    }
    guard let text = String(data: data, encoding: .utf8) else { throw ScriptError.notUTF8(path) }
    try self.init(parsing: text, file: path)
  }

  /// `path` as seen from the current directory: relative paths start in the script's folder.
  public func resolve(_ path: String) -> String {
    guard !path.hasPrefix("/"), let slash = file.lastIndex(of: "/") else { return path }
    return String(file[...slash]) + path
  }
}
