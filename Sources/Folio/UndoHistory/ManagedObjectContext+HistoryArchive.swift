import FolioGraph
import FolioModel
import FolioUndo
import Foundation

/// The undo and redo stacks written down as JSON, and set up again from it, so a document's
/// history outlives the process (`Formats/undo-history.md` specifies the JSON).
///
/// Each group is the turn changes it undoes, each naming objects by reference: an object in
/// the saved document by its URI, any other — an object the history would bring back, deleted
/// and saved, or inserted and undone — by its number among `objects`, which carries its
/// values. Transient values are not kept (the store keeps none either).
extension ManagedObjectContext {
  /// Why an archive could not be set up: where in its JSON (`undo[2].changes[0]`), and
  /// whether it describes another document rather than being damaged.
  package struct HistoryArchiveProblem: Error {
    package var message: String
    package var path: String
    package var isMismatch: Bool
    package var entity: String?
    package var key: String?
  }

  /// The stacks as JSON, at most `maximumBytes` long when given: the oldest undo groups go
  /// first, then the redo groups farthest from now. Groups holding actions that are not the
  /// context's own (registered by the app) end the history: only the newer groups are kept.
  /// Call it right after a save, when every object in the graph is in the store.
  package func undoHistoryArchive(maximumBytes: Int?) -> Data {
    processPendingChanges()
    guard let undoManager else { return encodeArchive(undo: [], redo: []) }
    let stacks = undoManager.recordedStacks(of: self, as: TurnChange.self)
    var undo = Self.newestRecorded(stacks.undo)
    var redo = Self.newestRecorded(stacks.redo)
    var data = encodeArchive(undo: undo, redo: redo)
    guard let maximumBytes, data.count > maximumBytes else { return data }
    // Fewer groups make a shorter archive: find the fewest to drop, undo's oldest first.
    func fits(dropping count: Int) -> Bool {
      let undoDropped = min(count, undo.count)
      let redoDropped = count - undoDropped
      return encodeArchive(
        undo: Array(undo.dropFirst(undoDropped)), redo: Array(redo.dropFirst(redoDropped))
      ).count <= maximumBytes
    }
    var low = 1
    var high = undo.count + redo.count
    while low < high {
      let middle = (low + high) / 2
      if fits(dropping: middle) { high = middle } else { low = middle + 1 }
    }
    let undoDropped = min(low, undo.count)
    undo.removeFirst(undoDropped)
    redo.removeFirst(low - undoDropped)
    data = encodeArchive(undo: undo, redo: redo)
    return data
  }

  /// The groups after the last one that cannot be recorded.
  private static func newestRecorded(
    _ groups: [UndoManager.RecordedGroup<TurnChange>?]
  ) -> [UndoManager.RecordedGroup<TurnChange>] {
    let start = (groups.lastIndex { $0 == nil } ?? -1) + 1
    return groups[start...].compactMap { $0 }
  }

  // MARK: Writing

  /// Numbers the objects the history names that are not in the store.
  private struct References {
    var objects: [Int32] = []
    var numbers: [Int32: Int] = [:]
  }

  private func encodeArchive(
    undo: [UndoManager.RecordedGroup<TurnChange>], redo: [UndoManager.RecordedGroup<TurnChange>]
  ) -> Data {
    var references = References()
    func groups(_ list: [UndoManager.RecordedGroup<TurnChange>]) -> [Any] {
      list.map { group in
        [
          "name": group.actionName,
          "changes": group.payloads.map { encode($0, references: &references) },
        ] as [String: Any]
      }
    }
    let undoGroups = groups(undo)
    let redoGroups = groups(redo)
    // Objects brought back may name more such objects: the list grows as it is written.
    var objects: [Any] = []
    var next = 0
    while next < references.objects.count {
      let row = references.objects[next]
      next += 1
      guard let object = object(atRow: row) else {
        objects.append(["entity": "", "values": [:]] as [String: Any])
        continue
      }
      var values: [String: Any] = [:]
      for slot in object.layout.properties.indices {
        guard
          let value = encode(object.slots[slot], of: object, slot: slot, references: &references)
        else { continue }
        values[object.layout.properties[slot].name] = value
      }
      objects.append(["entity": object.entityName, "values": values] as [String: Any])
    }
    let archive: [String: Any] = [
      "format": 1, "objects": objects, "undo": undoGroups, "redo": redoGroups,
    ]
    return
      (try? JSONSerialization.data(
        withJSONObject: archive, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
  }

  private func encode(_ change: TurnChange, references: inout References) -> [String: Any] {
    var values: [Any] = []
    for index in change.rows.indices {
      guard let object = object(atRow: change.rows[index]) else { continue }
      let slot = Int(change.slots[index])
      guard
        let value = encode(change.olds[index], of: object, slot: slot, references: &references)
      else { continue }
      values.append([
        reference(change.rows[index], &references), object.layout.properties[slot].name, value,
      ])
    }
    return [
      "inserted": change.inserted.map { reference($0, &references) },
      "deleted": change.deleted.map { reference($0, &references) },
      "values": values,
    ]
  }

  /// An object's URI when the saved document holds it, else its number among the objects the
  /// archive carries.
  private func reference(_ row: Int32, _ references: inout References) -> Any {
    if let object = object(atRow: row), object.flags.contains(.permanent),
      object.flags.isDisjoint(with: [.deleted, .removed])
    {
      return object.objectID.uriRepresentation.absoluteString
    }
    if let number = references.numbers[row] { return number }
    references.numbers[row] = references.objects.count
    references.objects.append(row)
    return references.objects.count - 1
  }

  /// A slot's value as JSON; `nil` for what is not kept: transient attributes, fetched
  /// properties, values that are not the model's.
  private func encode(
    _ value: Slot, of object: ManagedObject, slot: Int, references: inout References
  ) -> Any? {
    let property = object.layout.properties[slot]
    if property.relationship != nil {
      switch value {
      case .object(let row): return ["o", reference(row, &references)]
      case .objects(let set): return ["O", set.rows.map { reference($0, &references) }]
      case .null: return NSNull()
      default: return nil
      }
    }
    guard let attribute = property.attribute, let type = property.attributeType,
      !attribute.isTransient
    else { return nil }
    if case .null = value { return NSNull() }
    return value.attributeValue(as: type).flatMap(Self.encode)
  }

  private static func bits(_ number: UInt64) -> String { String(number, radix: 16) }

  static func encode(_ value: AttributeValue) -> Any? {
    switch value {
    case .integer(let number): ["i", String(number)]
    case .double(let number): ["r", bits(number.bitPattern)]
    case .float(let number): ["f", bits(UInt64(number.bitPattern))]
    case .date(let date): ["t", bits(date.timeIntervalSinceReferenceDate.bitPattern)]
    case .boolean(let flag): ["b", flag]
    case .string(let text): ["s", text]
    case .binaryData(let data): ["d", data.base64EncodedString()]
    case .transformable(let data): ["x", data.base64EncodedString()]
    case .uuid(let uuid): ["u", uuid.uuidString]
    case .decimal(let number): ["D", number.isNaN ? "NaN" : number.description]
    case .uri(let url): ["U", url.absoluteString]
    case .objectID(let uri): ["I", uri]
    case .composite(let members): ["c", members.compactMapValues(encode)]
    }
  }
}
