import Foundation

/// Options for loading a model from Xcode's files.
public struct ModelLoadingOptions: Sendable {
  /// Whether a lenient reading that Core Data accepts (a default of `"0.0"` on an integer, a
  /// relationship with no inverse) is an error rather than a warning. The default is `false`:
  /// a model that works on macOS loads here, and its diagnostics say what was read leniently.
  public var isStrict = false

  /// Creates options; every setting starts at its default.
  public init(isStrict: Bool = false) { self.isStrict = isStrict }
}

/// Reads the `contents` file of an `.xcdatamodel` into a ``ManagedObjectModel``.
///
/// The file is XML with a `<model>` root; `Formats/xcdatamodel.md` describes every element and
/// attribute read here. Elements Folio does not know are errors (they could carry meaning);
/// attributes it does not know are skipped, since Xcode adds editor-only flags (`syncable`,
/// `codeGenerationType`) over time. The `<elements>` block is diagram layout and is skipped.
struct XcodeModelReader {
  let path: String
  let options: ModelLoadingOptions
  private var diagnostics: [ModelDiagnostic] = []

  init(path: String, options: ModelLoadingOptions) {
    self.path = path
    self.options = options
  }

  /// Reads the model in `data`, naming `path` in errors.
  static func read(_ data: Data, path: String, options: ModelLoadingOptions) throws
    -> ManagedObjectModel
  {
    let tree = try XMLTree(data: data, path: path)
    var reader = XcodeModelReader(path: path, options: options)
    return try reader.readModel(tree)
  }

  private mutating func readModel(_ tree: XMLTree) throws -> ManagedObjectModel {
    guard let root = tree.root else {
      throw ModelError.malformedXML(
        "the document has no root element", at: InputLocation(file: path, line: 1))
    }
    guard root.name == "model" else {
      throw ModelError.unexpectedRoot(root.name, expected: "model", at: root.location)
    }
    var entities: [EntityDescription] = []
    var composites: [CompositeDescription] = []
    var configurations: [ConfigurationDescription] = []
    var templates: [FetchRequestTemplate] = []
    for child in root.children {
      switch child.name {
      case "entity": entities.append(try readEntity(child))
      case "composite": composites.append(try readComposite(child))
      case "configuration": configurations.append(try readConfiguration(child))
      case "fetchRequest": templates.append(try readTemplate(child))
      case "elements": continue
      default: throw unexpected(child, in: "model")
      }
    }
    let model = try ManagedObjectModel(
      entities: entities, composites: composites, configurations: configurations,
      fetchRequestTemplates: templates,
      versionIdentifier: root.attribute("userDefinedModelVersionIdentifier"),
      diagnostics: diagnostics)
    if options.isStrict, let first = model.diagnostics.first {
      let code: ModelError.Code
      switch first.kind {
      case .coercedDefaultValue, .ignoredDefaultValue: code = .invalidDefaultValue
      case .coercedBound: code = .invalidConstraint
      case .missingInverse: code = .unknownInverse
      }
      throw ModelError(code, first.message, at: first.location)
    }
    return model
  }

  // MARK: Entities

  private mutating func readEntity(_ element: XMLElement) throws -> EntityDescription {
    let name = try required("name", of: element)
    let here = element.location.naming(entity: name)
    var entity = EntityDescription(
      name, parent: element.attribute("parentEntity"),
      isAbstract: try flag("isAbstract", of: element, at: here))
    entity.sourceLocation = element.location
    entity.representedClassName = element.attribute("representedClassName")
    entity.codeGenerationType = element.attribute("codeGenerationType")
    entity.renamingIdentifier = element.attribute("elementID")
    entity.versionHashModifier = element.attribute("versionHashModifier")
    for child in element.children {
      switch child.name {
      case "attribute":
        entity.attributes.append(try readAttribute(child, owner: name))
      case "relationship":
        entity.relationships.append(try readRelationship(child, owner: name))
      case "fetchedProperty":
        entity.fetchedProperties.append(try readFetchedProperty(child, owner: name))
      case "userInfo":
        entity.userInfo = try readUserInfo(child)
      case "uniquenessConstraints":
        for constraint in try elements(child, named: "uniquenessConstraint") {
          entity.partLocations["unique \(entity.uniquenessConstraints.count)"] = constraint.location
          entity.uniquenessConstraints.append(
            try elements(constraint, named: "constraint").map { try required("value", of: $0) })
        }
      case "fetchIndex":
        entity.partLocations["index \(entity.fetchIndexes.count)"] = child.location
        entity.fetchIndexes.append(try readFetchIndex(child))
      case "compoundIndexes":
        for compound in try elements(child, named: "compoundIndex") {
          entity.partLocations["compound \(entity.compoundIndexes.count)"] = compound.location
          entity.compoundIndexes.append(
            try elements(compound, named: "index").map { try required("value", of: $0) })
        }
      default:
        throw unexpected(child, in: "entity")
      }
    }
    return entity
  }

