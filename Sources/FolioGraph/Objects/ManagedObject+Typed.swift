import FolioModel
import Foundation

/// Typed access to an object's properties: what the properties of entity classes (written by
/// `folio codegen`, or by hand) are made of.
///
/// These read and write the same storage as ``value(forKey:)`` and ``setValue(_:forKey:)``,
/// with the same change tracking, inverse maintenance and undo, but take and return Swift
/// types and never throw: the generated code's types come from the model, so a type error is
/// a programming error (a class out of step with its model, a deleted object), and traps with
/// a message naming the entity and key, where Core Data raises an exception.
///
/// ```swift
/// extension Book {
///   public var title: String? {
///     get { attributeValue(forKey: "title") }
///     set { setAttributeValue(newValue, forKey: "title") }
///   }
///   public var chapters: Set<Chapter> {
///     get { relatedObjects(forKey: "chapters") }
///     set { setRelatedObjects(newValue, forKey: "chapters") }
///   }
/// }
/// ```
extension ManagedObject {
  // MARK: Attributes

  /// The value of the attribute `key` as a `Value`.
  public final func attributeValue<Value: AttributeValueConvertible>(
    forKey key: String, as type: Value.Type = Value.self
  ) -> Value {
    guard let slot = typedSlot(key) else { return placeholder() }
    owner?.noteAccess(to: self, slot: slot)
    guard let attribute = layout.properties[slot].attribute else {
      misuse(key, "is not an attribute")
    }
    let stored = slots[slot].attributeValue(as: attribute.attributeType)
    guard let value = Value(attributeValue: stored) else {
      misuse(
        key,
        stored == nil
          ? "is empty, which a \(Value.self) cannot hold: declare the property optional"
          : "holds \(stored?.modelText ?? "nothing") (\(attribute.attributeType.xcodeName)), which a \(Value.self) cannot hold"
      )
    }
    return value
  }

  /// Sets the attribute `key` to `value`.
  ///
  /// Undo: the change joins the current turn.
  public final func setAttributeValue<Value: AttributeValueConvertible>(
    _ value: Value, forKey key: String
  ) {
    let context = liveContext(key)
    guard let slot = typedSlot(key) else { return }
    guard let attribute = layout.properties[slot].attribute else {
      misuse(key, "is not an attribute")
    }
    guard !attribute.isDerived else { misuse(key, "is a derived attribute and cannot be set") }
    let new: Slot
    if let given = value.attributeValue {
      guard let stored = given.stored(as: attribute.attributeType) else {
        misuse(
          key,
          "is \(attribute.attributeType.xcodeName) and cannot hold \(given.modelText) (a \(Value.self))"
        )
      }
      new = Slot(stored)
    } else {
      new = .null
    }
    guard !context.same(new, slots[slot]) else { return }
    context.write(new, to: self, slot: slot)
  }

  /// The value of the attribute `key` of Undefined type (a transient attribute Core Data
  /// leaves untyped), which holds any value.
  public final func untypedAttributeValue(forKey key: String) -> Any? {
    guard let slot = typedSlot(key) else { return nil }
    guard let context = owner, layout.properties[slot].attribute != nil else {
      misuse(key, "is not an attribute of an object in a context")
    }
    context.noteAccess(to: self, slot: slot)
    return context.publicValue(slots[slot], slot: slot, of: self)
  }

  /// Sets the attribute `key` of Undefined type to `value`.
  ///
  /// Undo: the change joins the current turn.
  public final func setUntypedAttributeValue(_ value: Any?, forKey key: String) {
    do {
      try setValue(value, forKey: key)
    } catch {
      misuse(key, "cannot be set: \(error.message)")
    }
  }

  // MARK: Transformable attributes

  /// The value of the transformable attribute `key` as the transformer its model names makes
  /// it (``FolioStores/ValueTransformerRegistry``), as a `Value`; `nil` when it is empty. A
  /// property of an entity class whose model gives the attribute a class (Xcode's
  /// `customClassName`) reads it so; an array of numbers reads as any integer or real width.
  public final func transformedValue<Value>(
    forKey key: String, as type: Value.Type = Value.self
  ) -> Value? {
    guard let slot = typedSlot(key) else { return nil }
    owner?.noteAccess(to: self, slot: slot)
    guard let attribute = layout.properties[slot].attribute,
      attribute.attributeType == .transformable
    else { misuse(key, "is not a transformable attribute") }
    guard case .data(let data) = slots[slot] else { return nil }
    guard let transformer = Self.transformer(for: attribute) else {
      misuse(
        key,
        "has no transformer: register one as \"\(attribute.valueTransformerName ?? "")\" in ValueTransformerRegistry"
      )
    }
    let decoded: Any
    do {
      decoded = try transformer.value(from: data)
    } catch {
      misuse(key, "holds bytes its transformer cannot read: \(error)")
    }
    guard let value = Self.coerce(decoded, to: Value.self) else {
      misuse(key, "holds a \(Swift.type(of: decoded)), which a \(Value.self) cannot hold")
    }
    return value
  }

