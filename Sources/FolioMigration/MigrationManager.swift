import FolioModel
import FolioQuery
import FolioStores
import Foundation

/// Migrates a store's records from one model version to the next by a mapping model: Core
/// Data's `NSMigrationManager`, over records rather than managed objects.
///
/// A migration runs in Core Data's three stages. First each entity mapping, in order, creates
/// a destination object for every source object of its source entity that passes its filter,
/// with the destination entity's default values and then the attribute mappings' values, and
/// associates the two. Then each relationship mapping sets the destination objects'
/// relationships, and every relationship's inverse is made to agree. Last, every destination
/// object is checked against the destination model: each required value present, each to-one
/// holding one object. A mapping that names a migration policy hands its objects to the policy
/// registered under that name (``register(_:as:)``), which may do any stage its own way.
///
/// ```swift
/// let mapping = try MappingModel.inferred(from: old, to: new)
/// let manager = MigrationManager(sourceModel: old, destinationModel: new, mappingModel: mapping)
/// let migrated = try manager.migrate(contents)
/// ```
///
/// A destination object keeps its source object's record ID where it is the first to claim
/// it, so object URIs survive a migration; others get new IDs.
public final class MigrationManager {
  public let sourceModel: ManagedObjectModel
  public let destinationModel: ManagedObjectModel
  public let mappingModel: MappingModel
  /// The key space (``FolioStores/StoreKeySpace``) a new record of a destination entity is
  /// numbered in: 0 for stores that number every object in one sequence, the hierarchy's
  /// number for SQLite stores.
  public var keySpace: (String) -> Int = { _ in 0 }

  /// The entity mapping being run, for a migration policy.
  public private(set) var currentEntityMapping: EntityMapping?
  /// Whether stage 3 checks the destination objects against the destination model. A paste
  /// turns this off: its objects are checked when the context saves, as any other, and may
  /// leave out what a required relationship holds outside the copied set.
  package var validatesDestination = true

  var policyTypes: [String: EntityMigrationPolicy.Type] = [:]
  var sources: [StoreRecord] = []
  var sourcePosition: [Int64: Int] = [:]
  var destinations: [StoreRecord] = []
  var destinationPosition: [Int64: Int] = [:]
  /// For each entity mapping, by name: the destination objects of each source object.
  var forward: [String: [Int64: [Int64]]] = [:]
  /// For each entity mapping, by name: the source objects of each destination object.
  var backward: [String: [Int64: [Int64]]] = [:]
  /// The destination objects of each source object, whatever the mapping.
  var destinationsOfSource: [Int64: [Int64]] = [:]
  var largestKey: [Int: Int64] = [:]
  /// The source and destination models' entities, looked up once.
  lazy var sourceEntities = MigrationEntityInfo.all(of: sourceModel)
  lazy var destinationEntities = MigrationEntityInfo.all(of: destinationModel)
  /// The policy of each entity mapping while the mappings run: what `$entityPolicy` names.
  var activePolicies: [String: EntityMigrationPolicy] = [:]
  var progress: ((MigrationProgress) -> Void)?
  var isCancelled: (() -> Bool)?
  var completed = 0
  var total = 0

  public init(
    sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel,
    mappingModel: MappingModel
  ) {
    self.sourceModel = sourceModel
    self.destinationModel = destinationModel
    self.mappingModel = mappingModel
  }

  /// Makes `type` the migration policy of every entity mapping that names `className`
  /// (`"Module.CountryPolicy"`, as Xcode's mapping editor writes it). Folio cannot load
  /// Objective-C classes: a mapping naming a class no type is registered for fails.
  public func register(_ type: EntityMigrationPolicy.Type, as className: String) {
    policyTypes[className] = type
  }

