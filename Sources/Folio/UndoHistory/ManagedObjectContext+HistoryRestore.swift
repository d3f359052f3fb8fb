import FolioGraph
import FolioModel
import FolioUndo
import Foundation

/// Setting the undo and redo stacks up again from an archive
/// (``undoHistoryArchive(maximumBytes:)``).
extension ManagedObjectContext {
  /// Replaces the undo and redo stacks with those `archive` holds. The objects it brings back
  /// join the context out of the graph, as objects inserted and undone are, with the values the
  /// archive gives them: a temporary ID, and a new permanent one when saved again.
  ///
  /// Nothing is registered, and the graph's objects keep their values: only undo and redo
  /// change them.
  ///
  /// - Throws: a problem located by its JSON path: `isMismatch` when the archive names what
  ///   this document does not have (an object, an entity, a key), otherwise when it is not an
  ///   archive. The stacks are then as they were, and the objects set up for it are gone again.
  package func restoreUndoHistory(from archive: Data) throws(HistoryArchiveProblem) {
    guard let undoManager else { return }
    processPendingChanges()
    let root: [String: Any]
    do {
      guard let object = try JSONSerialization.jsonObject(with: archive) as? [String: Any] else {
        throw HistoryArchiveProblem(
          message: "the history is not a JSON object", path: "", isMismatch: false)
      }
      root = object
    } catch let problem as HistoryArchiveProblem {
      throw problem
    } catch {
      throw HistoryArchiveProblem(
        message: "the history is not JSON: \(error.localizedDescription)", path: "",
        isMismatch: false)
    }
    guard (root["format"] as? Int) == 1 else {
      throw HistoryArchiveProblem(
        message: "the history's format is not 1", path: "format", isMismatch: false)
    }
    undoManager.disableUndoRegistration()
    var reader = ArchiveReader(context: self)
    do {
      try reader.bringBackObjects(root["objects"])
      let undo = try reader.groups(root["undo"], path: "undo")
      let redo = try reader.groups(root["redo"], path: "redo")
      processPendingChanges()
      try? undoManager.enableUndoRegistration()
      undoManager.replaceStacks(undo: undo, redo: redo, target: self, cost: \.cost) {
        $0.applyBackwards($1)
      }
    } catch {
      // The objects brought back leave again: they were never in the graph.
      for row in reader.objects {
        if let object = object(atRow: row) { markDeleted(object, propagating: false) }
      }
      processPendingChanges()
      try? undoManager.enableUndoRegistration()
      throw error
    }
  }

  /// Reads an archive's parts into the context: its objects, then its groups.
  private struct ArchiveReader {
    let context: ManagedObjectContext
    /// The rows of the objects the archive carries, by number.
    var objects: [Int32] = []

    init(context: ManagedObjectContext) { self.context = context }

    func problem(
      _ message: String, _ path: String, mismatch: Bool = false, entity: String? = nil,
      key: String? = nil
    ) -> HistoryArchiveProblem {
      HistoryArchiveProblem(
        message: message, path: path, isMismatch: mismatch, entity: entity, key: key)
    }

    /// Inserts each object the archive carries, gives it its values, and takes it out of the
    /// graph again.
    mutating func bringBackObjects(_ json: Any?) throws(HistoryArchiveProblem) {
      guard let list = json as? [Any] else { throw problem("objects is not a list", "objects") }
      var made: [(ManagedObject, [String: Any], String)] = []
      for (index, item) in list.enumerated() {
        let path = "objects[\(index)]"
        guard let entry = item as? [String: Any], let entity = entry["entity"] as? String,
          let values = entry["values"] as? [String: Any]
        else { throw problem("an object needs an entity and values", path) }
        let object: ManagedObject
        do {
          object = try context.insertNewObject(forEntityName: entity)
        } catch {
          throw problem(error.message, path, mismatch: true, entity: entity)
        }
        objects.append(object.row)
        made.append((object, values, path))
      }
      for (object, values, path) in made {
        for (key, json) in values.sorted(by: { $0.key < $1.key }) {
          let place = "\(path).values.\(key)"
          guard let slot = object.layout.slotByName[key] else {
            throw problem(
              "\(object.entityName) has no key \(key)", place, mismatch: true,
              entity: object.entityName, key: key)
          }
          context.write(
            try value(json, for: object, slot: slot, path: place), to: object, slot: slot)
        }
      }
      for (object, _, _) in made { context.markDeleted(object, propagating: false) }
    }

    func groups(_ json: Any?, path: String) throws(HistoryArchiveProblem)
      -> [UndoManager.RecordedGroup<TurnChange>]
    {
      guard let list = json as? [Any] else { throw problem("\(path) is not a list", path) }
      var groups: [UndoManager.RecordedGroup<TurnChange>] = []
      for (index, item) in list.enumerated() {
        let place = "\(path)[\(index)]"
        guard let entry = item as? [String: Any], let name = entry["name"] as? String,
          let changes = entry["changes"] as? [Any]
        else { throw problem("a group needs a name and changes", place) }
        var payloads: [TurnChange] = []
        for (number, change) in changes.enumerated() {
          payloads.append(try turnChange(change, path: "\(place).changes[\(number)]"))
        }
        groups.append(UndoManager.RecordedGroup(actionName: name, payloads: payloads))
      }
      return groups
    }

