/// An error with a code to switch on, one sentence, the place in the input and the cause:
/// the error type of the model, store and query modules.
///
/// `ModelError`, `StoreError` and `QueryError` are this type over their module's code
/// (`ModelErrorCode`, `StoreErrorCode`, `QueryErrorCode`, also spelled `ModelError.Code`), so
/// each is a distinct type to `catch` and to declare in `throws(…)`. A code is a struct whose
/// values are static members, so a module can add one without breaking a client's `switch`.
/// `GraphError` and `ScriptError` carry more (validation failures, merge conflicts, detail
/// lines) and are their own types with the same four fields.
///
/// The description is `location: message`, or the message alone when there is no location:
/// `Expenses.xml:12:5: Person.age: "abc" is not an integer`, `column 7: expected a value`.
public struct CodedError<Code: Hashable & Sendable & CustomStringConvertible>: Error, Sendable,
  CustomStringConvertible, DiagnosticError
{
  /// What went wrong, to switch on.
  public var code: Code
  /// One sentence: what was expected and what was found.
  public var message: String
  /// Where the bad input is: a file's line and column or byte offset, a column of a format
  /// string, the entity and property concerned.
  public var location: InputLocation?
  /// The error that caused this one, if any.
  public var underlying: (any Error & Sendable)?

  /// Creates an error; prefer the module's static factories, which word the message.
  public init(
    _ code: Code, _ message: String, at location: InputLocation? = nil,
    underlying: (any Error & Sendable)? = nil
  ) {
    self.code = code
    self.message = message
    self.location = location
    self.underlying = underlying
  }
}
