import FolioModel
import FolioSupport
import Foundation

/// Swift source for a model's entity classes, as Xcode writes `NSManagedObject` subclasses:
/// a class file and a properties file per entity, and one file listing the classes for
/// `ManagedObjectModel.register(_:)`.
///
/// Each entity's `codeGenerationType` decides what is generated at build time
/// (``buildTimeFiles()``): Class Definition, both files; Category/Extension, the properties
/// file only (the developer writes the class); Manual/None, nothing. ``sourceFiles(entities:)``
/// writes both files whatever the mode, for the developer to own (Xcode's "Create
/// NSManagedObject Subclass…").
///
/// What an entity's class is called: its `representedClassName` without a module prefix
/// (`App.BookMO` is `BookMO`), or else the entity's name; an entity whose class is
/// `NSManagedObject` has none, and relationships to it are typed `ManagedObject`.
///
/// The output is deterministic (entities in model order, properties in declaration order)
/// and laid out as `swift format` lays it out.
public struct EntityCodeGenerator: Sendable {
  /// One generated file: its name and its Swift source.
  public struct File: Sendable, Hashable {
    /// The file's name: `Book+FolioClass.swift`, `Book+FolioProperties.swift`,
    /// `LibraryEntities.swift`.
    public var name: String
    /// The Swift source.
    public var contents: String
  }

  /// The model the classes are for.
  public let model: ManagedObjectModel
  /// The model's name, without extension (`Library` for `Library.xcdatamodeld`): the list of
  /// classes is `<modelName>Entities`.
  public let modelName: String
  /// Where the model came from, as the header of each file names it.
  public var sourceName: String

  /// The value transformers the app registers, by the names models give them: a transformable
  /// attribute read through one of them, whose model names its class (`customClassName`), gets
  /// a property of that class rather than its bytes. The default is the two names of the
  /// built-in `NSSecureUnarchiveFromData`, for the classes it holds.
  public var transformers: Set<String> = Self.builtInTransformers

  /// The names `NSSecureUnarchiveFromData` is registered under from the start.
  public static let builtInTransformers: Set<String> = [
    "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer",
  ]

  private let classNames: [String: String]

  /// A generator for `model`, called `modelName`.
  ///
  /// - Throws: `CodegenError.duplicateClass` when two entities' classes would have one name.
  public init(model: ManagedObjectModel, modelName: String, sourceName: String? = nil)
    throws(CodegenError)
  {
    self.model = model
    self.modelName = modelName
    self.sourceName = sourceName ?? modelName
    var names: [String: String] = [:]
    var owners: [String: String] = [:]
    for entity in model.entities {
      guard let name = Self.className(of: entity) else { continue }
      if let other = owners[name] {
        throw CodegenError(
          .duplicateClass,
          "entities \"\(other)\" and \"\(entity.name)\" would both have the class \(name)",
          at: InputLocation(entity: entity.name))
      }
      owners[name] = entity.name
      names[entity.name] = name
    }
    self.classNames = names
  }

  /// The name of `entity`'s class, or `nil` when its objects are plain `ManagedObject`s.
  public static func className(of entity: EntityDescription) -> String? {
    let declared = entity.representedClassName?.split(separator: ".").last.map(String.init)
    guard let declared, !declared.isEmpty else { return entity.name }
    return declared == "NSManagedObject" ? nil : declared
  }

  /// The files Xcode would generate at build time, by each entity's code generation mode,
  /// and the list of classes (omitted when no entity has a generated class).
  ///
  /// - Throws: `CodegenError.unknownCodeGeneration`, `.reservedName`.
  public func buildTimeFiles() throws(CodegenError) -> [File] {
    var files: [File] = []
    var listed: [EntityDescription] = []
    for entity in model.entities {
      guard let mode = entity.codeGeneration else {
        throw CodegenError(
          .unknownCodeGeneration,
          "codeGenerationType \"\(entity.codeGenerationType ?? "")\" is not one Folio knows (class, category)",
          at: InputLocation(entity: entity.name))
      }
      guard mode != .manual, classNames[entity.name] != nil else { continue }
      if mode == .classDefinition { files.append(classFile(entity, ownedByBuild: true)) }
      files.append(try propertiesFile(entity, ownedByBuild: true))
      listed.append(entity)
    }
    if !listed.isEmpty { files.append(entitiesFile(listed, ownedByBuild: true)) }
    return files
  }

