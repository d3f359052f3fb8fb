import FolioModel

/// An error migrating a store: a step no mapping covers, a value the destination model refuses,
/// a cancellation, or a store that could not be read or written.
///
/// ``location`` names the place: the entity and property of the change or value concerned,
/// the store file, or the mapping model.
public typealias MigrationError = CodedError<MigrationErrorCode>

/// What went wrong in a `MigrationError`, to switch on: `MigrationError.Code`.
public struct MigrationErrorCode: Hashable, Sendable, CustomStringConvertible {
  /// A change between two versions that a lightweight migration cannot make, and no mapping
  /// model was given for the step.
  public static let needsMapping = MigrationErrorCode(.needsMapping)
  /// The store's version, or the version asked for, is not in the model bundle.
  public static let unknownVersion = MigrationErrorCode(.unknownVersion)
  /// A mapping model that does not fit the models of its step: an entity or property it
  /// names is not there, or an expression it cannot evaluate.
  public static let invalidMapping = MigrationErrorCode(.invalidMapping)
  /// A migrated object whose value the destination model refuses: a required value missing,
  /// a value of the wrong type, two objects on a to-one.
  public static let invalidValue = MigrationErrorCode(.invalidValue)
  /// A mapping names a migration policy no type is registered for.
  public static let missingPolicy = MigrationErrorCode(.missingPolicy)
  /// A migration policy failed; its error is the cause.
  public static let policyFailed = MigrationErrorCode(.policyFailed)
  /// The migration was cancelled; nothing was written.
  public static let cancelled = MigrationErrorCode(.cancelled)
  /// The store could not be read or written; the store error is the cause, and the original
  /// file is intact.
  public static let storeFailed = MigrationErrorCode(.storeFailed)

  private enum Kind: Hashable, Sendable {
    case needsMapping, unknownVersion, invalidMapping, invalidValue, missingPolicy,
      policyFailed, cancelled, storeFailed
  }

  private var kind: Kind

  private init(_ kind: Kind) { self.kind = kind }

  /// The member's name: `needsMapping`.
  public var description: String { "\(kind)" }
}
