import FolioModel

/// How the objects of one model version become objects of another: Core Data's
/// `NSMappingModel`, as Xcode's mapping models hold it or as a lightweight migration infers it.
///
/// Entity mappings run in order, each taking the objects of its source entity (not of its
/// subentities: each concrete entity has a mapping of its own) to objects of its destination
/// entity, in Core Data's three stages: every destination object is created with its
/// attributes, then every relationship is set, then the result is checked.
public struct MappingModel: Sendable, Hashable {
  /// The entity mappings, in the order they run.
  public var entityMappings: [EntityMapping]

  public init(entityMappings: [EntityMapping]) {
    self.entityMappings = entityMappings
  }

  /// The entity mapping named `name`.
  public func entityMapping(named name: String) -> EntityMapping? {
    entityMappings.first { $0.name == name }
  }
}

/// How the objects of one source entity become objects of one destination entity: Core Data's
/// `NSEntityMapping`.
public struct EntityMapping: Sendable, Hashable {
  /// What the mapping does: Core Data's `NSEntityMappingType`.
  public enum MappingType: String, Sendable, Hashable {
    /// The destination entity is new: no source objects, nothing created.
    case add
    /// The source entity is gone: its objects are not carried over.
    case remove
    /// Objects are carried over as they are.
    case copy
    /// Objects are carried over with the property mappings' value expressions.
    case transform
    /// A migration policy registered under ``EntityMapping/migrationPolicyClassName`` creates
    /// the destination objects.
    case custom
  }

  /// The mapping's name, unique in its mapping model (`"EmployeeToCompany"`); Xcode's default
  /// is the source entity's name, `To`, and the destination entity's name.
  public var name: String
  public var mappingType: MappingType
  /// The entity whose objects the mapping takes; `nil` for an added entity.
  public var sourceEntityName: String?
  /// The entity the mapping creates objects of; `nil` for a removed entity.
  public var destinationEntityName: String?
  /// A predicate in Core Data's format syntax that narrows the source objects
  /// (`"rating > 2"`); `nil` takes them all.
  public var sourceFilterPredicate: String?
  /// One mapping per destination attribute, in order.
  public var attributeMappings: [PropertyMapping]
  /// One mapping per destination relationship, in order.
  public var relationshipMappings: [PropertyMapping]
  /// The name the mapping gives its migration policy (`"Module.CountryPolicy"`); `nil` for
  /// Core Data's default policy.
  public var migrationPolicyClassName: String?

  public init(
    name: String, mappingType: MappingType, sourceEntityName: String?,
    destinationEntityName: String?, sourceFilterPredicate: String? = nil,
    attributeMappings: [PropertyMapping] = [], relationshipMappings: [PropertyMapping] = [],
    migrationPolicyClassName: String? = nil
  ) {
    self.name = name
    self.mappingType = mappingType
    self.sourceEntityName = sourceEntityName
    self.destinationEntityName = destinationEntityName
    self.sourceFilterPredicate = sourceFilterPredicate
    self.attributeMappings = attributeMappings
    self.relationshipMappings = relationshipMappings
    self.migrationPolicyClassName = migrationPolicyClassName
  }
}

/// How one destination property gets its value: Core Data's `NSPropertyMapping`.
public struct PropertyMapping: Sendable, Hashable {
  /// The destination property's name.
  public var name: String
  /// The value: an expression over `$source`, `$manager` and the other migration variables;
  /// `nil` leaves the property at its default value (or empty).
  public var valueExpression: MappingExpression?
  /// Whether the value expression is Xcode's default for the row rather than one the mapping
  /// states: an Xcode mapping model stores no expression for most rows, and the default
  /// depends on the source model (``MappingModel/resolvingDefaultExpressions(sourceModel:)``).
  /// Until it is resolved, ``valueExpression`` is `nil`. The default is `false`.
  public var usesDefaultExpression = false

  public init(name: String, valueExpression: MappingExpression?) {
    self.name = name
    self.valueExpression = valueExpression
  }

  /// Creates a property mapping whose expression may be Xcode's default for the row.
  public init(
    name: String, valueExpression: MappingExpression?, usesDefaultExpression: Bool
  ) {
    self.name = name
    self.valueExpression = valueExpression
    self.usesDefaultExpression = usesDefaultExpression
  }
}

/// A value expression of a property mapping: the part of `NSExpression` mapping models use.
///
/// Its ``description`` is the expression in `NSExpression`'s format syntax, as Xcode's mapping
/// editor shows it: `$source.name`, `FUNCTION($manager,
/// "destinationInstancesForEntityMappingNamed:sourceInstances:", "PersonToPerson",
/// $source.owner)`.
public indirect enum MappingExpression: Sendable, Hashable {
  /// A constant: a string, a number, a Boolean, a date or `nil`.
  case constant(MappingConstant)
  /// A migration variable: `$source`, `$destination`, `$manager`, `$entityMapping`,
  /// `$propertyMapping`, `$entityPolicy`.
  case variable(String)
  /// A key path from an expression (`$source.country.continent`), with collection operators
  /// (`$source.countries.@distinctUnionOfSets.moods`).
  case keyPath(MappingExpression, String)
  /// `FUNCTION(receiver, "selector:", arguments…)`: a method of the migration manager or of
  /// the entity's migration policy.
  case function(receiver: MappingExpression, selector: String, arguments: [MappingExpression])
  /// One of `NSExpression`'s built-in functions: `now()`, `uppercase:(…)`, `add:to:(…)`.
  case builtin(String, arguments: [MappingExpression])
}

/// A constant in a ``MappingExpression``.
public enum MappingConstant: Sendable, Hashable {
  case null
  case string(String)
  case integer(Int64)
  case double(Double)
  case boolean(Bool)
  /// Seconds since 2001-01-01 00:00:00 UTC, as Core Data keeps dates.
  case date(Double)
}
