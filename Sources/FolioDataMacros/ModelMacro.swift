import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: makes a class an entity. Each persisted property (``PersistedProperty``) gets
/// `@_FolioPersisted`, which turns it into accessors over the object's backing; the class gains
/// the backing, the initializer a context uses to make instances of fetched objects, the list
/// of its properties the schema is built from, and the `PersistentModel` conformance.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
  public static func expansion(
    of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
      throw MacroFailure("@Model applies to a class")
    }
    if let generics = classDecl.genericParameterClause {
      throw MacroFailure(
        "@Model cannot make a generic class \(generics.trimmedDescription) an entity")
    }
    // A property @Model cannot persist is reported where it is declared and left as it is, so
    // the class still compiles around the one error.
    let (properties, failures) = PersistedProperty.all(
      in: classDecl.memberBlock.members, inSubclass: classDecl.modelSuperclass != nil)
    for failure in failures {
      context.diagnose(Diagnostic(node: failure.node ?? Syntax(node), message: failure))
    }
    let members = ModelMembers(classDecl: classDecl, properties: properties)
    var declarations = members.superclass == nil ? members.root() : members.subclass()
    declarations += members.schema()
    return declarations
  }

  public static func expansion(
    of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
    providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
  ) throws -> [AttributeSyntax] {
    guard let classDecl = declaration.as(ClassDeclSyntax.self),
      let variable = member.as(VariableDeclSyntax.self),
      (try? PersistedProperty(variable, inSubclass: classDecl.modelSuperclass != nil)) != nil,
      variable.attribute(named: "_FolioPersisted") == nil,
      variable.attribute(named: "_FolioSubclassPersisted") == nil
    else { return [] }
    if classDecl.modelSuperclass != nil { return ["@FolioData._FolioSubclassPersisted"] }
    return ["@FolioData._FolioPersisted"]
  }

  public static func expansion(
    of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    guard declaration.is(ClassDeclSyntax.self), !protocols.isEmpty else { return [] }
    let list = protocols.map(\.trimmedDescription).joined(separator: ", ")
    return [try ExtensionDeclSyntax("extension \(type.trimmed): \(raw: list) {}")]
  }
}

/// `@_FolioPersisted`, which `@Model` puts on each persisted property: accessors that read
/// and write the object's backing (its own values until a context holds it, then its managed
/// object's), and a zero-sized peer that the initializer accessor initializes, so that Swift
/// still requires the class's initializers to set the property, as for a stored one.
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
  public static func expansion(
    of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AccessorDeclSyntax] {
    guard let variable = declaration.as(VariableDeclSyntax.self),
      let property = try PersistedProperty(variable)
    else { return [] }
    let name = property.name
    return [
      """
      @storageRestrictions(accesses: _$backing, initializes: _\(raw: name))
      init(initialValue) {
        _$backing.initialize(initialValue, forKey: "\(raw: name)")
        _\(raw: name) = .init()
      }
      """,
      """
      get {
        _$backing.noteAccess()
        return _$backing.value(forKey: "\(raw: name)")
      }
      """,
      """
      set {
        _$backing.setValue(newValue, forKey: "\(raw: name)")
      }
      """,
    ]
  }

  public static func expansion(
    of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let variable = declaration.as(VariableDeclSyntax.self),
      let property = try PersistedProperty(variable)
    else { return [] }
    // An optional with no initial value starts empty, as a stored optional starts `nil`.
    let initial = property.isOptionalType && !property.hasInitialValue ? " = .init()" : ""
    return ["private var _\(raw: property.name): FolioData._FolioNoStorage\(raw: initial)"]
  }
}

