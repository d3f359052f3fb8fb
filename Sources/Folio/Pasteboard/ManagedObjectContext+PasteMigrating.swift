internal import FolioSupport
import Foundation

/// Pasting objects copied from another version of the model, through a migration mapping.
extension ManagedObjectContext {
  /// Inserts a copy of every object on `pasteboard`, copied from a context on `sourceModel`,
  /// carried to this context's model by `mapping`, as one undoable change named "Paste".
  ///
  /// The copied objects are migrated as a store of `sourceModel` would be: with `mapping`,
  /// or when it is `nil` with the mapping a lightweight migration infers
  /// (``MappingModel/inferred(from:to:)``), so renamed entities and properties keep their
  /// values and new attributes take their defaults. What the migration gives is then pasted
  /// as ``paste(_:)`` pastes: the roots' copies first in ``PasteResult/roots`` (a root the
  /// mapping leaves out has none), one undo step, nothing changed when it throws. Objects are
  /// checked against this model when the context saves, not by the migration.
  ///
  /// A reference to an object outside the copied set is kept by the relationship of the same
  /// name in this model, when there is one holding objects of that object's entity, and is then
  /// re-attached or dropped as ``paste(_:)`` says; otherwise it is dropped, with the reason
  /// ``DroppedReference/Reason/notMapped``.
  ///
  /// When the pasteboard's entities are already of this context's model, this is ``paste(_:)``.
  ///
  /// ```swift
  /// let old = bundle.versions[1].model
  /// let result = try context.paste(pasteboard, from: old)  // Library 2 → Library 3
  /// ```
  ///
  /// - Throws: `GraphError.modelMismatch` when an entity of the pasteboard is not of
  ///   `sourceModel` (naming it), when no lightweight migration maps `sourceModel` to this
  ///   model, or when `mapping` names what the models lack; `.validation` when the mapping
  ///   gives a value it cannot; each with the migration's message and entity and property.
  ///   What ``paste(_:)`` throws: `.typeMismatch` for a copied value that does not fit its
  ///   attribute in `sourceModel`, `.unknownKey`, `.readOnly`, `.abstractEntity`.
  @discardableResult
  public func paste(
    _ pasteboard: Pasteboard, from sourceModel: ManagedObjectModel, mapping: MappingModel? = nil
  ) throws(GraphError) -> PasteResult {
    let hashes = model.entityVersionHashesByName
    if pasteboard.entityHashes.allSatisfy({ name, hash in
      hashes[name].map(Pasteboard.hex) == hash
    }) {
      return try paste(pasteboard)
    }
    let sourceHashes = sourceModel.entityVersionHashesByName
    for (name, hash) in pasteboard.entityHashes.sorted(by: { $0.key < $1.key }) {
      let found = sourceHashes[name].map(Pasteboard.hex)
      guard found != hash else { continue }
      throw GraphError(
        .modelMismatch,
        found.map {
          "the pasteboard's \(name) objects are of another version of the entity than the source model's (version hash \(hash.prefix(8))…, there \($0.prefix(8))…)"
        } ?? "the pasteboard's \(name) objects are of an entity the source model lacks",
        at: InputLocation(entity: name))
    }
    let migrated = try MigratedPaste(pasteboard, from: sourceModel, into: self, mapping: mapping)
    var result = try paste(migrated.pasteboard)
    result.droppedReferences += migrated.dropped.map { drop in
      DroppedReference(
        object: result.objects[drop.object], relationship: drop.relationship, uri: drop.uri,
        reason: .notMapped)
    }
    return result
  }
}

/// A pasteboard of another model version carried to a context's model: its objects as records
/// of the source model, migrated, and written back as a pasteboard of the context's model.
private struct MigratedPaste {
  /// A reference to an object outside the copied set, kept aside while the records migrate.
  struct Outside {
    var object: Int
    var relationship: String
    var uri: String
  }

  /// The migrated objects, as a pasteboard of the context's model.
  private(set) var pasteboard: Pasteboard
  /// The outside references no relationship of the context's model keeps.
  private(set) var dropped: [PastePlan.Drop] = []

