import FolioModel
import FolioStores

/// The messages of the XML store's errors, each worded once here and asserted word for word
/// in the tests.
extension StoreError {
  static let coreDataSystemID = "file:///System/Library/DTDs/CoreData.dtd"

  static func malformedXML(_ message: String, at location: InputLocation) -> StoreError {
    StoreError(.malformedXML, message, at: location)
  }

  static func truncated(_ detail: String, at location: InputLocation) -> StoreError {
    StoreError(.truncated, "the file ends before the store does (\(detail))", at: location)
  }

  static func foreignDTD(_ declaration: String, at location: InputLocation) -> StoreError {
    StoreError(
      .malformedXML,
      "DOCTYPE \"\(declaration)\" is refused: the only one allowed is "
        + "<!DOCTYPE database SYSTEM \"\(coreDataSystemID)\">",
      at: location)
  }

  static func internalSubset(at location: InputLocation) -> StoreError {
    StoreError(
      .malformedXML, "a DOCTYPE with an internal subset is refused: a store declares nothing",
      at: location)
  }

  static func entityDeclaration(_ name: String, at location: InputLocation) -> StoreError {
    StoreError(
      .malformedXML, "entity declaration \"\(name)\" is refused: a store declares no entities",
      at: location)
  }

  static func entityReference(_ name: String, at location: InputLocation) -> StoreError {
    StoreError(
      .malformedXML, "entity reference \"&\(name);\" is refused: a store uses no entities",
      at: location)
  }

  static func tooDeep(_ limit: Int, at location: InputLocation) -> StoreError {
    StoreError(.malformedXML, "elements are nested more than \(limit) deep", at: location)
  }

  static func notUTF8(at location: InputLocation) -> StoreError {
    StoreError(
      .malformedXML, "the file is not UTF-8 or ASCII-compatible XML (UTF-16 is not supported)",
      at: location)
  }

  static func unexpectedElement(_ found: String, expected: String, at location: InputLocation)
    -> StoreError
  {
    StoreError(.malformedStore, "expected \(expected), found <\(found)>", at: location)
  }

  static func missingAttribute(_ name: String, on element: String, at location: InputLocation)
    -> StoreError
  {
    StoreError(.malformedStore, "<\(element)> has no \"\(name)\" attribute", at: location)
  }

  static func badField(_ text: String, _ field: String, at location: InputLocation) -> StoreError {
    StoreError(.malformedStore, "\"\(text)\" is not a valid \(field)", at: location)
  }

  static func unsupportedVersion(_ text: String, at location: InputLocation) -> StoreError {
    StoreError(
      .unsupportedVersion,
      "store version \"\(text)\" is not 134481920, the XML store version Core Data writes",
      at: location)
  }

  static func duplicateID(_ id: String, firstLine: Int, at location: InputLocation) -> StoreError {
    StoreError(
      .malformedStore, "object ID \"\(id)\" is used twice (first on line \(firstLine))",
      at: location)
  }

  static func unknownEntity(_ name: String, known: [String], at location: InputLocation)
    -> StoreError
  {
    StoreError(
      .modelMismatch,
      "unknown entity \"\(name)\"\(nameSuggestion(for: name, among: known))", at: location)
  }

  static func abstractEntity(_ name: String, at location: InputLocation) -> StoreError {
    StoreError(
      .modelMismatch, "entity \"\(name)\" is abstract and cannot have objects", at: location)
  }

  static func unknownProperty(
    _ name: String, entity: String, known: [String], at location: InputLocation
  ) -> StoreError {
    StoreError(
      .modelMismatch,
      "entity \"\(entity)\" has no property \"\(name)\"\(nameSuggestion(for: name, among: known))",
      at: location)
  }

  static func duplicateProperty(
    _ name: String, entity: String, isAttribute: Bool, at location: InputLocation
  ) -> StoreError {
    StoreError(
      .malformedStore,
      "\(isAttribute ? "attribute" : "relationship") \"\(name)\" appears twice in one object of \"\(entity)\"",
      at: location)
  }

  static func wrongKind(
    _ name: String, entity: String, isAttribute: Bool, at location: InputLocation
  )
    -> StoreError
  {
    let (actual, written) =
      isAttribute ? ("an attribute", "relationship") : ("a relationship", "attribute")
    return StoreError(
      .modelMismatch,
      "\"\(name)\" is \(actual) of \"\(entity)\" but the store has it as an \(written)",
      at: location)
  }

  static func unknownTypeWord(_ word: String, at location: InputLocation) -> StoreError {
    let known = XMLValueCoding.typeWords
    return StoreError(
      .malformedStore,
      "unknown attribute type \"\(word)\"\(nameSuggestion(for: word, among: known))",
      at: location)
  }

  static func compositeNotInferable(at location: InputLocation) -> StoreError {
    StoreError(
      .malformedStore,
      "a composite value cannot be inferred: its members' types need the model it was written with",
      at: location)
  }

  static func incompatibleType(_ word: String, expected: AttributeType, at location: InputLocation)
    -> StoreError
  {
    StoreError(
      .typeMismatch,
      "a \"\(word)\" value does not fit the model's type \(expected.xcodeName)", at: location)
  }

  static func badValue(_ text: String, type: AttributeType, at location: InputLocation)
    -> StoreError
  {
    let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
    return StoreError(
      .typeMismatch, "\"\(shown)\" is not a valid \(type.xcodeName) value", at: location)
  }

  static func badRelationshipType(_ word: String, at location: InputLocation) -> StoreError {
    StoreError(
      .malformedStore, "relationship type \"\(word)\" is not of the form \"1/1\" or \"0/0\"",
      at: location)
  }

  static func tooManyTargets(_ count: Int, at location: InputLocation) -> StoreError {
    StoreError(
      .typeMismatch, "a to-one relationship has \(count) targets", at: location)
  }

  static func danglingReference(_ id: String, at location: InputLocation) -> StoreError {
    StoreError(
      .danglingReference, "\"\(id)\" is not the ID of an object in the store", at: location)
  }

  static func wrongTarget(
    _ id: String, is actual: String, expected: String, at location: InputLocation
  ) -> StoreError {
    StoreError(
      .modelMismatch, "\"\(id)\" is a \"\(actual)\", not a \"\(expected)\"", at: location)
  }

  static func caseCollision(
    _ kind: String, _ first: String, _ second: String, at location: InputLocation
  )
    -> StoreError
  {
    StoreError(
      .modelMismatch,
      "\(kind) \"\(first)\" and \"\(second)\" differ only by case, which the XML store cannot "
        + "tell apart",
      at: location)
  }

  static func writerFailed(_ path: String, _ step: String) -> StoreError {
    StoreError(
      .writeFailed, "cannot write the XML store (libxml2 failed to \(step))",
      at: InputLocation(file: path))
  }
}
