import Foundation

/// What changed between two versions of a model, change by change, and whether Core Data's
/// lightweight migration can infer a mapping for each.
///
/// Entities and properties are matched as Core Data matches them: a destination entity or
/// property whose `renamingIdentifier` is set comes from the source one of that name, any
/// other from the source one of its own name. What Core Data documents as inferable is
/// inferred: adding or removing an attribute, relationship or entity; a required attribute
/// becoming optional; an optional one becoming required with a default value; renames through
/// renaming identifiers; a to-one becoming a to-many; a to-many becoming ordered or unordered;
/// new parent or child entities, and properties moving up or down a hierarchy. Anything else
/// is refused with the reason, naming the entity and property. *(Folio)* also infers the
/// numeric widenings that keep every value (Integer 16 to 32 or 64, Integer 32 to 64, Float to
/// Double), which Core Data does not document.
///
/// ```swift
/// let difference = ModelDifference(from: old, to: new)
/// for change in difference.changes { print(change) }
/// if !difference.isInferable { print("needs a mapping model") }
/// ```
public struct ModelDifference: Sendable {
  /// One change, on an entity or one of its properties.
  public struct Change: Sendable, Hashable, CustomStringConvertible {
    /// What changed.
    public enum Kind: Sendable, Hashable {
      case entityAdded
      case entityRemoved
      case entityRenamed(from: String)
      case parentChanged(from: String?, to: String?)
      case becameAbstract
      case becameConcrete
      case propertyAdded
      case propertyRemoved
      case propertyRenamed(from: String)
      case kindChanged
      case typeChanged(from: AttributeType, to: AttributeType)
      case becameOptional
      case becameRequired
      case becameTransient
      case becameStored
      case destinationChanged(from: String, to: String)
      case toOneBecameToMany
      case toManyBecameToOne
      case becameOrdered
      case becameUnordered
    }

    /// The entity, by its name in the destination model (in the source model when removed).
    public var entity: String
    /// The property, likewise; `nil` for a change of the entity itself.
    public var property: String?
    public var kind: Kind
    /// Why a lightweight migration cannot make this change; `nil` when it can.
    public var refusal: String?

    /// Whether a lightweight migration makes this change.
    public var isInferable: Bool { refusal == nil }

    public var description: String {
      let place = property.map { "\(entity).\($0)" } ?? entity
      let step = refusal.map { "needs a mapping model: \($0)" } ?? "inferred"
      return "\(place): \(Self.text(of: kind)) (\(step))"
    }

    static func text(of kind: Kind) -> String {
      switch kind {
      case .entityAdded: "entity added"
      case .entityRemoved: "entity removed"
      case .entityRenamed(let old): "entity renamed from \(old)"
      case .parentChanged(let old, let new):
        "parent changed from \(old ?? "none") to \(new ?? "none")"
      case .becameAbstract: "became abstract"
      case .becameConcrete: "became concrete"
      case .propertyAdded: "added"
      case .propertyRemoved: "removed"
      case .propertyRenamed(let old): "renamed from \(old)"
      case .kindChanged: "changed between attribute and relationship"
      case .typeChanged(let old, let new): "type changed from \(old.xcodeName) to \(new.xcodeName)"
      case .becameOptional: "became optional"
      case .becameRequired: "became required"
      case .becameTransient: "became transient"
      case .becameStored: "became stored (no longer transient)"
      case .destinationChanged(let old, let new): "destination changed from \(old) to \(new)"
      case .toOneBecameToMany: "to-one became to-many"
      case .toManyBecameToOne: "to-many became to-one"
      case .becameOrdered: "became ordered"
      case .becameUnordered: "became unordered"
      }
    }
  }

  /// Every change, entities in the destination's order, then removed entities.
  public let changes: [Change]
  /// For each destination entity, the source entity its objects come from; absent for a new
  /// entity.
  public let sourceEntityNames: [String: String]
  /// For each destination entity with a source entity, the source property each of its
  /// properties comes from, by name; a new property is absent.
  public let sourcePropertyNames: [String: [String: String]]

  /// Whether a lightweight migration can make every change.
  public var isInferable: Bool { changes.allSatisfy(\.isInferable) }

  /// The changes a lightweight migration cannot make.
  public var refusals: [Change] { changes.filter { !$0.isInferable } }