  /// The records of `contents` (written with ``sourceModel``) as ``destinationModel``'s.
  ///
  /// - Parameters:
  ///   - progress: Called as objects are migrated, at most every 4,096 objects and at the
  ///     end of each stage.
  ///   - isCancelled: Asked as often; returning `true` stops the migration.
  /// - Throws: `MigrationError` — `.invalidMapping` for a mapping that names what the models
  ///   do not have or an expression it cannot evaluate; `.invalidValue` for objects the
  ///   destination model refuses (every such object is listed, up to 20); `.missingPolicy`;
  ///   `.policyFailed`; `.cancelled`.
  public func migrate(
    _ contents: StoreContents, progress: ((MigrationProgress) -> Void)? = nil,
    isCancelled: (() -> Bool)? = nil
  ) throws(MigrationError) -> StoreContents {
    self.progress = progress
    self.isCancelled = isCancelled
    defer {
      self.progress = nil
      self.isCancelled = nil
    }
    reset(with: contents.records)
    try checkMappings()
    var policies: [String: EntityMigrationPolicy] = [:]
    for mapping in mappingModel.entityMappings {
      policies[mapping.name] = try policy(for: mapping)
    }
    // A mapping of plain copies and renames (an inferred one, say) runs straight through the
    // records; one that finds two objects claiming one ID goes the general way.
    var done = false
    if let plan = directPlan() {
      done = try migrateDirectly(plan)
      if !done { reset(with: contents.records) }
    }
    if !done { try runMappings(policies) }
    try linkInverses()
    try report(.relationships)
    // Stage 3: the result checked against the destination model.
    if validatesDestination { try validate() }
    for mapping in mappingModel.entityMappings {
      currentEntityMapping = mapping
      let policy = policies[mapping.name] ?? EntityMigrationPolicy()
      try run(policy, mapping) { () throws(MigrationError) in try policy.end(mapping, manager: self)
      }
    }
    currentEntityMapping = nil
    try report(.validating)
    var metadata = contents.metadata
    metadata.modelVersionHashes = destinationModel.entityVersionHashesByName
    metadata.modelVersionIdentifiers = destinationModel.versionIdentifier.map { [$0] } ?? []
    let records = destinations
    let next = (records.map { StoreKeySpace.key(of: $0.id) }.max() ?? 0) + 1
    reset(with: [])
    return StoreContents(metadata: metadata, records: records, nextObjectID: next)
  }

  /// Core Data's first two stages, mapping by mapping, through the policies.
  private func runMappings(_ policies: [String: EntityMigrationPolicy]) throws(MigrationError) {
    activePolicies = policies
    defer { activePolicies = [:] }
    var byEntity: [String: [Int64]] = [:]
    for record in sources { byEntity[record.entityName, default: []].append(record.id) }
    // Stage 1: destination objects and their attributes.
    total = mappingModel.entityMappings.reduce(0) {
      $0 + ($1.sourceEntityName.flatMap { byEntity[$0]?.count } ?? 0)
    }
    completed = 0
    for mapping in mappingModel.entityMappings {
      currentEntityMapping = mapping
      let policy = policies[mapping.name] ?? EntityMigrationPolicy()
      try run(policy, mapping) { () throws(MigrationError) in
        try policy.begin(mapping, manager: self)
      }
      guard mapping.mappingType != .add, mapping.mappingType != .remove,
        let sourceEntity = mapping.sourceEntityName
      else { continue }
      let filter = try sourceFilter(of: mapping)
      for id in byEntity[sourceEntity] ?? [] {
        try tick(.creatingObjects, mapping)
        let source = MigrationSourceObject(id: id, manager: self)
        if let filter {
          guard try evaluate(filter, on: source, mapping) else { continue }
        }
        try run(policy, mapping) { () throws(MigrationError) in
          try policy.createDestinationInstances(forSource: source, in: mapping, manager: self)
        }
      }
    }
    try report(.creatingObjects)
    // Stage 2: relationships.
    total = forward.values.reduce(0) { $0 + $1.count }
    completed = 0
    for mapping in mappingModel.entityMappings {
      currentEntityMapping = mapping
      let policy = policies[mapping.name] ?? EntityMigrationPolicy()
      for destination in (backward[mapping.name] ?? [:]).keys.sorted() {
        try tick(.relationships, mapping)
        let object = MigrationObject(id: destination, manager: self)
        try run(policy, mapping) { () throws(MigrationError) in
          try policy.createRelationships(forDestination: object, in: mapping, manager: self)
        }
      }
      try run(policy, mapping) { () throws(MigrationError) in
        try policy.endRelationshipCreation(mapping, manager: self)
      }
    }
  }

