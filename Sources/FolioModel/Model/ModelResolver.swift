import Foundation

/// Checks a model's entities against each other and resolves them.
///
/// Resolution runs in passes, each relying on the one before:
/// 1. names: entity and composite names are unique, parents exist, inheritance has no cycle;
/// 2. inheritance: entities are visited ancestors first, so each one's `properties` is its
///    parent's followed by its own, and a name may appear only once along the chain;
/// 3. properties: every attribute's default and constraints fit its type, every relationship's
///    destination exists and its inverse points back;
/// 4. references: uniqueness constraints and indexes name real properties;
/// 5. hashes: property hashes, then entity hashes ancestors first (an entity's hash covers its
///    parent's).
/// Errors carry the declaring file and line when the entity came from a file.
struct ModelResolver {
  var entities: [EntityDescription]
  let composites: [String: CompositeDescription]
  let compositeList: [CompositeDescription]
  var entityIndex: [String: Int] = [:]
  var entityHashes: [String: Data] = [:]
  var diagnostics: [ModelDiagnostic] = []
  /// Entity indexes, every ancestor before its descendants.
  private var order: [Int] = []

  init(entities: [EntityDescription], composites: [CompositeDescription]) {
    self.entities = entities
    self.compositeList = composites
    var byName: [String: CompositeDescription] = [:]
    for composite in composites where byName[composite.name] == nil {
      byName[composite.name] = composite
    }
    self.composites = byName
  }

  mutating func resolve() throws {
    try indexNames()
    try orderByInheritance()
    try flattenProperties()
    try checkSizes()
    for index in order {
      try checkAttributes(of: index)
      try checkRelationships(of: index)
      try checkReferences(of: index)
    }
    try checkComposites()
    computeHashes()
  }

  /// Refuses a model with more entities, or an entity with more properties (inherited ones
  /// included), than ``ManagedObjectModel/maximumEntities`` and
  /// ``ManagedObjectModel/maximumPropertiesPerEntity``: the object graph numbers both in 16
  /// bits.
  private func checkSizes() throws {
    let limit = ManagedObjectModel.maximumEntities
    guard entities.count <= limit else {
      throw ModelError.invalidConstraint(
        "the model has \(entities.count) entities; at most \(limit) are supported",
        at: entities.last.map { location(of: $0) })
    }
    for entity in entities
    where entity.properties.count > ManagedObjectModel.maximumPropertiesPerEntity {
      throw ModelError.invalidConstraint(
        "\(entity.name) has \(entity.properties.count) properties, inherited ones included; at most \(ManagedObjectModel.maximumPropertiesPerEntity) are supported",
        at: location(of: entity))
    }
  }

  // MARK: Pass 1: names

  private mutating func indexNames() throws {
    for (index, entity) in entities.enumerated() {
      guard !entity.name.isEmpty else {
        throw ModelError(.invalidValue, "an entity has an empty name", at: entity.sourceLocation)
      }
      guard entityIndex[entity.name] == nil else {
        throw ModelError.duplicateName("entity", entity.name, at: location(of: entity))
      }
      entityIndex[entity.name] = index
    }
    var seen: Set<String> = []
    for composite in compositeList {
      guard seen.insert(composite.name).inserted else {
        throw ModelError.duplicateName("composite", composite.name, at: composite.sourceLocation)
      }
    }
  }

  private mutating func orderByInheritance() throws {
    let names = entities.map(\.name)
    for entity in entities {
      guard let parent = entity.parentEntityName else { continue }
      guard entityIndex[parent] != nil else {
        throw ModelError.unknownParent(parent, known: names, at: location(of: entity))
      }
    }
    // Depth-first: a node is placed after its parent; meeting a node on the current path is a
    // cycle.
    var state = [UInt8](repeating: 0, count: entities.count)  // 0 new, 1 on path, 2 placed
    for start in entities.indices where state[start] == 0 {
      var path: [Int] = []
      var current: Int? = start
      while let index = current, state[index] == 0 {
        state[index] = 1
        path.append(index)
        current = entities[index].parentEntityName.flatMap { entityIndex[$0] }
      }
      if let index = current, state[index] == 1, let cycleStart = path.firstIndex(of: index) {
        let cycle = path[cycleStart...].map { entities[$0].name } + [entities[index].name]
        throw ModelError.inheritanceCycle(cycle, at: location(of: entities[index]))
      }
      for index in path.reversed() {
        state[index] = 2
        order.append(index)
      }
    }
    for index in order {
      if let parent = entities[index].parentEntityName, let parentIndex = entityIndex[parent] {
        entities[parentIndex].subentityNames.append(entities[index].name)
      }
    }
  }