  init(
    _ source: Pasteboard, from sourceModel: ManagedObjectModel, into context: ManagedObjectContext,
    mapping: MappingModel?
  ) throws(GraphError) {
    var outside: [Outside] = []
    let records = try Self.records(of: source, in: sourceModel, outside: &outside)
    let model = context.model
    let contents: StoreContents
    do throws(MigrationError) {
      let mappingModel: MappingModel
      if let mapping {
        mappingModel = mapping
      } else {
        mappingModel = try MappingModel.inferred(from: sourceModel, to: model)
      }
      let manager = MigrationManager(
        sourceModel: sourceModel, destinationModel: model, mappingModel: mappingModel)
      manager.validatesDestination = false
      contents = try manager.migrate(
        StoreContents(metadata: StoreMetadata(storeType: "Pasteboard"), records: records))
    } catch {
      let code: GraphError.Code =
        error.code == .invalidValue || error.code == .policyFailed ? .validation : .modelMismatch
      throw GraphError(
        code, "the pasteboard cannot be carried to this model version: \(error.message)",
        at: error.location, underlying: error)
    }
    // A migrated object keeps its source object's ID (its index + 1) where it is the first
    // to claim it; objects a mapping adds come after, in their order.
    let migrated = contents.records.sorted { $0.id < $1.id }.compactMap { record in
      model.entity(named: record.entityName).map { (record, $0) }
    }
    var position: [Int64: Int] = [:]
    for (index, (record, _)) in migrated.enumerated() { position[record.id] = index }
    var objects: [CopiedObject] = []
    var hashes: [String: String] = [:]
    for (record, entity) in migrated {
      if hashes[entity.name] == nil { hashes[entity.name] = Pasteboard.hex(entity.versionHash) }
      objects.append(Self.copy(record, of: entity, in: model, position: position))
    }
    let roots = source.roots.compactMap { position[Int64($0 + 1)] }
    for reference in outside {
      guard let index = position[Int64(reference.object + 1)] else { continue }
      let entity = model.entity(named: objects[index].entity)
      let uri = URL(string: reference.uri)
      if let relationship = entity?.relationship(named: reference.relationship),
        !relationship.isTransient, let destination = model.destination(of: relationship),
        Self.holds(destination, reference.uri, in: context)
      {
        // A to-one keeps what the migration set it to, if anything.
        if let slot = objects[index].relationships.firstIndex(where: {
          $0.name == relationship.name
        }), relationship.isToMany || objects[index].relationships[slot].targets.isEmpty {
          objects[index].relationships[slot].targets.append(.outside(reference.uri))
        }
      } else if let uri {
        dropped.append(
          PastePlan.Drop(
            object: index, relationship: reference.relationship, uri: uri, reason: .notMapped))
      }
    }
    pasteboard = Pasteboard(
      storeIdentifier: source.storeIdentifier, entityHashes: hashes,
      roots: roots, objects: objects)
  }

  /// The pasteboard's objects as records of `model`, each with its index + 1 for its ID, and
  /// the references to objects outside the copied set taken out into `outside`.
  private static func records(
    of pasteboard: Pasteboard, in model: ManagedObjectModel, outside: inout [Outside]
  ) throws(GraphError) -> [StoreRecord] {
    var records: [StoreRecord] = []
    for (index, copied) in pasteboard.objects.enumerated() {
      let path = "objects[\(index)]"
      guard let entity = model.entity(named: copied.entity) else {
        throw GraphError(
          .unknownEntity,
          "the pasteboard holds objects of entity \"\(copied.entity)\", which the source model lacks",
          at: InputLocation(entity: copied.entity))
      }
      var record = StoreRecord(entityName: entity.name, id: Int64(index + 1))
      for member in copied.attributes {
        let location = InputLocation(entity: entity.name, property: member.name)
        let place = "\(path).attributes.\(member.name)"
        guard let attribute = entity.attribute(named: member.name), !attribute.isTransient,
          !attribute.isDerived
        else {
          throw GraphError(
            .unknownKey,
            "\"\(entity.name)\" has no stored attribute \"\(member.name)\" in the source model (\(place) in the pasteboard)",
            at: location)
        }
        do {
          if let value = try AttributeJSON.value(from: member.value, of: attribute, in: model) {
            record.attributes[member.name] = value
          }
        } catch {
          throw GraphError(
            .typeMismatch, "\(error.reason) (\(place)\(error.path) in the pasteboard)",
            at: location)
        }
      }
      for relationship in copied.relationships {
        var targets: [Int64] = []
        for target in relationship.targets {
          switch target {
          case .copied(let other): targets.append(Int64(other + 1))
          case .outside(let uri):
            outside.append(Outside(object: index, relationship: relationship.name, uri: uri))
          }
        }
        if !targets.isEmpty { record.relationships[relationship.name] = targets }
      }
      records.append(record)
    }
    return records
  }

  /// `record` as a copied object of `entity`: its attributes in JSON's exact form, its
  /// relationships by the positions of their targets (`position`).
  private static func copy(
    _ record: StoreRecord, of entity: EntityDescription, in model: ManagedObjectModel,
    position: [Int64: Int]
  ) -> CopiedObject {
    var bytes: [UInt8] = [UInt8(ascii: "{")]
    let attributes = entity.allAttributes.filter { !$0.isTransient && !$0.isDerived }
      .sorted { $0.name < $1.name }
    for (index, attribute) in attributes.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      Quoting.appendJSON(attribute.name, to: &bytes)
      bytes.append(UInt8(ascii: ":"))
      if let value = record.attribute(attribute.name) {
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
    let links = record.relationships
    var relationships: [CopiedRelationship] = []
    for relationship in entity.allRelationships.sorted(by: { $0.name < $1.name })
    where !relationship.isTransient {
      relationships.append(
        CopiedRelationship(
          name: relationship.name, isToMany: relationship.isToMany,
          targets: (links[relationship.name] ?? []).compactMap { id in
            position[id].map(CopiedReference.copied)
          }))
    }
    return CopiedObject(
      entity: entity.name, uri: nil, attributes: members, relationships: relationships)
  }

  /// Whether a relationship to `destination` can hold the object `uri` names: the object's
  /// entity, found in the context or else named by the URI, is `destination` or a kind of it.
  private static func holds(
    _ destination: EntityDescription, _ uri: String, in context: ManagedObjectContext
  ) -> Bool {
    let model = context.model
    if let url = URL(string: uri), let id = context.managedObjectID(forURIRepresentation: url),
      let object = context.object(with: id)
    {
      return model.entity(object.entity, isKindOf: destination)
    }
    // An object of another store: its URI names its entity, x-coredata://store/Entity/p1.
    let parts = uri.split(separator: "/")
    guard parts.count >= 2, let entity = model.entity(named: String(parts[parts.count - 2]))
    else { return false }
    return model.entity(entity, isKindOf: destination)
  }
}
