import FolioModel

/// How the objects of one entity store their properties: a slot number per property, and what
/// the context needs about each relationship (destination, inverse slot) precomputed.
///
/// Subentities list their inherited properties first and in the same order, so a property's
/// slot is the same in an entity and all its descendants; that is what lets a relationship name
/// its inverse by slot whatever the concrete entity at the other end.
package final class EntityLayout {
  let index: Int
  let entity: EntityDescription
  package let properties: [PropertyLayout]
  /// The number of slots an object of the entity has: its property count.
  let slotCount: Int
  package let slotByName: [String: Int]
  /// The slots of the entity's relationships, in slot order.
  let relationshipSlots: [Int]
  /// The entity's ancestors, root first, and the entity: where validation rules for its
  /// objects may be registered.
  let ruleEntityNames: [String]
  /// Whether the model indexes each slot's attribute (see `FetchPlan`).
  let indexedSlots: [Bool]
  /// This entity's index and its ancestors', nearest first: a short list, searched faster than
  /// a set is hashed (fetches ask once per object).
  let kinds: [Int]
  /// Whether some property is transient: its value lives in the object only, never in a
  /// committed row.
  let hasTransients: Bool
  /// The class the context instantiates for the entity's objects: the class registered for the
  /// entity, or else for its nearest ancestor that has one, or else ``ManagedObject``.
  let objectClass: ManagedObject.Type
  /// Whether ``objectClass`` is an app's class, whose lifecycle methods the context calls.
  let hasCustomClass: Bool
  /// Whether the context makes instances of ``objectClass`` rather than of ``ManagedObject``.
  let makesClassInstances: Bool
  /// What Observation tracks for each slot (see `ManagedObject+Observation.swift`).
  let observationKeyPaths: [KeyPath<ManagedObject, Int>]
  /// The derived attributes, by slot, with what each is computed from.
  let derivations: [(slot: Int, attribute: AttributeDescription, expression: DerivationExpression)]

  var name: String { entity.name }

  /// The layouts of every entity of `model`, in the model's order.
  static func layouts(of model: ManagedObjectModel) -> [EntityLayout] {
    var indexByName: [String: Int] = [:]
    for (index, entity) in model.entities.enumerated() { indexByName[entity.name] = index }
    return model.entities.enumerated().map {
      EntityLayout(index: $0.offset, entity: $0.element, model: model, indexByName: indexByName)
    }
  }

  init(index: Int, entity: EntityDescription, model: ManagedObjectModel, indexByName: [String: Int])
  {
    self.index = index
    self.entity = entity
    var kinds = [index]
    for ancestor in model.ancestorNames(of: entity) {
      if let ancestorIndex = indexByName[ancestor], !kinds.contains(ancestorIndex) {
        kinds.append(ancestorIndex)
      }
    }
    self.kinds = kinds
    let registered = ([entity.name] + model.ancestorNames(of: entity)).lazy.compactMap {
      model.entityClasses.byEntity[$0] as? ManagedObject.Type
    }.first
    self.objectClass = registered ?? ManagedObject.self
    self.makesClassInstances = registered != nil
    self.hasCustomClass = registered.map { !($0 is any LifecycleFreeObject.Type) } ?? false
    var slots: [String: Int] = [:]
    var properties: [PropertyLayout] = []
    for (slot, property) in entity.properties.enumerated() {
      slots[property.name] = slot
      switch property {
      case .attribute(let attribute):
        properties.append(PropertyLayout(name: attribute.name, kind: .attribute(attribute)))
      case .relationship(let relationship):
        let destination = indexByName[relationship.destinationEntityName] ?? -1
        var inverseSlot: Int?
        var inverseIsToMany = false
        if let inverse = model.inverse(of: relationship),
          let destinationEntity = model.destination(of: relationship)
        {
          inverseSlot = destinationEntity.properties.firstIndex { $0.name == inverse.name }
          inverseIsToMany = inverse.isToMany
        }
        properties.append(
          PropertyLayout(
            name: relationship.name,
            kind: .relationship(
              RelationshipLayout(
                description: relationship, destination: destination, inverseSlot: inverseSlot,
                inverseIsToMany: inverseIsToMany))))
      case .fetchedProperty(let fetched):
        properties.append(PropertyLayout(name: fetched.name, kind: .fetched(fetched)))
      }
    }
    self.properties = properties
    self.derivations = properties.enumerated().compactMap { slot, property in
      guard let attribute = property.attribute, let expression = attribute.derivation else {
        return nil
      }
      return (slot, attribute, expression)
    }
    self.slotCount = properties.count
    self.observationKeyPaths = properties.indices.map { \ManagedObject.[observedSlot: $0] }
    self.slotByName = slots
    self.relationshipSlots = properties.indices.filter { properties[$0].relationship != nil }
    self.ruleEntityNames = model.ancestorNames(of: entity).reversed() + [entity.name]
    self.hasTransients = properties.contains { property in
      switch property.kind {
      case .attribute(let attribute): attribute.isTransient
      case .relationship(let relationship): relationship.description.isTransient
      case .fetched: false
      }
    }
    self.indexedSlots = properties.map { property in
      guard let attribute = property.attribute else { return false }
      return attribute.isIndexed
        || entity.fetchIndexes.contains { $0.elements.first?.propertyName == attribute.name }
    }
  }

  package func isKind(of other: Int) -> Bool { other == index || kinds.contains(other) }

  /// A new object of the entity's class, at `row` in `context`: empty, or reading its values
  /// from `committed` until its first change.
  @inline(__always)
  func makeObject(in context: ManagedObjectContext, row: Int32, committed: CommittedRow? = nil)
    -> ManagedObject
  {
    let initialization = ManagedObject.Initialization(
      context: context, layout: self, row: row, committed: committed)
    // The plain class is created directly: no lookup of the required initializer.
    return makesClassInstances
      ? objectClass.init(initialization) : ManagedObject(initialization)
  }
}

