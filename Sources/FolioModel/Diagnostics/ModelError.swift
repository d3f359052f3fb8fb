/// An error in a model: a model file that cannot be read, or a model that is inconsistent.
///
/// Each message is one sentence that quotes the bad value; ``location`` names the file and line
/// and the entity and property concerned. The static factories below are the only places that
/// word a message, and the tests assert them word for word.
public struct ModelError: Error, Sendable, CustomStringConvertible {
  /// What went wrong, to switch on.
  public enum Code: Sendable, Hashable {
    /// The file or bundle does not exist.
    case fileNotFound
    /// The file exists but could not be read.
    case unreadableFile
    /// The file is not well-formed XML.
    case malformedXML
    /// The XML is well-formed but is not an Xcode model (or version plist).
    case unexpectedContent
    /// A required XML attribute is missing.
    case missingValue
    /// An XML attribute has a value of the wrong form (a flag that is not YES or NO, a count
    /// that is not a number).
    case invalidValue
    /// An attribute type that Core Data does not have.
    case unknownAttributeType
    /// A delete rule that Core Data does not have.
    case unknownDeleteRule
    /// Two entities, composites, configurations or fetch requests share a name.
    case duplicateName
    /// Two properties of one entity (with its ancestors) share a name.
    case duplicateProperty
    /// A parent entity that is not in the model.
    case unknownParentEntity
    /// An entity is its own ancestor.
    case inheritanceCycle
    /// A relationship's destination entity is not in the model.
    case unknownDestinationEntity
    /// A relationship's inverse is not a relationship of the destination entity.
    case unknownInverse
    /// A relationship's inverse does not name the relationship back.
    case inverseMismatch
    /// A default value that does not parse for its attribute's type.
    case invalidDefaultValue
    /// A constraint (minimum, maximum, length, count, pattern) that does not fit its property.
    case invalidConstraint
    /// A composite attribute names a composite the model does not define.
    case unknownComposite
    /// A composite contains itself, directly or through other composites.
    case compositeCycle
    /// A uniqueness constraint, index, configuration or fetch request names something that is
    /// not in the model.
    case unknownReference
    /// An `.xcdatamodeld` bundle with no version to load, or a current version that is missing.
    case noCurrentVersion
  }

  /// What went wrong, to switch on.
  public var code: Code
  /// One sentence: what was expected and what was found.
  public var message: String
  /// Where the bad input is.
  public var location: InputLocation?
  /// The error that caused this one, if any.
  public var underlying: (any Error & Sendable)?

  /// Creates an error; prefer the static factories, which word the message.
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
      "unknown attribute type \"\(name)\"\(suggestion(for: name, among: known))", at: location)
  }

  static func unknownDeleteRule(_ name: String, at location: InputLocation?) -> ModelError {
    let known = DeleteRule.allCases.map(\.xcodeName)
    return ModelError(
      .unknownDeleteRule, "unknown delete rule \"\(name)\"\(suggestion(for: name, among: known))",
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
      "parent entity \"\(name)\" is not in the model\(suggestion(for: name, among: known))",
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
      "destination entity \"\(name)\" is not in the model\(suggestion(for: name, among: known))",
      at: location)
  }

  static func unknownInverse(
    _ inverse: String, on entity: String, known: [String], at location: InputLocation?
  ) -> ModelError {
    ModelError(
      .unknownInverse,
      "inverse \"\(inverse)\" is not a relationship of \"\(entity)\"\(suggestion(for: inverse, among: known))",
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
      "composite \"\(name)\" is not defined in the model\(suggestion(for: name, among: known))",
      at: location)
  }

  /// `container` ends the sentence "…, which is not <container>": `in the model`,
  /// `a property of "Person"`.
  static func compositeCycle(_ cycle: [String], at location: InputLocation?) -> ModelError {
    ModelError(
      .compositeCycle, "composites contain each other: \(cycle.joined(separator: " → "))",
      at: location)
  }

  static func unknownReference(
    _ kind: String, _ name: String, known: [String], container: String = "in the model",
    at location: InputLocation?
  ) -> ModelError {
    ModelError(
      .unknownReference,
      "\(kind) names \"\(name)\", which is not \(container)\(suggestion(for: name, among: known))",
      at: location)
  }

  static func noCurrentVersion(_ reason: String, at location: InputLocation?) -> ModelError {
    ModelError(.noCurrentVersion, reason, at: location)
  }

  /// ` (did you mean "X"?)` when one known name is close to `name`, else an empty string.
  ///
  /// A candidate is close when its edit distance from `name` (case aside) is within a limit
  /// that grows with the candidate's length. The distance is at least the difference of the
  /// two lengths, so a candidate whose length is too far from `name`'s is passed over without
  /// computing it: a long unknown name (a script line or an XML attribute of up to 1 MiB)
  /// costs time linear in its length, not its length times every known name's.
  package static func suggestion(for name: String, among known: [String]) -> String {
    let lowered = name.lowercased()
    let length = lowered.count
    var characters: [Character]?
    var best: (name: String, distance: Int)?
    for candidate in known {
      let limit = candidate.count <= 2 ? 0 : candidate.count <= 5 ? 2 : (candidate.count + 2) / 3
      let other = Array(candidate.lowercased())
      guard abs(length - other.count) <= limit else { continue }
      if characters == nil { characters = Array(lowered) }
      let distance = editDistance(characters ?? [], other)
      if distance <= limit, distance < (best?.distance ?? .max) {
        best = (candidate, distance)
      }
    }
    return best.map { " (did you mean \"\($0.name)\"?)" } ?? ""
  }

  /// Levenshtein distance, in time `a.count · b.count`: ``suggestion(for:among:)`` calls it
  /// only for lengths within a few characters of each other.
  static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }
}
