import FolioModel
import FolioStores
import Foundation

/// Reads a store's objects as records typed by a model.
///
/// Each `<object>`'s entity and each property are found case-insensitively (``XMLNameMap``),
/// each value is parsed by the model's attribute type (a value written as another type of the
/// same family, such as `int32` for an Integer 64 attribute, is accepted), and each
/// relationship's idrefs become IDs. When every object is read, each target is checked: it
/// exists, and its entity is the relationship's destination or inherits from it. Any mismatch is
/// an error naming the file, line, column and `Entity.key`; nothing is coerced.
///
/// IDs are Core Data's `z` and a number. A store that uses other IDs (some third-party writers
/// do) is read too: each other ID gets the next number above both the largest `z` ID and the
/// store's `nextObjectID`, in the order the IDs first appear.
final class XMLRecordReader {
  let parser: XMLStoreParser
  let names: XMLNameMap
  let modelEntityNames: [String]
  // No access to a property marked `@exclusivity(unchecked)` overlaps another access to it: none is
  // passed inout to code that can reach it again, and no closure run while one is being changed
  // touches it. Debug builds, where the tests run, check that at every access; release builds leave
  // the check out (an XML load takes 1.3 times as long with it). Each property keeps its own mark:
  // gathered in one struct, reading one field while changing another would overlap on the struct.
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  private var ids = XMLObjectIDs()
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  private var entityCache: [String: Int] = [:]
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// The disk name and index of the entity of the last object read.
  private var lastEntity: (bytes: [UInt8], index: Int)?
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// Each record's entity index.
  private var recordEntities: [Int32] = []

  // A record keeps its attribute values in a row whose names the entity's records share, and
  // its relationships in a copy of a template dictionary (no key hashed), as the binary store's
  // reader makes them. An entity of more than 64 attributes or relationships gets dictionaries.

  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// What the records of each entity share, by entity index.
  private var shapes: [RecordShapes]
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// The current object's attribute values and relationship targets, by index in its entity,
  /// while it is read; empty between objects.
  private var attributeSlots: [AttributeValue?]
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  private var targetSlots: [[Int64]]
  /// Whether a record with a single to-one target shares its relationship dictionary with the
  /// other records naming that target (when the records are all kept, by ``read()``).
  private var sharesTargets = false
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  private var shared: [SharedTarget: [String: [Int64]]] = [:]
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// The block the next rows go into.
  private var rowBlock: RowBlock?
  /// Whether a target that is not in the store is left out instead of refused.
  let dropsDanglingReferences: Bool
  let limits = StoreLimits.current

  init(parser: XMLStoreParser, model: ManagedObjectModel, dropsDanglingReferences: Bool = false)
    throws(StoreError)
  {
    self.parser = parser
    self.dropsDanglingReferences = dropsDanglingReferences
    let names = try XMLNameMap(model: model)
    self.names = names
    self.modelEntityNames = model.entities.map(\.name)
    shapes = names.entities.map(RecordShapes.init)
    attributeSlots = Array(repeating: nil, count: RecordBuilder.maximumColumns)
    targetSlots = Array(repeating: [], count: RecordBuilder.maximumColumns)
  }

  /// What the records of one entity share: their builder, and the list of relationships with
  /// targets by the set of relationships present (as bits).
  private struct RecordShapes {
    let isWide: Bool
    var builder: RecordBuilder
    private var lists: [UInt64: [Int32]] = [:]

    init(_ entity: XMLNameMap.Entity) {
      builder = RecordBuilder(
        entityName: entity.name, attributeNames: entity.attributes.map(\.name),
        relationshipNames: entity.relationships.map(\.name))
      isWide = !builder.isNarrow
    }

    /// The indices of the relationships in `mask`, in order, shared by the records with
    /// that set.
    mutating func relationships(in mask: UInt64) -> [Int32] {
      if let list = lists[mask] { return list }
      var list: [Int32] = []
      var rest = mask
      while rest != 0 {
        list.append(Int32(rest.trailingZeroBitCount))
        rest &= rest - 1
      }
      lists[mask] = list
      return list
    }
  }

  /// The properties of an object read so far, by index.
  private struct PropertySet {
    private var mask: UInt64 = 0
    private var beyond: Set<Int> = []