  /// What ``buildTimeFiles()`` holds, as one Swift source file: what the build-tool plugin
  /// writes for each model (a build command declares its outputs before it runs, so one file
  /// per model, whatever the entities). Without an entity to generate, only the header.
  ///
  /// - Throws: as ``buildTimeFiles()``.
  public func buildTimeSource() throws(CodegenError) -> String {
    let header = header(ownedByBuild: true)
    let bodies = try buildTimeFiles().map { $0.contents.dropFirst(header.count) }
    return header + bodies.joined(separator: "\n")
  }

  /// Both files of each entity named in `entityNames` (every entity with a class when empty),
  /// whatever its mode, and the list of classes to register: theirs, and those of the entities
  /// in `registered` (whose files were written before), in model order. Code for the developer
  /// to own.
  ///
  /// - Throws: `CodegenError.unknownEntity`, `.reservedName`.
  public func sourceFiles(
    entities entityNames: [String] = [], alsoRegistering registered: Set<String> = []
  )
    throws(CodegenError) -> [File]
  {
    var selected: [EntityDescription] = []
    for name in entityNames {
      guard let entity = model.entity(named: name) else {
        throw CodegenError(
          .unknownEntity,
          "the model has no entity \"\(name)\"\(nameSuggestion(for: name, among: model.entities.map(\.name)))",
          at: InputLocation(entity: name))
      }
      selected.append(entity)
    }
    if entityNames.isEmpty { selected = model.entities }
    let chosen = Set(selected.map(\.name))
    var files: [File] = []
    var listed: [EntityDescription] = []
    // Model order, whatever the order of the names asked for.
    for entity in model.entities {
      guard classNames[entity.name] != nil else { continue }
      if chosen.contains(entity.name) {
        files.append(classFile(entity, ownedByBuild: false))
        files.append(try propertiesFile(entity, ownedByBuild: false))
        listed.append(entity)
      } else if registered.contains(entity.name) {
        listed.append(entity)
      }
    }
    if !listed.isEmpty { files.append(entitiesFile(listed, ownedByBuild: false)) }
    return files
  }

  // MARK: Files

  /// What each file starts with: where it came from, whose it is, and its imports.
  private func header(ownedByBuild: Bool) -> String {
    let origin =
      ownedByBuild
      ? "// Generated by folio codegen from \(sourceName) at build time. Do not edit: the build\n"
        + "// writes it again; write your code in the class, or in another extension.\n"
      : "// Generated by folio codegen from \(sourceName), for you to own and edit.\n"
    return origin + "\nimport FolioGraph\nimport FolioModel\nimport Foundation\n\n"
  }

  private func classFile(_ entity: EntityDescription, ownedByBuild: Bool) -> File {
    let name = classNames[entity.name] ?? entity.name
    var text = header(ownedByBuild: ownedByBuild)
    text += "/// The class of the `\(entity.name)` entity.\n"
    text += "public class \(SwiftNames.identifier(name)): \(superclass(of: entity)) {\n"
    text += "  /// The entity this class represents.\n"
    text += Layout.block(
      2, "public override class var entityName: \(type("String"))", Quoting.swiftString(entity.name)
    )
    text += "}\n"
    return File(name: "\(name)+FolioClass.swift", contents: text)
  }

  private func propertiesFile(_ entity: EntityDescription, ownedByBuild: Bool)
    throws(CodegenError) -> File
  {
    let name = classNames[entity.name] ?? entity.name
    let typeName = SwiftNames.identifier(name)
    var text = header(ownedByBuild: ownedByBuild)
    var members: [String] = []
    var accessors: [String] = []
    for attribute in entity.attributes {
      try check(attribute.name, of: entity)
      members.append(property(attribute))
    }
    for relationship in entity.relationships {
      try check(relationship.name, of: entity)
      members.append(property(relationship))
      if relationship.isToMany { accessors.append(toManyAccessors(relationship)) }
    }
    for fetched in entity.fetchedProperties {
      try check(fetched.name, of: entity)
      members.append(property(fetched))
    }
    text += "extension \(typeName) {\n"
    text += members.joined(separator: "\n")
    text += "}\n"
    for (relationship, block) in zip(entity.relationships.filter(\.isToMany), accessors) {
      text += "\n// MARK: Generated accessors for \(relationship.name)\n\n"
      text += "extension \(typeName) {\n\(block)}\n"
    }
    if isRootClass(entity) { text += "\nextension \(typeName): Identifiable {}\n" }
    return File(name: "\(name)+FolioProperties.swift", contents: text)
  }

