import FolioGraph
import FolioModel
import Foundation
import Observation

/// The managed object behind a `@Model` instance a context holds. It keeps the instance, so
/// that every fetch and relationship of the context gives back the same one.
package final class _ModelObject: ManagedObject, LifecycleFreeObject {
  package var model: (any PersistentModel)?
}

/// An empty stand-in for a persisted property's storage: its value lives in the backing.
public struct _FolioNoStorage {
  public init() {}
}

/// A value a subclass's initializer set before its superclass initialized the backing: kept
/// until the object's first access or insertion hands it to the backing.
public struct _FolioPending<Value> {
  private var value: Value?
  public init() {}
  public init(_ value: Value) { self.value = value }

  /// The value, once: the storage is empty afterwards.
  public mutating func take() -> Value? {
    defer { value = nil }
    return value
  }
}

/// Where a `@Model` instance's values are: its own until it is inserted into a context, then
/// its managed object's. `@Model`'s accessors read and write through it; the overloads pick
/// the conversion by the property's type: an attribute value (``AttributeValueConvertible``),
/// a raw-value enumeration, another model (to-one), an array of models (to-many), or else a
/// `Codable` value, stored as its JSON in a transformable attribute.
public struct _ModelBacking {
  package var object: _ModelObject?
  /// Values set before the instance was inserted.
  var detached: DetachedValues?

  public init() {}

  init(object: _ModelObject) { self.object = object }

  /// The context the object is in, found through its managed object's context.
  var modelContext: ModelContext? {
    object?.managedObjectContext.flatMap(ModelContextRegistry.shared.context(for:))
  }

  /// Tracks a read of a property for Observation, while no context holds the object (a
  /// context's object is tracked by its context). `@Model`'s getters call it first.
  public mutating func noteAccess() {
    guard object == nil else { return }
    detachedValues.noteAccess()
  }

  // MARK: Attributes

  public func value<Value: AttributeValueConvertible>(forKey key: String) -> Value {
    if let object { return object.attributeValue(forKey: key, as: Value.self) }
    guard let value = Value(attributeValue: detached?.attribute(key)) else {
      Self.unset(key, Value.self)
    }
    return value
  }

  public mutating func setValue<Value: AttributeValueConvertible>(
    _ value: Value, forKey key: String
  ) {
    if let object { return object.setAttributeValue(value, forKey: key) }
    detachedValues[key] = .attribute(value.attributeValue)
  }

  public mutating func initialize<Value: AttributeValueConvertible>(
    _ value: Value, forKey key: String
  ) { setValue(value, forKey: key) }

  // MARK: Raw-value enumerations

  public func value<Value: RawRepresentable>(forKey key: String) -> Value
  where Value.RawValue: AttributeValueConvertible {
    let raw: Value.RawValue? = value(forKey: key)
    guard let raw, let value = Value(rawValue: raw) else { Self.unset(key, Value.self) }
    return value
  }

  public func value<Value: RawRepresentable>(forKey key: String) -> Value?
  where Value.RawValue: AttributeValueConvertible {
    let raw: Value.RawValue? = value(forKey: key)
    guard let raw else { return nil }
    guard let value = Value(rawValue: raw) else { Self.unset(key, Value.self) }
    return value
  }

  public mutating func setValue<Value: RawRepresentable>(_ value: Value?, forKey key: String)
  where Value.RawValue: AttributeValueConvertible {
    setValue(value?.rawValue, forKey: key)
  }

  public mutating func setValue<Value: RawRepresentable>(_ value: Value, forKey key: String)
  where Value.RawValue: AttributeValueConvertible {
    setValue(Optional(value.rawValue), forKey: key)
  }

  public mutating func initialize<Value: RawRepresentable>(_ value: Value, forKey key: String)
  where Value.RawValue: AttributeValueConvertible { setValue(value, forKey: key) }

  public mutating func initialize<Value: RawRepresentable>(_ value: Value?, forKey key: String)
  where Value.RawValue: AttributeValueConvertible { setValue(value, forKey: key) }

  public func value<Value: RawRepresentable & AttributeValueConvertible>(forKey key: String)
    -> Value
  where Value.RawValue: AttributeValueConvertible {
    let raw: Value.RawValue? = value(forKey: key)
    guard let raw, let value = Value(rawValue: raw) else { Self.unset(key, Value.self) }
    return value
  }