    /// Adds `index`; whether it was not there yet.
    mutating func insert(_ index: Int) -> Bool {
      guard index < UInt64.bitWidth else { return beyond.insert(index).inserted }
      let bit: UInt64 = 1 << UInt64(index)
      defer { mask |= bit }
      return mask & bit == 0
    }
  }

  /// A relationship of an entity and its one target.
  private struct SharedTarget: Hashable {
    let entity: Int32
    let relationship: Int32
    let target: Int64
  }

  /// Reads every object, then checks the relationships' targets: the records in the file's
  /// order.
  func read() throws(StoreError) -> [StoreRecord] {
    sharesTargets = true
    defer { shared = [:] }
    // Records go straight into the result, with their relationships with targets beside
    // them, and are resolved in place once every ID is known.
    var records: [StoreRecord] = []
    var withTargets: [[Int32]] = []
    while try parser.advanceToObject() != nil {
      let object = try readObject(position: records.count)
      recordEntities.append(object.entity)
      givenIDs.append(object.record.id)
      records.append(object.record)
      withTargets.append(object.relationships)
    }
    ids.renumber(&givenIDs, after: parser.nextObjectID ?? 0)
    for position in records.indices {
      records[position].id = givenIDs[position]
      try resolve(
        &records[position], entity: Int(recordEntities[position]),
        relationships: withTargets[position], position: position)
    }
    return records
  }

  // Streaming: each record is handed over as soon as its own ID and its targets' IDs are
  // final. A record naming an object further on waits for it (in a Core Data file, a few
  // records at most); one whose ID, or a target's, is provisional waits for the end, when
  // provisional IDs get their numbers.

  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// The ID each record was given, by position in the file (negative: provisional).
  private var givenIDs: [Int64] = []
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// Records not handed over yet, by position.
  private var waiting: [Int32: ReadObject] = [:]
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// The positions of the records waiting for an object not read yet, by its key.
  private var waiters: [XMLObjectIDs.Key: [Int32]] = [:]

  /// Reads every object, handing each record to `consumer` once its IDs are final; the order
  /// is the file's but for records that wait for one further on.
  func read<Consumer: StoreRecordConsumer>(into consumer: inout Consumer) throws(StoreError) {
    try consumer.begin(
      metadata: parser.metadata, nextObjectID: parser.nextObjectID ?? 1, recordCount: nil)
    var position = 0
    while try parser.advanceToObject() != nil {
      var object = try readObject(position: position)
      recordEntities.append(object.entity)
      givenIDs.append(object.record.id)
      if try isReady(&object, position: position) {
        try resolve(
          &object.record, entity: Int(object.entity), relationships: object.relationships,
          position: position)
        try consumer.consume(object.record)
      } else {
        waiting[Int32(position)] = object
      }
      if object.record.id > 0, let woken = waiters.removeValue(forKey: object.key) {
        for waiter in woken {
          guard var entry = waiting[waiter] else { continue }
          if try isReady(&entry, position: Int(waiter)) {
            waiting[waiter] = nil
            try resolve(
              &entry.record, entity: Int(entry.entity), relationships: entry.relationships,
              position: Int(waiter))
            try consumer.consume(entry.record)
          } else {
            waiting[waiter] = entry
          }
        }
      }
      position += 1
    }
    ids.renumber(&givenIDs, after: parser.nextObjectID ?? 0)
    for waiter in waiting.keys.sorted() {
      guard var entry = waiting[waiter] else { continue }
      entry.record.id = givenIDs[Int(waiter)]
      try resolve(
        &entry.record, entity: Int(entry.entity), relationships: entry.relationships,
        position: Int(waiter))
      try consumer.consume(entry.record)
    }
    waiting = [:]
    waiters = [:]
    try consumer.finish()
  }

  /// Whether `object`'s ID and every target's are final, moving its cursor past the targets
  /// that are; a target not read yet makes the object wait for it (one key at a time, so each
  /// target is looked at once however often the object is woken), and a provisional one makes
  /// it wait for the end.
  private func isReady(_ object: inout ReadObject, position: Int) throws(StoreError) -> Bool {
    if object.record.id < 0 || object.waitsForEnd { return false }
    let entity = names.entities[Int(object.entity)]
    while object.cursor.relationship < object.relationships.count {
      let relationship = entity.relationships[
        Int(object.relationships[object.cursor.relationship])]
      let targets = object.record.relationships[relationship.name] ?? []
      while object.cursor.target < targets.count {
        let target = targets[object.cursor.target]
        guard let index = ids.index(of: target, root: relationship.destinationRoot) else {
          waiters[
            XMLObjectIDs.Key(root: relationship.destinationRoot, number: target), default: []
          ].append(Int32(position))
          return false
        }
        if givenIDs[index] < 0 {
          object.waitsForEnd = true
          return false
        }
        object.cursor.target += 1
      }
      object.cursor = (object.cursor.relationship + 1, 0)
    }
    return true
  }