  /// The name of the file listing the classes to register: `LibraryEntities.swift`.
  public var entitiesFileName: String {
    let enumName = SwiftNames.identifier(SwiftNames.isIdentifier(modelName) ? modelName : "Model")
    return "\(enumName)Entities.swift"
  }

  /// The name of the file holding the class of the entity `name`: `Book+FolioClass.swift`.
  public func classFileName(ofEntity name: String) -> String? {
    classNames[name].map { "\($0)+FolioClass.swift" }
  }

  private func entitiesFile(_ entities: [EntityDescription], ownedByBuild: Bool) -> File {
    let enumName = SwiftNames.identifier(SwiftNames.isIdentifier(modelName) ? modelName : "Model")
    var text = header(ownedByBuild: ownedByBuild)
    text += "/// The entity classes of the \(modelName) model, to register before creating\n"
    text += "/// contexts: `try model.register(\(enumName)Entities.classes)`.\n"
    text += "public enum \(enumName)Entities {\n"
    text += "  /// Every class, each after its superclass.\n"
    text += "  public static var classes: [\(type("ManagedObject")).Type] {\n"
    text += "    [\n"
    // One element alone takes no trailing comma, as `swift format` writes it.
    let separator = entities.count > 1 ? "," : ""
    for entity in entities {
      text +=
        "      \(SwiftNames.identifier(classNames[entity.name] ?? entity.name)).self\(separator)\n"
    }
    text += "    ]\n"
    text += "  }\n"
    text += "}\n"
    return File(name: entitiesFileName, contents: text)
  }

  // MARK: Properties

  private func property(_ attribute: AttributeDescription) -> String {
    let name = SwiftNames.identifier(attribute.name)
    let key = Quoting.swiftString(attribute.name)
    let summary = "  /// \(attributeSummary(attribute))\n"
    if attribute.attributeType == .undefined {
      return summary
        + accessors(
          "public var \(name): \(type("Any"))?",
          get: ("untypedAttributeValue", ["forKey: \(key)"]),
          set: attribute.isDerived
            ? nil : ("setUntypedAttributeValue", ["newValue", "forKey: \(key)"]))
    }
    if let transformed = transformedType(of: attribute) {
      return summary
        + accessors(
          "public var \(name): \(transformed)?", get: ("transformedValue", ["forKey: \(key)"]),
          set: attribute.isDerived
            ? nil : ("setTransformedValue", ["newValue", "forKey: \(key)"]))
    }
    let declaration = "public var \(name): \(swiftType(of: attribute))"
    if attribute.isDerived {
      return summary
        + Layout.block(2, declaration, Layout.call(4, "attributeValue", ["forKey: \(key)"]))
    }
    return summary
      + accessors(
        declaration, get: ("attributeValue", ["forKey: \(key)"]),
        set: ("setAttributeValue", ["newValue", "forKey: \(key)"]))
  }

  /// A computed property with a getter and, unless `set` is `nil`, a setter.
  private func accessors(
    _ declaration: String, get: (String, [String]), set: (String, [String])?
  ) -> String {
    var body = Layout.block(4, "get", Layout.call(6, get.0, get.1))
    if let set { body += Layout.block(4, "set", Layout.call(6, set.0, set.1)) }
    return "  \(declaration) {\n\(body)  }\n"
  }

  private func attributeSummary(_ attribute: AttributeDescription) -> String {
    var text = "The `\(attribute.name)` attribute (\(attribute.attributeType.xcodeName)"
    if attribute.isDerived { text += ", derived: read-only" }
    if attribute.isTransient { text += ", transient" }
    text += ")."
    if let transformed = transformedType(of: attribute) {
      text +=
        "\n  /// A `\(transformed)`, read and set through the transformer registered as `\(attribute.valueTransformerName ?? "")`."
    } else if attribute.attributeType == .transformable,
      attribute.valueClassName != nil || attribute.valueTransformerName != nil
    {
      // The property gives the bytes a store keeps; `value(forKey:)` gives what the
      // transformer registered under the model's name makes of them.
      let of = attribute.valueClassName.map { " of a `\($0)`" } ?? ""
      let by = attribute.valueTransformerName.map { ", made by `\($0)`" } ?? ""
      text += "\n  /// The bytes\(of)\(by)."
      if let name = attribute.valueTransformerName {
        text += "\n  /// `value(forKey:)` reads them through the transformer registered as"
        text += " `\(name)`."
      }
    }
    return text
  }

