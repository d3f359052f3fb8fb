import FolioModel
import Foundation

/// Validation: the model's constraints and the app's rules, every failure collected.
///
/// Objects inserted or updated since the save are checked property by property — required,
/// minimum and maximum value, minimum and maximum length, pattern, minimum and maximum count,
/// and the app's property rules — then by the app's whole-object rules for insert or update.
/// Deleted objects are checked for Deny rules (a relationship whose delete rule is Deny must be
/// empty, not counting objects deleted with it) and the app's delete rules. Uniqueness
/// constraints are checked across every object of the entity. Nothing is changed by validating.
extension ManagedObjectContext {
  /// Checks every object inserted, updated or deleted since the last save.
  ///
  /// - Throws: `GraphError.validation` with every failure, in object and property order.
  public func validate() throws(GraphError) {
    propagateDeletes()
    registerAllObjects()
    let failures = validationFailures()
    guard failures.isEmpty else { throw Self.validationError(failures) }
  }

  static func validationError(_ failures: [ValidationFailure]) -> GraphError {
    let code: GraphError.Code = failures.allSatisfy { $0.rule == .deny } ? .deny : .validation
    let count = failures.count == 1 ? "1 failure" : "\(failures.count) failures"
    return GraphError(code, "the changes do not validate (\(count))", failures: failures)
  }

  func validationFailures() -> [ValidationFailure] {
    var failures: [ValidationFailure] = []
    let changed = insertedRows.union(updatedRows).sorted()
    for row in changed {
      guard let object = object(atRow: row), object.flags.isDisjoint(with: [.deleted, .removed])
      else { continue }
      let occasion: ValidationRules.Occasion = object.isInserted ? .insert : .update
      failures += propertyFailures(of: object)
      failures += objectRuleFailures(of: object, on: occasion)
      if object.layout.hasCustomClass { failures += classFailures(of: object, on: occasion) }
    }
    failures += uniquenessFailures()
    for row in deletedRows.union(discardedRows).sorted() {
      guard let object = object(atRow: row) else { continue }
      failures += denyFailures(of: object)
      if deletedRows.contains(row) {
        failures += objectRuleFailures(of: object, on: .delete)
        if object.layout.hasCustomClass { failures += classFailures(of: object, on: .delete) }
      }
    }
    return failures
  }

  /// What an entity class's validation methods add to the model's checks, which the caller
  /// made: their defaults check nothing meanwhile, so an override that calls `super` first
  /// still reaches its own checks, and every failure is reported once.
  private func classFailures(of object: ManagedObject, on occasion: ValidationRules.Occasion)
    -> [ValidationFailure]
  {
    isValidatingForSave = true
    defer { isValidatingForSave = false }
    var failures: [ValidationFailure] = []
    if occasion != .delete {
      for (slot, property) in object.layout.properties.enumerated()
      where property.attribute != nil || property.relationship != nil {
        let value = publicValue(object.slots[slot], slot: slot, of: object)
        failures += collectFailures(of: object, key: property.name) {
          try object.validateValue(value, forKey: property.name)
        }
      }
    }
    failures += collectFailures(of: object, key: nil) {
      switch occasion {
      case .insert: try object.validateForInsert()
      case .update: try object.validateForUpdate()
      case .delete: try object.validateForDelete()
      }
    }
    return failures
  }

  /// The failures `validation` throws for `object`: a graph error's own failures, or one
  /// failure carrying any other error (an app's, thrown by an entity class's override).
  func collectFailures(
    of object: ManagedObject, key: String?, _ validation: () throws -> Void
  ) -> [ValidationFailure] {
    do {
      try validation()
      return []
    } catch let error as GraphError where !error.failures.isEmpty {
      return error.failures
    } catch {
      var failure = self.failure(
        object, key, key.flatMap { object.layout.slotByName[$0] }.map { object.slots[$0] } ?? .null,
        .custom, (error as? GraphError)?.message ?? "\(error)")
      failure.underlying = error
      return [failure]
    }
  }

  /// Every property failure of `object`, in property order.
  func propertyFailures(of object: ManagedObject) -> [ValidationFailure] {
    var failures: [ValidationFailure] = []
    let hasRules =
      !validationRules.propertyRules.isEmpty || !validationRules.typedPropertyRules.isEmpty
    for (slot, property) in object.layout.properties.enumerated() {
      if property.hasValueRules {
        failures += propertyFailures(of: object, slot: slot, value: object.slots[slot])
      }
      guard hasRules else { continue }
      for rule in propertyRules(for: object, key: property.name) {
        let value = publicValue(object.slots[slot], slot: slot, of: object)
        if let message = rule(object, value) {
          failures.append(failure(object, property.name, object.slots[slot], .custom, message))
        }
      }
      guard !validationRules.typedPropertyRules.isEmpty else { continue }
      for name in ruleEntityNames(for: object) {
        for rule in validationRules.typedPropertyRules[name]?[property.name] ?? [] {
          failures += collectFailures(of: object, key: property.name) { try rule(object) }
        }
      }
    }
    return failures
  }

