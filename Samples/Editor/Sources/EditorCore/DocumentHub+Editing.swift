import Folio
import Foundation

/// Reading and changing the graph for a tab. Each change is one turn of the tab's event loop,
/// so it is one undo group, named for the Undo and Redo buttons: `Edit Spending.amount`,
/// `Insert Spending`, `Delete Spending`.
extension DocumentHub {
  /// The rows of `entity` in the tab, in the table's order.
  ///
  /// - Throws: `EditorError` (`unknownEntity`, `unknownTab`).
  public func table(_ entity: String, tab id: String) throws(EditorError) -> TablePayload {
    let tab = try existingTab(id)
    let objects = try controller(for: entity, in: tab).fetchedObjects ?? []
    return TablePayload(entity: entity, rows: objects.map(row(of:)), state: tab.state)
  }

  /// Sets attribute `key` of the object `objectID` names to `value`, parsed by the attribute's
  /// type.
  ///
  /// Undo: one group, `Edit Entity.key`.
  ///
  /// - Throws: `EditorError` (`typeMismatch`, `readOnly`, `unknownKey`, `objectNotFound`),
  ///   naming `Entity.key`.
  public func edit(object objectID: String, key: String, value: JSONValue, tab id: String)
    throws(EditorError) -> RowChangePayload
  {
    let tab = try existingTab(id)
    let object = try self.object(objectID, in: tab)
    let entityName = object.entityName
    guard let entity = model.entity(named: entityName) else {
      preconditionFailure("the object's entity \(entityName) is not in the model")
    }
    guard let attribute = entity.allAttributes.first(where: { $0.name == key }) else {
      if entity.allRelationships.contains(where: { $0.name == key }) {
        throw EditorError.notAnAttribute(entity: entityName, key: key)
      }
      throw EditorError(
        status: 404, code: "unknownKey", "\"\(entityName)\" has no attribute \"\(key)\"",
        place: "\(entityName).\(key)")
    }
    let parsed = try CellValue.value(value, for: attribute, entity: entityName)
    try change(in: tab, named: "Edit \(entityName).\(key)") { () throws(GraphError) in
      try object.setValue(parsed, forKey: key)
    }
    return RowChangePayload(row: row(of: object), state: tab.state)
  }

  /// Inserts a new object of `entity`, with its attributes' default values.
  ///
  /// Undo: one group, `Insert Entity`.
  ///
  /// - Throws: `EditorError` (`unknownEntity`, `abstractEntity`).
  public func insert(_ entity: String, tab id: String) throws(EditorError) -> RowChangePayload {
    let tab = try existingTab(id)
    guard model.entity(named: entity) != nil else { throw EditorError.unknownEntity(entity) }
    var inserted: ManagedObject?
    try change(in: tab, named: "Insert \(entity)") { () throws(GraphError) in
      inserted = try tab.context.insertNewObject(forEntityName: entity)
    }
    return RowChangePayload(row: inserted.map(row(of:)), state: tab.state)
  }

  /// Deletes the object `objectID` names, applying its relationships' delete rules.
  ///
  /// Undo: one group, `Delete Entity`, with what the rules cascaded to.
  ///
  /// - Throws: `EditorError` (`objectNotFound`).
  public func delete(object objectID: String, tab id: String) throws(EditorError)
    -> StatePayload
  {
    let tab = try existingTab(id)
    let object = try self.object(objectID, in: tab)
    try change(in: tab, named: "Delete \(object.entityName)") { () throws(GraphError) in
      try tab.context.delete(object)
    }
    return tab.state
  }

  /// Undoes the tab's last action; nothing when there is none.
  public func undo(tab id: String) throws(EditorError) -> StatePayload {
    try step(tab: id, undoing: true)
  }

  /// Redoes the tab's last undone action; nothing when there is none.
  public func redo(tab id: String) throws(EditorError) -> StatePayload {
    try step(tab: id, undoing: false)
  }

  /// Undoes or redoes one group in the tab's context, as one turn.
  private func step(tab id: String, undoing: Bool) throws(EditorError) -> StatePayload {
    let tab = try existingTab(id)
    guard let undoManager = tab.context.undoManager,
      undoing ? undoManager.canUndo : undoManager.canRedo
    else { return tab.state }
    do {
      if undoing { try undoManager.undo() } else { try undoManager.redo() }
    } catch {
      let name = undoing ? "undo" : "redo"
      throw EditorError(status: 409, code: name, "\(error)", place: name)
    }
    tab.eventLoop.endTurn()
    tab.revision += 1
    return tab.state
  }