  // MARK: Attributes

  private mutating func readAttribute(_ element: XMLElement, owner: String) throws
    -> AttributeDescription
  {
    let name = try required("name", of: element)
    let here = element.location.naming(entity: owner, property: name)
    let type: AttributeType
    if let typeName = element.attribute("attributeType") {
      guard let known = AttributeType(xcodeName: typeName) else {
        throw ModelError.unknownAttributeType(typeName, at: here)
      }
      type = known
    } else {
      type = .undefined
    }
    var attribute = AttributeDescription(
      name, type, isOptional: try flag("optional", of: element, at: here))
    attribute.sourceLocation = element.location
    attribute.isTransient = try flag("transient", of: element, at: here)
    attribute.isIndexed = try flag("indexed", of: element, at: here)
    if try flag("derived", of: element, at: here) {
      attribute.derivationExpression = element.attribute("derivationExpression") ?? ""
    }
    attribute.valueTransformerName = element.attribute("valueTransformerName")
    attribute.valueClassName = element.attribute("customClassName")
    attribute.compositeName = element.attribute("composite")
    if element.attribute("usesScalarValueType") != nil {
      attribute.usesScalarValueType = try flag("usesScalarValueType", of: element, at: here)
    }
    attribute.allowsExternalBinaryDataStorage = try flag(
      "allowsExternalBinaryDataStorage", of: element, at: here)
    attribute.preservesValueInHistoryOnDeletion = try flag(
      "preserveAfterDeletion", of: element, at: here)
    attribute.isIndexedBySpotlight = try flag("spotlightIndexingEnabled", of: element, at: here)
    attribute.isStoredInExternalRecord = try flag("storedInTruthFile", of: element, at: here)
    attribute.versionHashModifier = element.attribute("versionHashModifier")
    attribute.renamingIdentifier = element.attribute("elementID")
    attribute.regularExpression = element.attribute("regularExpressionString")
    try readDefault(of: &attribute, from: element, at: here)
    try readBounds(of: &attribute, from: element, at: here)
    for child in element.children {
      guard child.name == "userInfo" else { throw unexpected(child, in: "attribute") }
      attribute.userInfo = try readUserInfo(child)
    }
    return attribute
  }

  private mutating func readDefault(
    of attribute: inout AttributeDescription, from element: XMLElement, at here: InputLocation
  ) throws {
    let type = attribute.attributeType
    if type == .date, let interval = element.attribute("defaultDateTimeInterval") {
      attribute.defaultValue = try value(
        interval, as: .date, named: "defaultDateTimeInterval", role: .defaultValue, at: here)
    } else if let text = element.attribute("defaultValueString") {
      attribute.defaultValue = try value(
        text, as: type, named: "defaultValueString", role: .defaultValue, at: here)
    }
  }

  private mutating func readBounds(
    of attribute: inout AttributeDescription, from element: XMLElement, at here: InputLocation
  ) throws {
    let type = attribute.attributeType
    if type == .date {
      // Xcode writes the bounds as seconds since 2001 and again as display text in
      // min/maxValueString; the seconds are what Core Data reads.
      if let text = element.attribute("minDateTimeInterval") {
        attribute.minimumValue = try value(
          text, as: .date, named: "minDateTimeInterval", role: .bound, at: here)
      }
      if let text = element.attribute("maxDateTimeInterval") {
        attribute.maximumValue = try value(
          text, as: .date, named: "maxDateTimeInterval", role: .bound, at: here)
      }
      return
    }
    let minimum = element.attribute("minValueString")
    let maximum = element.attribute("maxValueString")
    guard minimum != nil || maximum != nil else { return }
    if type.isNumeric {
      attribute.minimumValue = try minimum.flatMap {
        try value($0, as: type, named: "minValueString", role: .bound, at: here)
      }
      attribute.maximumValue = try maximum.flatMap {
        try value($0, as: type, named: "maxValueString", role: .bound, at: here)
      }
    } else if type == .string || type == .binaryData {
      attribute.minimumLength = try minimum.map {
        try length($0, named: "minValueString", at: here)
      }
      attribute.maximumLength = try maximum.map {
        try length($0, named: "maxValueString", at: here)
      }
    } else {
      throw ModelError.invalidConstraint(
        "minValueString and maxValueString apply to numbers, dates, strings and binary data, not \(type.xcodeName)",
        at: here)
    }
  }