  private func property(_ relationship: RelationshipDescription) -> String {
    let name = SwiftNames.identifier(relationship.name)
    let key = Quoting.swiftString(relationship.name)
    let target = targetType(of: relationship)
    let destination = relationship.destinationEntityName
    if !relationship.isToMany {
      return "  /// The `\(relationship.name)` relationship (to-one \(destination)).\n"
        + accessors(
          "public var \(name): \(target)?", get: ("relatedObject", ["forKey: \(key)"]),
          set: ("setRelatedObject", ["newValue", "forKey: \(key)"]))
    }
    if relationship.isOrdered {
      return "  /// The `\(relationship.name)` relationship (ordered to-many \(destination)).\n"
        + accessors(
          "public var \(name): [\(target)]", get: ("orderedRelatedObjects", ["forKey: \(key)"]),
          set: ("setOrderedRelatedObjects", ["newValue", "forKey: \(key)"]))
    }
    return "  /// The `\(relationship.name)` relationship (to-many \(destination)).\n"
      + accessors(
        "public var \(name): \(type("Set"))<\(target)>",
        get: ("relatedObjects", ["forKey: \(key)"]),
        set: ("setRelatedObjects", ["newValue", "forKey: \(key)"]))
  }

  private func property(_ fetched: FetchedPropertyDescription) -> String {
    let target =
      model.entity(named: fetched.entityName).flatMap { classNames[$0.name] }
      .map(SwiftNames.identifier) ?? type("ManagedObject")
    return
      "  /// The `\(fetched.name)` fetched property (\(fetched.entityName) objects; fetched on\n"
      + "  /// first access, again after a refresh).\n"
      + Layout.block(
        2, "public var \(SwiftNames.identifier(fetched.name)): [\(target)]",
        Layout.call(4, "fetchedObjects", ["forKey: \(Quoting.swiftString(fetched.name))"]))
  }

  /// Xcode's generated accessors for a to-many relationship, with Swift types.
  private func toManyAccessors(_ relationship: RelationshipDescription) -> String {
    let suffix = SwiftNames.capitalized(relationship.name)
    let key = Quoting.swiftString(relationship.name)
    let target = targetType(of: relationship)
    let collection = relationship.isOrdered ? "[\(target)]" : "\(type("Set"))<\(target)>"
    var text = ""
    func method(_ doc: String, _ name: String, _ parameters: String, _ body: String) {
      if !text.isEmpty { text += "\n" }
      text += "  /// \(doc)\n" + Layout.function(name, parameters, body: body)
    }
    func loop(_ call: String) -> String {
      Layout.block(4, "for value in values", call).dropFirst(4).dropLast().description
    }
    let (value, values) = ("value", "values")
    if relationship.isOrdered {
      method(
        "Inserts `value` into `\(relationship.name)` at `index`.", "insertInto\(suffix)",
        "_ value: \(target), at index: Int",
        Layout.call(4, "addRelatedObject", [value, "forKey: \(key)", "at: index"]))
      method(
        "Removes the object at `index` of `\(relationship.name)`.", "removeFrom\(suffix)",
        "at index: Int", Layout.call(4, "removeRelatedObject", ["at: index", "forKey: \(key)"]))
      method(
        "Replaces the object at `index` of `\(relationship.name)` with `value`.",
        "replace\(suffix)", "at index: Int, with value: \(target)",
        Layout.call(4, "replaceRelatedObject", ["at: index", "with: value", "forKey: \(key)"]))
    }
    method(
      "Adds `value` to `\(relationship.name)`.", "addTo\(suffix)", "_ value: \(target)",
      Layout.call(4, "addRelatedObject", [value, "forKey: \(key)"]))
    method(
      "Removes `value` from `\(relationship.name)`.", "removeFrom\(suffix)", "_ value: \(target)",
      Layout.call(4, "removeRelatedObject", [value, "forKey: \(key)"]))
    method(
      "Adds `values` to `\(relationship.name)`.", "addTo\(suffix)", "_ values: \(collection)",
      loop(Layout.call(6, "addRelatedObject", [value, "forKey: \(key)"])))
    method(
      "Removes `values` from `\(relationship.name)`.", "removeFrom\(suffix)",
      "_ values: \(collection)",
      loop(Layout.call(6, "removeRelatedObject", [value, "forKey: \(key)"])))
    _ = values
    return text
  }

