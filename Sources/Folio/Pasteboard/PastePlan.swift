internal import FolioSupport
import Foundation

/// Everything a paste will do, worked out and checked against the context's model before
/// anything changes: each object's entity, its attribute values read from JSON, its
/// relationships' targets resolved, and the references that will be dropped.
struct PastePlan {
  struct Object {
    var entity: EntityDescription
    var attributes: [(name: String, value: AttributeValue?)] = []
    var relationships: [Relationship] = []
  }

  struct Relationship {
    var name: String
    var isToMany: Bool
    var targets: [Target]
  }

  enum Target {
    /// The copy of the pasteboard's object at this index.
    case copied(Int)
    /// An object of the context, re-attached.
    case existing(ManagedObject)
  }

  struct Drop {
    var object: Int
    var relationship: String
    var uri: URL
    var reason: DroppedReference.Reason
  }

  private(set) var objects: [Object] = []
  private(set) var dropped: [Drop] = []
  private let context: ManagedObjectContext
  private var model: ManagedObjectModel { context.model }
  /// Outside objects whose to-one inverse an earlier reference of this paste takes.
  private var claimed: Set<ObjectIdentifier> = []
  /// Each outside URI met, and the object it names here.
  private var found: [String: (URL, ManagedObject?)] = [:]

  init(_ pasteboard: Pasteboard, into context: ManagedObjectContext) throws(GraphError) {
    self.context = context
    for (name, hash) in pasteboard.entityHashes.sorted(by: { $0.key < $1.key }) {
      guard let entity = model.entity(named: name) else { throw unknownEntity(name) }
      guard Pasteboard.hex(entity.versionHash) == hash else {
        throw GraphError(
          .modelMismatch,
          "the pasteboard's \(name) objects are of another version of the entity (version hash \(hash.prefix(8))…, here \(Pasteboard.hex(entity.versionHash).prefix(8))…); paste it with paste(_:from:mapping:) and the model it was copied from",
          at: InputLocation(entity: name))
      }
    }
    for copied in pasteboard.objects {
      guard let entity = model.entity(named: copied.entity) else {
        throw unknownEntity(copied.entity)
      }
      guard !entity.isAbstract else {
        throw GraphError(
          .abstractEntity,
          "entity \"\(entity.name)\" is abstract and cannot have objects of its own",
          at: InputLocation(entity: entity.name))
      }
      objects.append(Object(entity: entity))
    }
    let sameStore = pasteboard.storeIdentifier == context.storeIdentifier
    for (index, copied) in pasteboard.objects.enumerated() {
      let path = "objects[\(index)]"
      let entity = objects[index].entity
      for member in copied.attributes {
        objects[index].attributes.append(
          (member.name, try value(member, of: entity, at: "\(path).attributes.\(member.name)")))
      }
      for relationship in copied.relationships {
        try plan(
          relationship, of: index, entity: entity, pasteboard: pasteboard, sameStore: sameStore,
          at: "\(path).relationships.\(relationship.name)")
      }
    }
  }

  private func unknownEntity(_ name: String) -> GraphError {
    GraphError(
      .unknownEntity, "the pasteboard holds objects of entity \"\(name)\", which the model lacks",
      at: InputLocation(entity: name))
  }

  private func value(_ member: JSONMember, of entity: EntityDescription, at path: String)
    throws(GraphError) -> AttributeValue?
  {
    let location = InputLocation(entity: entity.name, property: member.name)
    guard let attribute = entity.attribute(named: member.name), !attribute.isTransient else {
      throw GraphError(
        .unknownKey,
        "\"\(entity.name)\" has no stored attribute \"\(member.name)\" (\(path) in the pasteboard)",
        at: location)
    }
    guard !attribute.isDerived else {
      throw GraphError(
        .readOnly,
        "\"\(member.name)\" is a derived attribute and cannot be pasted (\(path) in the pasteboard)",
        at: location)
    }
    do {
      return try AttributeJSON.value(from: member.value, of: attribute, in: model)
    } catch {
      throw GraphError(
        .typeMismatch, "\(error.reason) (\(path)\(error.path) in the pasteboard)", at: location)
    }
  }

