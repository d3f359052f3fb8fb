import Foundation

/// An entity: a kind of object in the graph, with its attributes and relationships, its place
/// in an inheritance tree, and its constraints.
///
/// The counterpart of Core Data's `NSEntityDescription`. Build one with
/// ``init(_:parent:isAbstract:_:)`` and its declared properties; once it is in a
/// ``ManagedObjectModel`` the model resolves it: ``properties`` then lists every property,
/// inherited ones first, and ``property(named:)`` finds any of them in O(1).
public struct EntityDescription: Sendable, Hashable {
  /// The entity's name, unique in the model.
  public var name: String
  /// The entity this one inherits from. The default is `nil`.
  public var parentEntityName: String?
  /// Whether the entity has no instances of its own, only of its subentities. The default is
  /// `false`.
  public var isAbstract: Bool
  /// The class that represents instances in the app that wrote the model. The default is `nil`.
  public var representedClassName: String?
  /// How Xcode generates the entity's class, as the file writes it (Xcode's
  /// `codeGenerationType`: `"class"`, `"category"`); `nil` for Manual/None. See
  /// ``codeGeneration``. The default is `nil`.
  public var codeGenerationType: String?
  /// The attributes declared on this entity (not inherited ones), in declaration order.
  public var attributes: [AttributeDescription] = []
  /// The relationships declared on this entity, in declaration order.
  public var relationships: [RelationshipDescription] = []
  /// The fetched properties declared on this entity, in declaration order.
  public var fetchedProperties: [FetchedPropertyDescription] = []
  /// Sets of property names whose values together must be unique among the entity's objects.
  /// The default is empty.
  public var uniquenessConstraints: [[String]] = []
  /// Fetch indexes, from Xcode's `<fetchIndex>` elements. The default is empty.
  public var fetchIndexes: [FetchIndexDescription] = []
  /// Compound indexes, from Xcode's older `<compoundIndexes>` elements: property names each.
  /// The default is empty.
  public var compoundIndexes: [[String]] = []
  /// Marks a change of meaning the version hash would not otherwise see. The default is `nil`.
  public var versionHashModifier: String?
  /// The name this entity had in an earlier model version (Xcode's `elementID`). The default
  /// is `nil`.
  public var renamingIdentifier: String?
  /// Free-form key-value pairs from the model. The default is empty.
  public var userInfo: [String: String] = [:]

  /// Every property, the root ancestor's first: set when the entity is in a model.
  public internal(set) var properties: [PropertyDescription] = []
  /// The names of the entities that inherit directly from this one: set by the model.
  public internal(set) var subentityNames: [String] = []
  /// The SHA-256 of the entity's stored shape: set by the model.
  public internal(set) var versionHash = Data()
  /// Where the entity was declared; `nil` when built in code.
  public internal(set) var sourceLocation: InputLocation? {
    get { sourceNote.value }
    set { sourceNote.value = newValue }
  }
  var sourceNote = SourceNote<InputLocation?>(nil)
  var propertyIndex: [String: Int] = [:]
  /// Where each uniqueness constraint, fetch index and compound index was declared, by kind
  /// and position (`"unique 0"`), for error messages.
  var partLocations: [String: InputLocation] {
    get { partNotes.value }
    set { partNotes.value = newValue }
  }
  var partNotes = SourceNote<[String: InputLocation]>([:])

  /// Creates an entity with its declared properties.
  ///
  /// ```swift
  /// EntityDescription("Person") {
  ///   AttributeDescription("name", .string, isOptional: false)
  ///   RelationshipDescription("spendings", to: "Spending", inverse: "person",
  ///                           toMany: true, deleteRule: .cascade)
  /// }
  /// ```
  public init(
    _ name: String, parent: String? = nil, isAbstract: Bool = false,
    @EntityContentBuilder _ content: () -> [EntityContent] = { [] }
  ) {
    self.name = name
    self.parentEntityName = parent
    self.isAbstract = isAbstract
    for part in content() { part.add(to: &self) }
  }

  /// The property called `name`, declared here or inherited, once the entity is in a model.
  ///
  /// - Complexity: O(1).
  public func property(named name: String) -> PropertyDescription? {
    propertyIndex[name].map { properties[$0] }
  }

  /// The attribute called `name`, declared here or inherited.
  ///
  /// - Complexity: O(1).
  public func attribute(named name: String) -> AttributeDescription? {
    property(named: name)?.attribute
  }

  /// The relationship called `name`, declared here or inherited.
  ///
  /// - Complexity: O(1).
  public func relationship(named name: String) -> RelationshipDescription? {
    property(named: name)?.relationship
  }

