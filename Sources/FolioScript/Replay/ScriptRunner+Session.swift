import Folio
import Foundation

/// An interactive session: commands run one at a time, as a user types them, each in the state
/// the ones before left.
///
/// ```swift
/// let runner = ScriptRunner(formats: [XMLStore()])
/// runner.beginSession(in: "Samples/Expenses")
/// for line in ["model Expenses.xcdatamodeld", "open Expenses.xml", "undo"] {
///   for command in try Script(parsing: line, file: "<stdin>").commands {
///     try runner.perform(command)
///   }
/// }
/// ```
extension ScriptRunner {
  /// Starts a session from an empty state, relative paths starting in `folder`.
  public func beginSession(in folder: String) {
    let path = URL(fileURLWithPath: folder).appendingPathComponent("session").path
    startSession(file: path)
  }

  /// Uses `model` as if a `model` command had loaded it, for a store whose model was inferred
  /// or read from the file itself.
  public func use(_ model: ManagedObjectModel) {
    useModel(model)
  }

  /// Uses `model` as ``use(_:)`` does, and refuses every save, saying `reason`, when the model
  /// is one the store could not give whole (inferred from a SQLite store's tables): saving
  /// would write its guesses into the file.
  public func use(_ model: ManagedObjectModel, refusingSavesBecause reason: String?) {
    useModel(model)
    saveRefusal = reason
  }

  /// Runs `command` in the state the session's commands left. A failed command changes
  /// nothing after its failure, and an `expect error` next checks it, as in a script.
  ///
  /// - Throws: What the command throws, as ``run(_:)`` reports it.
  public func perform(_ command: ScriptCommand) throws(ScriptError) {
    try performInSession(command)
  }

  /// The current context's undo and redo stacks with their action names, oldest first, and
  /// where the document was last saved, as `folio replay --trace` shows them; `nil` without a
  /// document.
  public var undoHistoryLine: String? {
    undoTrace?.trimmingCharacters(in: .whitespaces)
  }
}
