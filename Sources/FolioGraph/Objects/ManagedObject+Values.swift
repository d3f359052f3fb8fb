import FolioModel
import Foundation

/// Reading and writing an object's properties by name.
extension ManagedObject {
  /// The value of the property `key`: an attribute's value, a to-one relationship's object, or a
  /// to-many relationship's objects (`Set<ManagedObject>`, or `[ManagedObject]` when ordered).
  ///
  /// - Throws: `GraphError.unknownKey`.
  public func value(forKey key: String) throws(GraphError) -> Any? {
    let slot = try slot(of: key)
    guard let context = owner else {
      throw GraphError.notRegistered(entityName)
    }
    if case .fetched(let property) = layout.properties[slot].kind {
      return try context.fetchedObjects(of: self, slot: slot, property: property)
    }
    let value = context.publicValue(slots[slot], slot: slot, of: self)
    guard let attribute = layout.properties[slot].attribute,
      attribute.attributeType == .transformable
    else { return value }
    return try transformedValue(value, of: attribute)
  }

  /// The value of `key` as a `T`, or `nil` when it is empty.
  ///
  /// An integer attribute reads as any integer type that holds its value (`Int16` for an
  /// Integer 16 attribute, as Core Data's `NSNumber` gives it), and a Float attribute also
  /// reads as a `Double`.
  ///
  /// ```swift
  /// let amount = try spending.value(forKey: "amount", as: Double.self)
  /// let pages = try book.value(forKey: "pages", as: Int16.self)
  /// ```
  ///
  /// - Throws: `GraphError.unknownKey`, or `.typeMismatch` when the value is not a `T` (an
  ///   integer that `T` cannot hold is not one).
  public func value<T>(forKey key: String, as type: T.Type) throws(GraphError) -> T? {
    guard let value = try value(forKey: key) else { return nil }
    if let typed = value as? T { return typed }
    if let number = value as? Int, let width = T.self as? any FixedWidthInteger.Type,
      let converted = width.init(exactly: number) as? T
    {
      return converted
    }
    if let number = value as? Float, let widened = Double(number) as? T { return widened }
    throw GraphError.typeMismatch(
      "\(entityName).\(key) holds \(Slot.describe(value)), not \(T.self)", entity: entityName,
      key: key)
  }

  /// The value of `key`; reads as `try object["name"]`.
  public subscript(key: String) -> Any? {
    get throws(GraphError) { try value(forKey: key) }
  }

  /// Sets the property `key`, after checking `value` against its type.
  ///
  /// A to-one relationship takes a `ManagedObject` (or `nil`); a to-many one takes a
  /// `Set<ManagedObject>` or `[ManagedObject]` and replaces its contents. Either way the
  /// inverse relationship follows.
  ///
  /// Undo: the change joins the current turn.
  ///
  /// - Throws: `GraphError.unknownKey`, `.typeMismatch`, `.readOnly`, `.notRegistered`.
  public func setValue(_ value: Any?, forKey key: String) throws(GraphError) {
    let context = try context()
    let slot = try slot(of: key)
    let property = layout.properties[slot]
    if let attribute = property.attribute {
      guard !attribute.isDerived else { throw GraphError.readOnly(entity: entityName, key: key) }
      let new = try Slot.checked(
        storedValue(value, of: attribute), for: attribute, entity: entityName)
      guard !context.same(new, slots[slot]) else { return }
      context.write(new, to: self, slot: slot)
    } else if let relationship = property.relationship {
      if relationship.isToMany {
        let targets = try checkedTargets(value, relationship: relationship, context: context)
        context.setTargets(of: self, slot: slot, relationship: relationship, to: targets)
      } else {
        let target = try checkedTarget(value, relationship: relationship, context: context)
        context.setTarget(of: self, slot: slot, relationship: relationship, to: target)
      }
    } else {
      throw GraphError.readOnly(entity: entityName, key: key)
    }
  }

  /// Adds `object` to the to-many relationship `key` (at `index`, for an ordered one).
  ///
  /// Undo: the change joins the current turn.
  ///
  /// - Throws: `GraphError.unknownKey`, `.typeMismatch` (not a to-many relationship, or an
  ///   object of the wrong entity), `.notRegistered`.
  public func add(_ object: ManagedObject, toKey key: String, at index: Int? = nil)
    throws(GraphError)
  {
    let context = try context()
    let (slot, relationship) = try toManySlot(key)
    let target = try checked(object, relationship: relationship, context: context)
    context.add(target, to: self, slot: slot, relationship: relationship, at: index)
  }

  /// Removes `object` from the to-many relationship `key`.
  ///
  /// Undo: the change joins the current turn.
  ///
  /// - Throws: `GraphError.unknownKey`, `.typeMismatch`, `.notRegistered`.
  public func remove(_ object: ManagedObject, fromKey key: String) throws(GraphError) {
    let context = try context()
    let (slot, relationship) = try toManySlot(key)
    let target = try checked(object, relationship: relationship, context: context)
    context.remove(target, from: self, slot: slot, relationship: relationship)
  }

  // MARK: Changes

  /// The keys changed since the last save whose values differ from the saved ones, with their
  /// current values (`nil` for an empty value).
  public func changedValues() -> [String: Any?] {
    guard let context = owner, let saved = records?.saved else { return [:] }
    var values: [String: Any?] = [:]
    for slot in saved.indices {
      if case .unrecorded = saved[slot] { continue }
      guard !context.same(saved[slot], slots[slot]) else { continue }
      values[layout.properties[slot].name] = context.publicValue(slots[slot], slot: slot, of: self)
    }
    return values
  }