  /// Every attribute, inherited ones first.
  public var allAttributes: [AttributeDescription] { properties.compactMap(\.attribute) }

  /// Every relationship, inherited ones first.
  public var allRelationships: [RelationshipDescription] { properties.compactMap(\.relationship) }

  /// The names of the properties declared on this entity, in declaration order: attributes,
  /// then relationships, then fetched properties.
  var declaredPropertyNames: [String] {
    attributes.map(\.name) + relationships.map(\.name) + fetchedProperties.map(\.name)
  }
}

/// A fetch index: an ordered list of properties (or an expression) a store may index on.
public struct FetchIndexDescription: Sendable, Hashable {
  /// One element of an index.
  public struct Element: Sendable, Hashable {
    /// The property indexed, or `nil` when the element is an expression.
    public var propertyName: String?
    /// The expression indexed, kept as text, when there is no property.
    public var expression: String?
    /// The index kind, as Xcode writes it (`Binary`, `R-Tree`).
    public var kind: String
    /// Whether the index orders this element ascending.
    public var isAscending: Bool

    /// Creates an element on a property.
    public init(property: String, kind: String = "Binary", ascending: Bool = true) {
      self.propertyName = property
      self.kind = kind
      self.isAscending = ascending
    }

    /// Creates an element on an expression.
    public init(expression: String, kind: String = "Binary", ascending: Bool = true) {
      self.expression = expression
      self.kind = kind
      self.isAscending = ascending
    }
  }

  /// The index's name.
  public var name: String
  /// The elements, in order; may be empty while an index is being drafted in Xcode.
  public var elements: [Element]

  /// Creates an index.
  public init(_ name: String, elements: [Element]) {
    self.name = name
    self.elements = elements
  }
}

/// Something that goes inside an ``EntityDescription``'s builder block.
public protocol EntityContent {
  /// Adds this part to `entity`.
  func add(to entity: inout EntityDescription)
}

extension AttributeDescription: EntityContent {
  public func add(to entity: inout EntityDescription) { entity.attributes.append(self) }
}

extension RelationshipDescription: EntityContent {
  public func add(to entity: inout EntityDescription) { entity.relationships.append(self) }
}

extension FetchedPropertyDescription: EntityContent {
  public func add(to entity: inout EntityDescription) { entity.fetchedProperties.append(self) }
}

extension FetchIndexDescription: EntityContent {
  public func add(to entity: inout EntityDescription) { entity.fetchIndexes.append(self) }
}

/// A uniqueness constraint in an ``EntityDescription``'s builder block:
/// `UniquenessConstraint("firstName", "lastName")`.
public struct UniquenessConstraint: EntityContent {
  /// The properties whose values together must be unique.
  public var propertyNames: [String]

  /// Creates a constraint on the given properties together.
  public init(_ propertyNames: String...) { self.propertyNames = propertyNames }

  public func add(to entity: inout EntityDescription) {
    entity.uniquenessConstraints.append(propertyNames)
  }
}

/// Collects the parts of an entity written in a builder block.
@resultBuilder
public enum EntityContentBuilder {
  public static func buildExpression(_ part: some EntityContent) -> [EntityContent] { [part] }
  public static func buildBlock(_ parts: [EntityContent]...) -> [EntityContent] {
    parts.flatMap { $0 }
  }
  public static func buildOptional(_ parts: [EntityContent]?) -> [EntityContent] { parts ?? [] }
  public static func buildEither(first parts: [EntityContent]) -> [EntityContent] { parts }
  public static func buildEither(second parts: [EntityContent]) -> [EntityContent] { parts }
  public static func buildArray(_ parts: [[EntityContent]]) -> [EntityContent] {
    parts.flatMap { $0 }
  }
}

/// Collects the entities written in a ``ManagedObjectModel`` builder block.
@resultBuilder
public enum ModelContentBuilder {
  public static func buildExpression(_ entity: EntityDescription) -> [EntityDescription] {
    [entity]
  }
  public static func buildBlock(_ parts: [EntityDescription]...) -> [EntityDescription] {
    parts.flatMap { $0 }
  }
  public static func buildOptional(_ parts: [EntityDescription]?) -> [EntityDescription] {
    parts ?? []
  }
  public static func buildEither(first parts: [EntityDescription]) -> [EntityDescription] {
    parts
  }
  public static func buildEither(second parts: [EntityDescription]) -> [EntityDescription] {
    parts
  }
  public static func buildArray(_ parts: [[EntityDescription]]) -> [EntityDescription] {
    parts.flatMap { $0 }
  }
}
