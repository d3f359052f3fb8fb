import Foundation

/// The schema of a document: its entities, their properties and the rules between them.
///
/// The counterpart of Core Data's `NSManagedObjectModel`. A model is checked and resolved when
/// it is created — inheritance flattened, inverses matched, constraints checked, version hashes
/// computed — and is immutable and `Sendable` from then on. Create one in code:
///
/// ```swift
/// let model = try ManagedObjectModel {
///   EntityDescription("Person") {
///     AttributeDescription("name", .string, isOptional: false)
///     RelationshipDescription("spendings", to: "Spending", inverse: "person",
///                             toMany: true, deleteRule: .cascade)
///   }
///   EntityDescription("Spending") {
///     AttributeDescription("amount", .double, isOptional: false, defaultValue: .double(0))
///     RelationshipDescription("person", to: "Person", inverse: "spendings")
///   }
/// }
/// ```
///
/// or load one from Xcode's files with ``ManagedObjectModel/init(contentsOf:options:)``.
public struct ManagedObjectModel: Sendable, Hashable {
  /// The entities, in declaration order.
  public let entities: [EntityDescription]
  /// The composite types that composite attributes refer to.
  public let composites: [CompositeDescription]
  /// Named subsets of the entities, for stores that hold only some of them.
  public let configurations: [ConfigurationDescription]
  /// Fetch requests stored in the model, by name.
  public let fetchRequestTemplates: [FetchRequestTemplate]
  /// The version identifier the model's author set (Xcode's `userDefinedModelVersionIdentifier`);
  /// `nil` when empty.
  public let versionIdentifier: String?
  /// Folio's own hash of the whole model: equal for two models whose stores have the same
  /// shape. (Core Data's digest of a model is not established; this one is over Folio's
  /// earlier entity hashes, ``legacyEntityVersionHashes``, which `.folio` files record.)
  public let versionHash: Data
  /// Each entity's hash as Folio computed it before it computed Core Data's, by entity name:
  /// the stores Folio wrote then record these.
  package let legacyEntityVersionHashes: [String: Data]
  /// Warnings about the model: lenient readings of its file and relationships without inverses.
  public let diagnostics: [ModelDiagnostic]
  private let entityIndex: [String: Int]
  /// The classes an app registered for the entities, by entity name: which class a context
  /// instantiates for each entity's objects. Not part of what the model describes, so
  /// equality and hashing ignore it.
  package var entityClasses = EntityClassTable()

  /// The most entities a model may have.
  public static let maximumEntities = 65_535
  /// The most properties an entity may have, inherited ones included.
  public static let maximumPropertiesPerEntity = 65_535

  /// Creates a model from entities and the model-level definitions.
  ///
  /// - Throws: `ModelError` — `.duplicateName`, `.duplicateProperty`, `.unknownParentEntity`,
  ///   `.inheritanceCycle`, `.unknownDestinationEntity`, `.unknownInverse`, `.inverseMismatch`,
  ///   `.invalidDefaultValue`, `.invalidConstraint`, `.unknownComposite`, `.unknownReference`
  ///   — naming the first inconsistency found.
  /// - Complexity: O(*p*) in the total number of properties, inherited ones included.
  public init(
    entities: [EntityDescription], composites: [CompositeDescription] = [],
    configurations: [ConfigurationDescription] = [],
    fetchRequestTemplates: [FetchRequestTemplate] = [], versionIdentifier: String? = nil
  ) throws {
    try self.init(
      entities: entities, composites: composites, configurations: configurations,
      fetchRequestTemplates: fetchRequestTemplates, versionIdentifier: versionIdentifier,
      diagnostics: [])
  }

  /// Creates a model from the entities written in `content`.
  ///
  /// - Throws: `ModelError`, as ``init(entities:composites:configurations:fetchRequestTemplates:versionIdentifier:)``.
  public init(@ModelContentBuilder _ content: () -> [EntityDescription]) throws {
    try self.init(entities: content())
  }

  init(
    entities: [EntityDescription], composites: [CompositeDescription],
    configurations: [ConfigurationDescription], fetchRequestTemplates: [FetchRequestTemplate],
    versionIdentifier: String?, diagnostics: [ModelDiagnostic]
  ) throws {
    var resolver = ModelResolver(entities: entities, composites: composites)
    try resolver.resolve()
    try resolver.checkModelLevel(
      configurations: configurations, fetchRequestTemplates: fetchRequestTemplates)
    self.entities = resolver.entities
    self.entityIndex = resolver.entityIndex
    self.composites = composites
    self.configurations = configurations
    self.fetchRequestTemplates = fetchRequestTemplates
    self.versionIdentifier = versionIdentifier.flatMap { $0.isEmpty ? nil : $0 }
    self.versionHash = VersionHasher.hash(ofModel: resolver.entityHashes)
    self.legacyEntityVersionHashes = resolver.entityHashes
    self.diagnostics = diagnostics + resolver.diagnostics
  }

