/// An error reading a pasteboard's JSON (``Pasteboard/init(data:)``): text that is not JSON,
/// JSON that is not a pasteboard, or a pasteboard of a format this build does not read.
///
/// ``CodedError/location`` gives the byte offset, line and column of JSON that does not parse;
/// the message names the place in a pasteboard of the wrong shape by its JSON path
/// (`objects[2].relationships.spendings[0]`).
public typealias PasteboardError = CodedError<PasteboardErrorCode>

/// What went wrong in a ``PasteboardError``, to switch on: `PasteboardError.Code`.
public struct PasteboardErrorCode: Hashable, Sendable, CustomStringConvertible {
  /// The data is not JSON, or not laid out as `Formats/pasteboard.md` says.
  public static let malformed = PasteboardErrorCode(.malformed)
  /// Another format, or a version of the pasteboard format newer than this build reads.
  public static let unsupportedFormat = PasteboardErrorCode(.unsupportedFormat)

  private enum Kind: Hashable, Sendable {
    case malformed, unsupportedFormat
  }

  private var kind: Kind

  private init(_ kind: Kind) { self.kind = kind }

  /// The member's name: `malformed`.
  public var description: String { "\(kind)" }
}

extension CodedError where Code == PasteboardErrorCode {
  /// A pasteboard of the wrong shape at `path`.
  static func malformed(_ path: String, _ message: String) -> PasteboardError {
    PasteboardError(.malformed, path.isEmpty ? message : "\(path): \(message)")
  }
}
