import FolioModel
import Foundation

/// Checking a store against a model by the entity version hashes its metadata records.
///
/// Folio's version hashes are Core Data's (``ManagedObjectModel/entityVersionHashesByName``);
/// stores Folio wrote before hold its earlier ones, which still match. Folio writes, beside
/// `NSStoreModelVersionHashes`, the key ``folioChecksumKey`` with a checksum of those hashes.
/// When a store's hashes match that checksum they are compared with the model's; when they do
/// not (a store Core Data wrote, or one a Mac re-saved), the store is checked by structure
/// instead, as it is read.
extension StoreMetadata {
  /// The metadata key under which Folio records the checksum of its version hashes.
  public static let folioChecksumKey = "FolioStoreModelVersionHashesChecksum"

  /// The checksum Folio records for `hashes`: FNV-1a (64-bit) over each entity name, a zero
  /// byte and its hash, in the names' byte order, as 16 lowercase hexadecimal digits.
  public static func folioChecksum(of hashes: [String: Data]) -> String {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    func add(_ byte: UInt8) {
      value ^= UInt64(byte)
      value = value &* 0x0000_0100_0000_01b3
    }
    for name in hashes.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes($1.utf8) }) {
      for byte in name.utf8 { add(byte) }
      add(0)
      for byte in hashes[name] ?? Data() { add(byte) }
    }
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// Whether the version hashes are Folio's: the metadata holds Folio's checksum and it matches
  /// them.
  public var hasFolioVersionHashes: Bool {
    guard case .string(let checksum) = userInfo[Self.folioChecksumKey] else { return false }
    return !modelVersionHashes.isEmpty && checksum == Self.folioChecksum(of: modelVersionHashes)
  }

  /// The names of the entities whose version hash differs between this metadata and `model`:
  /// changed, added to the model, or gone from it; sorted.
  ///
  /// - Complexity: O(*e*) in the number of entities.
  public func entitiesWithChangedVersionHashes(comparedWith model: ManagedObjectModel)
    -> [String]
  {
    let changed = changedEntities(comparedWith: model.entityVersionHashesByName)
    guard !changed.isEmpty else { return [] }
    // A store Folio wrote before its hashes were Core Data's holds its earlier ones.
    let legacy = changedEntities(comparedWith: model.legacyEntityVersionHashes)
    return legacy.count < changed.count ? legacy : changed
  }

  private func changedEntities(comparedWith current: [String: Data]) -> [String] {
    var names: Set<String> = []
    for (name, hash) in current where modelVersionHashes[name] != hash { names.insert(name) }
    for name in modelVersionHashes.keys where current[name] == nil { names.insert(name) }
    return names.sorted()
  }

  /// Checks that a store with this metadata was written with `model`, when its version hashes
  /// are Folio's; hashes that are not Folio's (Core Data's) pass, for the store to be checked
  /// by structure as it is read.
  ///
  /// ```swift
  /// let metadata = try XMLStore().readMetadata(from: url)
  /// try metadata.checkVersionHashes(against: model, file: url.path)
  /// ```
  ///
  /// - Parameters:
  ///   - model: The model the store is to be opened with.
  ///   - file: The store's path, for the error's location.
  /// - Throws: `StoreError.modelMismatch` listing the entities that differ.
  public func checkVersionHashes(against model: ManagedObjectModel, file: String? = nil)
    throws(StoreError)
  {
    guard hasFolioVersionHashes else { return }
    let differing = entitiesWithChangedVersionHashes(comparedWith: model)
    guard differing.isEmpty else {
      throw StoreError.versionHashMismatch(differing, file: file)
    }
  }
}