  /// Compares `source` with `destination`.
  public init(from source: ManagedObjectModel, to destination: ManagedObjectModel) {
    var changes: [Change] = []
    var origins: [String: String] = [:]
    for entity in destination.entities {
      if let old = Self.origin(
        of: entity.renamingIdentifier ?? entity.name, among: source.entities,
        identifier: { $0.renamingIdentifier ?? $0.name }, name: \.name)
      {
        origins[entity.name] = old.name
      }
    }
    var propertyOrigins: [String: [String: String]] = [:]
    let matchedSources = Set(origins.values)
    for entity in destination.entities {
      guard let origin = origins[entity.name], let old = source.entity(named: origin) else {
        changes.append(Change(entity: entity.name, property: nil, kind: .entityAdded))
        continue
      }
      changes += Self.entityChanges(
        old, entity, source: source, destination: destination, origins: origins)
      var matched: [String: String] = [:]
      changes += Self.propertyChanges(old, entity, origins: origins, matched: &matched)
      propertyOrigins[entity.name] = matched
    }
    for entity in source.entities where !matchedSources.contains(entity.name) {
      changes.append(Change(entity: entity.name, property: nil, kind: .entityRemoved))
    }
    self.changes = changes
    self.sourceEntityNames = origins
    self.sourcePropertyNames = propertyOrigins
  }

  /// The element of `candidates` a destination element whose identifier is `key` comes from:
  /// the one with the same identifier (its renaming identifier, or its name without one), so
  /// that a renaming identifier kept from version to version still matches; else the one
  /// named `key`.
  private static func origin<Element>(
    of key: String, among candidates: [Element], identifier: (Element) -> String,
    name: (Element) -> String
  ) -> Element? {
    candidates.first { identifier($0) == key } ?? candidates.first { name($0) == key }
  }

  // MARK: Entities

  private static func entityChanges(
    _ old: EntityDescription, _ new: EntityDescription, source: ManagedObjectModel,
    destination: ManagedObjectModel, origins: [String: String]
  ) -> [Change] {
    var changes: [Change] = []
    if old.name != new.name {
      changes.append(Change(entity: new.name, property: nil, kind: .entityRenamed(from: old.name)))
    }
    // The parent, compared by where the destination's parent comes from.
    let newParentOrigin = new.parentEntityName.map { origins[$0] ?? "" }
    if newParentOrigin != old.parentEntityName {
      var change = Change(
        entity: new.name, property: nil,
        kind: .parentChanged(from: old.parentEntityName, to: new.parentEntityName))
      // Core Data cannot merge hierarchies: every entity of the new hierarchy that existed
      // before must come from one source hierarchy.
      let newRoot = root(of: new, in: destination)
      let roots = Set(
        destination.entities.filter { root(of: $0, in: destination) == newRoot }
          .compactMap { origins[$0.name] }
          .compactMap { source.entity(named: $0).map { root(of: $0, in: source) } })
      if roots.count > 1 {
        change.refusal =
          "it joins entities of separate hierarchies (\(roots.sorted().joined(separator: ", "))) in one"
      }
      changes.append(change)
    }
    if !old.isAbstract, new.isAbstract {
      changes.append(
        Change(
          entity: new.name, property: nil, kind: .becameAbstract,
          refusal: "its objects would belong to an entity that can have none"))
    } else if old.isAbstract, !new.isAbstract {
      changes.append(Change(entity: new.name, property: nil, kind: .becameConcrete))
    }
    return changes
  }

  private static func root(of entity: EntityDescription, in model: ManagedObjectModel) -> String {
    var current = entity
    var seen: Set<String> = [entity.name]
    while let parent = current.parentEntityName, let next = model.entity(named: parent),
      seen.insert(parent).inserted
    {
      current = next
    }
    return current.name
  }

  // MARK: Properties

  /// The stored-or-transient attributes and relationships of `entity`, inherited ones included.
  private static func properties(of entity: EntityDescription) -> [PropertyDescription] {
    entity.properties.filter {
      if case .fetchedProperty = $0 { return false }
      return true
    }
  }

  private static func declares(_ entity: EntityDescription, _ name: String) -> Bool {
    entity.attributes.contains { $0.name == name }
      || entity.relationships.contains { $0.name == name }
  }