  // MARK: Manager functions

  /// The destination objects entity mapping `name` made of `sources`, in their order:
  /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", …)`.
  public func destinationInstances(
    forEntityMappingNamed name: String, sourceInstances: [MigrationSourceObject]
  ) -> [MigrationObject] {
    let made = forward[name] ?? [:]
    return sourceInstances.flatMap { made[$0.id] ?? [] }.map {
      MigrationObject(id: $0, manager: self)
    }
  }

  /// The source objects entity mapping `name` made `destinations` of.
  public func sourceInstances(
    forEntityMappingNamed name: String, destinationInstances: [MigrationObject]
  ) -> [MigrationSourceObject] {
    let made = backward[name] ?? [:]
    return destinationInstances.flatMap { made[$0.id] ?? [] }.map {
      MigrationSourceObject(id: $0, manager: self)
    }
  }

  /// Records that entity mapping `mapping` made `destination` of `source`: what
  /// ``destinationInstances(forEntityMappingNamed:sourceInstances:)`` and the relationship
  /// stage find.
  public func associate(
    sourceInstance source: MigrationSourceObject,
    withDestinationInstance destination: MigrationObject,
    for mapping: EntityMapping
  ) {
    forward[mapping.name, default: [:]][source.id, default: []].append(destination.id)
    backward[mapping.name, default: [:]][destination.id, default: []].append(source.id)
    destinationsOfSource[source.id, default: []].append(destination.id)
  }

  /// A new destination object of `entityName`, with its default values; it keeps the record
  /// ID `preferredID` when no other destination object has it.
  ///
  /// - Throws: `MigrationError.invalidMapping` when the destination model has no such
  ///   concrete entity.
  public func insertDestinationObject(entityName: String, preferredID: Int64? = nil)
    throws(MigrationError) -> MigrationObject
  {
    guard let entity = destinationEntities[entityName], !entity.isAbstract else {
      throw MigrationError(
        .invalidMapping, "the destination model has no concrete entity \(entityName)",
        at: InputLocation(entity: entityName))
    }
    let space = keySpace(entityName)
    var id: Int64
    if let preferredID {
      // The same key, in the destination hierarchy's space.
      id = StoreKeySpace.id(space: space, key: StoreKeySpace.key(of: preferredID))
      if destinationPosition[id] != nil { id = newID(in: space) }
    } else {
      id = newID(in: space)
    }
    let attributes = entity.defaults
    largestKey[space] = max(largestKey[space] ?? 0, StoreKeySpace.key(of: id))
    destinationPosition[id] = destinations.count
    destinations.append(StoreRecord(entityName: entityName, id: id, attributes: attributes))
    return MigrationObject(id: id, manager: self)
  }

  /// What Core Data's default policy does for one source object: a destination object of
  /// the mapping's destination entity, its attributes set by the attribute mappings, and the
  /// two associated.
  public func createDefaultDestinationInstance(
    forSource source: MigrationSourceObject, in mapping: EntityMapping
  ) throws(MigrationError) {
    guard let entityName = mapping.destinationEntityName else { return }
    let destination = try insertDestinationObject(entityName: entityName, preferredID: source.id)
    associate(sourceInstance: source, withDestinationInstance: destination, for: mapping)
    let record = sourcePosition[source.id].map { sources[$0] }
    let sourceEntity = record.flatMap { sourceEntities[$0.entityName] }
    for property in mapping.attributeMappings {
      guard let expression = property.valueExpression else { continue }
      // `$source.key` of a stored attribute, the usual case, reads the value directly.
      if case .keyPath(.variable("source"), let key) = expression, let record,
        sourceEntity?.attributes[key] != nil
      {
        try assignAttribute(
          record.attribute(key).map(MigrationValue.value) ?? .null, property.name,
          of: destination.id, mapping)
        continue
      }
      let value = try evaluate(
        expression, source: source.id, destination: destination.id, mapping, property)
      try assignAttribute(value, property.name, of: destination.id, mapping)
    }
  }