  /// The entity called `name`.
  ///
  /// - Complexity: O(1).
  public func entity(named name: String) -> EntityDescription? {
    entityIndex[name].map { entities[$0] }
  }

  /// Each entity's version hash, by entity name, as Core Data computes it: what a store records
  /// to check the model fits.
  public var entityVersionHashesByName: [String: Data] {
    Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.versionHash) })
  }

  /// The entity at the other end of `relationship`.
  public func destination(of relationship: RelationshipDescription) -> EntityDescription? {
    entity(named: relationship.destinationEntityName)
  }

  /// The relationship that points back along `relationship`, if it has one.
  public func inverse(of relationship: RelationshipDescription) -> RelationshipDescription? {
    guard let inverseName = relationship.inverseName else { return nil }
    let owner = relationship.inverseEntityName ?? relationship.destinationEntityName
    return entity(named: owner)?.relationship(named: inverseName)
  }

  /// The names of `entity`'s ancestors, its parent first.
  public func ancestorNames(of entity: EntityDescription) -> [String] {
    var names: [String] = []
    var next = entity.parentEntityName
    while let name = next, let ancestor = self.entity(named: name) {
      names.append(name)
      next = ancestor.parentEntityName
    }
    return names
  }

  /// Whether `entity` is `other` or inherits from it.
  public func entity(_ entity: EntityDescription, isKindOf other: EntityDescription) -> Bool {
    entity.name == other.name || ancestorNames(of: entity).contains(other.name)
  }

  /// The composite called `name`.
  public func composite(named name: String) -> CompositeDescription? {
    composites.first { $0.name == name }
  }

  /// The model's version hash as lowercase hexadecimal.
  public var versionHashString: String { versionHash.hexString }

  /// Whether two models describe the same schema, field by field: entities, composites,
  /// configurations, fetch request templates and version identifier.
  ///
  /// Where each part was declared is not compared, and neither are ``diagnostics``: they are
  /// about how a file was read (a default of `"0.0"` on an integer read leniently), not about
  /// the model, so the same model written out and read again may have fewer of them.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.entities == rhs.entities && lhs.composites == rhs.composites
      && lhs.configurations == rhs.configurations
      && lhs.fetchRequestTemplates == rhs.fetchRequestTemplates
      && lhs.versionIdentifier == rhs.versionIdentifier && lhs.versionHash == rhs.versionHash
  }

  /// Hashes the fields ``==`` compares.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(entities)
    hasher.combine(composites)
    hasher.combine(configurations)
    hasher.combine(fetchRequestTemplates)
    hasher.combine(versionIdentifier)
  }
}

/// A named subset of a model's entities (Xcode's `<configuration>`).
public struct ConfigurationDescription: Sendable, Hashable {
  /// The configuration's name.
  public var name: String
  /// The entities in it.
  public var entityNames: [String]
  /// Where it was declared; `nil` when built in code.
  public internal(set) var sourceLocation: InputLocation? {
    get { sourceNote.value }
    set { sourceNote.value = newValue }
  }
  var sourceNote = SourceNote<InputLocation?>(nil)

  /// Creates a configuration.
  public init(_ name: String, entityNames: [String]) {
    self.name = name
    self.entityNames = entityNames
  }
}

/// A fetch request stored in a model (Xcode's model-level `<fetchRequest>`), kept as written.
public struct FetchRequestTemplate: Sendable, Hashable {
  /// The request's name.
  public var name: String
  /// The entity it fetches.
  public var entityName: String
  /// Its predicate in Core Data's format syntax, kept as text; `nil` fetches everything.
  public var predicateString: String?
  /// The other settings Xcode wrote (`resultType`, `includeSubentities`, …), as written.
  public var options: [String: String]
  /// Where it was declared; `nil` when built in code.
  public internal(set) var sourceLocation: InputLocation? {
    get { sourceNote.value }
    set { sourceNote.value = newValue }
  }
  var sourceNote = SourceNote<InputLocation?>(nil)

  /// Creates a fetch request template.
  public init(
    _ name: String, entity: String, predicate: String? = nil, options: [String: String] = [:]
  ) {
    self.name = name
    self.entityName = entity
    self.predicateString = predicate
    self.options = options
  }
}

/// Classes registered for a model's entities, by entity name.
///
/// FolioModel knows nothing of objects, so the classes are kept as `AnyClass`; the graph, which
/// registers them, checks what they are. Class metatypes are immutable, so the table is
/// `Sendable`.
package struct EntityClassTable: @unchecked Sendable {
  package var byEntity: [String: AnyClass] = [:]

  package init() {}
}