  private static func propertyChanges(
    _ old: EntityDescription, _ new: EntityDescription, origins: [String: String],
    matched origin: inout [String: String]
  ) -> [Change] {
    var changes: [Change] = []
    let candidates = properties(of: old)
    var matched: Set<String> = []
    for property in properties(of: new) {
      guard
        let previous = Self.origin(
          of: property.renamingIdentifier ?? property.name, among: candidates,
          identifier: { $0.renamingIdentifier ?? $0.name }, name: \.name),
        !matched.contains(previous.name)
      else {
        // Reported where it is declared, so an inherited property is reported once.
        guard declares(new, property.name) else { continue }
        changes.append(added(property, on: new.name))
        continue
      }
      matched.insert(previous.name)
      origin[property.name] = previous.name
      guard declares(new, property.name) || declares(old, previous.name) else { continue }
      changes += compare(previous, property, on: new.name, origins: origins)
    }
    for name in Set(candidates.map(\.name)) where !matched.contains(name) && declares(old, name) {
      changes.append(Change(entity: new.name, property: name, kind: .propertyRemoved))
    }
    return changes.sorted { ($0.property ?? "", $0.entity) < ($1.property ?? "", $1.entity) }
  }

  private static func added(_ property: PropertyDescription, on entity: String) -> Change {
    var change = Change(entity: entity, property: property.name, kind: .propertyAdded)
    change.refusal = missingValue(property)
    return change
  }

  /// Why existing objects cannot have a value for `property` as it now stands; `nil` when they
  /// can (optional, transient, or with a default).
  private static func missingValue(_ property: PropertyDescription) -> String? {
    switch property {
    case .attribute(let attribute):
      guard !attribute.isOptional, !attribute.isTransient, !attribute.isDerived,
        attribute.defaultValue == nil
      else { return nil }
      return "existing objects have no value for a required attribute without a default"
    case .relationship(let relationship):
      // A required to-many whose minimum is 0 may be empty; one with a minimum may not.
      guard !relationship.isTransient, !relationship.isOptional,
        !relationship.isToMany || relationship.minCount > 0
      else { return nil }
      return relationship.isToMany
        ? "existing objects have fewer targets than the relationship's minimum \(relationship.minCount)"
        : "existing objects have no target for a required relationship"
    case .fetchedProperty:
      return nil
    }
  }

  private static func compare(
    _ old: PropertyDescription, _ new: PropertyDescription, on entity: String,
    origins: [String: String]
  ) -> [Change] {
    var changes: [Change] = []
    func change(_ kind: Change.Kind, _ refusal: String? = nil) {
      changes.append(Change(entity: entity, property: new.name, kind: kind, refusal: refusal))
    }
    if old.name != new.name { change(.propertyRenamed(from: old.name)) }
    switch (old, new) {
    case (.attribute(let a), .attribute(let b)):
      if a.attributeType != b.attributeType {
        change(
          .typeChanged(from: a.attributeType, to: b.attributeType),
          isWidening(a.attributeType, b.attributeType)
            ? nil
            : "values of type \(a.attributeType.xcodeName) do not convert to \(b.attributeType.xcodeName)"
        )
      }
    case (.relationship(let a), .relationship(let b)):
      if origins[b.destinationEntityName] != a.destinationEntityName {
        change(
          .destinationChanged(from: a.destinationEntityName, to: b.destinationEntityName),
          "its targets are objects of another entity")
      }
      if !a.isToMany, b.isToMany { change(.toOneBecameToMany) }
      if a.isToMany, !b.isToMany {
        change(.toManyBecameToOne, "objects with several targets would keep one of them")
      }
      if a.isToMany, b.isToMany, a.isOrdered != b.isOrdered {
        change(b.isOrdered ? .becameOrdered : .becameUnordered)
      }
    default:
      change(.kindChanged, "an attribute's values cannot become a relationship's, or back")
      return changes
    }
    if old.isTransient != new.isTransient {
      if new.isTransient {
        change(.becameTransient)
      } else {
        change(.becameStored, missingValue(new))
      }
    } else if old.isOptional != new.isOptional {
      if new.isOptional {
        change(.becameOptional)
      } else {
        change(.becameRequired, missingValue(new))
      }
    }
    return changes
  }

  /// The type changes that keep every value, which Folio infers.
  private static func isWidening(_ old: AttributeType, _ new: AttributeType) -> Bool {
    switch (old, new) {
    case (.integer16, .integer32), (.integer16, .integer64), (.integer32, .integer64),
      (.float, .double):
      true
    default:
      false
    }
  }
}

extension PropertyDescription {
  /// The name the property had in the model version before, when it was renamed.
  fileprivate var renamingIdentifier: String? {
    switch self {
    case .attribute(let attribute): attribute.renamingIdentifier
    case .relationship(let relationship): relationship.renamingIdentifier
    case .fetchedProperty: nil
    }
  }

  fileprivate var isTransient: Bool {
    switch self {
    case .attribute(let attribute): attribute.isTransient
    case .relationship(let relationship): relationship.isTransient
    case .fetchedProperty: true
    }
  }
}