  /// Turns `object`'s targets from the file's numbers into their records' IDs, checking that
  /// each is of its relationship's destination: once ``isReady(_:position:)`` says so, or at
  /// the end, when a target that is not in the store is refused (or left out when dangling
  /// references are dropped).
  private func resolve(
    _ record: inout StoreRecord, entity entityIndex: Int, relationships: [Int32], position: Int
  ) throws(StoreError) {
    let entity = names.entities[entityIndex]
    var rewrites: [(name: String, targets: [Int64]?)] = []
    for relationshipIndex in relationships {
      let relationship = entity.relationships[Int(relationshipIndex)]
      guard let targets = record.relationships[relationship.name] else { continue }
      let destination =
        relationship.destinationIndex >= 0 ? names.entities[relationship.destinationIndex] : nil
      var resolved: [Int64] = []
      var changed = false
      for (offset, target) in targets.enumerated() {
        func location() -> InputLocation {
          parser.location(
            tag: "relationship", named: relationship.diskName,
            line: ids.line(ofRecord: position), entity: entity.name, property: relationship.name)
        }
        guard let index = ids.index(of: target, root: relationship.destinationRoot) else {
          if dropsDanglingReferences {
            if !changed {
              changed = true
              resolved = Array(targets[..<offset])
            }
            continue
          }
          throw StoreError.danglingReference(ids.text(of: target), at: location())
        }
        let targetEntity = Int(recordEntities[index])
        if let destination, !destination.isKind[targetEntity] {
          throw StoreError.wrongTarget(
            ids.text(of: target), is: names.entities[targetEntity].name,
            expected: destination.name, at: location())
        }
        let id = givenIDs[index]
        if !changed, id != target {
          changed = true
          resolved = Array(targets[..<offset])
        }
        if changed { resolved.append(id) }
      }
      if changed { rewrites.append((relationship.name, resolved.isEmpty ? nil : resolved)) }
    }
    for rewrite in rewrites { record.relationships[rewrite.name] = rewrite.targets }
  }

  /// The entity a store's `type` bytes name, checked as `readObject` checks it.
  private func entityIndex(_ type: UnsafeBufferPointer<UInt8>, line: Int)
    throws(StoreError) -> Int
  {
    if let last = lastEntity, last.bytes.count == type.count, last.bytes.elementsEqual(type) {
      return last.index
    }
    let typeName = String(decoding: type, as: UTF8.self)
    let entityIndex: Int
    if let cached = entityCache[typeName] {
      entityIndex = cached
    } else {
      guard let found = names.entityIndex(forDiskName: typeName) else {
        throw StoreError.unknownEntity(
          typeName, known: modelEntityNames,
          at: parser.location(tag: "object", named: nil, line: line))
      }
      guard !names.entities[found].isAbstract else {
        throw StoreError.abstractEntity(
          names.entities[found].name,
          at: parser.location(tag: "object", named: nil, line: line))
      }
      entityCache[typeName] = found
      entityIndex = found
    }
    lastEntity = (Array(type), entityIndex)
    return entityIndex
  }

  /// An object as read: its record (targets still the file's numbers), its entity, the key
  /// it was defined with, and its relationships with targets, by index, in the file's order.
  private struct ReadObject {
    var record: StoreRecord
    let entity: Int32
    let key: XMLObjectIDs.Key
    /// In model order.
    let relationships: [Int32]
    /// While streaming: the first target not yet known to be final, as a position in
    /// `relationships` and in that relationship's targets.
    var cursor = (relationship: 0, target: 0)
    /// While streaming: whether some target's ID is provisional, so the record waits for the
    /// end.
    var waitsForEnd = false
  }

