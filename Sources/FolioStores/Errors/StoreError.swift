import FolioModel

/// An error reading or writing a store: a file that is missing, malformed, corrupted, hostile
/// or written for another model, or a save that could not complete.
///
/// ``location`` names the place: `file:line:column` for XML, `file@offset` for binary files,
/// `Entity.key` for values that do not fit the model.
public struct StoreError: Error, Sendable, CustomStringConvertible, DiagnosticError {
  /// What went wrong, to switch on.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// No file at the path.
    public static let notFound = Code(.notFound)
    /// The file exists but could not be read.
    public static let unreadable = Code(.unreadable)
    /// The file is not a store of any format Folio knows.
    public static let unknownFormat = Code(.unknownFormat)
    /// The XML is not well-formed, or declares what a store may not (a foreign DTD, entities).
    public static let malformedXML = Code(.malformedXML)
    /// The file is well-formed but not laid out as its format requires.
    public static let malformedStore = Code(.malformedStore)
    /// A binary file's magic bytes are wrong (often a sign of text-mode transfer).
    public static let badMagic = Code(.badMagic)
    /// A format version this build cannot read.
    public static let unsupportedVersion = Code(.unsupportedVersion)
    /// A checksum does not match: the file is corrupted.
    public static let badChecksum = Code(.badChecksum)
    /// The file ends before its content does.
    public static let truncated = Code(.truncated)
    /// The store was written for a model that does not fit this one.
    public static let modelMismatch = Code(.modelMismatch)
    /// A value does not fit its attribute's type.
    public static let typeMismatch = Code(.typeMismatch)
    /// A record names an object that is not in the store.
    public static let danglingReference = Code(.danglingReference)
    /// Writing the file failed (full disk, read-only folder, permissions); the old file is
    /// intact.
    public static let writeFailed = Code(.writeFailed)
    /// The file changed on disk since it was opened; saving would overwrite someone's work.
    public static let modifiedOnDisk = Code(.modifiedOnDisk)
    /// A value or the store is larger than one of ``StoreLimits``.
    public static let limitExceeded = Code(.limitExceeded)

    private enum Kind: Hashable, Sendable {
      case notFound, unreadable, unknownFormat, malformedXML, malformedStore, badMagic,
        unsupportedVersion, badChecksum, truncated, modelMismatch, typeMismatch,
        danglingReference, writeFailed, modifiedOnDisk, limitExceeded
    }

    private var kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    /// The member's name: `notFound`.
    public var description: String { "\(kind)" }
  }

  /// What went wrong, to switch on.
  public var code: Code
  /// One sentence: what was expected and what was found.
  public var message: String
  /// Where the bad input is.
  public var location: InputLocation?
  /// The error that caused this one, if any.
  public var underlying: (any Error & Sendable)?

  /// Creates an error.
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
