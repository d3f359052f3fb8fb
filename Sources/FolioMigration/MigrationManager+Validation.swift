import FolioModel
import FolioStores

extension MigrationManager {
  /// Makes every relationship's inverse agree with it: a side that one mapping set and the
  /// other left empty takes the set side's objects.
  ///
  /// - Throws: `MigrationError.invalidValue` when the two sides contradict each other on a
  ///   to-one (two objects claiming one to-one, or a to-one naming one object while the other
  ///   side names another).
  func linkInverses() throws(MigrationError) {
    var lookup = EntityLookup(destinationEntities)
    for position in destinations.indices {
      let record = destinations[position]
      guard let entity = lookup[record.entityName] else { continue }
      for (name, inverse, inverseIsToMany) in entity.inverses {
        guard let targets = record.relationships[name] else { continue }
        for target in targets {
          guard let other = destinationPosition[target] else { continue }
          var held = destinations[other].relationships[inverse] ?? []
          guard !held.contains(record.id) else { continue }
          if !inverseIsToMany, let first = held.first {
            throw MigrationError(
              .invalidValue,
              "\(destinations[other].entityName).\(inverse) of object \(target) names object \(first), while \(record.entityName).\(name) of object \(record.id) names it: a to-one holds one object",
              at: InputLocation(entity: destinations[other].entityName, property: inverse))
          }
          held.append(record.id)
          destinations[other].relationships[inverse] = held
        }
      }
    }
  }

  /// Checks every destination object against the destination model: each required attribute
  /// and to-one has a value, each to-many has its minimum and maximum count.
  ///
  /// - Throws: `MigrationError.invalidValue` listing every failure (the first 20, and how
  ///   many more), located at the first.
  func validate() throws(MigrationError) {
    var failures: [(entity: String, property: String, text: String)] = []
    var count = 0
    var lookup = EntityLookup(destinationEntities)
    for record in destinations {
      guard let entity = lookup[record.entityName] else { continue }
      func fail(_ property: String, _ text: String) {
        count += 1
        if failures.count < 20 {
          failures.append(
            (
              record.entityName, property,
              "\(record.entityName).\(property) of object \(StoreKeySpace.key(of: record.id)) \(text)"
            ))
        }
      }
      for attribute in entity.storedAttributes
      where !attribute.isOptional && !attribute.isDerived && record.attribute(attribute.name) == nil
      {
        fail(attribute.name, "has no value, and it is required")
      }
      for relationship in entity.storedRelationships {
        let targets = record.relationships[relationship.name]?.count ?? 0
        if relationship.isToMany {
          // As Core Data counts: an optional to-many may be empty, a required one whose
          // minimum is 0 too.
          if !(targets == 0 && relationship.isOptional), targets < relationship.minCount {
            fail(
              relationship.name,
              "holds \(targets) objects, fewer than its minimum \(relationship.minCount)")
          }
          if let maximum = relationship.maxCount, maximum > 0, targets > maximum {
            fail(relationship.name, "holds \(targets) objects, more than its maximum \(maximum)")
          }
        } else if targets == 0, !relationship.isOptional {
          fail(relationship.name, "names no object, and it is required")
        }
      }
      completed += 1
      if completed & 4095 == 0, isCancelled?() == true {
        throw MigrationError(.cancelled, "the migration was cancelled; nothing was written")
      }
    }
    guard let first = failures.first else { return }
    var message =
      "\(count) migrated \(count == 1 ? "object does" : "values do") not fit the destination model: "
      + failures.map(\.text).joined(separator: "; ")
    if count > failures.count { message += "; and \(count - failures.count) more" }
    throw MigrationError(
      .invalidValue, message, at: InputLocation(entity: first.entity, property: first.property))
  }
}

/// Finds entities by name, remembering the last one: records come grouped by entity, so most
/// lookups compare one string instead of hashing it.
struct EntityLookup {
  private let entities: [String: MigrationEntityInfo]
  private var lastName = ""
  private var last: MigrationEntityInfo?

  init(_ entities: [String: MigrationEntityInfo]) { self.entities = entities }

  subscript(name: String) -> MigrationEntityInfo? {
    mutating get {
      if name != lastName {
        lastName = name
        last = entities[name]
      }
      return last
    }
  }
}