  // MARK: Types

  /// The Swift type of an attribute's property: its scalar when the model asks for one
  /// ("Use Scalar Type"), an optional otherwise.
  private func swiftType(of attribute: AttributeDescription) -> String {
    let scalar = attribute.usesScalarValueType == true
    switch attribute.attributeType {
    case .integer16: return scalar ? type("Int16") : "\(type("Int16"))?"
    case .integer32: return scalar ? type("Int32") : "\(type("Int32"))?"
    case .integer64: return scalar ? type("Int64") : "\(type("Int64"))?"
    case .double: return scalar ? type("Double") : "\(type("Double"))?"
    case .float: return scalar ? type("Float") : "\(type("Float"))?"
    case .boolean: return scalar ? type("Bool") : "\(type("Bool"))?"
    case .date: return scalar ? type("TimeInterval") : "\(type("Date"))?"
    case .decimal: return "\(type("Decimal"))?"
    case .string: return "\(type("String"))?"
    case .binaryData, .transformable: return "\(type("Data"))?"
    case .uuid: return "\(type("UUID"))?"
    case .uri: return "\(type("URL"))?"
    case .objectID, .composite, .undefined: return "\(type("AttributeValue"))?"
    }
  }

  /// The Swift type of a transformable attribute's property read through its transformer:
  /// the class its model names, when the transformer is one the app registers
  /// (``transformers``) and, for the built-in `NSSecureUnarchiveFromData`, one it holds (a
  /// Swift collection written as such, `[String]`, or a Foundation class with a Swift
  /// counterpart); `nil` for its bytes.
  func transformedType(of attribute: AttributeDescription) -> String? {
    guard attribute.attributeType == .transformable,
      let transformer = attribute.valueTransformerName, transformers.contains(transformer),
      let className = attribute.valueClassName?.trimmingCharacters(in: .whitespaces),
      !className.isEmpty
    else { return nil }
    guard Self.builtInTransformers.contains(transformer) else {
      // The app's own class, as Swift names it without its module.
      return className.split(separator: ".").last.map(String.init)
    }
    if className.hasPrefix("[") { return className }
    return Self.archivedTypes[className]
  }

  /// The Swift types of the Foundation classes `NSSecureUnarchiveFromData` holds.
  private static let archivedTypes: [String: String] = [
    "NSArray": "[Any]", "NSMutableArray": "[Any]", "NSDictionary": "[String: Any]",
    "NSMutableDictionary": "[String: Any]", "NSSet": "Set<AnyHashable>",
    "NSMutableSet": "Set<AnyHashable>", "NSString": "String", "NSMutableString": "String",
    "NSDate": "Date", "NSData": "Data", "NSMutableData": "Data", "NSURL": "URL", "NSUUID": "UUID",
  ]

  private func targetType(of relationship: RelationshipDescription) -> String {
    guard let destination = model.entity(named: relationship.destinationEntityName),
      let name = classNames[destination.name]
    else { return type("ManagedObject") }
    return SwiftNames.identifier(name)
  }

  /// `name`, spelled with its module when an entity class has that name.
  private func type(_ name: String) -> String {
    classNames.values.contains(name) ? SwiftNames.qualifiedTypes[name] ?? name : name
  }

  private func superclass(of entity: EntityDescription) -> String {
    for ancestor in model.ancestorNames(of: entity) {
      if let name = classNames[ancestor] { return SwiftNames.identifier(name) }
    }
    return type("ManagedObject")
  }

  private func isRootClass(_ entity: EntityDescription) -> Bool {
    !model.ancestorNames(of: entity).contains { classNames[$0] != nil }
  }

  private func check(_ name: String, of entity: EntityDescription) throws(CodegenError) {
    let location = InputLocation(entity: entity.name, property: name)
    if SwiftNames.managedObjectMembers.contains(name) {
      throw CodegenError(
        .reservedName,
        "\"\(name)\" is a member of every ManagedObject: rename the property, or set the entity's code generation to Manual/None and write its accessors under another name",
        at: location)
    }
    if SwiftNames.unusable.contains(name) || !SwiftNames.isIdentifier(name) {
      throw CodegenError(
        .reservedName, "\"\(name)\" cannot name a Swift property", at: location)
    }
  }
}
