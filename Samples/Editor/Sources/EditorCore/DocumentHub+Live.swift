import Folio

/// Live updates: each table a tab shows is a fetched results controller on the tab's
/// context, and a task reads the controller's change stream and forwards each batch, as
/// Sendable rows, to the tab's live channel. The controller reports every turn that changed
/// its results — the tab's own edits, undos and redos, and the merges of other tabs' saves.
extension DocumentHub {
  /// The tab's controller for `entity`'s table, made and fetched on first use.
  ///
  /// The table is sorted by the entity's first string attribute (else its first attribute),
  /// so that editing numbers and dates does not move rows.
  func controller(for entity: String, in tab: Tab) throws(EditorError)
    -> FetchedResultsController
  {
    if let controller = tab.controllers[entity] { return controller }
    guard let description = model.entity(named: entity) else {
      throw EditorError.unknownEntity(entity)
    }
    let attributes = description.allAttributes
    let sortKey =
      attributes.first { $0.attributeType == .string }?.name ?? attributes.first?.name
    guard let sortKey else {
      throw EditorError(
        status: 400, code: "noAttributes", "\"\(entity)\" has no attribute to order its rows by",
        place: entity)
    }
    let controller = FetchedResultsController(
      fetchRequest: FetchRequest(
        entityName: entity, sortDescriptors: [QuerySortDescriptor(keyPath: sortKey)]),
      context: tab.context)
    do {
      try controller.performFetch()
    } catch {
      throw EditorError(error)
    }
    tab.controllers[entity] = controller
    let changes = controller.changes()
    tab.watchers.append(
      Task { [weak tab] in
        for await batch in changes {
          guard let tab else { return }
          self.forward(batch, entity: entity, to: tab)
        }
      })
    return controller
  }

  /// Sends one batch of a controller's changes to the tab's live channel.
  private func forward(_ batch: FetchedResultsChanges, entity: String, to tab: Tab) {
    guard let live = tab.live else { return }
    let changes = batch.objectChanges.map { change in
      LiveEvent.Change(
        type: change.type.description, id: change.object.objectID.description,
        from: change.indexPath?.item, to: change.newIndexPath?.item,
        row: change.type == .delete ? nil : row(of: change.object))
    }
    live.yield(
      LiveEvent(kind: "changes", entity: entity, changes: changes, tab: nil, state: tab.state))
  }
}
