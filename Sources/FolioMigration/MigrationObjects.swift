import FolioModel
import FolioQuery
import FolioStores
import Foundation

/// A source object during a migration, read-only: what `$source` names.
///
/// Reads its values by key, and key paths through its relationships, as a predicate does
/// (it is ``FolioQuery/KeyValueReadable``).
public struct MigrationSourceObject: KeyValueReadable {
  /// The object's record ID in the source store.
  public let id: Int64
  unowned let manager: MigrationManager

  init(id: Int64, manager: MigrationManager) {
    self.id = id
    self.manager = manager
  }

  var record: StoreRecord? { manager.sourcePosition[id].map { manager.sources[$0] } }

  /// The object's entity in the source model.
  public var entityName: String { record?.entityName ?? "" }

  /// The value of attribute `key`; `nil` when it is empty.
  public func attribute(_ key: String) -> AttributeValue? { record?.attribute(key) }

  /// The targets of relationship `key`, in order for an ordered relationship.
  public func targets(_ key: String) -> [MigrationSourceObject] {
    (record?.relationships[key] ?? []).map { MigrationSourceObject(id: $0, manager: manager) }
  }

  /// The value for `keyPath`'s first key: an attribute's value as a Swift value, a to-one's
  /// target, a to-many's targets.
  public func value(forKeyPath keyPath: String) throws -> Any? {
    guard let record, let entity = manager.sourceModel.entity(named: record.entityName) else {
      return nil
    }
    switch entity.property(named: keyPath) {
    case .attribute?:
      return record.attribute(keyPath).map(\.swiftValue) ?? nil
    case .relationship(let relationship)?:
      let targets = targets(keyPath)
      return relationship.isToMany ? targets : targets.first
    default:
      throw MigrationError(
        .invalidMapping, "\(record.entityName) has no property \(keyPath)",
        at: InputLocation(entity: record.entityName, property: keyPath))
    }
  }
}

/// A destination object during a migration: what `$destination` names and what a migration
/// policy creates and fills.
public struct MigrationObject {
  /// The object's record ID in the migrated store.
  public let id: Int64
  unowned let manager: MigrationManager

  init(id: Int64, manager: MigrationManager) {
    self.id = id
    self.manager = manager
  }

  var position: Int? { manager.destinationPosition[id] }

  /// The object's entity in the destination model.
  public var entityName: String { position.map { manager.destinations[$0].entityName } ?? "" }

  /// The value of attribute `key`; `nil` when it is empty.
  public func attribute(_ key: String) -> AttributeValue? {
    position.flatMap { manager.destinations[$0].attribute(key) }
  }

  /// Sets attribute `key`, converting a value to the attribute's type where that keeps it
  /// exactly; `nil` empties it.
  ///
  /// - Throws: `MigrationError.invalidValue` for a value of another type, `.invalidMapping`
  ///   for a key the entity does not store.
  public func setAttribute(_ value: AttributeValue?, forKey key: String) throws(MigrationError) {
    try manager.assignAttribute(value.map(MigrationValue.value) ?? .null, key, of: id, nil)
  }

  /// The targets of relationship `key`.
  public func targets(_ key: String) -> [MigrationObject] {
    let ids = position.flatMap { manager.destinations[$0].relationships[key] } ?? []
    return ids.map { MigrationObject(id: $0, manager: manager) }
  }

  /// Sets relationship `key` to `targets` (at most one for a to-one); the inverses follow
  /// when the relationship stage ends.
  ///
  /// - Throws: `MigrationError.invalidValue` for several targets of a to-one or a target of
  ///   the wrong entity, `.invalidMapping` for a key the entity does not store.
  public func setTargets(_ targets: [MigrationObject], forKey key: String) throws(MigrationError) {
    try manager.assignRelationship(targets.map(\.id), key, of: id, nil)
  }
}