  /// Sets the transformable attribute `key` to what its transformer makes of `value`.
  ///
  /// Undo: the change joins the current turn.
  public final func setTransformedValue<Value>(_ value: Value?, forKey key: String) {
    do {
      try setValue(value.map { $0 as Any }, forKey: key)
    } catch {
      misuse(key, "cannot be set: \(error.message)")
    }
  }

  // MARK: Relationships

  /// The object the to-one relationship `key` points at, as a `Target`.
  public final func relatedObject<Target: ManagedObject>(
    forKey key: String, as type: Target.Type = Target.self
  ) -> Target? {
    if flags.contains(.recorder), let context = owner {
      let next: Target = KeyPathRecording.recorder(in: context)
      record(key, producing: next)
      return next
    }
    let (context, slot, _) = relationship(key, toMany: false)
    context.noteAccess(to: self, slot: slot)
    guard case .object(let row) = slots[slot], let object = context.object(atRow: row) else {
      return nil
    }
    return typed(object, key)
  }

  /// Points the to-one relationship `key` at `target` (or nothing); the inverse follows.
  ///
  /// Undo: the change joins the current turn.
  public final func setRelatedObject<Target: ManagedObject>(_ target: Target?, forKey key: String) {
    let (context, slot, relationship) = relationship(key, toMany: false)
    if let target { checkTarget(target, relationship, context) }
    context.setTarget(of: self, slot: slot, relationship: relationship, to: target)
  }

  /// The objects of the to-many relationship `key`, as `Target`s.
  public final func relatedObjects<Target: ManagedObject>(
    forKey key: String, as type: Target.Type = Target.self
  ) -> Set<Target> {
    Set<Target>(targets(key) as [Target])
  }

  /// The objects of the ordered to-many relationship `key`, in order, as `Target`s.
  public final func orderedRelatedObjects<Target: ManagedObject>(
    forKey key: String, as type: Target.Type = Target.self
  ) -> [Target] {
    targets(key)
  }

  /// Replaces the objects of the to-many relationship `key` with `targets`; the inverses
  /// follow.
  ///
  /// Undo: the change joins the current turn.
  public final func setRelatedObjects<Target: ManagedObject>(
    _ targets: Set<Target>, forKey key: String
  ) {
    setTargets(Array(targets), key)
  }

  /// Replaces the objects of the ordered to-many relationship `key` with `targets`, in their
  /// order; the inverses follow.
  ///
  /// Undo: the change joins the current turn.
  public final func setOrderedRelatedObjects<Target: ManagedObject>(
    _ targets: [Target], forKey key: String
  ) {
    setTargets(targets, key)
  }

  /// Adds `target` to the to-many relationship `key` — at `index` of an ordered one, at its
  /// end when `index` is `nil`; the inverse follows. Adding an object already there changes
  /// nothing.
  ///
  /// Undo: the change joins the current turn.
  public final func addRelatedObject(
    _ target: ManagedObject, forKey key: String, at index: Int? = nil
  ) {
    let (context, slot, relationship) = relationship(key, toMany: true)
    checkTarget(target, relationship, context)
    if let index {
      guard relationship.isOrdered else { misuse(key, "is not ordered: add without an index") }
      let count = context.primitiveTargets(of: self, slot: slot).count
      guard (0...count).contains(index) else {
        misuse(key, "has \(count) objects: \(index) is not a place to insert at")
      }
    }
    context.add(target, to: self, slot: slot, relationship: relationship, at: index)
  }

  /// Removes `target` from the to-many relationship `key`; the inverse follows. Removing an
  /// object that is not there changes nothing.
  ///
  /// Undo: the change joins the current turn.
  public final func removeRelatedObject(_ target: ManagedObject, forKey key: String) {
    let (context, slot, relationship) = relationship(key, toMany: true)
    checkTarget(target, relationship, context)
    context.remove(target, from: self, slot: slot, relationship: relationship)
  }

  /// Removes the object at `index` of the ordered to-many relationship `key`; the inverse
  /// follows.
  ///
  /// Undo: the change joins the current turn.
  public final func removeRelatedObject(at index: Int, forKey key: String) {
    let (context, slot, relationship) = relationship(key, toMany: true)
    let target = orderedTarget(at: index, key, slot, relationship, context)
    context.remove(target, from: self, slot: slot, relationship: relationship)
  }

