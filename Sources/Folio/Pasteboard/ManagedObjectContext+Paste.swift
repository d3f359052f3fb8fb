import Foundation

/// Pasting copied objects into a context, and duplicating objects in place.
extension ManagedObjectContext {
  /// Inserts a copy of every object on `pasteboard`, as one undoable change named "Paste".
  ///
  /// Objects the roots own are copied with them, with the relationships among them. A
  /// reference to an object outside the copied set is re-attached when this context's
  /// ``storeIdentifier`` is the pasteboard's (the same document, another context on its
  /// store, or the same file opened again) and the object is here and not deleted; and unless
  /// its inverse is a to-one that already holds another object, which re-attaching would take
  /// it from (duplicating an employee does not move the original's desk). Otherwise the
  /// reference is dropped, and ``PasteResult/droppedReferences`` says which and why. Pasting
  /// twice gives two independent copies.
  ///
  /// Everything is checked before anything changes, so a paste that throws leaves the context
  /// as it was. Unique constraints are not checked here: the save validates the pasted objects
  /// as any others, under the context's merge policy. The changes join the current turn, which
  /// the undo manager undoes and redoes as one step.
  ///
  /// A pasteboard from another version of the model is refused, even one that migration could
  /// carry over: ``paste(_:from:mapping:)`` pastes through a mapping model.
  ///
  /// - Throws: `GraphError.modelMismatch` when an entity's version hash differs from this
  ///   model's, naming the entity; `.unknownEntity` or `.unknownKey` for an entity or property
  ///   the model lacks; `.typeMismatch` for a value or target that does not fit its property
  ///   (the message gives its JSON path, `objects[2].attributes.amount`); `.readOnly` for a
  ///   derived attribute; `.abstractEntity`.
  @discardableResult
  public func paste(_ pasteboard: Pasteboard) throws(GraphError) -> PasteResult {
    let plan = try PastePlan(pasteboard, into: self)
    guard !plan.objects.isEmpty else { return PasteResult(roots: [], objects: []) }
    undoManager?.beginUndoGrouping()
    defer {
      processPendingChanges()
      undoManager?.setActionName("Paste")
      try? undoManager?.endUndoGrouping()
    }
    var created: [ManagedObject] = []
    do {
      for object in plan.objects {
        created.append(try insertNewObject(forEntityName: object.entity.name))
      }
      for (object, planned) in zip(created, plan.objects) {
        for (name, value) in planned.attributes { try object.setValue(value, forKey: name) }
      }
      // Each relationship is set to its targets in their copied order. Both sides of a pair of
      // copies agree, so setting one side never moves what the other was set to.
      for (object, planned) in zip(created, plan.objects) {
        for relationship in planned.relationships {
          let targets = relationship.targets.map { target in
            switch target {
            case .copied(let index): created[index]
            case .existing(let object): object
            }
          }
          if relationship.isToMany {
            try object.setValue(targets, forKey: relationship.name)
          } else {
            try object.setValue(targets.first, forKey: relationship.name)
          }
        }
      }
    } catch {
      // The plan checked every step; should one fail all the same, the copies leave.
      for object in created { try? delete(object) }
      throw error
    }
    let dropped = plan.dropped.map { drop in
      DroppedReference(
        object: created[drop.object], relationship: drop.relationship, uri: drop.uri,
        reason: drop.reason)
    }
    return PasteResult(
      roots: pasteboard.roots.map { created[$0] }, objects: created, droppedReferences: dropped)
  }

  /// Inserts copies of `objects`, as copying them to a ``Pasteboard`` and pasting it here
  /// does: with what they own, references outside them kept, as one undo step named "Paste".
  ///
  /// - Throws: `GraphError.notRegistered` when an object is deleted or belongs to another
  ///   context; what ``paste(_:)`` throws.
  @discardableResult
  public func duplicate(_ objects: [ManagedObject]) throws(GraphError) -> PasteResult {
    for object in objects where object.managedObjectContext !== self {
      throw GraphError(
        .notRegistered, "the \(object.entityName) object does not belong to this context",
        at: InputLocation(entity: object.entityName))
    }
    return try paste(Pasteboard(copying: objects))
  }
}

/// What ``ManagedObjectContext/paste(_:)`` inserted, and the references it could not keep.
public struct PasteResult {
  /// The copies of the pasteboard's roots, in the order they were copied.
  public var roots: [ManagedObject]
  /// Every inserted copy: the roots' and those of the objects they own.
  public var objects: [ManagedObject]
  /// The references to objects outside the copied set that were left out.
  public var droppedReferences: [DroppedReference] = []
}

/// A reference from a pasted object to an object outside the copied set that the paste left
/// out.
public struct DroppedReference: Hashable {
  /// The pasted copy that held the reference.
  public var object: ManagedObject
  /// The relationship of ``object`` it was in.
  public var relationship: String
  /// The URI of the object it named.
  public var uri: URL
  /// Why it was left out.
  public var reason: Reason

  /// Why a reference was left out, to switch on.
  public struct Reason: Hashable, Sendable, CustomStringConvertible {
    /// The pasteboard comes from another store, so the URI names nothing here.
    public static let otherStore = Reason(.otherStore)
    /// The object is not in this context, or is deleted.
    public static let notFound = Reason(.notFound)
    /// The object's inverse relationship is a to-one that holds another object, which
    /// re-attaching would take it from.
    public static let inverseHeld = Reason(.inverseHeld)
    /// The pasteboard is of another version of the model, and this one has no relationship
    /// of that name holding objects of the object's entity
    /// (``ManagedObjectContext/paste(_:from:mapping:)``).
    public static let notMapped = Reason(.notMapped)

    private enum Kind: Hashable, Sendable {
      case otherStore, notFound, inverseHeld, notMapped
    }

    private var kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    /// The member's name: `otherStore`.
    public var description: String { "\(kind)" }
  }
}
