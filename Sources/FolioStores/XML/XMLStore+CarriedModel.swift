import FolioModel
import Foundation

/// The model an XML store carries: Folio writes the model a store was saved with into its
/// metadata, so the store opens whole, with every relationship's order and inverse, where
/// nothing else is at hand. Core Data keeps the key as one of the app's own and ignores it.
extension XMLStore {
  /// The metadata key holding the carried model: a dictionary of ``carriedModelContentsKey``
  /// (the Xcode model text) and ``carriedModelChecksumKey`` (Folio's checksum of the
  /// `NSStoreModelVersionHashes` written beside it).
  public static let carriedModelKey = "FolioStoreModel"
  static let carriedModelContentsKey = "contents"
  static let carriedModelChecksumKey = "versionHashesChecksum"

  /// The metadata value carrying `model`, written beside the entity version hashes `hashes`.
  static func carriedModelValue(_ model: ManagedObjectModel, hashes: [String: Data])
    -> PropertyListValue
  {
    .dictionary([
      carriedModelContentsKey: .string(model.xcodeModelXML()),
      carriedModelChecksumKey: .string(StoreMetadata.folioChecksum(of: hashes)),
    ])
  }

  /// The model the store at `url` was written with, when a Folio writer stored it in the
  /// metadata and the entity version hashes beside it are still the ones it was written with;
  /// `nil` for a store Core Data wrote, or one a Mac has since saved with another model (its
  /// hashes changed, so the model carried describes an older version). Only the header is read.
  ///
  /// - Throws: as ``readMetadata(from:)``; `.malformedStore` at the header when the carried
  ///   value is not a dictionary of two strings, or holds a model that does not load.
  public func readModel(from url: URL) throws(StoreError) -> ManagedObjectModel? {
    let parser = try XMLStoreParser(url: url, parsesAhead: false)
    guard let value = parser.carriedModel else { return nil }
    let location = InputLocation(file: url.path, line: 1)
    guard case .dictionary(let entries) = value,
      case .string(let contents) = entries[Self.carriedModelContentsKey],
      case .string(let checksum) = entries[Self.carriedModelChecksumKey]
    else {
      throw StoreError(
        .malformedStore,
        "the metadata's \"\(Self.carriedModelKey)\" is not a dictionary holding the strings \"\(Self.carriedModelContentsKey)\" and \"\(Self.carriedModelChecksumKey)\"",
        at: location)
    }
    guard checksum == StoreMetadata.folioChecksum(of: parser.metadata.modelVersionHashes) else {
      return nil
    }
    do {
      return try ManagedObjectModel(
        xcodeModelData: Data(contents.utf8),
        path: "\(url.path) (metadata \"\(Self.carriedModelKey)\")")
    } catch {
      throw StoreError(.malformedStore, "the carried model does not load: \(error)", at: location)
    }
  }
}
