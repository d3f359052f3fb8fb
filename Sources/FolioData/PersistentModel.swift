import FolioGraph
import Foundation
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
///
/// Two identifiers are equal when they name the same object of the same store: from any
/// context, any coordinator, or decoded. An identifier encodes as its object's URI
/// (`x-coredata://STORE/Entity/pN`), which a context of the same store resolves
/// (``ModelContext/model(for:)``); a temporary one names an object only in the process that
/// made it, and one of an object no context holds cannot be encoded.
public struct PersistentIdentifier: Hashable, Sendable, CustomStringConvertible, Codable {
  enum Kind: Sendable {
    case managed(ManagedObjectID)
    /// Decoded: the object's URI, resolved by the context asked for the object.
    case uri(URL)
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

  /// The URI of the object, in Core Data's shape; `nil` before the object is inserted.
  public var uriRepresentation: URL? {
    switch kind {
    case .managed(let id): id.uriRepresentation
    case .uri(let uri): uri
    case .detached: nil
    }
  }

  /// The name of the object's entity; `nil` before the object is inserted.
  public var entityName: String? {
    switch kind {
    case .managed(let id): id.entityName
    case .uri(let uri): Self.parts(of: uri)?.entity
    case .detached: nil
    }
  }

  /// Whether the identifier is temporary (the object is not saved yet).
  public var isTemporary: Bool {
    switch kind {
    case .managed(let id): id.isTemporaryID
    case .uri(let uri): Self.parts(of: uri)?.isTemporary ?? true
    case .detached: true
    }
  }

  public var description: String {
    switch kind {
    case .managed(let id): id.description
    case .uri(let uri): uri.absoluteString
    case .detached(let number): "detached object \(number)"
    }
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs.kind, rhs.kind) {
    case (.managed(let a), .managed(let b)) where a == b: true
    case (.detached(let a), .detached(let b)): a == b
    case (.detached, _), (_, .detached): false
    default: lhs.description == rhs.description
    }
  }

  public func hash(into hasher: inout Hasher) {
    if case .detached(let number) = kind { return hasher.combine(number) }
    hasher.combine(description)
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let uri = URL(string: text), Self.parts(of: uri) != nil else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "\(text) is not a Core Data object URI")
    }
    kind = .uri(uri)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    guard let uri = uriRepresentation else {
      throw EncodingError.invalidValue(
        description,
        EncodingError.Context(
          codingPath: encoder.codingPath,
          debugDescription: "an object no context holds has no identity outside this process"))
    }
    try container.encode(uri.absoluteString)
  }

  /// The entity of an object URI, and whether it is temporary; `nil` when `uri` is not one
  /// (`x-coredata://STORE/Entity/pN`, `x-coredata:///Entity/tUUID`).
  static func parts(of uri: URL) -> (entity: String, isTemporary: Bool)? {
    let text = uri.absoluteString
    guard text.hasPrefix("x-coredata://") else { return nil }
    let parts = text.dropFirst("x-coredata://".count)
      .split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[1].isEmpty, let tag = parts[2].first, parts[2].count > 1,
      let entity = String(parts[1]).removingPercentEncoding
    else { return nil }
    switch tag {
    case "t" where parts[0].isEmpty: return (entity, true)
    case "p" where !parts[0].isEmpty && Int64(parts[2].dropFirst()) != nil: return (entity, false)
    default: return nil
    }
  }
}
