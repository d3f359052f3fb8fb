import Folio

/// A request the editor refuses: an HTTP status, a code to switch on, one sentence, and the
/// place in the document or the request that was wrong (`Spending.amount`, `tab`, `body`).
///
/// Every bad request becomes one of these, never a crash: the server sends it back as
/// `{"error": {"code": …, "message": …, "place": …}}` with ``status``.
public struct EditorError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The HTTP status: 400 for a bad value or body, 404 for something that is not there, 409
  /// for a save the document refused or a paste with nothing copied.
  public var status: Int
  /// What went wrong: `typeMismatch`, `unknownEntity`, `objectNotFound`, `validation`, ….
  public var code: String
  /// One sentence, quoting the bad value.
  public var message: String
  /// Where: `Entity.key`, `Entity`, or the part of the request.
  public var place: String?

  /// Creates an error.
  public init(status: Int, code: String, _ message: String, place: String? = nil) {
    self.status = status
    self.code = code
    self.message = message
    self.place = place
  }

  /// `place: message`.
  public var description: String { place.map { "\($0): \(message)" } ?? message }

  /// The editor's form of a library error: its code, message and `Entity.key` place.
  init(_ error: GraphError) {
    let status: Int
    switch error.code {
    case .unknownEntity, .unknownKey, .objectNotFound, .notRegistered: status = 404
    case .validation, .deny, .mergeConflict, .store: status = 409
    default: status = 400
    }
    var message = error.message
    for failure in error.failures { message += "; \(failure)" }
    self.init(
      status: status, code: error.code.description, message,
      place: error.location.flatMap(Self.place(of:)))
  }

  /// The editor's form of a store's error: the document cannot be read or written.
  init(_ error: StoreError) {
    self.init(status: 409, code: "store", error.description)
  }

  private static func place(of location: InputLocation) -> String? {
    guard let entity = location.entity else { return nil }
    return location.property.map { "\(entity).\($0)" } ?? entity
  }

  static func unknownEntity(_ name: String) -> EditorError {
    EditorError(status: 404, code: "unknownEntity", "unknown entity \"\(name)\"", place: name)
  }

  static func unknownTab(_ id: String) -> EditorError {
    EditorError(status: 404, code: "unknownTab", "no tab \"\(id)\" is open", place: "tab")
  }

  static func badValue(_ text: String, type: AttributeType, entity: String, key: String)
    -> EditorError
  {
    EditorError(
      status: 400, code: "typeMismatch", "\"\(text)\" is not a \(type.xcodeName) value",
      place: "\(entity).\(key)")
  }

  static func notEditable(type: AttributeType, entity: String, key: String) -> EditorError {
    EditorError(
      status: 400, code: "readOnly",
      "a \(type.xcodeName) attribute cannot be edited as text", place: "\(entity).\(key)")
  }

  static func notAnAttribute(entity: String, key: String) -> EditorError {
    EditorError(
      status: 400, code: "readOnly", "\"\(key)\" is a relationship, which the editor shows only",
      place: "\(entity).\(key)")
  }

  static let emptyClipboard = EditorError(
    status: 409, code: "emptyClipboard", "nothing has been copied: select rows and Copy first",
    place: "clipboard")

  static func badObjectID(_ text: String) -> EditorError {
    EditorError(
      status: 404, code: "objectNotFound", "\"\(text)\" is not an object ID of this document",
      place: "id")
  }
}