  /// What Core Data's default policy does for one destination object in the relationship
  /// stage: each relationship mapping's value, from the object's source objects.
  public func createDefaultRelationships(
    forDestination destination: MigrationObject, in mapping: EntityMapping
  ) throws(MigrationError) {
    let origins = backward[mapping.name]?[destination.id] ?? []
    for property in mapping.relationshipMappings {
      guard let expression = property.valueExpression else { continue }
      var targets: [Int64] = []
      // The inferred form, the usual case: the destination objects of a stored source
      // relationship's targets, of the kinds the destination relationship takes.
      if case .function(
        .variable("manager"), MappingExpression.sourceRelationshipSelector, let arguments) =
        expression, arguments.count == 2, case .constant(.string(let key)) = arguments[0],
        case .keyPath(.variable("source"), key) = arguments[1],
        let kind = destinationEntities[mapping.destinationEntityName ?? ""]?.relationships[
          property.name]?.destinationEntityName
      {
        for source in origins {
          guard let record = sourcePosition[source].map({ sources[$0] }),
            sourceEntities[record.entityName]?.relationships[key] != nil
          else { continue }
          for target in record.relationships[key] ?? [] {
            for made in destinationsOfSource[target] ?? []
            where isDestination(made, kindOf: kind) {
              targets.append(made)
            }
          }
        }
        try assignRelationship(targets, property.name, of: destination.id, mapping)
        continue
      }
      for source in origins {
        let value = try evaluate(
          expression, source: source, destination: destination.id, mapping, property)
        targets += try destinationTargets(value, mapping, property)
      }
      try assignRelationship(targets, property.name, of: destination.id, mapping)
    }
  }

  /// Whether destination object `id` is of entity `kind` or one below it.
  func isDestination(_ id: Int64, kindOf kind: String) -> Bool {
    guard let position = destinationPosition[id] else { return false }
    return destinationEntities[destinations[position].entityName]?.kinds.contains(kind) ?? false
  }

  // MARK: Running

  private func reset(with records: [StoreRecord]) {
    sources = records
    sourcePosition = [:]
    sourcePosition.reserveCapacity(records.count)
    for (position, record) in records.enumerated() { sourcePosition[record.id] = position }
    destinations = []
    destinations.reserveCapacity(records.count)
    destinationPosition = [:]
    destinationPosition.reserveCapacity(records.count)
    forward = [:]
    backward = [:]
    destinationsOfSource = [:]
    destinationsOfSource.reserveCapacity(records.count)
    largestKey = [:]
    for record in records {
      let space = StoreKeySpace.space(of: record.id)
      largestKey[space] = max(largestKey[space] ?? 0, StoreKeySpace.key(of: record.id))
    }
  }

  private func newID(in space: Int) -> Int64 {
    var key = (largestKey[space] ?? 0) + 1
    while destinationPosition[StoreKeySpace.id(space: space, key: key)] != nil { key += 1 }
    largestKey[space] = key
    return StoreKeySpace.id(space: space, key: key)
  }

  /// Checks that every entity and property the mappings name is in its model.
  private func checkMappings() throws(MigrationError) {
    var names: Set<String> = []
    for mapping in mappingModel.entityMappings {
      guard names.insert(mapping.name).inserted else {
        throw MigrationError(
          .invalidMapping, "two entity mappings are named \(mapping.name)",
          at: InputLocation(entity: mapping.name))
      }
      if let name = mapping.sourceEntityName, sourceModel.entity(named: name) == nil {
        throw MigrationError(
          .invalidMapping,
          "the entity mapping \(mapping.name) takes objects of \(name), which the source model does not have",
          at: InputLocation(entity: name))
      }
      guard let name = mapping.destinationEntityName else { continue }
      guard let entity = destinationModel.entity(named: name) else {
        throw MigrationError(
          .invalidMapping,
          "the entity mapping \(mapping.name) makes objects of \(name), which the destination model does not have",
          at: InputLocation(entity: name))
      }
      for property in mapping.attributeMappings {
        guard let attribute = entity.attribute(named: property.name), !attribute.isTransient else {
          throw MigrationError(
            .invalidMapping,
            "the entity mapping \(mapping.name) sets attribute \(property.name), which \(name) does not store",
            at: InputLocation(entity: name, property: property.name))
        }
      }
      for property in mapping.relationshipMappings {
        guard let relationship = entity.relationship(named: property.name),
          !relationship.isTransient
        else {
          throw MigrationError(
            .invalidMapping,
            "the entity mapping \(mapping.name) sets relationship \(property.name), which \(name) does not store",
            at: InputLocation(entity: name, property: property.name))
        }
      }
    }
  }

