import Foundation

/// A property-list value: what store metadata holds.
public indirect enum PropertyListValue: Sendable, Hashable {
  case string(String)
  case integer(Int64)
  case real(Double)
  case boolean(Bool)
  case date(Date)
  case data(Data)
  case array([PropertyListValue])
  case dictionary([String: PropertyListValue])
}

/// What a store says about itself, readable without loading its objects.
///
/// The names follow Core Data's metadata keys: `NSStoreUUID`, `NSStoreType`,
/// `NSStoreModelVersionHashes`, `NSStoreModelVersionIdentifiers`,
/// `NSPersistenceFrameworkVersion`; anything else is the app's own metadata.
public struct StoreMetadata: Sendable, Hashable {
  /// The store's UUID, which permanent object IDs carry (`NSStoreUUID`).
  public var identifier: String
  /// The store's type: `"XML"`, `"Binary"` or `"InMemory"` (`NSStoreType`).
  public var storeType: String
  /// Each entity's version hash in the model the store was written with
  /// (`NSStoreModelVersionHashes`). The default is empty.
  public var modelVersionHashes: [String: Data] = [:]
  /// The model's version identifiers (`NSStoreModelVersionIdentifiers`). The default is empty.
  public var modelVersionIdentifiers: [String] = []
  /// The version of the framework that wrote the store (`NSPersistenceFrameworkVersion`),
  /// when it says. The default is `nil`.
  public var frameworkVersion: Int64?
  /// The `NSPersistenceFrameworkVersion` Folio writes when the metadata has none: 1, a version
  /// no Core Data release has used, so a reader can tell Folio wrote the file.
  package static let folioFrameworkVersion: Int64 = 1
  /// The app's own metadata, and any other keys the store holds. The default is empty.
  public var userInfo: [String: PropertyListValue] = [:]

  /// Creates metadata for a store of `storeType`; the identifier defaults to a new UUID.
  public init(storeType: String, identifier: String = UUID().uuidString) {
    self.storeType = storeType
    self.identifier = identifier
  }
}

/// A whole store: its metadata and every object, as records.
public struct StoreContents: Sendable, Hashable {
  /// What the store says about itself.
  public var metadata: StoreMetadata
  /// Every object.
  public var records: [StoreRecord]
  /// The next object ID the store will give out; at least one more than every record's ID.
  public var nextObjectID: Int64
  /// Whether a store written from these contents records the metadata's entity version hashes
  /// and model version identifiers rather than its model's: a store converted with a model
  /// inferred from it (not the app's) keeps the hashes of the model that wrote it, so it still
  /// opens with that model, checked by structure, and migrates from it. `false` by default.
  public var keepsVersionHashes = false

  /// Creates contents; `nextObjectID` defaults to one more than the largest record ID.
  public init(metadata: StoreMetadata, records: [StoreRecord], nextObjectID: Int64? = nil) {
    self.metadata = metadata
    self.records = records
    self.nextObjectID = nextObjectID ?? ((records.map(\.id).max() ?? 0) + 1)
  }
}

extension StoreMetadata {
  /// Takes a store's metadata dictionary, as Core Data keeps it in XML and SQLite stores: the
  /// keys Core Data defines into their fields, every other key into ``userInfo``. The store
  /// type and UUID are the caller's, as each format keeps them apart.
  package mutating func apply(_ values: [String: PropertyListValue]) {
    for (key, value) in values {
      switch (key, value) {
      case ("NSPersistenceFrameworkVersion", .integer(let version)):
        frameworkVersion = version
      case ("NSStoreModelVersionHashes", .dictionary(let hashes)):
        for case (let entity, .data(let hash)) in hashes { modelVersionHashes[entity] = hash }
      case ("NSStoreModelVersionIdentifiers", .array(let identifiers)):
        modelVersionIdentifiers = identifiers.compactMap {
          if case .string(let text) = $0 { return text }
          return nil
        }
      case ("NSStoreModelVersionHashesVersion", _), ("NSStoreType", _), ("NSStoreUUID", _):
        continue
      default:
        userInfo[key] = value
      }
    }
  }
}
