import FolioModel

/// An error reading or writing a store: a file that is missing, malformed, corrupted, hostile
/// or written for another model, or a save that could not complete.
///
/// ``location`` names the place: `file:line:column` for XML, `file@offset` for binary files,
/// `Entity.key` for values that do not fit the model.
public struct StoreError: Error, Sendable, CustomStringConvertible {
  /// What went wrong, to switch on.
  public enum Code: Sendable, Hashable {
    /// No file at the path.
    case notFound
    /// The file exists but could not be read.
    case unreadable
    /// The file is not a store of any format Folio knows.
    case unknownFormat
    /// The XML is not well-formed, or declares what a store may not (a foreign DTD, entities).
    case malformedXML
    /// The file is well-formed but not laid out as its format requires.
    case malformedStore
    /// A binary file's magic bytes are wrong (often a sign of text-mode transfer).
    case badMagic
    /// A format version this build cannot read.
    case unsupportedVersion
    /// A checksum does not match: the file is corrupted.
    case badChecksum
    /// The file ends before its content does.
    case truncated
    /// The store was written for a model that does not fit this one.
    case modelMismatch
    /// A value does not fit its attribute's type.
    case typeMismatch
    /// A record names an object that is not in the store.
    case danglingReference
    /// Writing the file failed (full disk, read-only folder, permissions); the old file is
    /// intact.
    case writeFailed
    /// The file changed on disk since it was opened; saving would overwrite someone's work.
    case modifiedOnDisk
    /// A value or the store is larger than one of ``StoreLimits``.
    case limitExceeded
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

  /// `location: message`.
  public var description: String {
    guard let location, !location.description.isEmpty else { return message }
    return "\(location): \(message)"
  }
}
