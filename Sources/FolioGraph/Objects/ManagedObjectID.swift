import Foundation

/// The identity of a managed object: temporary while it is new, permanent once saved.
///
/// The counterpart of Core Data's `NSManagedObjectID`, and like it a value that can be kept,
/// compared, and turned into a URI and back:
///
/// - permanent: `x-coredata://STORE-UUID/Entity/pN`
/// - temporary: `x-coredata:///Entity/tUUID`
///
/// An ID never changes; saving gives the object a new, permanent one.
public struct ManagedObjectID: Hashable, Sendable, CustomStringConvertible {
  /// The name of the object's entity.
  public let entityName: String
  /// The identifier of the store the object is saved in; `nil` while the ID is temporary.
  public let storeIdentifier: String?
  /// For a temporary ID, the UUID in its URI; for a permanent one, the store's primary key.
  let key: Key
  /// For a permanent ID, the number its URI shows: the key within its entity hierarchy's key
  /// space for a store that numbers each hierarchy on its own (``StoreKeySpace``), else the
  /// primary key.
  private let uriNumber: Int64

  enum Key: Hashable, Sendable {
    case temporary(UUID)
    case permanent(Int64)
  }

  init(entityName: String, temporary uuid: UUID) {
    self.entityName = entityName
    self.storeIdentifier = nil
    self.key = .temporary(uuid)
    self.uriNumber = 0
  }

  init(entityName: String, store: String, primaryKey: Int64, uriNumber: Int64? = nil) {
    self.entityName = entityName
    self.storeIdentifier = store
    self.key = .permanent(primaryKey)
    self.uriNumber = uriNumber ?? primaryKey
  }

  /// The store's primary key of a permanent ID (the store record's ID); `nil` for a temporary
  /// one.
  package var primaryKey: Int64? {
    if case .permanent(let key) = key { return key }
    return nil
  }

  /// Whether the object has not been saved yet.
  public var isTemporaryID: Bool {
    if case .temporary = key { return true }
    return false
  }

  /// The ID as a URI, in Core Data's shape.
  public var uriRepresentation: URL {
    let text = uriText
    guard let url = URL(string: text) else {
      preconditionFailure("object URI \(text) is not a URL although every part is encoded")
    }
    return url
  }

  /// The URI's text. Entity names are letters, digits and underscores (Xcode enforces it) and
  /// stores are named by UUIDs, so neither usually needs escaping; a name built in code that
  /// does is percent-encoded, as is the store.
  private var uriText: String {
    let entity =
      Self.needsNoEscaping(entityName)
      ? entityName
      : entityName.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? entityName
    switch key {
    case .temporary(let uuid):
      return "x-coredata:///\(entity)/t\(uuid.uuidString)"
    case .permanent:
      let identifier = storeIdentifier ?? ""
      let store =
        Self.needsNoEscaping(identifier, allowingHyphens: true)
        ? identifier
        : identifier.addingPercentEncoding(withAllowedCharacters: .urlHostAllowed) ?? ""
      return "x-coredata://\(store)/\(entity)/p\(uriNumber)"
    }
  }

  /// Whether `text` is letters, digits and underscores (and hyphens, when allowed) alone.
  private static func needsNoEscaping(_ text: String, allowingHyphens: Bool = false) -> Bool {
    text.utf8.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
        true
      case UInt8(ascii: "-"): allowingHyphens
      default: false
      }
    }
  }

  /// The URI, as text.
  public var description: String { uriText }

  /// Parses a Core Data object URI into its parts, or `nil` when `uri` is not one.
  static func parse(_ uri: URL) -> (store: String?, entity: String, key: Key)? {
    let text = uri.absoluteString
    guard text.hasPrefix("x-coredata://") else { return nil }
    let rest = text.dropFirst("x-coredata://".count)
    let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[1].isEmpty, parts[2].count > 1,
      let entity = String(parts[1]).removingPercentEncoding
    else { return nil }
    let store = parts[0].isEmpty ? nil : String(parts[0])
    let tail = parts[2]
    switch tail.first {
    case "t":
      guard store == nil, let uuid = UUID(uuidString: String(tail.dropFirst())) else { return nil }
      return (nil, entity, .temporary(uuid))
    case "p":
      guard store != nil, let number = Int64(tail.dropFirst()), number > 0 else { return nil }
      return (store, entity, .permanent(number))
    default:
      return nil
    }
  }
}