  func propertyFailures(of object: ManagedObject, slot: Int, value: Slot) -> [ValidationFailure] {
    let property = object.layout.properties[slot]
    guard property.hasValueRules else { return [] }
    if let attribute = property.attribute {
      return attributeFailures(of: object, attribute: attribute, value: value)
    } else if let relationship = property.relationship {
      return relationshipFailures(of: object, relationship: relationship, value: value)
    }
    return []
  }

  private func attributeFailures(
    of object: ManagedObject, attribute: AttributeDescription, value: Slot
  ) -> [ValidationFailure] {
    guard !attribute.isDerived else { return [] }
    let key = attribute.name
    guard let model = value.attributeValue(as: attribute.attributeType) else {
      if case .boxed = value { return [] }  // an undefined transient's arbitrary value
      return attribute.isOptional
        ? [] : [failure(object, key, value, .required, "a value is required")]
    }
    var failures: [ValidationFailure] = []
    if let low = attribute.minimumValue, let order = model.order(against: low), order < 0 {
      failures.append(
        failure(
          object, key, value, .minimumValue,
          "\(model.modelText) is less than the minimum \(low.modelText)"))
    }
    if let high = attribute.maximumValue, let order = model.order(against: high), order > 0 {
      failures.append(
        failure(
          object, key, value, .maximumValue,
          "\(model.modelText) is greater than the maximum \(high.modelText)"))
    }
    let length: Int?
    switch model {
    case .string(let text): length = text.utf16.count
    case .binaryData(let data), .transformable(let data): length = data.count
    default: length = nil
    }
    if let length {
      if let low = attribute.minimumLength, length < low {
        failures.append(
          failure(
            object, key, value, .minimumLength, "length \(length) is less than the minimum \(low)"))
      }
      if let high = attribute.maximumLength, length > high {
        failures.append(
          failure(
            object, key, value, .maximumLength,
            "length \(length) is greater than the maximum \(high)"))
      }
    }
    if let pattern = attribute.regularExpression, case .string(let text) = model,
      !Self.matches(text, pattern: pattern)
    {
      failures.append(failure(object, key, value, .pattern, "does not match /\(pattern)/"))
    }
    return failures
  }

  private func relationshipFailures(
    of object: ManagedObject, relationship: RelationshipLayout, value: Slot
  ) -> [ValidationFailure] {
    let key = relationship.name
    let description = relationship.description
    guard relationship.isToMany else {
      if case .object = value { return [] }
      return description.isOptional
        ? [] : [failure(object, key, value, .required, "a related object is required")]
    }
    let count: Int
    if case .objects(let set) = value { count = set.count } else { count = 0 }
    // As in Core Data, the counts hold only for a to-many that holds objects or is required;
    // a required to-many whose minimum is 0 may be empty.
    if count == 0, description.isOptional { return [] }
    var failures: [ValidationFailure] = []
    if count < description.minCount {
      failures.append(
        failure(
          object, key, value, .minimumCount,
          "\(count) related object\(count == 1 ? "" : "s"), fewer than the minimum \(description.minCount)"
        ))
    }
    if let high = description.maxCount, count > high {
      failures.append(
        failure(
          object, key, value, .maximumCount,
          "\(count) related object\(count == 1 ? "" : "s"), more than the maximum \(high)"))
    }
    return failures
  }

  func denyFailures(of object: ManagedObject) -> [ValidationFailure] {
    var failures: [ValidationFailure] = []
    for (slot, property) in object.layout.properties.enumerated() {
      guard let relationship = property.relationship, relationship.deleteRule == .deny else {
        continue
      }
      let remaining = primitiveTargets(of: object, slot: slot).filter { row in
        guard let target = self.object(atRow: row) else { return false }
        return target.flags.isDisjoint(with: [.deleted, .removed])
      }
      if !remaining.isEmpty {
        failures.append(
          failure(
            object, relationship.name, object.slots[slot], .deny,
            "cannot be deleted while \"\(relationship.name)\" holds \(remaining.count) object\(remaining.count == 1 ? "" : "s") (delete rule Deny)"
          ))
      }
    }
    return failures
  }

  func uniquenessFailures(includingUnchanged: Bool = false) -> [ValidationFailure] {
    var failures: [ValidationFailure] = []
    for group in uniquenessGroups() {
      let names = group.constraint.joined(separator: ", ")
      for object in group.objects where includingUnchanged || object.hasChanges {
        let others = group.objects.filter { $0 !== object }.map { "\($0.objectID)" }
        failures.append(
          failure(
            object, group.constraint.joined(separator: ","), object.slots[group.slots[0]],
            .uniqueness,
            "another \(group.layout.name) has the same \(names) (\(others.joined(separator: ", ")))"
          ))
      }
    }
    return failures
  }