/// How the objects of one entity mapping are migrated: Core Data's `NSEntityMigrationPolicy`.
///
/// This class does what Core Data's default policy does; subclass it and override the stages
/// a mapping needs done differently, then register the subclass under the class name the
/// mapping model names (``MigrationManager/register(_:as:)``). One instance serves one entity
/// mapping for the whole migration, so it can keep state from stage to stage.
///
/// ```swift
/// final class CountryPolicy: EntityMigrationPolicy {
///   override func createDestinationInstances(
///     forSource source: MigrationSourceObject, in mapping: EntityMapping,
///     manager: MigrationManager
///   ) throws(MigrationError) {
///     let country = try manager.insertDestinationObject(entityName: "Country")
///     try country.setAttribute(source.attribute("code"), forKey: "isoCode")
///     manager.associate(sourceInstance: source, withDestinationInstance: country, for: mapping)
///   }
/// }
/// manager.register(CountryPolicy.self, as: "Migrations.CountryPolicy")
/// ```
open class EntityMigrationPolicy {
  public required init() {}

  /// Called before the mapping's first object.
  open func begin(_ mapping: EntityMapping, manager: MigrationManager) throws(MigrationError) {}

  /// Creates the destination objects of `source` and associates them with it.
  open func createDestinationInstances(
    forSource source: MigrationSourceObject, in mapping: EntityMapping, manager: MigrationManager
  ) throws(MigrationError) {
    try manager.createDefaultDestinationInstance(forSource: source, in: mapping)
  }

  /// Sets the relationships of `destination`, one of the objects this mapping created.
  open func createRelationships(
    forDestination destination: MigrationObject, in mapping: EntityMapping,
    manager: MigrationManager
  ) throws(MigrationError) {
    try manager.createDefaultRelationships(forDestination: destination, in: mapping)
  }

  /// Called after the mapping's last relationship.
  open func endRelationshipCreation(_ mapping: EntityMapping, manager: MigrationManager)
    throws(MigrationError)
  {}

  /// Called once every object is checked.
  open func end(_ mapping: EntityMapping, manager: MigrationManager) throws(MigrationError) {}

  /// The value of `FUNCTION($entityPolicy, "selector", arguments…)` in a value expression:
  /// arguments and result are Swift values (as ``MigrationSourceObject`` returns them), source
  /// objects and destination objects.
  ///
  /// The default knows no function.
  open func value(
    ofFunction selector: String, arguments: [Any?], manager: MigrationManager
  ) throws(MigrationError) -> Any? {
    throw MigrationError(
      .invalidMapping,
      "the migration policy of \(manager.currentEntityMapping?.name ?? "this mapping") has no function \(selector)"
    )
  }
}

extension AttributeValue {
  /// The value as the Swift value a predicate compares.
  var swiftValue: Any {
    switch self {
    case .integer(let value): Int(value)
    case .decimal(let value): value
    case .double(let value): value
    case .float(let value): value
    case .string(let value): value
    case .boolean(let value): value
    case .date(let value): value
    case .binaryData(let value), .transformable(let value): value
    case .uuid(let value): value
    case .uri(let value): value
    case .objectID(let value): value
    case .composite(let members): members.mapValues(\.swiftValue)
    }
  }

  /// A Swift value a policy or predicate gave back, as an attribute value.
  init?(swiftValue value: Any) {
    switch value {
    case let value as AttributeValue: self = value
    case let value as Bool: self = .boolean(value)
    case let value as Int: self = .integer(Int64(value))
    case let value as Int64: self = .integer(value)
    case let value as Int32: self = .integer(Int64(value))
    case let value as Int16: self = .integer(Int64(value))
    case let value as Double: self = .double(value)
    case let value as Float: self = .float(value)
    case let value as Decimal: self = .decimal(value)
    case let value as String: self = .string(value)
    case let value as Date: self = .date(value)
    case let value as Data: self = .binaryData(value)
    case let value as UUID: self = .uuid(value)
    case let value as URL: self = .uri(value)
    default: return nil
    }
  }
}
