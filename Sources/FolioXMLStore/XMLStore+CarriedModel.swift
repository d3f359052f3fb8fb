import FolioModel
import FolioStores
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

extension XMLStore: ModelCarryingStoreFormat {
  package var carriedModelPlace: String {
    "carried in the file's metadata (\(Self.carriedModelKey))"
  }
}

extension XMLStore: InferringReadStoreFormat {
  package func inferModel(from url: URL) throws(StoreError) -> ManagedObjectModel {
    try Self.inferModel(from: url)
  }

  package func inferModelForReading(from url: URL) throws(StoreError) -> ManagedObjectModel {
    try Self.inferModelForReading(from: url)
  }

  package var inferredModelPlace: String { "inferred from the file" }

  /// An XML store keeps a to-many relationship's members in an order, without saying whether
  /// the relationship is ordered: written as XML again, that order stays; SQLite and binary
  /// stores record whether it is ordered, which would be a guess.
  package func unfaithfulness(
    of model: ManagedObjectModel, inferredFrom name: String, writtenAs format: any StoreFormat
  ) -> String? {
    guard !(format is XMLStore) else { return nil }
    let toManys = model.entities.flatMap { entity in
      entity.relationships.filter(\.isToMany).map { "\(entity.name).\($0.name)" }
    }.sorted()
    guard let first = toManys.first else { return nil }
    let others = toManys.count > 1 ? " (and \(toManys.count - 1) more)" : ""
    return
      "the model of \"\(name)\" was inferred from it, and an XML store does not say whether \(first)\(others) keeps an order, which a \(format.typeName) store records. Pass --model with the model that wrote it, or convert to .xml"
  }

  package func inferenceCaveat(forFile file: String) -> String? {
    """
    Core Data's XML store writes property names in lower case \
    (and entity names in upper case, matched to its version hashes where it has \
    them): the properties are named as the file spells them, and every one is \
    optional. Compare them with the app's model.
    """
  }

  package func readInferringModel<Consumer>(
    from url: URL, making makeConsumer: () -> Consumer,
    reading read: (ManagedObjectModel, inout Consumer) throws(StoreError) -> Void
  ) throws(StoreError) -> (model: ManagedObjectModel, consumer: Consumer) {
    try Self.readInferringModel(from: url, making: makeConsumer, reading: read)
  }
}