  /// Reads the object the parser stands at, as record number `position`.
  private func readObject(position: Int) throws(StoreError) -> ReadObject {
    let (entityIndex, id, key) = try parser.objectHeader {
      type, idBytes, line throws(StoreError) -> (Int, Int64, XMLObjectIDs.Key) in
      guard position < limits.maximumObjectCount else {
        throw StoreError(
          .limitExceeded, limits.tooManyObjects(nil),
          at: parser.location(tag: "object", named: nil, line: line))
      }
      let entityIndex = try self.entityIndex(type, line: line)
      let (id, key) = try ids.define(
        bytes: idBytes, root: names.entities[entityIndex].root, line: line,
        record: position
      ) { firstLine in
        StoreError.duplicateID(
          String(decoding: idBytes, as: UTF8.self), firstLine: firstLine,
          at: parser.location(tag: "object", named: nil, line: line))
      }
      return (entityIndex, id, key)
    }
    let entity = names.entities[entityIndex]
    let isWide = shapes[entityIndex].isWide
    var attributeMask: UInt64 = 0
    var targetMask: UInt64 = 0
    // For a wide entity.
    var withTargets: [Int32] = []
    var attributes: [String: AttributeValue] = [:]
    var relationships: [String: [Int64]] = [:]
    // A property given twice is refused, not read as its last value.
    var seenAttributes = PropertySet()
    var seenRelationships = PropertySet()
    var hint = 0
    while let (isAttribute, line) = try parser.advanceToProperty() {
      if isAttribute {
        let (index, written) = try parser.attributeHeader {
          nameBytes, typeBytes throws(StoreError) -> (Int, AttributeType) in
          try attributeIndex(
            named: nameBytes, writtenAs: typeBytes, of: entity, line: line, hint: &hint)
        }
        let attribute = entity.attributes[index]
        guard seenAttributes.insert(index) else {
          throw StoreError.duplicateProperty(
            attribute.name, entity: entity.name, isAttribute: true,
            at: parser.location(
              tag: "attribute", named: attribute.diskName, line: line, entity: entity.name,
              property: attribute.name))
        }
        if let value = try readValue(attribute, written: written, line: line, entity: entity.name) {
          if isWide {
            attributes[attribute.name] = value
          } else {
            attributeSlots[index] = value
            attributeMask |= 1 << UInt64(index)
          }
        }
      } else {
        let (index, targets) = try parser.relationshipHeader {
          nameBytes, typeBytes, _, idrefs throws(StoreError) -> (Int, [Int64]) in
          try relationshipTargets(
            named: nameBytes, typeBytes: typeBytes, idrefs: idrefs, of: entity, line: line,
            hint: &hint)
        }
        guard seenRelationships.insert(index) else {
          let relationship = entity.relationships[index]
          throw StoreError.duplicateProperty(
            relationship.name, entity: entity.name, isAttribute: false,
            at: parser.location(
              tag: "relationship", named: relationship.diskName, line: line, entity: entity.name,
              property: relationship.name))
        }
        if !targets.isEmpty {
          if isWide {
            let relationship = entity.relationships[index]
            relationships[relationship.name] = targets
            withTargets.append(Int32(index))
          } else {
            targetSlots[index] = targets
            targetMask |= 1 << UInt64(index)
          }
        }
      }
    }
    if isWide {
      return ReadObject(
        record: StoreRecord(
          entityName: entity.name, id: id, attributes: attributes, relationships: relationships),
        entity: Int32(entityIndex), key: key, relationships: withTargets.sorted())
    }
    return ReadObject(
      record: record(
        of: entityIndex, id: id, attributeMask: attributeMask, targetMask: targetMask),
      entity: Int32(entityIndex), key: key,
      relationships: targetMask == 0 ? [] : shapes[entityIndex].relationships(in: targetMask))
  }

  /// The index in `entity` of the attribute an `<attribute>` tag names, and the type it is
  /// written as; `hint` is where the last property was found, where the next is looked for
  /// first.
  private func attributeIndex(
    named nameBytes: UnsafeBufferPointer<UInt8>, writtenAs typeBytes: UnsafeBufferPointer<UInt8>,
    of entity: XMLNameMap.Entity, line: Int, hint: inout Int
  ) throws(StoreError) -> (Int, AttributeType) {
    let index: Int
    if case .attribute(let found) = entity.property(bytes: nameBytes, after: &hint) {
      index = found
    } else {
      let name = String(decoding: nameBytes, as: UTF8.self)
      guard
        case .attribute(let found) = try property(name, of: entity, line: line, tag: "attribute")
      else {
        throw StoreError.wrongKind(
          name, entity: entity.name, isAttribute: false,
          at: parser.location(
            tag: "attribute", named: name, line: line, entity: entity.name, property: name))
      }
      index = found
    }
    let attribute = entity.attributes[index]
    if XMLNameMap.bytes(attribute.typeWordBytes, equal: typeBytes) {
      return (index, attribute.type)
    }
    return (
      index,
      try writtenType(
        attribute, typeWord: String(decoding: typeBytes, as: UTF8.self), line: line,
        entity: entity.name)
    )
  }

