internal import FolioSupport
import Foundation

/// A copied set of objects, as an editor puts it on the pasteboard: each object with its
/// attributes and the subgraph it owns, and references to objects outside that subgraph by
/// URI. ``ManagedObjectContext/paste(_:)`` inserts copies of them; ``data()`` and
/// ``init(data:)`` carry them between documents and processes as JSON
/// (`Formats/pasteboard.md`).
///
/// An object *owns* what its Cascade relationships reach, followed transitively: what deleting
/// it would delete comes along, as Core Data apps expect of copy and paste (a person with
/// their expenses, a playlist with its tracks). Every object is copied once, however many
/// paths reach it, so an owned subgraph with cycles copies as it is. A relationship from a
/// copied object to an object outside the copied set is kept as that object's
/// ``ManagedObjectID/uriRepresentation`` (temporary or permanent); pasting re-attaches it where
/// the target still exists. Transient attributes and relationships are not copied (no store
/// keeps them), nor derived attributes (the next save computes them).
///
/// ```swift
/// let pasteboard = try Pasteboard(copying: [ada])          // Ada and her spendings
/// let json = pasteboard.data()                             // to the system pasteboard
/// let result = try other.paste(try Pasteboard(data: json))  // one undo step, "Paste"
/// ```
///
/// Copying is an initializer rather than a method of the context: it reads the objects and
/// changes nothing, and what it makes is the pasteboard, a value that outlives the context
/// (`context.copy(_:)` would also read as copying the context itself).
public struct Pasteboard: Sendable, Equatable {
  /// The identifier of the store the objects were copied from (their context's
  /// ``ManagedObjectContext/storeIdentifier``); `nil` for an empty pasteboard. Outside
  /// references re-attach only in a context of the same store.
  public let storeIdentifier: String?
  /// The version hash of each entity the objects are of, by name, in lowercase hexadecimal.
  let entityHashes: [String: String]
  /// The copied objects' indices in ``objects``, in the order they were given.
  let roots: [Int]
  /// Every copied object: the roots and what they own.
  let objects: [CopiedObject]

  /// How many objects the pasteboard holds: the roots and every object they own.
  public var objectCount: Int { objects.count }

  /// The entity name of each root, in the order they were copied.
  package var rootEntityNames: [String] { roots.map { objects[$0].entity } }

  /// The URIs of the objects outside the copied set that copied objects refer to, each once,
  /// sorted: what a paste re-attaches or drops.
  package var outsideURIs: [String] {
    var uris: Set<String> = []
    for object in objects {
      for relationship in object.relationships {
        for case .outside(let uri) in relationship.targets { uris.insert(uri) }
      }
    }
    return uris.sorted()
  }

  init(
    storeIdentifier: String?, entityHashes: [String: String], roots: [Int],
    objects: [CopiedObject]
  ) {
    self.storeIdentifier = storeIdentifier
    self.entityHashes = entityHashes
    self.roots = roots
    self.objects = objects
  }

  /// Copies `objects` (the roots, in this order; one given twice counts once) with the
  /// subgraphs they own.
  ///
  /// - Throws: `GraphError.notRegistered` when an object is deleted, has left its context, or
  ///   belongs to another context than the first one's.
  public init(copying objects: [ManagedObject]) throws(GraphError) {
    guard let first = objects.first else {
      self.init(storeIdentifier: nil, entityHashes: [:], roots: [], objects: [])
      return
    }
    guard let context = first.managedObjectContext else { throw Self.gone(first) }
    var copier = Copier(context: context)
    for object in objects {
      guard object.managedObjectContext === context else {
        throw object.managedObjectContext == nil
          ? Self.gone(object)
          : GraphError(
            .notRegistered,
            "the \(object.entityName) object belongs to another context than the \(first.entityName) object copied with it",
            at: InputLocation(entity: object.entityName))
      }
      guard !object.isDeleted else {
        throw GraphError(
          .notRegistered, "the \(object.entityName) object is deleted",
          at: InputLocation(entity: object.entityName))
      }
      try copier.addRoot(object)
    }
    self = try copier.pasteboard()
  }

