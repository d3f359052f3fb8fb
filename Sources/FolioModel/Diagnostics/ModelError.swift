/// An error in a model: a model file that cannot be read, or a model that is inconsistent.
///
/// Each message is one sentence that quotes the bad value; ``location`` names the file and line
/// and the entity and property concerned. The static factories below are the only places that
/// word a message, and the tests assert them word for word.
public typealias ModelError = CodedError<ModelErrorCode>

/// What went wrong in a `ModelError`, to switch on: `ModelError.Code`.
public struct ModelErrorCode: Hashable, Sendable, CustomStringConvertible {
  /// The file or bundle does not exist.
  public static let fileNotFound = ModelErrorCode(.fileNotFound)
  /// The file exists but could not be read.
  public static let unreadableFile = ModelErrorCode(.unreadableFile)
  /// The file is not well-formed XML.
  public static let malformedXML = ModelErrorCode(.malformedXML)
  /// The XML is well-formed but is not an Xcode model (or version plist).
  public static let unexpectedContent = ModelErrorCode(.unexpectedContent)
  /// A required XML attribute is missing.
  public static let missingValue = ModelErrorCode(.missingValue)
  /// An XML attribute has a value of the wrong form (a flag that is not YES or NO, a count
  /// that is not a number).
  public static let invalidValue = ModelErrorCode(.invalidValue)
  /// An attribute type that Core Data does not have.
  public static let unknownAttributeType = ModelErrorCode(.unknownAttributeType)
  /// A delete rule that Core Data does not have.
  public static let unknownDeleteRule = ModelErrorCode(.unknownDeleteRule)
  /// Two entities, composites, configurations or fetch requests share a name.
  public static let duplicateName = ModelErrorCode(.duplicateName)
  /// Two properties of one entity (with its ancestors) share a name.
  public static let duplicateProperty = ModelErrorCode(.duplicateProperty)
  /// A parent entity that is not in the model.
  public static let unknownParentEntity = ModelErrorCode(.unknownParentEntity)
  /// An entity is its own ancestor.
  public static let inheritanceCycle = ModelErrorCode(.inheritanceCycle)
  /// A relationship's destination entity is not in the model.
  public static let unknownDestinationEntity = ModelErrorCode(.unknownDestinationEntity)
  /// A relationship's inverse is not a relationship of the destination entity.
  public static let unknownInverse = ModelErrorCode(.unknownInverse)
  /// A relationship's inverse does not name the relationship back.
  public static let inverseMismatch = ModelErrorCode(.inverseMismatch)
  /// A default value that does not parse for its attribute's type.
  public static let invalidDefaultValue = ModelErrorCode(.invalidDefaultValue)
  /// A constraint (minimum, maximum, length, count, pattern) that does not fit its property.
  public static let invalidConstraint = ModelErrorCode(.invalidConstraint)
  /// A composite attribute names a composite the model does not define.
  public static let unknownComposite = ModelErrorCode(.unknownComposite)
  /// A composite contains itself, directly or through other composites.
  public static let compositeCycle = ModelErrorCode(.compositeCycle)
  /// A uniqueness constraint, index, configuration or fetch request names something that is
  /// not in the model.
  public static let unknownReference = ModelErrorCode(.unknownReference)
  /// An `.xcdatamodeld` bundle with no version to load, or a current version that is missing.
  public static let noCurrentVersion = ModelErrorCode(.noCurrentVersion)

  private enum Kind: Hashable, Sendable {
    case fileNotFound, unreadableFile, malformedXML, unexpectedContent, missingValue,
      invalidValue, unknownAttributeType, unknownDeleteRule, duplicateName, duplicateProperty,
      unknownParentEntity, inheritanceCycle, unknownDestinationEntity, unknownInverse,
      inverseMismatch, invalidDefaultValue, invalidConstraint, unknownComposite,
      compositeCycle, unknownReference, noCurrentVersion
  }

  private var kind: Kind

  private init(_ kind: Kind) { self.kind = kind }

  /// The member's name: `fileNotFound`.
  public var description: String { "\(kind)" }
}

extension ModelError {
  static func fileNotFound(_ path: String) -> ModelError {
    ModelError(.fileNotFound, "no such file or folder", at: InputLocation(file: path))
  }

  static func unreadable(_ path: String, reason: String) -> ModelError {
    ModelError(.unreadableFile, "cannot read the file (\(reason))", at: InputLocation(file: path))
  }

  static func malformedXML(_ reason: String, at location: InputLocation) -> ModelError {
    ModelError(.malformedXML, "malformed XML: \(reason)", at: location)
  }

  static func unexpectedRoot(_ found: String, expected: String, at location: InputLocation)
    -> ModelError
  {
    ModelError(
      .unexpectedContent, "expected a <\(expected)> document, found <\(found)>", at: location)
  }

  static func missingValue(_ attribute: String, on element: String, at location: InputLocation?)
    -> ModelError
  {
    ModelError(.missingValue, "<\(element)> has no \(attribute)", at: location)
  }