/// One property of an entity's layout. A class, like ``RelationshipLayout``: hot paths (every
/// value set, validated, loaded) look properties up by slot, and a reference costs one retain
/// where a struct holding a whole description costs one per field of it.
package final class PropertyLayout {
  enum Kind {
    case attribute(AttributeDescription)
    case relationship(RelationshipLayout)
    case fetched(FetchedPropertyDescription)
  }

  package let name: String
  let kind: Kind
  /// The attribute, for an attribute.
  package let attribute: AttributeDescription?
  /// The attribute's type, for an attribute: what loading checks each value against, without
  /// copying the whole description.
  package let attributeType: AttributeType?
  /// The relationship, for a relationship.
  package let relationship: RelationshipLayout?
  /// Whether the model's rules can find a value of the property wrong: a value required, a
  /// range, a length, a pattern or a count. Validation passes over the others.
  let hasValueRules: Bool

  init(name: String, kind: Kind) {
    self.name = name
    self.kind = kind
    if case .attribute(let attribute) = kind { self.attribute = attribute } else { attribute = nil }
    attributeType = attribute?.attributeType
    if case .relationship(let relationship) = kind {
      self.relationship = relationship
    } else {
      relationship = nil
    }
    switch kind {
    case .attribute(let attribute):
      hasValueRules =
        !attribute.isDerived
        && (!attribute.isOptional || attribute.minimumValue != nil
          || attribute.maximumValue != nil || attribute.minimumLength != nil
          || attribute.maximumLength != nil || attribute.regularExpression != nil)
    case .relationship(let relationship):
      let description = relationship.description
      hasValueRules =
        !description.isOptional
        || (description.isToMany && (description.minCount > 0 || description.maxCount != nil))
    case .fetched:
      hasValueRules = false
    }
  }
}

package final class RelationshipLayout {
  let description: RelationshipDescription
  /// The destination entity's index.
  package let destination: Int
  /// The inverse relationship's slot in objects of the destination (and its subentities).
  let inverseSlot: Int?
  let inverseIsToMany: Bool

  package let isToMany: Bool
  package let isOrdered: Bool
  var deleteRule: DeleteRule { description.deleteRule }
  var name: String { description.name }

  init(
    description: RelationshipDescription, destination: Int, inverseSlot: Int?,
    inverseIsToMany: Bool
  ) {
    self.description = description
    self.destination = destination
    self.inverseSlot = inverseSlot
    self.inverseIsToMany = inverseIsToMany
    self.isToMany = description.isToMany
    self.isOrdered = description.isOrdered
  }
}

/// A class of managed objects that overrides none of the lifecycle or validation methods, so
/// the context need not call them: what a library's own subclass declares, to cost no more
/// than a plain ``ManagedObject``.
package protocol LifecycleFreeObject: ManagedObject {}
