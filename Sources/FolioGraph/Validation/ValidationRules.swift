/// Validation rules an app registers for its entities: the Linux stand-in for Core Data's
/// `validateKey:error:` methods and `validateForInsert:` / `validateForUpdate:` /
/// `validateForDelete:` overrides.
///
/// A rule returns `nil` when the object is valid, or one sentence saying why not. Rules
/// registered for an entity apply to its subentities too, as overrides are inherited.
///
/// ```swift
/// context.validationRules.add(forEntity: "Employee", key: "lastName") { _, value in
///   (value as? String)?.first?.isUppercase == false ? "must start with a capital" : nil
/// }
/// context.validationRules.add(forEntity: "Employee", on: .insert) { employee in
///   employee.isInserted && (try? employee.value(forKey: "department")) == nil ? "needs a department" : nil
/// }
/// ```
public struct ValidationRules {
  /// A rule on one property: the object and the property's current value.
  public typealias PropertyRule = (ManagedObject, Any?) -> String?
  /// A rule on a whole object.
  public typealias ObjectRule = (ManagedObject) -> String?

  /// When a whole-object rule runs: for objects inserted, updated or deleted since the save.
  public enum Occasion: Sendable, Hashable, CaseIterable {
    case insert
    case update
    case delete
  }

  var propertyRules: [String: [String: [PropertyRule]]] = [:]
  var objectRules: [String: [Occasion: [ObjectRule]]] = [:]
  /// Typed rules on one property of an entity class, which throw the app's own errors.
  var typedPropertyRules: [String: [String: [(ManagedObject) throws -> Void]]] = [:]

  /// Creates an empty set of rules.
  public init() {}

  /// Adds a rule on `key` of `entity` (and its subentities), checked for inserted and updated
  /// objects.
  public mutating func add(
    forEntity entity: String, key: String, _ rule: @escaping PropertyRule
  ) {
    propertyRules[entity, default: [:]][key, default: []].append(rule)
  }

  /// Adds a whole-object rule for `entity` (and its subentities) on `occasion`.
  public mutating func add(
    forEntity entity: String, on occasion: Occasion, _ rule: @escaping ObjectRule
  ) {
    objectRules[entity, default: [:]][occasion, default: []].append(rule)
  }

  /// Adds a typed rule on the property `keyPath` names, for objects of `Root`'s entity (and
  /// its subentities), checked for inserted and updated objects with the property's current
  /// value. The rule throws the app's own error, which a save carries in
  /// ``ValidationFailure/underlying``:
  ///
  /// ```swift
  /// context.validationRules.add(\Book.pages) { book, pages in
  ///   if pages > 2_000 { throw ShelfError.tooLong(pages) }
  /// }
  /// ```
  ///
  /// A key path that names no single property of the entity is a programming error, and
  /// traps.
  public mutating func add<Root: ManagedObject, Value>(
    _ keyPath: KeyPath<Root, Value>, _ rule: @escaping (Root, Value) throws -> Void
  ) {
    let key = modelKey(keyPath)
    guard !key.contains(".") else {
      fatalError("a validation rule names one property of \(Root.self), not the path \(key)")
    }
    typedPropertyRules[Root.declaredEntityName, default: [:]][key, default: []].append {
      object in
      guard let root = object as? Root else { return }
      try rule(root, root[keyPath: keyPath])
    }
  }

  /// Whether any rule is registered.
  public var isEmpty: Bool {
    propertyRules.isEmpty && objectRules.isEmpty && typedPropertyRules.isEmpty
  }
}