  /// What a value read from the file is for: the two differ in how a failure is reported.
  private enum ValueRole { case defaultValue, bound }

  /// Reads a default value or bound, recording a lenient reading as a warning. A default Core
  /// Data would ignore is dropped (and reported); a bound it would ignore is an error, since a
  /// constraint that silently vanished would let invalid objects through.
  private mutating func value(
    _ text: String, as type: AttributeType, named attribute: String, role: ValueRole,
    at here: InputLocation
  ) throws -> AttributeValue? {
    let reading: ValueText.Reading
    do {
      reading = try ValueText.read(text, as: type)
    } catch {
      switch role {
      case .defaultValue:
        throw ModelError.invalidDefault(text, type: type, reason: error.reason, at: here)
      case .bound:
        throw ModelError.invalidConstraint(
          "\(attribute) \"\(text)\" does not parse as \(type.xcodeName): \(error.reason)", at: here)
      }
    }
    switch reading {
    case .exact(let value):
      return value
    case .coerced(let value, let note):
      let kind: ModelDiagnostic.Kind = role == .bound ? .coercedBound : .coercedDefaultValue
      diagnostics.append(ModelDiagnostic(kind, "\(attribute) \(note)", at: here))
      return value
    case .ignored(let note):
      let message = "\(attribute) \"\(text)\" is \(note)"
      guard role == .defaultValue else { throw ModelError.invalidConstraint(message, at: here) }
      diagnostics.append(ModelDiagnostic(.ignoredDefaultValue, message, at: here))
      return nil
    }
  }

  private func length(_ text: String, named attribute: String, at here: InputLocation) throws
    -> Int
  {
    guard ValueText.isInteger(text), let value = Int(text), value >= 0 else {
      throw ModelError.invalidConstraint(
        "\(attribute) \"\(text)\" is not a length (a whole number of at least 0)", at: here)
    }
    return value
  }

  // MARK: Relationships and fetched properties

  private func readRelationship(_ element: XMLElement, owner: String) throws
    -> RelationshipDescription
  {
    let name = try required("name", of: element)
    let here = element.location.naming(entity: owner, property: name)
    let destination = try required("destinationEntity", of: element, at: here)
    let rule: DeleteRule
    if let ruleName = element.attribute("deletionRule") {
      guard let known = DeleteRule(xcodeName: ruleName) else {
        throw ModelError.unknownDeleteRule(ruleName, at: here)
      }
      rule = known
    } else {
      rule = .nullify
    }
    let toMany = try flag("toMany", of: element, at: here)
    var relationship = RelationshipDescription(
      name, to: destination, inverse: element.attribute("inverseName"), toMany: toMany,
      ordered: try flag("ordered", of: element, at: here),
      isOptional: try flag("optional", of: element, at: here), deleteRule: rule)
    relationship.sourceLocation = element.location
    relationship.inverseEntityName = element.attribute("inverseEntity")
    relationship.isTransient = try flag("transient", of: element, at: here)
    relationship.isIndexed = try flag("indexed", of: element, at: here)
    relationship.versionHashModifier = element.attribute("versionHashModifier")
    relationship.renamingIdentifier = element.attribute("elementID")
    if let text = element.attribute("minCount") {
      relationship.minCount = try count(text, named: "minCount", at: here)
    }
    if let text = element.attribute("maxCount") {
      let value = try count(text, named: "maxCount", at: here)
      // Core Data spells "no limit" as 0.
      relationship.maxCount = value == 0 && toMany ? nil : value
    }
    for child in element.children {
      guard child.name == "userInfo" else { throw unexpected(child, in: "relationship") }
      relationship.userInfo = try readUserInfo(child)
    }
    return relationship
  }