  // MARK: Pass 2: inheritance

  private mutating func flattenProperties() throws {
    for index in order {
      var entity = entities[index]
      var properties: [PropertyDescription] = []
      var propertyIndex: [String: Int] = [:]
      var owner: [String: String] = [:]
      if let parent = entity.parentEntityName, let parentIndex = entityIndex[parent] {
        properties = entities[parentIndex].properties
        propertyIndex = entities[parentIndex].propertyIndex
        for property in properties { owner[property.name] = parent }
      }
      let declared: [PropertyDescription] =
        entity.attributes.map { .attribute($0) } + entity.relationships.map { .relationship($0) }
        + entity.fetchedProperties.map { .fetchedProperty($0) }
      var declaredNames: Set<String> = []
      for property in declared {
        let location =
          (property.sourceLocation ?? entity.sourceLocation)?
          .naming(entity: entity.name, property: property.name)
          ?? InputLocation(entity: entity.name, property: property.name)
        guard !property.name.isEmpty else {
          throw ModelError(
            .invalidValue, "a property has an empty name",
            at: (property.sourceLocation ?? entity.sourceLocation)?.naming(entity: entity.name)
              ?? InputLocation(entity: entity.name))
        }
        guard declaredNames.insert(property.name).inserted else {
          throw ModelError.duplicateProperty(property.name, inherited: nil, at: location)
        }
        if propertyIndex[property.name] != nil {
          throw ModelError.duplicateProperty(
            property.name, inherited: owner[property.name], at: location)
        }
        propertyIndex[property.name] = properties.count
        properties.append(property)
      }
      entity.properties = properties
      entity.propertyIndex = propertyIndex
      entities[index] = entity
    }
  }

  // MARK: Pass 3: properties

  private func checkAttributes(of index: Int) throws {
    let entity = entities[index]
    for attribute in entity.attributes {
      try checkAttribute(attribute, at: location(of: attribute, in: entity))
    }
  }

  /// Checks each composite's members like an entity's attributes, then that no composite
  /// contains itself (which would make its values, and its version hash, infinite).
  private func checkComposites() throws {
    for composite in compositeList {
      var names: Set<String> = []
      for member in composite.attributes {
        let location =
          (member.sourceLocation ?? composite.sourceLocation)?
          .naming(entity: composite.name, property: member.name)
          ?? InputLocation(entity: composite.name, property: member.name)
        guard names.insert(member.name).inserted else {
          throw ModelError.duplicateProperty(member.name, inherited: nil, at: location)
        }
        try checkAttribute(member, at: location)
      }
    }
    var levels: [String: Int] = [:]
    for composite in compositeList {
      _ = try checkNesting(of: composite.name, path: [], levels: &levels)
    }
  }

  /// How many levels composite `name` nests (1 when no member is a composite), kept in
  /// `levels`; `path` holds the composites it is a member of. Throws on a cycle, and when
  /// `path` and `name`'s levels add up to more than
  /// ``CompositeDescription/maximumNestingLevels``, before descending further.
  private func checkNesting(of name: String, path: [String], levels: inout [String: Int])
    throws -> Int
  {
    if let start = path.firstIndex(of: name) {
      let location =
        composites[path[start]].flatMap(\.sourceLocation)?.naming(entity: path[start])
        ?? InputLocation(entity: path[start])
      throw ModelError.compositeCycle(Array(path[start...]) + [name], at: location)
    }
    let limit = CompositeDescription.maximumNestingLevels
    if let known = levels[name] {
      if path.count + known > limit {
        throw nestedTooDeeply(path + deepestChain(from: name, levels))
      }
      return known
    }
    guard let composite = composites[name] else { return 0 }
    guard path.count < limit else { throw nestedTooDeeply(path + [name]) }
    var deepest = 0
    for member in composite.attributes {
      if member.attributeType == .composite, let inner = member.compositeName {
        deepest = max(deepest, try checkNesting(of: inner, path: path + [name], levels: &levels))
      }
    }
    levels[name] = deepest + 1
    return deepest + 1
  }

