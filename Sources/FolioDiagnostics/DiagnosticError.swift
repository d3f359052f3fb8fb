/// What Folio's errors about input have in common: a code to switch on, one sentence, the
/// place in the input, and the error that caused this one.
///
/// Every Folio error conforms: ``CodedError`` (so `ModelError`, `StoreError` and
/// `QueryError`), `GraphError`, `ScriptError` and `UndoError` (which has no location and no
/// cause). Each module has its own `Code`: a struct whose values are static members over a
/// private enum, so a module can add a code without breaking a client's `switch` (which needs
/// a `default`). Each prints ``locatedMessage``, and adds its own lines below it where it has
/// more to say (a graph error's validation failures, a script error's details).
///
/// This module depends on nothing, so that `FolioUndo`, which an editor can use alone, shares
/// the kernel without depending on the model.
package protocol DiagnosticError: Error, Sendable, CustomStringConvertible {
  /// The module's code type: a struct over a private enum, printed as the member's name.
  associatedtype Code: Hashable, Sendable, CustomStringConvertible

  /// What went wrong, to switch on.
  var code: Code { get }
  /// One sentence: what was expected and what was found.
  var message: String { get }
  /// Where the bad input is.
  var location: InputLocation? { get }
  /// The error that caused this one, if any.
  var underlying: (any Error & Sendable)? { get }
}

extension DiagnosticError {
  /// `location: message`, or the message alone when there is no location or it prints empty.
  package var locatedMessage: String {
    guard let location, !location.description.isEmpty else { return message }
    return "\(location): \(message)"
  }

  /// ``locatedMessage``; a conforming type with more to say defines its own, starting with it.
  public var description: String { locatedMessage }
}