  /// The values `keys` had at the last save (every property's, when `keys` is `nil`); a new
  /// object has none.
  ///
  /// - Throws: `GraphError.unknownKey`.
  public func committedValues(forKeys keys: [String]? = nil) throws(GraphError) -> [String: Any?] {
    guard let context = owner, !isInserted else { return [:] }
    var values: [String: Any?] = [:]
    for key in keys ?? layout.properties.map(\.name) {
      let slot = try slot(of: key)
      var saved = slots[slot]
      if let recorded = records?.saved?[slot] {
        if case .unrecorded = recorded {} else { saved = recorded }
      }
      values[key] = context.publicValue(saved, slot: slot, of: self)
    }
    return values
  }

  // MARK: Checking targets

  private func toManySlot(_ key: String) throws(GraphError) -> (Int, RelationshipLayout) {
    let slot = try slot(of: key)
    guard let relationship = layout.properties[slot].relationship, relationship.isToMany else {
      throw GraphError.typeMismatch(
        "\(entityName).\(key) is not a to-many relationship", entity: entityName, key: key)
    }
    return (slot, relationship)
  }

  func checkedTarget(
    _ value: Any?, relationship: RelationshipLayout, context: ManagedObjectContext
  ) throws(GraphError) -> ManagedObject? {
    guard let value else { return nil }
    guard let object = value as? ManagedObject else {
      throw GraphError.typeMismatch(
        "\(Slot.describe(value)) is not an object for the to-one relationship \"\(relationship.name)\"",
        entity: entityName, key: relationship.name)
    }
    return try checked(object, relationship: relationship, context: context)
  }

  func checkedTargets(
    _ value: Any?, relationship: RelationshipLayout, context: ManagedObjectContext
  ) throws(GraphError) -> [ManagedObject] {
    let objects: [ManagedObject]
    switch value {
    case nil: objects = []
    case let set as Set<ManagedObject>: objects = Array(set)
    case let array as [ManagedObject]: objects = array
    case let single as ManagedObject:
      throw GraphError.typeMismatch(
        "\"\(relationship.name)\" is to-many: set it to a collection of objects, or add \(single.entityName) objects with add(_:toKey:)",
        entity: entityName, key: relationship.name)
    default:
      throw GraphError.typeMismatch(
        "\(Slot.describe(value as Any)) is not a collection of objects for \"\(relationship.name)\"",
        entity: entityName, key: relationship.name)
    }
    var checkedObjects: [ManagedObject] = []
    for object in objects {
      checkedObjects.append(try checked(object, relationship: relationship, context: context))
    }
    return checkedObjects
  }

  private func checked(
    _ object: ManagedObject, relationship: RelationshipLayout, context: ManagedObjectContext
  ) throws(GraphError) -> ManagedObject {
    try context.checkRegistered(object)
    guard !object.isDeleted else {
      throw GraphError(
        .notRegistered, "the \(object.entityName) object is deleted",
        at: InputLocation(entity: entityName, property: relationship.name))
    }
    guard object.layout.isKind(of: relationship.destination) else {
      throw GraphError.typeMismatch(
        "a \(object.entityName) object cannot go in \"\(relationship.name)\", which holds \(relationship.description.destinationEntityName) objects",
        entity: entityName, key: relationship.name)
    }
    return object
  }

  // MARK: Validating one object

  /// What ``validateValue(_:forKey:)`` checks by default: the model's constraints and the
  /// app's rules for `key`, for `value` in place of the current one.
  final func defaultValidation(of value: Any?, forKey key: String) throws(GraphError) {
    let context = try context()
    // A save makes these checks itself, around the class's overrides.
    guard !context.isValidatingForSave else { return }
    let slot = try slot(of: key)
    var candidate: Slot
    let property = layout.properties[slot]
    if let attribute = property.attribute {
      candidate = try Slot.checked(value, for: attribute, entity: entityName)
    } else if let relationship = property.relationship {
      if relationship.isToMany {
        let targets = try checkedTargets(value, relationship: relationship, context: context)
        candidate =
          targets.isEmpty
          ? .null : .objects(RowSet(targets.map(\.row), ordered: relationship.isOrdered))
      } else {
        candidate =
          try checkedTarget(value, relationship: relationship, context: context)
          .map { .object($0.row) } ?? .null
      }
    } else {
      return
    }
    var failures = context.propertyFailures(of: self, slot: slot, value: candidate)
    for rule in context.propertyRules(for: self, key: key) {
      if let message = rule(self, value) {
        failures.append(context.failure(self, key, candidate, .custom, message))
      }
    }
    guard failures.isEmpty else { throw ManagedObjectContext.validationError(failures) }
  }

  /// What ``validateForInsert()`` and ``validateForUpdate()`` check by default: every property
  /// (through ``validateValue(_:forKey:)`` for an entity class, so that its overrides count),
  /// then the app's whole-object rules.
  final func defaultWholeValidation(on occasion: ValidationRules.Occasion) throws(GraphError) {
    let context = try context()
    guard !context.isValidatingForSave else { return }
    var failures: [ValidationFailure] = []
    if occasion == .delete {
      failures = context.denyFailures(of: self)
    } else if layout.hasCustomClass {
      for (slot, property) in layout.properties.enumerated()
      where property.attribute != nil || property.relationship != nil {
        let value = context.publicValue(slots[slot], slot: slot, of: self)
        failures += context.collectFailures(of: self, key: property.name) {
          try validateValue(value, forKey: property.name)
        }
      }
    } else {
      failures = context.propertyFailures(of: self)
    }
    failures += context.objectRuleFailures(of: self, on: occasion)
    guard failures.isEmpty else { throw ManagedObjectContext.validationError(failures) }
  }
}