  static func invalidFlag(_ attribute: String, value: String, at location: InputLocation?)
    -> ModelError
  {
    ModelError(
      .invalidValue, "\(attribute) is \"\(value)\", expected \"YES\" or \"NO\"", at: location)
  }

  static func invalidNumber(_ attribute: String, value: String, at location: InputLocation?)
    -> ModelError
  {
    ModelError(
      .invalidValue, "\(attribute) is \"\(value)\", expected a whole number", at: location)
  }

  static func unknownAttributeType(_ name: String, at location: InputLocation?) -> ModelError {
    let known = AttributeType.allCases.map(\.xcodeName)
    return ModelError(
      .unknownAttributeType,
      "unknown attribute type \"\(name)\"\(nameSuggestion(for: name, among: known))", at: location)
  }

  static func unknownDeleteRule(_ name: String, at location: InputLocation?) -> ModelError {
    let known = DeleteRule.allCases.map(\.xcodeName)
    return ModelError(
      .unknownDeleteRule,
      "unknown delete rule \"\(name)\"\(nameSuggestion(for: name, among: known))",
      at: location)
  }

  static func duplicateName(_ kind: String, _ name: String, at location: InputLocation?)
    -> ModelError
  {
    ModelError(.duplicateName, "\(kind) \"\(name)\" is defined twice", at: location)
  }

  static func duplicateProperty(
    _ name: String, inherited from: String?, at location: InputLocation?
  )
    -> ModelError
  {
    let detail = from.map { ", once here and once in its ancestor \"\($0)\"" } ?? ""
    return ModelError(
      .duplicateProperty, "property \"\(name)\" is defined twice\(detail)", at: location)
  }

  static func unknownParent(_ name: String, known: [String], at location: InputLocation?)
    -> ModelError
  {
    ModelError(
      .unknownParentEntity,
      "parent entity \"\(name)\" is not in the model\(nameSuggestion(for: name, among: known))",
      at: location)
  }

  static func inheritanceCycle(_ cycle: [String], at location: InputLocation?) -> ModelError {
    ModelError(
      .inheritanceCycle, "entity inheritance forms a cycle: \(cycle.joined(separator: " → "))",
      at: location)
  }

  static func unknownDestination(_ name: String, known: [String], at location: InputLocation?)
    -> ModelError
  {
    ModelError(
      .unknownDestinationEntity,
      "destination entity \"\(name)\" is not in the model\(nameSuggestion(for: name, among: known))",
      at: location)
  }

  static func unknownInverse(
    _ inverse: String, on entity: String, known: [String], at location: InputLocation?
  ) -> ModelError {
    ModelError(
      .unknownInverse,
      "inverse \"\(inverse)\" is not a relationship of \"\(entity)\"\(nameSuggestion(for: inverse, among: known))",
      at: location)
  }

  static func inverseEntityMismatch(
    declared: String, destination: String, at location: InputLocation?
  ) -> ModelError {
    ModelError(
      .inverseMismatch,
      "inverse entity \"\(declared)\" is not the destination entity \"\(destination)\" or one of its ancestors",
      at: location)
  }

  static func inverseMismatch(
    relationship: String, inverse: String, inverseEntity: String, pointsTo: String?,
    at location: InputLocation?
  ) -> ModelError {
    let found = pointsTo.map { "names \"\($0)\"" } ?? "has no inverse"
    return ModelError(
      .inverseMismatch,
      "inverse \"\(inverseEntity).\(inverse)\" does not point back: it \(found), not \"\(relationship)\"",
      at: location)
  }

  static func invalidDefault(
    _ text: String, type: AttributeType, reason: String, at location: InputLocation?
  ) -> ModelError {
    ModelError(
      .invalidDefaultValue,
      "default value \"\(text)\" does not parse as \(type.xcodeName): \(reason)", at: location)
  }

  static func invalidConstraint(_ reason: String, at location: InputLocation?) -> ModelError {
    ModelError(.invalidConstraint, reason, at: location)
  }

  static func unknownComposite(_ name: String, known: [String], at location: InputLocation?)
    -> ModelError
  {
    ModelError(
      .unknownComposite,
      "composite \"\(name)\" is not defined in the model\(nameSuggestion(for: name, among: known))",
      at: location)
  }

  static func compositeCycle(_ cycle: [String], at location: InputLocation?) -> ModelError {
    ModelError(
      .compositeCycle, "composites contain each other: \(cycle.joined(separator: " → "))",
      at: location)
  }

  /// `container` ends the sentence "…, which is not <container>": `in the model`,
  /// `a property of "Person"`.
  static func unknownReference(
    _ kind: String, _ name: String, known: [String], container: String = "in the model",
    at location: InputLocation?
  ) -> ModelError {
    ModelError(
      .unknownReference,
      "\(kind) names \"\(name)\", which is not \(container)\(nameSuggestion(for: name, among: known))",
      at: location)
  }

  static func noCurrentVersion(_ reason: String, at location: InputLocation?) -> ModelError {
    ModelError(.noCurrentVersion, reason, at: location)
  }
}