  /// Replaces the object at `index` of the ordered to-many relationship `key` with `target`
  /// (moved there if the relationship holds it elsewhere); the inverses follow.
  ///
  /// Undo: the change joins the current turn.
  public final func replaceRelatedObject(
    at index: Int, with target: ManagedObject, forKey key: String
  ) {
    let (context, slot, relationship) = relationship(key, toMany: true)
    checkTarget(target, relationship, context)
    let old = orderedTarget(at: index, key, slot, relationship, context)
    guard old !== target else { return }
    let rows = context.primitiveTargets(of: self, slot: slot).compactMap { row -> Int32? in
      row == old.row ? target.row : (row == target.row ? nil : row)
    }
    context.setTargets(
      of: self, slot: slot, relationship: relationship,
      to: rows.compactMap { context.object(atRow: $0) })
  }

  // MARK: Checks

  /// The slot of `key`; `nil` for a key path recorder, which notes the key instead.
  private func typedSlot(_ key: String) -> Int? {
    if let slot = layout.slotByName[key] { return slot }
    guard flags.contains(.recorder) else { misuse(key, "is not a property of \(entityName)") }
    record(key)
    return nil
  }

  /// What a key path recorder's attribute reads as: the type's empty value, or any value it
  /// can hold.
  private func placeholder<Value: AttributeValueConvertible>() -> Value {
    if let empty = Value(attributeValue: nil) { return empty }
    for candidate in KeyPathRecording.placeholders {
      if let value = Value(attributeValue: candidate) { return value }
    }
    fatalError("\(Value.self) holds no attribute value: a key path cannot be read through it")
  }

  private func liveContext(_ key: String) -> ManagedObjectContext {
    do {
      return try context()
    } catch {
      misuse(key, "cannot be set: \(error.message)")
    }
  }

  private func relationship(_ key: String, toMany: Bool)
    -> (ManagedObjectContext, Int, RelationshipLayout)
  {
    let context = liveContext(key)
    guard let slot = typedSlot(key) else { misuse(key, "cannot be changed on a key path recorder") }
    guard let relationship = layout.properties[slot].relationship else {
      misuse(key, "is not a relationship")
    }
    guard relationship.isToMany == toMany else {
      misuse(key, toMany ? "is a to-one relationship" : "is a to-many relationship")
    }
    return (context, slot, relationship)
  }

  private func checkTarget(
    _ target: ManagedObject, _ relationship: RelationshipLayout, _ context: ManagedObjectContext
  ) {
    guard target.owner === context, !target.flags.contains(.removed) else {
      misuse(
        relationship.name,
        "cannot hold a \(target.entityName) object of another context, or one no longer in the graph"
      )
    }
    guard !target.isDeleted else {
      misuse(relationship.name, "cannot hold a deleted \(target.entityName) object")
    }
    guard target.layout.isKind(of: relationship.destination) else {
      misuse(
        relationship.name,
        "holds \(relationship.description.destinationEntityName) objects, not \(target.entityName) ones"
      )
    }
  }

  private func typed<Target: ManagedObject>(_ object: ManagedObject, _ key: String) -> Target {
    guard let typed = object as? Target else {
      misuse(
        key,
        "holds a \(object.entityName) object of class \(type(of: object)), not a \(Target.self)")
    }
    return typed
  }

  private func targets<Target: ManagedObject>(_ key: String) -> [Target] {
    guard let context = owner else { misuse(key, "cannot be read: the context is gone") }
    guard let slot = typedSlot(key) else { return [] }
    context.noteAccess(to: self, slot: slot)
    guard let relationship = layout.properties[slot].relationship, relationship.isToMany else {
      misuse(key, "is not a to-many relationship")
    }
    guard case .objects(let set) = slots[slot] else { return [] }
    return set.rows.compactMap { row in context.object(atRow: row).map { typed($0, key) } }
  }

  private func setTargets<Target: ManagedObject>(_ targets: [Target], _ key: String) {
    let (context, slot, relationship) = relationship(key, toMany: true)
    for target in targets { checkTarget(target, relationship, context) }
    context.setTargets(of: self, slot: slot, relationship: relationship, to: targets)
  }

  private func orderedTarget(
    at index: Int, _ key: String, _ slot: Int, _ relationship: RelationshipLayout,
    _ context: ManagedObjectContext
  ) -> ManagedObject {
    guard relationship.isOrdered else { misuse(key, "is not ordered: it has no indexes") }
    let rows = context.primitiveTargets(of: self, slot: slot)
    guard rows.indices.contains(index), let object = context.object(atRow: rows[index]) else {
      misuse(key, "has \(rows.count) objects: there is none at \(index)")
    }
    return object
  }

  /// Stops the program: a typed accessor was misused, which Core Data answers with an
  /// exception.
  private func misuse(_ key: String, _ problem: String) -> Never {
    fatalError("\(entityName).\(key) \(problem)")
  }
}