  /// The longest chain of composites from `name`, by the levels already computed.
  private func deepestChain(from name: String, _ levels: [String: Int]) -> [String] {
    var chain = [name]
    while let composite = composites[chain[chain.count - 1]],
      let level = levels[composite.name], level > 1,
      let next = composite.attributes.lazy
        .compactMap({ $0.attributeType == .composite ? $0.compositeName : nil })
        .first(where: { levels[$0] == level - 1 })
    {
      chain.append(next)
    }
    return chain
  }

  /// The error for `chain`, composites each a member of the one before, longer than the limit
  /// (the whole chain, or its first `limit + 1` links).
  private func nestedTooDeeply(_ chain: [String]) -> ModelError {
    let location =
      composites[chain[0]].flatMap(\.sourceLocation)?.naming(entity: chain[0])
      ?? InputLocation(entity: chain[0])
    let limit = CompositeDescription.maximumNestingLevels
    let shown =
      chain.count > 6
      ? chain.prefix(3).joined(separator: " → ") + " → … → "
        + chain.suffix(2).joined(separator: " → ")
      : chain.joined(separator: " → ")
    return ModelError.invalidConstraint(
      "composites nest more than \(limit) levels deep: \(shown)",
      at: location)
  }

  private func checkAttribute(_ attribute: AttributeDescription, at location: InputLocation?)
    throws
  {
    let type = attribute.attributeType
    if type == .undefined, !attribute.isTransient {
      throw ModelError.invalidConstraint(
        "attribute type Undefined is allowed only on transient attributes", at: location)
    }
    if type == .composite {
      guard let name = attribute.compositeName else {
        throw ModelError.missingValue("composite", on: "attribute", at: location)
      }
      guard composites[name] != nil else {
        throw ModelError.unknownComposite(
          name, known: compositeList.map(\.name), at: location)
      }
    }
    // An empty expression (Xcode's "derived" box ticked, nothing written) computes nothing.
    if let text = attribute.derivationExpression, !text.isEmpty,
      DerivationExpression(parsing: text) == nil
    {
      throw ModelError(
        .invalidValue,
        "derivationExpression \"\(text)\" is not one Folio computes: a key path, now(), lowercase:(…), uppercase:(…) or canonical:(…)",
        at: location)
    }
    if let value = attribute.defaultValue, !value.fits(type) {
      throw ModelError.invalidDefault(
        value.modelText, type: type, reason: "the value is of another type", at: location)
    }
    try checkBounds(of: attribute, at: location)
    if let pattern = attribute.regularExpression {
      guard type == .string else {
        throw ModelError.invalidConstraint(
          "a regular expression applies only to String attributes, not \(type.xcodeName)",
          at: location)
      }
      do {
        _ = try NSRegularExpression(pattern: pattern)
      } catch {
        throw ModelError.invalidConstraint(
          "regular expression \"\(pattern)\" does not compile", at: location)
      }
    }
  }

  private func checkBounds(of attribute: AttributeDescription, at location: InputLocation?) throws {
    let type = attribute.attributeType
    if attribute.minimumValue != nil || attribute.maximumValue != nil {
      guard type.isNumeric || type == .date else {
        throw ModelError.invalidConstraint(
          "a minimum or maximum value applies only to numbers and dates, not \(type.xcodeName)",
          at: location)
      }
      for bound in [attribute.minimumValue, attribute.maximumValue].compactMap({ $0 }) {
        guard bound.fits(type) else {
          throw ModelError.invalidConstraint(
            "bound \"\(bound.modelText)\" is not a \(type.xcodeName) value", at: location)
        }
      }
      if let low = attribute.minimumValue, let high = attribute.maximumValue,
        let order = low.order(against: high), order > 0
      {
        throw ModelError.invalidConstraint(
          "minimum \(low.modelText) is greater than maximum \(high.modelText)", at: location)
      }
    }
    if attribute.minimumLength != nil || attribute.maximumLength != nil {
      guard type == .string || type == .binaryData else {
        throw ModelError.invalidConstraint(
          "a minimum or maximum length applies only to String and Binary attributes, not \(type.xcodeName)",
          at: location)
      }
      for length in [attribute.minimumLength, attribute.maximumLength].compactMap({ $0 })
      where length < 0 {
        throw ModelError.invalidConstraint("length \(length) is negative", at: location)
      }
      if let low = attribute.minimumLength, let high = attribute.maximumLength, low > high {
        throw ModelError.invalidConstraint(
          "minimum length \(low) is greater than maximum length \(high)", at: location)
      }
    }
  }

