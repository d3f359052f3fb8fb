import FolioDiagnostics

/// Misuse of the undo manager: an undo with a group open, a group closed that was never opened,
/// registration enabled more often than disabled.
///
/// Cocoa raises an exception for these; Folio throws, since an editor cannot always see them
/// coming. ``Code-swift.struct`` has stable names the undo scripts use.
public struct UndoError: Error, CustomStringConvertible, Sendable, Equatable, DiagnosticError {
  /// What was misused, to switch on.
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// Undo or redo while a nested group is open, or while undoing or redoing.
    public static let openGroup = Code(.openGroup)
    /// Closing a group, or registering while not grouping by event, with no group open.
    public static let noOpenGroup = Code(.noOpenGroup)
    /// Enabling registration more often than it was disabled.
    public static let enableWithoutDisable = Code(.enableWithoutDisable)

    private enum Kind: String, Hashable, Sendable, CaseIterable {
      case openGroup = "open-group"
      case noOpenGroup = "no-open-group"
      case enableWithoutDisable = "enable-without-disable"
    }

    private var kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    /// The stable name: `open-group`.
    public var rawValue: String { kind.rawValue }

    /// The code of a stable name, or `nil` for a name that is not one.
    public init?(rawValue: String) {
      guard let kind = Kind(rawValue: rawValue) else { return nil }
      self.init(kind)
    }

    /// Every code, in the order of their documentation.
    package static var allCases: [Code] { Kind.allCases.map(Code.init) }

    /// The member's name: `openGroup`.
    public var description: String { "\(kind)" }
  }

  /// What was misused.
  public var code: Code
  /// One sentence saying what and what to do.
  public var message: String

  /// Creates an error; prefer the static factories.
  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// `nil`: misuse of the undo manager is a call, not a place in some input.
  public var location: InputLocation? { nil }
  /// `nil`: the undo manager's errors have no cause below them.
  public var underlying: (any Error & Sendable)? { nil }

  /// The message.
  public var description: String { message }

  static func groupOpen(_ operation: String, level: Int) -> UndoError {
    UndoError(
      .openGroup,
      "\(operation) with \(level) undo group\(level == 1 ? "" : "s") open: close \(level == 1 ? "it" : "them") with endUndoGrouping() first"
    )
  }

  static func reentered(_ operation: String, during: String) -> UndoError {
    UndoError(.openGroup, "\(operation) called while \(during)")
  }

  static let nothingToClose = UndoError(
    .noOpenGroup, "endUndoGrouping() with no undo group open")

  static let registrationOutsideGroup = UndoError(
    .noOpenGroup,
    "an undo action was registered with no group open while groupsByEvent is off: call beginUndoGrouping() first"
  )

  static let enableWithoutDisable = UndoError(
    .enableWithoutDisable,
    "enableUndoRegistration() called more often than disableUndoRegistration()")
}