  /// The index in `entity` of the relationship a `<relationship>` tag names, and the IDs its
  /// `idrefs` give; `hint` as for ``attributeIndex(named:writtenAs:of:line:hint:)``.
  private func relationshipTargets(
    named nameBytes: UnsafeBufferPointer<UInt8>, typeBytes: UnsafeBufferPointer<UInt8>,
    idrefs: UnsafeBufferPointer<UInt8>?, of entity: XMLNameMap.Entity, line: Int, hint: inout Int
  ) throws(StoreError) -> (Int, [Int64]) {
    let index: Int
    let name = { String(decoding: nameBytes, as: UTF8.self) }
    if case .relationship(let found) = entity.property(bytes: nameBytes, after: &hint) {
      index = found
    } else {
      guard
        case .relationship(let found) = try property(
          name(), of: entity, line: line, tag: "relationship")
      else {
        throw StoreError.wrongKind(
          name(), entity: entity.name, isAttribute: true,
          at: parser.location(
            tag: "relationship", named: name(), line: line, entity: entity.name,
            property: name()))
      }
      index = found
    }
    let relationship = entity.relationships[index]
    guard XMLObjectIDs.isRelationshipType(typeBytes) else {
      throw StoreError.badRelationshipType(
        String(decoding: typeBytes, as: UTF8.self),
        at: parser.location(
          tag: "relationship", named: name(), line: line, entity: entity.name,
          property: relationship.name))
    }
    let targets =
      idrefs.map { ids.references(bytes: $0, root: relationship.destinationRoot) } ?? []
    if !relationship.isToMany, targets.count > 1 {
      throw StoreError.tooManyTargets(
        targets.count,
        at: parser.location(
          tag: "relationship", named: name(), line: line, entity: entity.name,
          property: relationship.name))
    }
    return (index, targets)
  }

  /// The record of an object of a narrow entity whose values and targets are in the slots the
  /// masks name; empties those slots.
  private func record(of entityIndex: Int, id: Int64, attributeMask: UInt64, targetMask: UInt64)
    -> StoreRecord
  {
    let entity = names.entities[entityIndex]
    var relationships: [String: [Int64]] = [:]
    if targetMask != 0 {
      let only = targetMask.trailingZeroBitCount
      if sharesTargets, targetMask.nonzeroBitCount == 1, targetSlots[only].count == 1 {
        // A lone to-one reference (a spending's person): one dictionary per target, shared.
        let target = targetSlots[only][0]
        let key = SharedTarget(
          entity: Int32(entityIndex), relationship: Int32(only), target: target)
        if let found = shared[key] {
          relationships = found
        } else {
          relationships = [entity.relationships[only].name: [target]]
          shared[key] = relationships
        }
        targetSlots[only] = []
      } else {
        let template = shapes[entityIndex].builder.template(for: targetMask)
        relationships = template.dictionary
        var rest = targetMask
        while rest != 0 {
          let column = rest.trailingZeroBitCount
          rest &= rest - 1
          relationships.values[template.slots[column]] = targetSlots[column]
          targetSlots[column] = []
        }
      }
    }
    guard attributeMask != 0 else {
      return StoreRecord(entityName: entity.name, id: id, relationships: relationships)
    }
    let block = RecordBuilder.room(for: attributeMask.nonzeroBitCount, in: &rowBlock)
    let start = block.end
    var rest = attributeMask
    while rest != 0 {
      let column = rest.trailingZeroBitCount
      rest &= rest - 1
      if let value = attributeSlots[column].take() { block.append(value) }
    }
    return shapes[entityIndex].builder.record(
      id: id, mask: attributeMask, block: block, start: start, links: .dictionary(relationships))
  }
}
