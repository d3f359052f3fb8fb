import FolioModel

/// An error from the object graph: a bad key or value, an object that is gone, a save refused.
///
/// Validation errors carry every failure of the save or validation that raised them in
/// ``failures``; the others describe one problem, located at `Entity.key`.
public struct GraphError: Error, Sendable, CustomStringConvertible, DiagnosticError {
  /// What went wrong, to switch on.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// No entity of that name in the model.
    public static let unknownEntity = Code(.unknownEntity)
    /// No property of that name on the object's entity.
    public static let unknownKey = Code(.unknownKey)
    /// A value of the wrong type for the property, or out of its type's range.
    public static let typeMismatch = Code(.typeMismatch)
    /// An abstract entity cannot have objects of its own.
    public static let abstractEntity = Code(.abstractEntity)
    /// The object belongs to another context, or was removed from this one.
    public static let notRegistered = Code(.notRegistered)
    /// No object with that ID exists (any more).
    public static let objectNotFound = Code(.objectNotFound)
    /// A derived attribute is computed, never set.
    public static let readOnly = Code(.readOnly)
    /// The objects did not validate; ``GraphError/failures`` lists why.
    public static let validation = Code(.validation)
    /// A Deny delete rule refused the deletion of an object.
    public static let deny = Code(.deny)
    /// A collection operator or key path the graph cannot evaluate.
    public static let invalidKeyPath = Code(.invalidKeyPath)
    /// A fetch's predicate or sort descriptors cannot be evaluated (an operand of the wrong
    /// kind, a bad key path); ``GraphError/underlying`` is the `QueryError`.
    public static let invalidPredicate = Code(.invalidPredicate)
    /// The store could not be written (or read); ``GraphError/underlying`` is the
    /// `StoreError`. A save that fails this way changes nothing.
    public static let store = Code(.store)
    /// A save would overwrite changes another context committed since this one read the
    /// objects, and the merge policy is ``MergePolicy/error``; ``GraphError/conflicts`` lists
    /// them. The save changed nothing, and the context keeps its changes.
    public static let mergeConflict = Code(.mergeConflict)
    /// A class registered for an entity does not fit it: no entity of the class's name,
    /// another class already registered, or class inheritance that does not follow entity
    /// inheritance.
    public static let invalidClass = Code(.invalidClass)
    /// A fetch request that cannot be answered as it asks: a result type its `Result` does
    /// not hold, grouping without dictionary results, a fetched property that is neither
    /// grouped nor aggregated.
    public static let invalidFetchRequest = Code(.invalidFetchRequest)
    /// Data made for another version of the model: a pasteboard whose entity hash differs.
    public static let modelMismatch = Code(.modelMismatch)

    private enum Kind: Hashable, Sendable, CaseIterable {
      case unknownEntity, unknownKey, typeMismatch, abstractEntity, notRegistered, objectNotFound,
        readOnly, validation, deny, invalidKeyPath, invalidPredicate, store, mergeConflict,
        invalidClass, invalidFetchRequest, modelMismatch
    }

    private var kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    /// Every code, in the order of their documentation.
    package static var allCases: [Code] { Kind.allCases.map(Code.init) }

    /// The member's name: `unknownEntity`.
    public var description: String { "\(kind)" }
  }

  /// What went wrong, to switch on.
  public var code: Code
  /// One sentence: what was expected and what was found.
  public var message: String
  /// Where: `Entity.key`, with the object's ID when there is one.
  public var location: InputLocation?
  /// For `.validation` (and `.deny` found at save), every failure, in a stable order.
  public var failures: [ValidationFailure]
  /// For `.mergeConflict`, every conflicting object, in row order.
  public var conflicts: [MergeConflict] = []
  /// The error that caused this one, if any.
  public var underlying: (any Error & Sendable)?

  /// Creates an error; prefer the static factories, which word the message.
  public init(
    _ code: Code, _ message: String, at location: InputLocation? = nil,
    failures: [ValidationFailure] = [], underlying: (any Error & Sendable)? = nil
  ) {
    self.code = code
    self.message = message
    self.location = location
    self.failures = failures
    self.underlying = underlying
  }

  /// `location: message`, then one line per failure and one per conflict.
  public var description: String {
    var text = locatedMessage
    for failure in failures { text += "\n  \(failure)" }
    for conflict in conflicts { text += "\n  \(conflict)" }
    return text
  }
}

extension GraphError {
  package static func unknownEntity(_ name: String, known: [String]) -> GraphError {
    GraphError(
      .unknownEntity,
      "unknown entity \"\(name)\"\(nameSuggestion(for: name, among: known))")
  }

  package static func unknownKey(_ key: String, entity: String, known: [String]) -> GraphError {
    GraphError(
      .unknownKey,
      "\"\(entity)\" has no property \"\(key)\"\(nameSuggestion(for: key, among: known))",
      at: InputLocation(entity: entity, property: key))
  }

  package static func typeMismatch(_ detail: String, entity: String, key: String) -> GraphError {
    GraphError(.typeMismatch, detail, at: InputLocation(entity: entity, property: key))
  }

  package static func abstractEntity(_ name: String) -> GraphError {
    GraphError(
      .abstractEntity, "entity \"\(name)\" is abstract and cannot have objects of its own",
      at: InputLocation(entity: name))
  }

  static func notRegistered(_ entity: String) -> GraphError {
    GraphError(
      .notRegistered, "the \(entity) object does not belong to this context",
      at: InputLocation(entity: entity))
  }

  static func removed(_ entity: String) -> GraphError {
    GraphError(
      .notRegistered, "the \(entity) object is no longer in the graph: it was deleted",
      at: InputLocation(entity: entity))
  }

  package static func readOnly(entity: String, key: String) -> GraphError {
    GraphError(
      .readOnly, "\"\(key)\" is a derived attribute and cannot be set",
      at: InputLocation(entity: entity, property: key))
  }
}