    private func turnChange(_ json: Any, path: String) throws(HistoryArchiveProblem) -> TurnChange {
      guard let entry = json as? [String: Any], let inserted = entry["inserted"] as? [Any],
        let deleted = entry["deleted"] as? [Any], let values = entry["values"] as? [Any]
      else { throw problem("a change needs inserted, deleted and values", path) }
      var change = TurnChange()
      for (index, reference) in inserted.enumerated() {
        change.inserted.append(try row(reference, path: "\(path).inserted[\(index)]"))
      }
      for (index, reference) in deleted.enumerated() {
        change.deleted.append(try row(reference, path: "\(path).deleted[\(index)]"))
      }
      for (index, item) in values.enumerated() {
        let place = "\(path).values[\(index)]"
        guard let triple = item as? [Any], triple.count == 3, let key = triple[1] as? String
        else { throw problem("a value needs an object, a key and a value", place) }
        let row = try row(triple[0], path: place)
        guard let object = context.object(atRow: row) else {
          throw problem("no object for the value", place, mismatch: true)
        }
        guard let slot = object.layout.slotByName[key] else {
          throw problem(
            "\(object.entityName) has no key \(key)", place, mismatch: true,
            entity: object.entityName, key: key)
        }
        change.rows.append(row)
        change.slots.append(Int32(slot))
        change.olds.append(try value(triple[2], for: object, slot: slot, path: place))
      }
      return change
    }

    /// The row of the object a reference names: a URI of the document's, or the number of an
    /// object the archive carries.
    private func row(_ reference: Any, path: String) throws(HistoryArchiveProblem) -> Int32 {
      if let uri = reference as? String {
        guard let url = URL(string: uri),
          let id = context.managedObjectID(forURIRepresentation: url),
          let object = context.object(with: id)
        else { throw problem("the document has no object \(uri)", path, mismatch: true) }
        return object.row
      }
      guard let number = reference as? Int, objects.indices.contains(number) else {
        throw problem("\(reference) names no object", path)
      }
      return objects[number]
    }

    /// The slot for `json`, a value of `object`'s property at `slot`.
    private func value(_ json: Any, for object: ManagedObject, slot: Int, path: String)
      throws(HistoryArchiveProblem) -> Slot
    {
      if json is NSNull { return .null }
      let property = object.layout.properties[slot]
      guard let tagged = json as? [Any], tagged.count == 2, let tag = tagged[0] as? String else {
        throw problem("a value is null or [tag, value]", path)
      }
      let misfit = problem(
        "[\(tag), …] does not fit \(object.entityName).\(property.name)", path,
        entity: object.entityName, key: property.name)
      if let relationship = property.relationship {
        /// A target of the relationship's destination entity (or a subentity).
        func target(_ reference: Any) throws(HistoryArchiveProblem) -> Int32 {
          let row = try row(reference, path: path)
          guard let object = context.object(atRow: row),
            object.layout.isKind(of: relationship.destination)
          else { throw misfit }
          return row
        }
        switch (tag, relationship.isToMany) {
        case ("o", false): return .object(try target(tagged[1]))
        case ("O", true):
          guard let list = tagged[1] as? [Any] else { throw misfit }
          var rows: [Int32] = []
          for reference in list { rows.append(try target(reference)) }
          guard Set(rows).count == rows.count else { throw misfit }
          return .objects(RowSet(rows, ordered: relationship.isOrdered))
        default: throw misfit
        }
      }
      guard let type = property.attributeType, let value = ManagedObjectContext.decode(tagged),
        Self.fits(value, type)
      else { throw misfit }
      return Slot(value)
    }

    /// Whether `value` is of the family of `type`, and in its range.
    static func fits(_ value: AttributeValue, _ type: AttributeType) -> Bool {
      switch (value, type) {
      case (.integer(let number), .integer16): Int16(exactly: number) != nil
      case (.integer(let number), .integer32): Int32(exactly: number) != nil
      case (.integer, .integer64), (.double, .double), (.float, .float), (.date, .date),
        (.boolean, .boolean), (.string, .string), (.binaryData, .binaryData),
        (.transformable, .transformable), (.uuid, .uuid), (.decimal, .decimal), (.uri, .uri),
        (.objectID, .objectID), (.composite, .composite):
        true
      default: false
      }
    }
  }

  /// The attribute value a tagged JSON value stands for (the inverse of
  /// ``encode(_:)``); `nil` when it does not read.
  static func decode(_ tagged: [Any]) -> AttributeValue? {
    guard tagged.count == 2, let tag = tagged[0] as? String else { return nil }
    let payload = tagged[1]
    let text = payload as? String
    func bits() -> UInt64? { text.flatMap { UInt64($0, radix: 16) } }
    switch tag {
    case "i": return text.flatMap { Int64($0) }.map(AttributeValue.integer)
    case "r": return bits().map { .double(Double(bitPattern: $0)) }
    case "f":
      return bits().flatMap { UInt32(exactly: $0) }.map { .float(Float(bitPattern: $0)) }
    case "t":
      return bits().map { .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0))) }
    case "b": return (payload as? Bool).map(AttributeValue.boolean)
    case "s": return text.map(AttributeValue.string)
    case "d": return text.flatMap { Data(base64Encoded: $0) }.map(AttributeValue.binaryData)
    case "x": return text.flatMap { Data(base64Encoded: $0) }.map(AttributeValue.transformable)
    case "u": return text.flatMap(UUID.init(uuidString:)).map(AttributeValue.uuid)
    case "D":
      if text == "NaN" { return .decimal(.nan) }
      return text.flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
        .map(AttributeValue.decimal)
    case "U": return text.flatMap { URL(string: $0) }.map(AttributeValue.uri)
    case "I": return text.map(AttributeValue.objectID)
    case "c":
      guard let members = payload as? [String: Any] else { return nil }
      var values: [String: AttributeValue] = [:]
      for (name, member) in members {
        guard let list = member as? [Any], let value = decode(list) else { return nil }
        values[name] = value
      }
      return .composite(values)
    default: return nil
    }
  }
}