  public func value<Value: RawRepresentable & AttributeValueConvertible>(forKey key: String)
    -> Value?
  where Value.RawValue: AttributeValueConvertible {
    let raw: Value.RawValue? = value(forKey: key)
    guard let raw else { return nil }
    guard let value = Value(rawValue: raw) else { Self.unset(key, Value.self) }
    return value
  }

  public mutating func setValue<Value: RawRepresentable & AttributeValueConvertible>(
    _ value: Value?, forKey key: String
  ) where Value.RawValue: AttributeValueConvertible { setValue(value?.rawValue, forKey: key) }

  public mutating func initialize<Value: RawRepresentable & AttributeValueConvertible>(
    _ value: Value?, forKey key: String
  ) where Value.RawValue: AttributeValueConvertible { setValue(value?.rawValue, forKey: key) }

  public mutating func setValue<Value: RawRepresentable & AttributeValueConvertible>(
    _ value: Value, forKey key: String
  ) where Value.RawValue: AttributeValueConvertible {
    setValue(Optional(value.rawValue), forKey: key)
  }

  public mutating func initialize<Value: RawRepresentable & AttributeValueConvertible>(
    _ value: Value, forKey key: String
  ) where Value.RawValue: AttributeValueConvertible {
    setValue(Optional(value.rawValue), forKey: key)
  }

  // MARK: To-one relationships

  public func value<Target: PersistentModel>(forKey key: String) -> Target? {
    if let object {
      return object.relatedObject(forKey: key, as: _ModelObject.self).map {
        ModelContext.model(for: $0, as: Target.self)
      }
    }
    guard case .toOne(let target)? = detached?[key] else { return nil }
    return target as? Target
  }

  public func value<Target: PersistentModel>(forKey key: String) -> Target {
    guard let target: Target? = value(forKey: key), let target else {
      Self.unset(key, Target.self)
    }
    return target
  }

  public mutating func setValue<Target: PersistentModel>(_ target: Target?, forKey key: String) {
    if let object {
      let targetObject = target.map { Self.managedObject(of: $0, joining: object, key) }
      return object.setRelatedObject(targetObject, forKey: key)
    }
    detachedValues[key] = .toOne(target)
  }

  public mutating func initialize<Target: PersistentModel>(_ target: Target?, forKey key: String) {
    setValue(target, forKey: key)
  }

  public mutating func setValue<Target: PersistentModel>(_ target: Target, forKey key: String) {
    setValue(Optional(target), forKey: key)
  }

  public mutating func initialize<Target: PersistentModel>(_ target: Target, forKey key: String) {
    setValue(Optional(target), forKey: key)
  }

  // MARK: To-many relationships

  public func value<Target: PersistentModel>(forKey key: String) -> [Target] {
    if let object {
      return object.relatedObjects(forKey: key, as: _ModelObject.self).map {
        ModelContext.model(for: $0, as: Target.self)
      }
    }
    guard case .toMany(let targets)? = detached?[key] else { return [] }
    return targets.compactMap { $0 as? Target }
  }

  public func value<Target: PersistentModel>(forKey key: String) -> [Target]? {
    let targets: [Target] = value(forKey: key)
    return targets
  }

  public mutating func setValue<Target: PersistentModel>(_ targets: [Target]?, forKey key: String) {
    if let object {
      let objects = (targets ?? []).map { Self.managedObject(of: $0, joining: object, key) }
      return object.setRelatedObjects(Set(objects), forKey: key)
    }
    detachedValues[key] = .toMany(targets ?? [])
  }

  public mutating func initialize<Target: PersistentModel>(
    _ targets: [Target]?, forKey key: String
  ) { setValue(targets, forKey: key) }

  public mutating func setValue<Target: PersistentModel>(_ targets: [Target], forKey key: String) {
    setValue(Optional(targets), forKey: key)
  }

  public mutating func initialize<Target: PersistentModel>(_ targets: [Target], forKey key: String)
  { setValue(Optional(targets), forKey: key) }

  // MARK: Codable values

  public func value<Value>(forKey key: String) -> Value {
    let data: Data? = value(forKey: key)
    guard let data else {
      if let optional = Value.self as? any _OptionalValue.Type,
        let none = optional.none as? Value
      {
        return none
      }
      Self.unset(key, Value.self)
    }
    guard let type = Value.self as? any Decodable.Type else { Self.unsupported(key, Value.self) }
    let decoded: Any
    do {
      decoded = try JSONDecoder().decode(type, from: data)
    } catch {
      fatalError("\(key) holds JSON that is not a \(Value.self): \(error)")
    }
    guard let value = decoded as? Value else { Self.unsupported(key, Value.self) }
    return value
  }

