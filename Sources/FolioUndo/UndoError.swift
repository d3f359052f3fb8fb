/// Misuse of the undo manager: an undo with a group open, a group closed that was never opened,
/// registration enabled more often than disabled.
///
/// Cocoa raises an exception for these; Folio throws, since an editor cannot always see them
/// coming. ``Code-swift.enum`` has stable names the undo scripts use.
public struct UndoError: Error, CustomStringConvertible, Sendable, Equatable {
  /// What was misused, to switch on.
  public enum Code: String, Sendable, Hashable {
    /// Undo or redo while a nested group is open, or while undoing or redoing.
    case openGroup = "open-group"
    /// Closing a group, or registering while not grouping by event, with no group open.
    case noOpenGroup = "no-open-group"
    /// Enabling registration more often than it was disabled.
    case enableWithoutDisable = "enable-without-disable"
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