  /// Saves the tab's changes into the document, then merges them into every other tab.
  ///
  /// What other processes saved is merged into every tab first
  /// (``mergeChangesFromOtherWriters()``). The save commits into the coordinator under
  /// ``mergePolicy`` and writes the store: a file's whole committed state atomically, a SQLite
  /// or PostgreSQL document's changes in one transaction. Each other tab's context then
  /// refreshes the objects the save changed, keeping its own unsaved changes, and hears `saved`
  /// on its live channel.
  ///
  /// - Throws: `EditorError` (`validation`, `deny`, `store`) when the save is refused; a
  ///   refused save changes nothing.
  public func save(tab id: String) throws(EditorError) -> StatePayload {
    let tab = try existingTab(id)
    // A look that fails is the save's to report, as it takes other writers' saves in too.
    _ = try? mergeChangesFromOtherWriters()
    tab.lastSave = nil
    do {
      try tab.context.save()
    } catch {
      throw EditorError(error)
    }
    tab.eventLoop.endTurn()
    tab.revision += 1
    if let changes = tab.lastSave { merge(changes, savedBy: tab) }
    return tab.state
  }

  /// Merges `changes`, what a save committed, into every tab but `saver`'s (every tab when
  /// another process saved), each as a turn of its own, and tells each tab's live channel.
  func merge(_ changes: ObjectIDChanges, savedBy saver: Tab?) {
    for other in tabs.values where other !== saver {
      other.context.mergeChanges(fromContextDidSave: changes)
      other.eventLoop.endTurn()
      other.revision += 1
      other.live?.yield(
        LiveEvent(kind: "saved", entity: nil, changes: [], tab: saver?.id, state: other.state))
    }
  }

  // MARK: Helpers

  /// Runs `body` as one turn of the tab's event loop and names the undo group it made.
  func change(in tab: Tab, named name: String, _ body: () throws(GraphError) -> Void)
    throws(EditorError)
  {
    let undoManager = tab.context.undoManager
    let before = undoManager?.stateIdentifier
    tab.revision += 1
    do {
      try body()
    } catch {
      tab.eventLoop.endTurn()
      throw EditorError(error)
    }
    tab.eventLoop.endTurn()
    // A change that changed nothing registers no group: the last group keeps its name.
    if let undoManager, undoManager.stateIdentifier != before { undoManager.setActionName(name) }
  }

  /// The object `text`, an object ID's URI, names in the tab.
  func object(_ text: String, in tab: Tab) throws(EditorError) -> ManagedObject {
    guard let uri = URL(string: text),
      let objectID = tab.context.managedObjectID(forURIRepresentation: uri)
    else { throw EditorError.badObjectID(text) }
    do {
      return try tab.context.existingObject(with: objectID)
    } catch {
      throw EditorError(error)
    }
  }

  /// The row of `object`: its attributes' cells and its relationships' labels.
  func row(of object: ManagedObject) -> RowPayload {
    var values: [String: JSONValue] = [:]
    var links: [String: String] = [:]
    let entity = model.entity(named: object.entityName)
    for attribute in entity?.allAttributes ?? [] {
      values[attribute.name] = CellValue.json((try? object.value(forKey: attribute.name)) ?? nil)
    }
    for relationship in entity?.allRelationships ?? [] {
      let value = (try? object.value(forKey: relationship.name)) ?? nil
      if let target = value as? ManagedObject {
        links[relationship.name] = label(of: target)
      } else if let targets = value as? any Collection {
        links[relationship.name] =
          targets.isEmpty ? "" : "\(targets.count) \(relationship.destinationEntityName)"
      } else {
        links[relationship.name] = ""
      }
    }
    return RowPayload(id: object.objectID.description, values: values, links: links)
  }

  /// What a relationship cell shows for `object`: its first non-empty string attribute, else
  /// its entity and number.
  private func label(of object: ManagedObject) -> String {
    for attribute in model.entity(named: object.entityName)?.allAttributes ?? []
    where attribute.attributeType == .string {
      if let text = (try? object.value(forKey: attribute.name, as: String.self)) ?? nil,
        !text.isEmpty
      {
        return text
      }
    }
    return "\(object.entityName) \(object.objectID.uriRepresentation.lastPathComponent)"
  }
}
