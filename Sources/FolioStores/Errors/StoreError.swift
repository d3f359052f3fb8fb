import FolioModel

/// An error reading or writing a store: a file that is missing, malformed, corrupted, hostile
/// or written for another model, or a save that could not complete.
///
/// ``location`` names the place: `file:line:column` for XML, `file@offset` for binary files,
/// `Entity.key` for values that do not fit the model.
public typealias StoreError = CodedError<StoreErrorCode>

/// What went wrong in a `StoreError`, to switch on: `StoreError.Code`.
public struct StoreErrorCode: Hashable, Sendable, CustomStringConvertible {
  /// No file at the path.
  public static let notFound = StoreErrorCode(.notFound)
  /// The file exists but could not be read.
  public static let unreadable = StoreErrorCode(.unreadable)
  /// The file is not a store of any format Folio knows.
  public static let unknownFormat = StoreErrorCode(.unknownFormat)
  /// The XML is not well-formed, or declares what a store may not (a foreign DTD, entities).
  public static let malformedXML = StoreErrorCode(.malformedXML)
  /// The file is well-formed but not laid out as its format requires.
  public static let malformedStore = StoreErrorCode(.malformedStore)
  /// A binary file's magic bytes are wrong (often a sign of text-mode transfer).
  public static let badMagic = StoreErrorCode(.badMagic)
  /// A format version this build cannot read.
  public static let unsupportedVersion = StoreErrorCode(.unsupportedVersion)
  /// A checksum does not match: the file is corrupted.
  public static let badChecksum = StoreErrorCode(.badChecksum)
  /// The file ends before its content does.
  public static let truncated = StoreErrorCode(.truncated)
  /// The store was written for a model that does not fit this one.
  public static let modelMismatch = StoreErrorCode(.modelMismatch)
  /// A value does not fit its attribute's type.
  public static let typeMismatch = StoreErrorCode(.typeMismatch)
  /// A record names an object that is not in the store.
  public static let danglingReference = StoreErrorCode(.danglingReference)
  /// Writing the file failed (full disk, read-only folder, permissions); the old file is
  /// intact.
  public static let writeFailed = StoreErrorCode(.writeFailed)
  /// The file changed on disk since it was opened; saving would overwrite someone's work.
  public static let modifiedOnDisk = StoreErrorCode(.modifiedOnDisk)
  /// Another writer held the store (its lock, or SQLite's) for longer than a save waits.
  public static let busy = StoreErrorCode(.busy)
  /// A value or the store is larger than one of ``StoreLimits``.
  public static let limitExceeded = StoreErrorCode(.limitExceeded)
  /// Persistent history was asked for after a token whose following transactions were
  /// deleted: what changed since is no longer recorded (Core Data's
  /// `NSPersistentHistoryTokenExpiredError`).
  public static let historyTokenExpired = StoreErrorCode(.historyTokenExpired)

  private enum Kind: Hashable, Sendable {
    case notFound, unreadable, unknownFormat, malformedXML, malformedStore, badMagic,
      unsupportedVersion, badChecksum, truncated, modelMismatch, typeMismatch,
      danglingReference, writeFailed, modifiedOnDisk, busy, limitExceeded, historyTokenExpired
  }

  private var kind: Kind

  private init(_ kind: Kind) { self.kind = kind }

  /// The member's name: `notFound`.
  public var description: String { "\(kind)" }
}

/// The messages every format words alike, each worded once here and asserted word for word in
/// the tests.
extension StoreError {
  package static func versionHashMismatch(_ entities: [String], file: String?) -> StoreError {
    StoreError(
      .modelMismatch, versionHashMismatchMessage(entities), at: InputLocation(file: file))
  }

  /// What every format says of a store written with another model than the one it is opened
  /// with, naming the entities whose version hashes differ.
  package static func versionHashMismatchMessage(_ entities: [String]) -> String {
    guard !entities.isEmpty else {
      return "the store was written with another model: the model's own hash differs"
    }
    let names = entities.map { "\"\($0)\"" }.joined(separator: ", ")
    let (noun, verb) = entities.count == 1 ? ("entity", "differs") : ("entities", "differ")
    return "the store was written with another model: \(noun) \(names) \(verb)"
  }

  package static func unreadable(_ path: String, _ reason: String) -> StoreError {
    StoreError(.unreadable, "cannot read the file (\(reason))", at: InputLocation(file: path))
  }

  package static func notFound(_ path: String) -> StoreError {
    StoreError(.notFound, "no file at this path", at: InputLocation(file: path))
  }
}
