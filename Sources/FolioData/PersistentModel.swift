import FolioGraph
import Observation

/// A class made an entity by `@Model`: what SwiftData's `PersistentModel` is.
///
/// `@Model` writes the requirements; a class never conforms by hand. The classes are
/// `Observable`: reading a property inside `withObservationTracking` (SwiftUI) is tracked, and
/// every change to it notifies — by a setter, an inverse, undo, redo, rollback or a merge —
/// for an object in a context that tracks observation (``ModelContext/tracksObservation``, on
/// for ``ModelContainer/mainContext``). Before it is inserted, an object's values are observed
/// as one: setting any of them, or inserting the object, notifies each observer of the object.
public protocol PersistentModel: AnyObject, Observable, Hashable, Identifiable {
  /// Where the object's values are: its own until a context holds it, then its context's.
  var _$backing: _ModelBacking { get set }
  /// An instance over a managed object a context holds (a fetched object).
  init(backing: _ModelBacking)
  /// The class's persisted properties, in declaration order.
  static var schemaMetadata: [Schema.PropertyMetadata] { get }
  /// The groups of properties its `#Unique` and `#Index` name.
  static var schemaConstraints: Schema.Constraints { get }
  /// The names of every persisted property, inherited ones included, by their key paths from
  /// this class (`\Sub.name` differs from `\Base.name`).
  static var _$propertyKeyPaths: [(String, AnyKeyPath)] { get }
  /// Hands the values a subclass's initializer set to the backing.
  func _$flushPendingValues()
}

extension PersistentModel {
  /// The object's identity in its store: temporary until it is first saved.
  public var persistentModelID: PersistentIdentifier {
    guard let object = _$backing.object else {
      return PersistentIdentifier(detached: ObjectIdentifier(self).hashValue)
    }
    return PersistentIdentifier(object.objectID)
  }

  /// The object's identity, as `Identifiable` asks: ``persistentModelID``.
  public var id: PersistentIdentifier { persistentModelID }

  /// The context holding the object; `nil` before it is inserted and after it is deleted by a
  /// save.
  public var modelContext: ModelContext? {
    guard let object = _$backing.object, object.managedObjectContext != nil else { return nil }
    return _$backing.modelContext
  }

  /// Whether the object was deleted since the last save.
  public var isDeleted: Bool { _$backing.object?.isDeleted ?? false }

  /// Whether the object was inserted, changed or deleted since the last save.
  public var hasChanges: Bool { _$backing.object?.hasChanges ?? false }

  public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The identity of a persisted object, which crosses actors: SwiftData's
/// `PersistentIdentifier`, over a ``FolioGraph/ManagedObjectID``.
public struct PersistentIdentifier: Hashable, Sendable, CustomStringConvertible {
  enum Kind: Hashable, Sendable {
    case managed(ManagedObjectID)
    /// An object no context holds yet, by the number its backing was given.
    case detached(Int)
  }

  let kind: Kind

  init(_ id: ManagedObjectID) { kind = .managed(id) }
  init(detached number: Int) { kind = .detached(number) }

  /// The managed object ID, for an object a context holds.
  public var objectID: ManagedObjectID? {
    if case .managed(let id) = kind { return id }
    return nil
  }

  /// The name of the object's entity; `nil` before the object is inserted.
  public var entityName: String? { objectID?.entityName }

  /// Whether the identifier is temporary (the object is not saved yet).
  public var isTemporary: Bool { objectID?.isTemporaryID ?? true }

  public var description: String {
    switch kind {
    case .managed(let id): id.description
    case .detached(let number): "detached object \(number)"
    }
  }
}