/// `@_FolioSubclassPersisted`, which `@Model` puts on each persisted property of a subclass
/// of another `@Model` class. The initializer accessor cannot reach the backing, which the
/// superclass initializes later, so the value waits in the property's own storage until the
/// object's first access or insertion hands it over (`_$flushPendingValues`).
public struct SubclassPersistedPropertyMacro: AccessorMacro, PeerMacro {
  public static func expansion(
    of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AccessorDeclSyntax] {
    guard let variable = declaration.as(VariableDeclSyntax.self),
      let property = try PersistedProperty(variable)
    else { return [] }
    let name = property.name
    return [
      """
      @storageRestrictions(initializes: _\(raw: name))
      init(initialValue) {
        _\(raw: name) = .init(initialValue)
      }
      """,
      """
      get {
        _$flushPendingValues()
        _$backing.noteAccess()
        return _$backing.value(forKey: "\(raw: name)")
      }
      """,
      """
      set {
        _\(raw: name) = .init()
        _$backing.setValue(newValue, forKey: "\(raw: name)")
      }
      """,
    ]
  }

  public static func expansion(
    of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let variable = declaration.as(VariableDeclSyntax.self),
      let property = try PersistedProperty(variable)
    else { return [] }
    // `@Model` attaches this only to properties with a written type.
    guard let type = property.type else { return [] }
    let initial = property.isOptionalType && !property.hasInitialValue ? " = .init()" : ""
    return ["private var _\(raw: property.name): FolioData._FolioPending<\(type)>\(raw: initial)"]
  }
}

/// The members `@Model` adds to a class.
struct ModelMembers {
  let classDecl: ClassDeclSyntax
  let properties: [PersistedProperty]
  let typeName: String
  let access: String
  /// The superclass, when the class inherits from another `@Model` class.
  let superclass: String?
  /// `override ` in a subclass, where the members override its superclass's.
  let override: String

  init(classDecl: ClassDeclSyntax, properties: [PersistedProperty]) {
    self.classDecl = classDecl
    self.properties = properties
    typeName = classDecl.name.text
    access = classDecl.isPublic ? "public " : ""
    superclass = classDecl.modelSuperclass
    override = superclass == nil ? "" : "override "
  }

  var keyPathsFunction: String { "_$keyPathsOf\(typeName)" }

  /// Sets each property's peer storage, in the initializer of fetched objects.
  var peerSetup: String { properties.map { "  self._\($0.name) = .init()\n" }.joined() }

  /// The members of a class that inherits from no `@Model` class: the backing, and what
  /// subclasses override.
  func root() -> [DeclSyntax] {
    [
      "\(raw: access)var _$backing = FolioData._ModelBacking()",
      """
      \(raw: access)required init(backing: FolioData._ModelBacking) {
        self._$backing = backing
      \(raw: peerSetup)}
      """,
      "\(raw: access)func _$flushPendingValues() {}",
      """
      \(raw: access)class var _$propertyKeyPaths: [(String, AnyKeyPath)] {
        \(raw: keyPathsFunction)(Self.self)
      }
      """,
    ]
  }

  /// The members of a subclass of another `@Model` class. It keeps the values its initializer
  /// sets before `super.init` in its own storage (the backing is its superclass's, not yet
  /// initialized), and hands them to the backing at the first access or insertion.
  func subclass() -> [DeclSyntax] {
    let flushes = properties.map { property in
      """
        if let value = _\(property.name).take() {
          _$backing.initialize(value, forKey: "\(property.name)")
        }

      """
    }.joined()
    return [
      """
      \(raw: access)required init(backing: FolioData._ModelBacking) {
      \(raw: peerSetup)  super.init(backing: backing)
      }
      """,
      """
      \(raw: access)override func _$flushPendingValues() {
        super._$flushPendingValues()
      \(raw: flushes)}
      """,
      """
      \(raw: access)override class var _$propertyKeyPaths: [(String, AnyKeyPath)] {
        super._$propertyKeyPaths + \(raw: keyPathsFunction)(Self.self)
      }
      """,
    ]
  }

