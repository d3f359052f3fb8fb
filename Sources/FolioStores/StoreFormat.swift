import FolioModel
import Foundation

/// A file format for whole stores, read and written in one piece as Core Data's atomic stores
/// are (its `NSAtomicStore`): everything is loaded into memory, and a save writes the whole
/// store anew, atomically.
///
/// Folio's formats are `XMLStore` (Core Data's XML store) and `BinaryStore` (`.folio`); a third
/// party adds one by implementing this protocol.
public protocol StoreFormat: Sendable {
  /// The format's name, used as the store type in metadata (`"XML"`, `"Binary"`).
  var typeName: String { get }

  /// The file extension a new file of this format gets (`"xml"`, `"folio"`).
  var fileExtension: String { get }

  /// Whether a file whose first bytes are `prefix` (up to 64 of them) is of this format.
  func recognizes(_ prefix: Data) -> Bool

  /// The store's metadata, read without loading its objects.
  ///
  /// - Throws: `StoreError` naming the place in the file.
  func readMetadata(from url: URL) throws(StoreError) -> StoreMetadata

  /// The whole store, its values typed by `model`.
  ///
  /// - Throws: `StoreError` naming the place in the file; `.modelMismatch` when the store's
  ///   objects do not fit `model`.
  func read(from url: URL, model: ManagedObjectModel) throws(StoreError) -> StoreContents

  /// Reads the store at `url` into `consumer`, record by record, its values typed by `model`:
  /// what a context loading a store uses, so that the records never exist all at once.
  ///
  /// A default reads the whole store with ``read(from:model:)`` and hands its records over;
  /// a format that can stream overrides it.
  ///
  /// - Throws: `StoreError` as ``read(from:model:)`` does, and whatever `consumer` throws.
  func read<Consumer: StoreRecordConsumer>(
    from url: URL, model: ManagedObjectModel, into consumer: inout Consumer
  ) throws(StoreError)

  /// Replaces the metadata of the store in the file at `url` without loading its objects
  /// (what `NSPersistentStoreCoordinator.setMetadata(_:forPersistentStoreOfType:at:)` does),
  /// atomically. What describes the objects — entity version hashes, next object ID — stays
  /// the file's.
  ///
  /// The default refuses: a format that cannot rewrite its metadata alone says so.
  ///
  /// - Throws: `StoreError` naming the place in the file; `.writeFailed` when the file cannot
  ///   be written, or the format cannot rewrite metadata alone. The old file is then intact.
  func writeMetadata(_ metadata: StoreMetadata, to url: URL) throws(StoreError)

  /// Writes `contents`, whose values fit `model`, to `url` atomically: the file holds either
  /// its old content or all of the new.
  ///
  /// - Throws: `StoreError.writeFailed`; the old file is then intact.
  func write(_ contents: StoreContents, model: ManagedObjectModel, to url: URL) throws(StoreError)
}