  private static func gone(_ object: ManagedObject) -> GraphError {
    GraphError(
      .notRegistered, "the \(object.entityName) object is no longer in a context",
      at: InputLocation(entity: object.entityName))
  }
}

/// One copied object: its entity, the URI it had where it was copied, its attributes as JSON
/// in the exact form, and its relationships.
struct CopiedObject: Sendable, Equatable {
  var entity: String
  var uri: String?
  var attributes: [JSONMember]
  var relationships: [CopiedRelationship]
}

/// A copied object's relationship: its targets, in order for an ordered one.
struct CopiedRelationship: Sendable, Equatable {
  var name: String
  var isToMany: Bool
  var targets: [CopiedReference]
}

/// A relationship's target: another copied object, by its index, or an object outside the
/// copied set, by its URI.
enum CopiedReference: Sendable, Hashable, Comparable {
  case copied(Int)
  case outside(String)

  static func < (lhs: Self, rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.copied(let x), .copied(let y)): x < y
    case (.outside(let x), .outside(let y)): x < y
    case (.copied, .outside): true
    case (.outside, .copied): false
    }
  }
}

/// Gathers the roots and what they own, then writes each object down.
private struct Copier {
  let context: ManagedObjectContext
  var order: [ManagedObject] = []
  var index: [ObjectIdentifier: Int] = [:]
  var roots: [Int] = []

  init(context: ManagedObjectContext) { self.context = context }

  /// Adds `root`, then what it owns, breadth first, each object once.
  mutating func addRoot(_ root: ManagedObject) throws(GraphError) {
    if let known = index[ObjectIdentifier(root)] {
      if !roots.contains(known) { roots.append(known) }
      return
    }
    roots.append(add(root))
    var next = order.count - 1
    while next < order.count {
      let object = order[next]
      next += 1
      for relationship in object.entity.allRelationships
      where relationship.deleteRule == .cascade && !relationship.isTransient {
        for target in try Self.targets(of: object, relationship)
        where index[ObjectIdentifier(target)] == nil {
          add(target)
        }
      }
    }
  }

  @discardableResult
  private mutating func add(_ object: ManagedObject) -> Int {
    index[ObjectIdentifier(object)] = order.count
    order.append(object)
    return order.count - 1
  }

  /// The objects `relationship` of `object` holds that are still in the graph: in order for an
  /// ordered relationship, else in row order, so that a copy of the same graph is the same
  /// every time. Read from the object's slot: going through `value(forKey:)` would build a set
  /// of the targets for each object.
  static func targets(of object: ManagedObject, _ relationship: RelationshipDescription)
    throws(GraphError) -> [ManagedObject]
  {
    guard let context = object.managedObjectContext,
      let slot = object.layout.slotByName[relationship.name]
    else {
      throw GraphError(
        .unknownKey, "\(object.entityName) has no relationship \"\(relationship.name)\"",
        at: InputLocation(entity: object.entityName, property: relationship.name))
    }
    let rows: [Int32]
    switch object.slots[slot] {
    case .object(let row): rows = [row]
    case .objects(let set): rows = relationship.isOrdered ? set.rows : set.rows.sorted()
    default: rows = []
    }
    return rows.compactMap { row in
      guard let target = context.object(atRow: row),
        target.flags.isDisjoint(with: [.deleted, .removed])
      else { return nil }
      return target
    }
  }

  func pasteboard() throws(GraphError) -> Pasteboard {
    var hashes: [String: String] = [:]
    var objects: [CopiedObject] = []
    for object in order {
      let entity = object.entity
      if hashes[entity.name] == nil { hashes[entity.name] = Pasteboard.hex(entity.versionHash) }
      objects.append(try copy(object))
    }
    return Pasteboard(
      storeIdentifier: context.storeIdentifier, entityHashes: hashes, roots: roots,
      objects: objects)
  }

