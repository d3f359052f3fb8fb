import Foundation

/// What happens to a relationship's destination when its source object is deleted.
public enum DeleteRule: String, Sendable, Hashable, CaseIterable, Codable {
  /// Leave the destination alone, even pointing at the deleted object; the app keeps the graph
  /// consistent itself.
  case noAction
  /// Remove the deleted object from the destination's inverse.
  case nullify
  /// Delete the destination objects too.
  case cascade
  /// Refuse the deletion while the relationship has destination objects.
  case deny

  /// The name Xcode writes in a model file (`deletionRule="Cascade"`).
  public var xcodeName: String {
    switch self {
    case .noAction: "No Action"
    case .nullify: "Nullify"
    case .cascade: "Cascade"
    case .deny: "Deny"
    }
  }

  /// The rule Xcode's `name` spells, or `nil`.
  public init?(xcodeName name: String) {
    guard let rule = DeleteRule.allCases.first(where: { $0.xcodeName == name }) else {
      return nil
    }
    self = rule
  }
}

/// A relationship from one entity to another: to-one, to-many or ordered to-many, with its
/// inverse, its count limits and its delete rule.
///
/// The counterpart of Core Data's `NSRelationshipDescription`. Entities are named rather than
/// referenced, so descriptions are plain values; ``ManagedObjectModel/destination(of:)`` and
/// ``ManagedObjectModel/inverse(of:)`` resolve them.
@dynamicMemberLookup
public struct RelationshipDescription: Sendable, Hashable, PropertyDescribing {
  /// The relationship's name, unique among the entity's properties.
  public var name: String
  /// The entity at the other end.
  public var destinationEntityName: String
  /// The relationship of the destination that points back, if any. Core Data allows a
  /// relationship without an inverse; the model then reports a warning.
  public var inverseName: String?
  /// The entity that declares ``inverseName``: the destination or one of its ancestors. `nil`
  /// means the destination.
  public var inverseEntityName: String?
  /// Whether the relationship holds a set of objects rather than one.
  public var isToMany: Bool
  /// Whether a to-many relationship keeps its objects in order. The default is `false`.
  public var isOrdered = false
  /// The fewest objects a to-many relationship may hold when saved. The default is 0.
  public var minCount = 0
  /// The most objects a to-many relationship may hold when saved; `nil` means no limit. The
  /// default is `nil` for to-many and 1 for to-one.
  public var maxCount: Int?
  /// What deleting the source does to the destination. The default is ``DeleteRule/nullify``.
  public var deleteRule: DeleteRule
  /// Whether the relationship may be empty when the object is saved. The default is `true`.
  public var isOptional: Bool
  /// What the relationship has in common with attributes: transient, indexed, renaming
  /// identifier, version hash modifier, user info, version hash and source location, each also
  /// read and written as the relationship's own member (`relationship.userInfo`).
  public var traits = PropertyTraits()

  /// Creates a relationship.
  ///
  /// ```swift
  /// RelationshipDescription("spendings", to: "Spending", inverse: "person",
  ///                         toMany: true, deleteRule: .cascade)
  /// ```
  public init(
    _ name: String, to destination: String, inverse: String? = nil, toMany: Bool = false,
    ordered: Bool = false, isOptional: Bool = true, deleteRule: DeleteRule = .nullify
  ) {
    self.name = name
    self.destinationEntityName = destination
    self.inverseName = inverse
    self.isToMany = toMany
    self.isOrdered = ordered
    self.isOptional = isOptional
    self.deleteRule = deleteRule
    self.maxCount = toMany ? nil : 1
  }
}

/// A fetched property: a named fetch whose results an object presents like a relationship.
public struct FetchedPropertyDescription: Sendable, Hashable {
  /// The property's name.
  public var name: String
  /// The entity the fetch returns.
  public var entityName: String
  /// The fetch's predicate in Core Data's format syntax, kept as text.
  public var predicateString: String?
  /// Whether the property is optional. The default is `true`.
  public var isOptional = true
  /// Free-form key-value pairs from the model. The default is empty.
  public var userInfo: [String: String] = [:]
  /// Where the property was declared; `nil` when built in code.
  public internal(set) var sourceLocation: InputLocation? {
    get { sourceNote.value }
    set { sourceNote.value = newValue }
  }
  var sourceNote = SourceNote<InputLocation?>(nil)

  /// Creates a fetched property.
  public init(_ name: String, entity: String, predicate: String? = nil) {
    self.name = name
    self.entityName = entity
    self.predicateString = predicate
  }
}

/// Any property of an entity.
public enum PropertyDescription: Sendable, Hashable {
  case attribute(AttributeDescription)
  case relationship(RelationshipDescription)
  case fetchedProperty(FetchedPropertyDescription)

  /// The property's name.
  public var name: String {
    switch self {
    case .attribute(let attribute): attribute.name
    case .relationship(let relationship): relationship.name
    case .fetchedProperty(let property): property.name
    }
  }

  /// Whether the property may be empty when saved.
  public var isOptional: Bool {
    switch self {
    case .attribute(let attribute): attribute.isOptional
    case .relationship(let relationship): relationship.isOptional
    case .fetchedProperty(let property): property.isOptional
    }
  }

  /// The attribute, if this is one.
  public var attribute: AttributeDescription? {
    if case .attribute(let attribute) = self { return attribute }
    return nil
  }

  /// The relationship, if this is one.
  public var relationship: RelationshipDescription? {
    if case .relationship(let relationship) = self { return relationship }
    return nil
  }

  var sourceLocation: InputLocation? {
    switch self {
    case .attribute(let attribute): attribute.sourceLocation
    case .relationship(let relationship): relationship.sourceLocation
    case .fetchedProperty(let property): property.sourceLocation
    }
  }
}