  public mutating func setValue<Value>(_ value: Value, forKey key: String) {
    if let optional = value as? any _OptionalValue, optional.isNone {
      return setValue(Data?.none, forKey: key)
    }
    guard let encodable = value as? any Encodable else { Self.unsupported(key, Value.self) }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    do {
      setValue(Optional(try encoder.encode(encodable)), forKey: key)
    } catch {
      fatalError("\(key) cannot be stored: \(error)")
    }
  }

  public mutating func initialize<Value>(_ value: Value, forKey key: String) {
    setValue(value, forKey: key)
  }

  // MARK: Detached values

  var detachedValues: DetachedValues {
    mutating get {
      if let detached { return detached }
      let made = DetachedValues()
      detached = made
      return made
    }
  }

  /// The managed object of `target`, a model set as `key` of `owner`; a target no context holds
  /// yet is inserted into the owner's, as SwiftData does.
  static func managedObject(
    of target: some PersistentModel, joining owner: _ModelObject, _ key: String
  ) -> _ModelObject {
    if let object = target._$backing.object { return object }
    guard
      let context = owner.managedObjectContext.flatMap(ModelContextRegistry.shared.context(for:))
    else {
      fatalError("\(owner.entityName).\(key): the object is not in a model context")
    }
    context.insert(target)
    guard let object = target._$backing.object else {
      fatalError("\(owner.entityName).\(key): \(type(of: target)) could not be inserted")
    }
    return object
  }

  static func unset<Value>(_ key: String, _ type: Value.Type) -> Never {
    fatalError("\(key) is empty, which a \(Value.self) cannot hold: declare the property optional")
  }

  static func unsupported<Value>(_ key: String, _ type: Value.Type) -> Never {
    fatalError("\(key) is a \(Value.self), which is not a type a model property can have")
  }
}

/// The values of a `@Model` instance no context holds yet, in the order they were first set.
///
/// A class has a few properties, so the keys are searched in turn: faster than hashing them.
///
/// Observation sees the values as one property: reading any of them is tracked, and setting
/// any of them, or inserting the object into a context, notifies. The registrar is made at
/// the first tracked read, so objects only made and inserted pay nothing for it.
final class DetachedValues: Observable {
  enum Value {
    case attribute(AttributeValue?)
    case toOne(AnyObject?)
    case toMany([AnyObject])
  }

  private(set) var keys: [String] = []
  private(set) var values: [Value] = []
  private var registrar: ObservationRegistrar?

  /// What Observation tracks: every value at once.
  var observedValues: Int { 0 }

  init() {
    keys.reserveCapacity(8)
    values.reserveCapacity(8)
  }

  subscript(key: String) -> Value? {
    get { keys.firstIndex(of: key).map { values[$0] } }
    set {
      guard let registrar else { return set(newValue, forKey: key) }
      registrar.withMutation(of: self, keyPath: \.observedValues) { set(newValue, forKey: key) }
    }
  }

  private func set(_ newValue: Value?, forKey key: String) {
    if let index = keys.firstIndex(of: key) {
      if let newValue {
        values[index] = newValue
      } else {
        keys.remove(at: index)
        values.remove(at: index)
      }
    } else if let newValue {
      keys.append(key)
      values.append(newValue)
    }
  }

  func noteAccess() {
    if registrar == nil { registrar = ObservationRegistrar() }
    registrar?.access(self, keyPath: \.observedValues)
  }

  /// Tells the observers that the values moved into a context, where they change from now on.
  func noteInserted() {
    registrar?.withMutation(of: self, keyPath: \.observedValues) {}
  }

  func attribute(_ key: String) -> AttributeValue? {
    guard case .attribute(let value)? = self[key] else { return nil }
    return value
  }
}

/// An optional, seen through its type: how the generic accessors tell `T?` from `T`.
protocol _OptionalValue {
  static var none: Self { get }
  static var wrappedType: Any.Type { get }
  var isNone: Bool { get }
}

extension Optional: _OptionalValue {
  static var wrappedType: Any.Type { Wrapped.self }
  var isNone: Bool { self == nil }
}