  private func copy(_ object: ManagedObject) throws(GraphError) -> CopiedObject {
    var bytes: [UInt8] = [UInt8(ascii: "{")]
    let attributes = object.entity.allAttributes.filter { !$0.isTransient && !$0.isDerived }
      .sorted { $0.name < $1.name }
    for (position, attribute) in attributes.enumerated() {
      if position > 0 { bytes.append(UInt8(ascii: ",")) }
      Quoting.appendJSON(attribute.name, to: &bytes)
      bytes.append(UInt8(ascii: ":"))
      // A transformable attribute is copied as its bytes, whatever transformer reads them.
      let value: AttributeValue? =
        if attribute.attributeType == .transformable,
          let slot = object.layout.slotByName[attribute.name]
        {
          object.slots[slot].attributeValue(as: .transformable)
        } else {
          try object.value(forKey: attribute.name).flatMap {
            Self.attributeValue($0, of: attribute, in: context.model)
          }
        }
      if let value {
        AttributeJSON.appendExact(value, to: &bytes)
      } else {
        bytes += "null".utf8
      }
    }
    bytes.append(UInt8(ascii: "}"))
    // What was just written is JSON; reading it back gives the members in the exact form.
    guard case .object(let members)? = try? JSONReader.parse(bytes, maximumDepth: 1024) else {
      preconditionFailure("attribute values written as JSON did not read back")
    }
    var relationships: [CopiedRelationship] = []
    for relationship in object.entity.allRelationships.sorted(by: { $0.name < $1.name })
    where !relationship.isTransient {
      var references = try Self.targets(of: object, relationship).map { target in
        index[ObjectIdentifier(target)].map(CopiedReference.copied)
          ?? .outside(target.objectID.description)
      }
      if relationship.isToMany, !relationship.isOrdered { references.sort() }
      relationships.append(
        CopiedRelationship(
          name: relationship.name, isToMany: relationship.isToMany, targets: references))
    }
    return CopiedObject(
      entity: object.entityName, uri: object.objectID.description, attributes: members,
      relationships: relationships)
  }

  /// The model value of what a reader of `attribute` gets (``ManagedObject/value(forKey:)``).
  static func attributeValue(
    _ value: Any, of attribute: AttributeDescription, in model: ManagedObjectModel
  ) -> AttributeValue? {
    switch attribute.attributeType {
    case .integer16, .integer32, .integer64: return (value as? Int).map { .integer(Int64($0)) }
    case .decimal: return (value as? Decimal).map(AttributeValue.decimal)
    case .double: return (value as? Double).map(AttributeValue.double)
    case .float: return (value as? Float).map(AttributeValue.float)
    case .string: return (value as? String).map(AttributeValue.string)
    case .boolean: return (value as? Bool).map(AttributeValue.boolean)
    case .date: return (value as? Date).map(AttributeValue.date)
    case .binaryData: return (value as? Data).map(AttributeValue.binaryData)
    case .transformable: return (value as? Data).map(AttributeValue.transformable)
    case .uuid: return (value as? UUID).map(AttributeValue.uuid)
    case .uri: return (value as? URL).map(AttributeValue.uri)
    case .objectID: return (value as? String).map(AttributeValue.objectID)
    case .composite:
      guard let members = value as? [String: Any],
        let composite = attribute.compositeName.flatMap(model.composite(named:))
      else { return nil }
      var values: [String: AttributeValue] = [:]
      for (name, member) in members {
        guard let element = composite.attributes.first(where: { $0.name == name }),
          let converted = attributeValue(member, of: element, in: model)
        else { continue }
        values[name] = converted
      }
      return .composite(values)
    case .undefined: return nil
    }
  }
}

extension Pasteboard {
  /// `data` in lowercase hexadecimal, as `folio model info` prints version hashes.
  static func hex(_ data: Data) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(data.count * 2)
    for byte in data {
      bytes.append(digits[Int(byte >> 4)])
      bytes.append(digits[Int(byte & 15)])
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