  private mutating func plan(
    _ copied: CopiedRelationship, of index: Int, entity: EntityDescription,
    pasteboard: Pasteboard, sameStore: Bool, at path: String
  ) throws(GraphError) {
    let location = InputLocation(entity: entity.name, property: copied.name)
    guard let relationship = entity.relationship(named: copied.name), !relationship.isTransient,
      let destination = model.destination(of: relationship)
    else {
      throw GraphError(
        .unknownKey,
        "\"\(entity.name)\" has no stored relationship \"\(copied.name)\" (\(path) in the pasteboard)",
        at: location)
    }
    // JSON's null is an empty relationship of either kind.
    guard copied.isToMany == relationship.isToMany || (!copied.isToMany && copied.targets.isEmpty)
    else {
      throw GraphError(
        .typeMismatch,
        relationship.isToMany
          ? "\"\(copied.name)\" is a to-many relationship, and the pasteboard gives it one object (\(path))"
          : "\"\(copied.name)\" is a to-one relationship, and the pasteboard gives it an array (\(path))",
        at: location)
    }
    var targets: [Target] = []
    for (position, reference) in copied.targets.enumerated() {
      let place = copied.isToMany ? "\(path)[\(position)]" : path
      switch reference {
      case .copied(let target):
        guard model.entity(objects[target].entity, isKindOf: destination) else {
          throw GraphError(
            .typeMismatch,
            "a \(objects[target].entity.name) object cannot go in \"\(copied.name)\", which holds \(destination.name) objects (\(place))",
            at: location)
        }
        targets.append(.copied(target))
      case .outside(let text):
        if found[text] == nil {
          // Many copied objects name the same outside object: it is looked up once.
          guard let uri = URL(string: text) else { continue }
          found[text] = (uri, lookUp(uri))
        }
        guard let (uri, object) = found[text] else { continue }
        if let object = try resolve(
          uri, object, for: relationship, of: entity, destination: destination,
          sameStore: sameStore, from: index, at: place)
        {
          targets.append(.existing(object))
        }
      }
    }
    objects[index].relationships.append(
      Relationship(name: copied.name, isToMany: relationship.isToMany, targets: targets))
  }

  /// The object `uri` names in the context, if any.
  private func lookUp(_ uri: URL) -> ManagedObject? {
    guard let id = context.managedObjectID(forURIRepresentation: uri) else { return nil }
    return context.object(with: id)
  }

  /// The object `uri` names (`found`), to re-attach, or `nil` after noting why it is dropped.
  private mutating func resolve(
    _ uri: URL, _ found: ManagedObject?, for relationship: RelationshipDescription,
    of entity: EntityDescription, destination: EntityDescription, sameStore: Bool,
    from index: Int, at path: String
  ) throws(GraphError) -> ManagedObject? {
    func drop(_ reason: DroppedReference.Reason) -> ManagedObject? {
      dropped.append(Drop(object: index, relationship: relationship.name, uri: uri, reason: reason))
      return nil
    }
    guard sameStore else { return drop(.otherStore) }
    guard let object = found, !object.isDeleted else { return drop(.notFound) }
    guard model.entity(object.entity, isKindOf: destination) else {
      throw GraphError(
        .typeMismatch,
        "the \(object.entityName) object \(uri.absoluteString) cannot go in \"\(relationship.name)\", which holds \(destination.name) objects (\(path))",
        at: InputLocation(entity: entity.name, property: relationship.name))
    }
    if let inverse = model.inverse(of: relationship), !inverse.isToMany {
      let holder = try object.value(forKey: inverse.name) as? ManagedObject
      let isHeld = holder.map { !$0.isDeleted } ?? false
      guard !isHeld, claimed.insert(ObjectIdentifier(object)).inserted else {
        return drop(.inverseHeld)
      }
    }
    return object
  }
}
