import FolioModel
import FolioStores
import Foundation

/// A Core Data SQLite store's metadata: the one row of `Z_METADATA`, whose `Z_UUID` is the
/// store's identifier and whose `Z_PLIST` is a binary property list of the other keys.
enum SQLiteMetadata {
  /// Keys computed from the entity version hashes, which stay the file's when metadata alone is
  /// rewritten.
  static let hashDerivedKeys = [
    "NSStoreModelVersionHashesDigest", "NSStoreModelVersionChecksumKey",
    StoreMetadata.folioChecksumKey,
  ]

  /// The app's own keys of `metadata`: what a save writes back when it changed. Keys Core Data
  /// keeps for itself, and those computed from the hashes, are left out.
  static func appKeys(of metadata: StoreMetadata) -> [String: PropertyListValue] {
    var keys = metadata.userInfo
    for key in hashDerivedKeys + ["NSStoreModelVersionHashesVersion", "_NSAutoVacuumLevel"] {
      keys[key] = nil
    }
    return keys
  }

  static func read(from database: SQLiteDatabase) throws(StoreError) -> StoreMetadata {
    let statement = try database.prepare(
      "SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1", at: "Z_METADATA")
    guard try statement.step() else {
      throw StoreError(
        .malformedStore, "Z_METADATA has no row", at: InputLocation(file: database.path))
    }
    return try decode(
      identifier: statement.text(0), propertyList: statement.blob(1), file: database.path)
  }

  /// The metadata of `Z_METADATA`'s row: its `Z_UUID` and its `Z_PLIST`.
  static func decode(identifier: String?, propertyList blob: Data?, file: String)
    throws(StoreError) -> StoreMetadata
  {
    var metadata = StoreMetadata(storeType: "SQLite", identifier: identifier ?? "")
    guard let blob, !blob.isEmpty else { return metadata }
    let node: PropertyListNode
    do {
      node = try BinaryPropertyList.decode(blob, file: file)
    } catch {
      throw StoreError(
        .malformedStore, "Z_METADATA.Z_PLIST: \(error.message)", at: InputLocation(file: file))
    }
    guard case .dictionary(let values)? = node.propertyListValue else {
      throw StoreError(
        .malformedStore, "Z_METADATA.Z_PLIST is not a dictionary", at: InputLocation(file: file))
    }
    metadata.apply(values)
    if case .string(let type)? = values["NSStoreType"] { metadata.storeType = type }
    return metadata
  }

  /// The property list of `metadata` as Core Data keeps it: every key but the UUID, which is
  /// `Z_UUID`.
  static func propertyList(_ metadata: StoreMetadata) -> PropertyListValue {
    var result = metadata.userInfo
    result["NSStoreUUID"] = nil
    result["NSStoreType"] = .string(metadata.storeType.isEmpty ? "SQLite" : metadata.storeType)
    result["NSPersistenceFrameworkVersion"] = .integer(
      metadata.frameworkVersion ?? StoreMetadata.folioFrameworkVersion)
    result["NSStoreModelVersionHashes"] = .dictionary(
      metadata.modelVersionHashes.mapValues { .data($0) })
    result["NSStoreModelVersionHashesVersion"] =
      result["NSStoreModelVersionHashesVersion"] ?? .integer(3)
    result["NSStoreModelVersionIdentifiers"] = .array(
      metadata.modelVersionIdentifiers.map { .string($0) })
    result["_NSAutoVacuumLevel"] = result["_NSAutoVacuumLevel"] ?? .string("2")
    return .dictionary(result)
  }

  /// Replaces the row of `Z_METADATA` with `metadata`.
  static func write(_ metadata: StoreMetadata, to database: SQLiteDatabase) throws(StoreError) {
    try database.execute("DELETE FROM Z_METADATA", at: "Z_METADATA")
    let statement = try database.prepare(
      "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)", at: "Z_METADATA")
    statement.bind(metadata.identifier.isEmpty ? UUID().uuidString : metadata.identifier, at: 1)
    statement.bind(BinaryPropertyList.encode(propertyList(metadata)), at: 2)
    try statement.run()
  }
}