  private func readFetchedProperty(_ element: XMLElement, owner: String) throws
    -> FetchedPropertyDescription
  {
    let name = try required("name", of: element)
    let here = element.location.naming(entity: owner, property: name)
    var request: XMLElement?
    var userInfo: [String: String] = [:]
    for child in element.children {
      switch child.name {
      case "fetchRequest": request = child
      case "userInfo": userInfo = try readUserInfo(child)
      default: throw unexpected(child, in: "fetchedProperty")
      }
    }
    guard let request else {
      throw ModelError.missingValue("<fetchRequest>", on: "fetchedProperty", at: here)
    }
    var property = FetchedPropertyDescription(
      name, entity: try required("entity", of: request, at: here),
      predicate: request.attribute("predicateString"))
    property.isOptional = try flag("optional", of: element, at: here)
    property.userInfo = userInfo
    property.sourceLocation = element.location
    return property
  }

  private func readFetchIndex(_ element: XMLElement) throws -> FetchIndexDescription {
    let name = try required("name", of: element)
    var index = FetchIndexDescription(name, elements: [])
    for child in try elements(element, named: "fetchIndexElement") {
      let kind = child.attribute("type") ?? "Binary"
      let ascending: Bool
      switch child.attribute("order") ?? "ascending" {
      case "ascending": ascending = true
      case "descending": ascending = false
      case let other:
        throw ModelError(
          .invalidValue, "order is \"\(other)\", expected \"ascending\" or \"descending\"",
          at: child.location)
      }
      if let property = child.attribute("property") {
        index.elements.append(.init(property: property, kind: kind, ascending: ascending))
      } else if let expression = child.attribute("expression") {
        index.elements.append(.init(expression: expression, kind: kind, ascending: ascending))
      } else {
        throw ModelError.missingValue("property or expression", on: child.name, at: child.location)
      }
    }
    return index
  }

  // MARK: Model-level elements

  private mutating func readComposite(_ element: XMLElement) throws -> CompositeDescription {
    let name = try required("name", of: element)
    var members: [AttributeDescription] = []
    for child in element.children {
      guard child.name == "attribute" else { throw unexpected(child, in: "composite") }
      members.append(try readAttribute(child, owner: name))
    }
    var composite = CompositeDescription(name, attributes: members)
    composite.sourceLocation = element.location
    return composite
  }

  private func readConfiguration(_ element: XMLElement) throws -> ConfigurationDescription {
    let name = try required("name", of: element)
    var configuration = ConfigurationDescription(
      name,
      entityNames: try elements(element, named: "memberEntity").map { try required("name", of: $0) }
    )
    configuration.sourceLocation = element.location
    return configuration
  }

  private func readTemplate(_ element: XMLElement) throws -> FetchRequestTemplate {
    let name = try required("name", of: element)
    var options: [String: String] = [:]
    for key in [
      "resultType", "includeSubentities", "includePropertyValues", "includesPendingChanges",
      "returnObjectsAsFaults", "returnDistinctResults", "fetchLimit", "fetchBatchSize",
    ] {
      options[key] = element.attribute(key)
    }
    var template = FetchRequestTemplate(
      name, entity: try required("entity", of: element),
      predicate: element.attribute("predicateString"), options: options)
    template.sourceLocation = element.location
    return template
  }

  private func readUserInfo(_ element: XMLElement) throws -> [String: String] {
    var info: [String: String] = [:]
    for entry in try elements(element, named: "entry") {
      info[try required("key", of: entry)] = entry.attribute("value") ?? ""
    }
    return info
  }

  // MARK: Values

  private func required(_ name: String, of element: XMLElement, at here: InputLocation? = nil)
    throws -> String
  {
    guard let value = element.attribute(name) else {
      throw ModelError.missingValue(name, on: element.name, at: here ?? element.location)
    }
    return value
  }

  /// An Xcode flag: `YES` or `NO`, absent meaning `NO`.
  private func flag(_ name: String, of element: XMLElement, at here: InputLocation) throws -> Bool {
    switch element.attribute(name) {
    case nil, "NO": return false
    case "YES": return true
    case let other?: throw ModelError.invalidFlag(name, value: other, at: here)
    }
  }

  private func count(_ text: String, named name: String, at here: InputLocation) throws -> Int {
    guard ValueText.isInteger(text), let value = Int(text) else {
      throw ModelError.invalidNumber(name, value: text, at: here)
    }
    return value
  }

  /// The children of `element`, each of which must be called `name`.
  private func elements(_ element: XMLElement, named name: String) throws -> [XMLElement] {
    let children = element.children
    if let stray = children.first(where: { $0.name != name }) {
      throw unexpected(stray, in: element.name)
    }
    return children
  }

  private func unexpected(_ element: XMLElement, in parent: String) -> ModelError {
    ModelError(
      .unexpectedContent, "unexpected element <\(element.name)> in <\(parent)>",
      at: element.location)
  }
}
