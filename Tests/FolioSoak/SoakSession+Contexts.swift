import Folio
import FolioScript
import Foundation

/// The steps that cross the context's boundaries, on Folio: reset and refresh, a child context
/// of the document's context, and other root contexts on the document's coordinator.
extension SoakSession {
  func applyAcrossContexts(_ operation: SoakOperation) throws {
    let context = document.context
    switch operation {
    case .reset:
      context.reset()
      try findObjects()
    case .refresh(let uid, let merge):
      try context.refresh(try object(uid), mergeChanges: merge)
    case .childSave(let uid, let key, let value, let link):
      let child = makeChild()
      try change(in: child, uid, key, value, link)
      try child.save()
    case .childDiscard(let uid, let key, let value, let link, let deleted):
      let child = makeChild()
      try change(in: child, uid, key, value, link)
      if let deleted { try child.delete(try object(deleted, in: child)) }
      child.processPendingChanges()
    case .otherSet(let uid, let key, let value):
      try inOtherContext { _, object in
        try object(uid).setValue(value.map(folioValue), forKey: key)
      }
    case .otherLink(let uid, let key, let target):
      try inOtherContext { _, object in
        try object(uid).setValue(try target.map { try object($0) }, forKey: key)
      }
    case .otherInsert(let entity, let uid, let name):
      try inOtherContext { other, _ in
        let object = try other.insertNewObject(forEntityName: entity)
        try object.setValue(Int64(uid), forKey: "uid")
        if let name { try object.setValue(name, forKey: "name") }
      }
    case .otherDelete(let uid):
      try inOtherContext { other, object in try other.delete(try object(uid)) }
    case .mergePolicy(let policy):
      guard let folioPolicy = MergePolicy(scriptName: policy.rawValue) else {
        preconditionFailure("merge policy \(policy) has no Folio counterpart")
      }
      context.mergePolicy = folioPolicy
    case .mergeDidSave:
      if let lastDidSave { context.mergeChanges(fromContextDidSave: lastDidSave) }
    case .refreshAll:
      context.refreshAllObjects()
    case .fetch:
      fetched.found = try sweptObjects()
    default:
      preconditionFailure("\(operation) does not cross the context's boundaries")
    }
  }

  /// Registers every committed object (`objects(ofEntity:)`) and finds the objects by uid
  /// again, after reopening or `reset`.
  func findObjects() throws {
    objects = [:]
    uids = [:]
    _ = try sweptObjects()
    try adoptRegisteredObjects()
  }

  /// Adds the objects the context registered since the session last looked — what other
  /// contexts committed, registered by a fetch or a save — to the objects it compares.
  func adoptRegisteredObjects() throws {
    for object in document.context.registeredObjects where uids[ObjectIdentifier(object)] == nil {
      let uid = try uid(of: object)
      if let known = objects[uid], known.managedObjectContext != nil {
        throw SoakFailure("two objects of the context have uid \(uid)")
      }
      objects[uid] = object
      uids[ObjectIdentifier(object)] = uid
    }
  }

  private func makeChild() -> ManagedObjectContext {
    ManagedObjectContext(parent: document.context, undoManager: UndoManager(eventLoop: loop))
  }

  /// The child's object with the ID the context's object `uid` has.
  private func object(_ uid: Int, in child: ManagedObjectContext) throws -> ManagedObject {
    guard let found = child.object(with: try object(uid).objectID) else {
      throw SoakFailure("the child context has no object $o\(uid)")
    }
    return found
  }

  private func change(
    in child: ManagedObjectContext, _ uid: Int, _ key: String, _ value: SoakOracle.Value?,
    _ link: SoakOperation.Link?
  ) throws {
    try object(uid, in: child).setValue(value.map(folioValue), forKey: key)
    guard let link else { return }
    let target = try link.target.map { try object($0, in: child) }
    try object(link.uid, in: child).setValue(target, forKey: link.key)
  }

  /// Makes a root context on the document's coordinator, lets `change` change it — given the
  /// context and its objects by uid — and saves it, keeping its did-save notification.
  private func inOtherContext(
    _ change: (ManagedObjectContext, (Int) throws -> ManagedObject) throws -> Void
  ) throws {
    let other = try ManagedObjectContext(
      coordinator: document.coordinator, undoManager: UndoManager(eventLoop: loop))
    var byUID: [Int: ManagedObject] = [:]
    for object in other.registeredObjects {
      if case .integer(let uid)? = attributeValue(try object.value(forKey: "uid")) {
        byUID[Int(uid)] = object
      }
    }
    let observation = other.addEventObserver { [weak self] event in
      if case .didSave(let changes) = event { self?.lastDidSave = changes }
    }
    defer { observation.cancel() }
    try change(other) { uid in
      guard let object = byUID[uid] else { throw SoakFailure("no committed object $o\(uid)") }
      return object
    }
    try other.save()
  }
}