  /// The class's own properties, their key paths from any subclass, and its `#Unique` and
  /// `#Index` groups, for the schema.
  func schema() -> [DeclSyntax] {
    let metadata = properties.map { property in
      var arguments = "\"\(property.name)\", \\\(typeName).\(property.name)"
      if let attribute = property.attributeArguments {
        arguments += ", attribute: FolioData.Schema.Attribute(\(attribute.trimmedDescription))"
      }
      if let relationship = property.relationshipArguments {
        arguments +=
          ", relationship: FolioData.Schema.Relationship(\(relationship.trimmedDescription))"
      }
      // The initial value, the model's default, in the type's static context.
      if let initial = property.initialValue {
        arguments += ", defaultValue: \(initial.trimmedDescription)"
      }
      return "    FolioData.Schema.PropertyMetadata(\(arguments)),\n"
    }.joined()
    let keyPaths = properties.map { "(\"\($0.name)\", \\S.\($0.name))" }
      .joined(separator: ", ")
    return [
      """
      \(raw: access)static func \(raw: keyPathsFunction)<S: \(raw: typeName)>(_: S.Type) -> [(String, AnyKeyPath)] {
        [\(raw: keyPaths)]
      }
      """,
      """
      \(raw: access)\(raw: override)class var schemaMetadata: [FolioData.Schema.PropertyMetadata] {
        [
      \(raw: metadata)  ]
      }
      """,
      constraints(),
    ]
  }

  /// `#Unique` and `#Index` in the class body: their key paths. Declared in every class, so
  /// that a subclass's own override its superclass's.
  func constraints() -> DeclSyntax {
    let groups = ["Unique", "Index"].map { name in
      classDecl.memberBlock.members.compactMap { member -> String? in
        guard let expansion = member.decl.as(MacroExpansionDeclSyntax.self),
          expansion.macroName.text == name
        else { return nil }
        return expansion.arguments.map { "\($0.expression.trimmedDescription)" }
          .joined(separator: ", ")
      }.filter { !$0.isEmpty }.joined(separator: ", ")
    }
    guard groups.contains(where: { !$0.isEmpty }) else {
      return """
        \(raw: access)\(raw: override)class var schemaConstraints: FolioData.Schema.Constraints {
          FolioData.Schema.Constraints()
        }
        """
    }
    return """
      \(raw: access)\(raw: override)class var schemaConstraints: FolioData.Schema.Constraints {
        let unique: [[PartialKeyPath<\(raw: typeName)>]] = [\(raw: groups[0])]
        let indexes: [[PartialKeyPath<\(raw: typeName)>]] = [\(raw: groups[1])]
        return FolioData.Schema.Constraints(unique: unique, indexes: indexes)
      }
      """
  }
}

extension ClassDeclSyntax {
  var isPublic: Bool {
    modifiers.contains { ["public", "open"].contains($0.name.text) }
  }

  /// The class's superclass when it is another `@Model` class, as far as syntax tells: the
  /// first type of the inheritance clause, unless it is a protocol a model class commonly
  /// adopts. (Swift requires a superclass to come first.)
  var modelSuperclass: String? {
    guard let first = inheritanceClause?.inheritedTypes.first?.type.trimmedDescription else {
      return nil
    }
    let name = first.split(separator: ".").last.map(String.init) ?? first
    return Self.adoptedProtocols.contains(name) ? nil : first
  }

  static let adoptedProtocols: Set<String> = [
    "PersistentModel", "Observable", "Identifiable", "Hashable", "Equatable", "Comparable",
    "Codable", "Encodable", "Decodable", "Sendable", "AnyObject", "CustomStringConvertible",
    "CustomDebugStringConvertible", "CustomReflectable", "Transferable", "Error",
    "LocalizedError", "ObservableObject",
  ]
}

/// `#Unique` and `#Index`: their key paths are read by `@Model` from the class body; they
/// declare nothing themselves.
public struct ConstraintMacro: DeclarationMacro {
  public static func expansion(
    of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    []
  }
}