  private mutating func checkRelationships(of index: Int) throws {
    let entity = entities[index]
    let names = entities.map(\.name)
    for relationship in entity.relationships {
      let location = location(of: relationship, in: entity)
      guard let destination = entityIndex[relationship.destinationEntityName].map({ entities[$0] })
      else {
        throw ModelError.unknownDestination(
          relationship.destinationEntityName, known: names, at: location)
      }
      try checkCounts(of: relationship, at: location)
      guard let inverseName = relationship.inverseName else {
        diagnostics.append(
          ModelDiagnostic(
            .missingInverse,
            "relationship \"\(relationship.name)\" has no inverse, so changes to it do not reach \"\(destination.name)\"",
            at: location))
        continue
      }
      let owner = relationship.inverseEntityName ?? destination.name
      guard owner == destination.name || ancestors(of: destination).contains(owner),
        let ownerEntity = entityIndex[owner].map({ entities[$0] })
      else {
        throw ModelError.inverseEntityMismatch(
          declared: owner, destination: destination.name, at: location)
      }
      guard let inverse = ownerEntity.relationship(named: inverseName) else {
        throw ModelError.unknownInverse(
          inverseName, on: owner, known: ownerEntity.allRelationships.map(\.name), at: location)
      }
      let backEntity = inverse.destinationEntityName
      let related =
        backEntity == entity.name || ancestors(of: entity).contains(backEntity)
        || entityIndex[backEntity].map { ancestors(of: entities[$0]).contains(entity.name) }
          ?? false
      guard inverse.inverseName == relationship.name, related else {
        throw ModelError.inverseMismatch(
          relationship: relationship.name, inverse: inverseName, inverseEntity: owner,
          pointsTo: inverse.inverseName.map { "\(backEntity).\($0)" }, at: location)
      }
    }
  }

  private func checkCounts(of relationship: RelationshipDescription, at location: InputLocation?)
    throws
  {
    guard relationship.minCount >= 0 else {
      throw ModelError.invalidConstraint(
        "minCount \(relationship.minCount) is negative", at: location)
    }
    if let maxCount = relationship.maxCount {
      guard maxCount >= 1 else {
        throw ModelError.invalidConstraint(
          "maxCount \(maxCount) must be at least 1", at: location)
      }
      guard relationship.minCount <= maxCount else {
        throw ModelError.invalidConstraint(
          "minCount \(relationship.minCount) is greater than maxCount \(maxCount)", at: location)
      }
    }
    if !relationship.isToMany, let maxCount = relationship.maxCount, maxCount != 1 {
      throw ModelError.invalidConstraint(
        "a to-one relationship has maxCount 1, not \(maxCount)", at: location)
    }
  }

  // MARK: Pass 4: references

  private func checkReferences(of index: Int) throws {
    let entity = entities[index]
    let known = entity.properties.map(\.name)
    func check(_ name: String, _ kind: String, part: String) throws {
      let head = name.split(separator: ".", maxSplits: 1).first.map(String.init) ?? name
      guard entity.property(named: head) != nil else {
        let here =
          (entity.partLocations[part] ?? entity.sourceLocation)?
          .naming(entity: entity.name) ?? InputLocation(entity: entity.name)
        throw ModelError.unknownReference(
          kind, name, known: known, container: "a property of \"\(entity.name)\"", at: here)
      }
    }
    for (position, constraint) in entity.uniquenessConstraints.enumerated() {
      for name in constraint {
        try check(name, "a uniqueness constraint", part: "unique \(position)")
      }
    }
    for (position, index) in entity.fetchIndexes.enumerated() {
      for element in index.elements {
        if let name = element.propertyName {
          try check(name, "fetch index \"\(index.name)\"", part: "index \(position)")
        }
      }
    }
    for (position, compound) in entity.compoundIndexes.enumerated() {
      for name in compound { try check(name, "a compound index", part: "compound \(position)") }
    }
    for fetched in entity.fetchedProperties where entityIndex[fetched.entityName] == nil {
      throw ModelError.unknownReference(
        "fetched property \"\(fetched.name)\"", fetched.entityName,
        known: entities.map(\.name),
        at: location(ofProperty: fetched.sourceLocation, named: fetched.name, in: entity))
    }
  }