  /// The objects in the graph, neither deleted nor out of it, that share the values of a
  /// uniqueness constraint, by constraint: groups of two or more, each in row order.
  func uniquenessGroups() -> [UniquenessGroup] {
    var result: [UniquenessGroup] = []
    for layout in layouts where !layout.entity.uniquenessConstraints.isEmpty {
      let candidates = table.compactMap { object -> ManagedObject? in
        guard let object, object.flags.isDisjoint(with: [.deleted, .removed]),
          object.layout.isKind(of: layout.index)
        else { return nil }
        return object
      }
      for constraint in layout.entity.uniquenessConstraints {
        let slots = constraint.compactMap { layout.slotByName[$0] }
        guard slots.count == constraint.count else { continue }
        var groups: [String: [ManagedObject]] = [:]
        for object in candidates {
          let key = slots.map { uniquenessKey(object.slots[$0]) }.joined(separator: "\u{1F}")
          groups[key, default: []].append(object)
        }
        for group in groups.values where group.count > 1 {
          result.append(
            UniquenessGroup(
              layout: layout, constraint: constraint, slots: slots,
              objects: group.sorted { $0.row < $1.row }))
        }
      }
    }
    return result.sorted {
      ($0.objects[0].row, $0.layout.index) < ($1.objects[0].row, $1.layout.index)
    }
  }

  private func uniquenessKey(_ slot: Slot) -> String {
    switch slot {
    case .null: return "nil"
    case .integer(let number): return "i\(number)"
    case .real(let number): return "r\(number)"
    case .boolean(let flag): return "b\(flag)"
    case .string(let text): return "s\(text)"
    case .data(let data): return "d\(data.base64EncodedString())"
    case .uuid(let uuid): return "u\(uuid)"
    case .boxed(let box):
      if case .attribute(let value) = box.value { return "x\(value.modelText)" }
      return "x\(ObjectIdentifier(box))"
    case .object(let row): return "o\(row)"
    case .objects(let set): return "m\(set.rows.sorted())"
    case .unrecorded: return "?"
    }
  }

  func objectRuleFailures(of object: ManagedObject, on occasion: ValidationRules.Occasion)
    -> [ValidationFailure]
  {
    guard !validationRules.objectRules.isEmpty else { return [] }
    var failures: [ValidationFailure] = []
    for name in ruleEntityNames(for: object) {
      for rule in validationRules.objectRules[name]?[occasion] ?? [] {
        if let message = rule(object) {
          failures.append(failure(object, nil, .null, .custom, message))
        }
      }
    }
    return failures
  }

  func propertyRules(for object: ManagedObject, key: String) -> [ValidationRules.PropertyRule] {
    guard !validationRules.propertyRules.isEmpty else { return [] }
    return ruleEntityNames(for: object).flatMap { validationRules.propertyRules[$0]?[key] ?? [] }
  }

  /// The object's entity and its ancestors, root first: where its rules may be registered.
  private func ruleEntityNames(for object: ManagedObject) -> [String] {
    object.layout.ruleEntityNames
  }

  func failure(
    _ object: ManagedObject, _ key: String?, _ value: Slot, _ rule: ValidationFailure.Rule,
    _ message: String
  ) -> ValidationFailure {
    var text: String?
    if let key, let slot = object.layout.slotByName[key],
      case .attribute(let attribute) = object.layout.properties[slot].kind
    {
      text = value.attributeValue(as: attribute.attributeType)?.modelText
    }
    return ValidationFailure(
      objectID: object.objectID, entityName: object.entityName, key: key, value: text, rule: rule,
      message: message)
  }

  /// Whether `pattern` matches all of `text`, as Core Data's `MATCHES` does.
  static func matches(_ text: String, pattern: String) -> Bool {
    guard let expression = try? NSRegularExpression(pattern: "\\A(?:\(pattern))\\z") else {
      return false
    }
    let range = NSRange(text.startIndex..., in: text)
    return expression.firstMatch(in: text, range: range) != nil
  }
}

extension ManagedObjectContext {
  /// Checks every object in the graph, changed or not, as a save checks new ones: for a store
  /// opened from a file (`folio validate`).
  ///
  /// - Throws: `GraphError.validation` with every failure.
  /// - Complexity: O(*n*) in the objects and their properties.
  public func validateAllObjects() throws(GraphError) {
    processPendingChanges()
    var failures: [ValidationFailure] = []
    for case let object? in table where object.flags.isDisjoint(with: [.deleted, .removed]) {
      failures += propertyFailures(of: object)
      failures += objectRuleFailures(of: object, on: object.isInserted ? .insert : .update)
    }
    failures += uniquenessFailures(includingUnchanged: true)
    guard failures.isEmpty else { throw Self.validationError(failures) }
  }
}

/// Objects that share the values of one of their entity's uniqueness constraints.
struct UniquenessGroup {
  /// The entity whose constraint it is.
  let layout: EntityLayout
  /// The constraint's attributes, and their slots.
  let constraint: [String]
  let slots: [Int]
  /// The objects, in row order.
  let objects: [ManagedObject]
}