  private func policy(for mapping: EntityMapping) throws(MigrationError) -> EntityMigrationPolicy {
    guard let className = mapping.migrationPolicyClassName, !className.isEmpty else {
      guard mapping.mappingType != .custom else {
        throw MigrationError(
          .missingPolicy, "the custom entity mapping \(mapping.name) names no migration policy",
          at: InputLocation(entity: mapping.destinationEntityName ?? mapping.name))
      }
      return EntityMigrationPolicy()
    }
    guard let type = policyTypes[className] else {
      throw MigrationError(
        .missingPolicy,
        "the entity mapping \(mapping.name) needs the migration policy \(className); register a Swift type for it with MigrationManager.register(_:as:)",
        at: InputLocation(entity: mapping.destinationEntityName ?? mapping.name))
    }
    return type.init()
  }

  /// Runs one hook of `policy`, turning what it throws into `.policyFailed`.
  private func run(
    _ policy: EntityMigrationPolicy, _ mapping: EntityMapping,
    _ body: () throws(MigrationError) -> Void
  ) throws(MigrationError) {
    do {
      try body()
    } catch {
      guard type(of: policy) != EntityMigrationPolicy.self, error.code != .cancelled else {
        throw error
      }
      throw MigrationError(
        .policyFailed,
        "the migration policy \(mapping.migrationPolicyClassName ?? "") failed in \(mapping.name): \(error.message)",
        at: error.location ?? InputLocation(entity: mapping.destinationEntityName),
        underlying: error)
    }
  }

  private func tick(_ stage: MigrationProgress.Stage, _ mapping: EntityMapping)
    throws(MigrationError)
  {
    completed += 1
    guard completed & 4095 == 0 else { return }
    try report(stage, mapping: mapping.name)
  }

  func report(_ stage: MigrationProgress.Stage, mapping: String? = nil)
    throws(MigrationError)
  {
    if isCancelled?() == true {
      throw MigrationError(.cancelled, "the migration was cancelled; nothing was written")
    }
    progress?(
      MigrationProgress(
        stage: stage, entityMapping: mapping, completedObjects: min(completed, total),
        totalObjects: total))
  }

  // MARK: Filters

  private func sourceFilter(of mapping: EntityMapping) throws(MigrationError) -> QueryPredicate? {
    guard let text = mapping.sourceFilterPredicate, !text.isEmpty else { return nil }
    do {
      return try QueryPredicate(format: text)
    } catch {
      throw MigrationError(
        .invalidMapping,
        "the entity mapping \(mapping.name) has a filter predicate that does not parse: \(error.message)",
        at: InputLocation(entity: mapping.sourceEntityName), underlying: error)
    }
  }

  private func evaluate(
    _ predicate: QueryPredicate, on source: MigrationSourceObject, _ mapping: EntityMapping
  ) throws(MigrationError) -> Bool {
    do {
      return try predicate.evaluate(with: source, variables: ["source": source])
    } catch {
      throw MigrationError(
        .invalidMapping,
        "the filter predicate of \(mapping.name) cannot be evaluated on \(source.entityName) \(source.id): \(error.message)",
        at: InputLocation(entity: mapping.sourceEntityName), underlying: error)
    }
  }
}

/// How far a migration has come.
public struct MigrationProgress: Sendable, Hashable {
  /// Core Data's three stages.
  public enum Stage: String, Sendable, Hashable {
    case creatingObjects, relationships, validating
  }

  public var stage: Stage
  /// The entity mapping being run; `nil` at the end of a stage.
  public var entityMapping: String?
  /// The objects done in this stage.
  public var completedObjects: Int
  /// The objects this stage has.
  public var totalObjects: Int
}