  func checkModelLevel(
    configurations: [ConfigurationDescription], fetchRequestTemplates: [FetchRequestTemplate]
  ) throws {
    let names = entities.map(\.name)
    var seen: Set<String> = []
    for configuration in configurations {
      guard seen.insert(configuration.name).inserted else {
        throw ModelError.duplicateName(
          "configuration", configuration.name, at: configuration.sourceLocation)
      }
      for name in configuration.entityNames where entityIndex[name] == nil {
        throw ModelError.unknownReference(
          "configuration \"\(configuration.name)\"", name, known: names,
          at: configuration.sourceLocation)
      }
    }
    seen = []
    for template in fetchRequestTemplates {
      guard seen.insert(template.name).inserted else {
        throw ModelError.duplicateName("fetch request", template.name, at: template.sourceLocation)
      }
      guard entityIndex[template.entityName] != nil else {
        throw ModelError.unknownReference(
          "fetch request \"\(template.name)\"", template.entityName, known: names,
          at: template.sourceLocation)
      }
    }
  }

  // MARK: Pass 5: hashes

  /// Core Data's hashes go to the entities and properties (``CoreDataVersionHasher``); Folio's
  /// earlier ones (``VersionHasher``) to `entityHashes`, for the model's own hash and for
  /// stores written with them.
  private mutating func computeHashes() {
    var memberHashes: [String: [Data]] = [:]
    for index in order {
      var entity = entities[index]
      var declared: [String: Data] = [:]
      let parentProperties =
        entity.parentEntityName.flatMap { entityIndex[$0] }
        .map { entities[$0].properties } ?? []
      var stored: [(name: String, hash: Data, isStored: Bool)] = parentProperties.compactMap {
        switch $0 {
        case .attribute(let attribute):
          (attribute.name, attribute.versionHash, !attribute.isTransient || attribute.isDerived)
        case .relationship(let relationship):
          (relationship.name, relationship.versionHash, !relationship.isTransient)
        case .fetchedProperty:
          nil
        }
      }
      for position in entity.attributes.indices {
        let attribute = entity.attributes[position]
        declared[attribute.name] = VersionHasher.hash(
          of: attribute, composites: composites, memberHashes: &memberHashes)
        let hash = CoreDataVersionHasher.hash(of: attribute)
        entity.attributes[position].versionHash = hash
        stored.append((attribute.name, hash, !attribute.isTransient || attribute.isDerived))
      }
      for position in entity.relationships.indices {
        let relationship = entity.relationships[position]
        declared[relationship.name] = VersionHasher.hash(of: relationship)
        let hash = CoreDataVersionHasher.hash(of: relationship, on: entity.name)
        entity.relationships[position].versionHash = hash
        stored.append((relationship.name, hash, !relationship.isTransient))
      }
      let parentHash = entity.parentEntityName.flatMap { entityHashes[$0] }
      entityHashes[entity.name] = VersionHasher.hash(
        ofEntity: entity, parentHash: parentHash, declaredHashes: declared)
      entity.versionHash = CoreDataVersionHasher.hash(
        ofEntity: entity,
        parentHash: entity.parentEntityName.flatMap { entityIndex[$0] }.map {
          entities[$0].versionHash
        }, properties: stored)
      // Refresh the flattened list so it carries the hashed descriptions.
      entity.properties =
        parentProperties + entity.attributes.map { .attribute($0) }
        + entity.relationships.map { .relationship($0) }
        + entity.fetchedProperties.map { .fetchedProperty($0) }
      entities[index] = entity
    }
  }

  // MARK: Helpers

  private func ancestors(of entity: EntityDescription) -> [String] {
    var names: [String] = []
    var next = entity.parentEntityName
    while let name = next, let index = entityIndex[name], !names.contains(name) {
      names.append(name)
      next = entities[index].parentEntityName
    }
    return names
  }

  private func location(of entity: EntityDescription) -> InputLocation {
    entity.sourceLocation.map { $0.naming(entity: entity.name) }
      ?? InputLocation(entity: entity.name)
  }

  private func location(of attribute: AttributeDescription, in entity: EntityDescription)
    -> InputLocation
  {
    location(ofProperty: attribute.sourceLocation, named: attribute.name, in: entity)
  }

  private func location(of relationship: RelationshipDescription, in entity: EntityDescription)
    -> InputLocation
  {
    location(ofProperty: relationship.sourceLocation, named: relationship.name, in: entity)
  }

  private func location(
    ofProperty source: InputLocation?, named name: String, in entity: EntityDescription
  ) -> InputLocation {
    (source ?? entity.sourceLocation)?.naming(entity: entity.name, property: name)
      ?? InputLocation(entity: entity.name, property: name)
  }
}
