import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

// Z_MODELCACHE: the model a Core Data SQLite store was written (or last migrated) with.
//
// Since framework 640, Core Data keeps one row in `Z_MODELCACHE (Z_CONTENT BLOB)`: raw DEFLATE
// (RFC 1951, no zlib header) of a binary property list that is an NSKeyedArchiver archive of
// the NSManagedObjectModel. It is the source model, not a SQL mapping: entities with their
// properties, inheritance, constraints and indexes, and nothing about tables or columns.
//
// Decoding goes in four steps, each checking its input: inflate (at most
// `maximumInflatedBytes`), decode the property list (`BinaryPropertyList`), read it as a keyed
// archive (`KeyedArchive`, shared with the other archive readers, through `ModelCacheArchive`,
// which counts what the reader takes from it), and turn the archived NSManagedObjectModel into
// a `ManagedObjectModel` (`ModelCacheReader`), which FolioModel then resolves as it does a
// model read from Xcode's files: parents, inverses, constraints. Classes Folio does not model
// (derived and composite attributes, fetched properties, predicates) are skipped.

/// Decodes the model a Core Data SQLite store caches in `Z_MODELCACHE`.
package enum SQLiteModelCache {
  /// The most bytes the cache may inflate to. Real caches inflate to under 64 KB.
  static let maximumInflatedBytes = 64 << 20
  /// How many values reading the archive may take per byte of it (``ModelCacheArchive``), as
  /// a property list may expand to 16 nodes per byte. Real caches take under half a value.
  static let maximumValuesPerByte = 16

  /// The model a Core Data SQLite store caches in Z_MODELCACHE.
  ///
  /// - Parameters:
  ///   - blob: `Z_MODELCACHE.Z_CONTENT`, as stored.
  ///   - file: the store's path, named in errors.
  /// - Throws: `StoreError.malformedStore` when the blob is not raw DEFLATE of a keyed archive
  ///   of an NSManagedObjectModel that Folio can build; `StoreError.limitExceeded` when it
  ///   inflates past ``maximumInflatedBytes``, its property list past its limits, or its
  ///   archive past ``maximumValuesPerByte`` values per byte through shared references.
  package static func decode(_ blob: Data, file: String?) throws(StoreError) -> ManagedObjectModel {
    let archiveBytes: [UInt8]
    do {
      archiveBytes = try Zlib.inflateRaw([UInt8](blob), limit: maximumInflatedBytes)
    } catch {
      throw inflateError(error, blob: blob, file: file)
    }
    return try model(ofArchive: archiveBytes, file: file).model
  }

  /// The model that `bytes`, an inflated cache, holds, and how many values reading it took.
  static func model(ofArchive bytes: [UInt8], file: String?) throws(StoreError)
    -> (model: ManagedObjectModel, valuesRead: Int)
  {
    let node: PropertyListNode
    do {
      node = try BinaryPropertyList.decode(Data(bytes), file: file)
    } catch {
      let place = error.location?.byteOffset.map { " (byte \($0) of the inflated archive)" } ?? ""
      throw StoreError(
        error.code, "the model cache's archive is not a valid \(error.message)\(place)",
        at: InputLocation(file: file), underlying: error)
    }
    let archive = try ModelCacheArchive(node, byteCount: bytes.count, file: file)
    let model = try ModelCacheReader(archive: archive, file: file).readModel()
    return (model, archive.valuesRead)
  }

  /// The error for a malformed cache: "the model cache " and `what`.
  static func malformed(_ what: String, file: String?) -> StoreError {
    StoreError(.malformedStore, "the model cache \(what)", at: InputLocation(file: file))
  }

  private static func inflateError(_ failure: InflateFailure, blob: Data, file: String?)
    -> StoreError
  {
    switch failure {
    case .corrupt(let message, _):
      malformed("is not raw DEFLATE data: zlib says \"\(message)\"", file: file)
    case .cutShort, .tooShort:
      malformed("is cut short: its DEFLATE stream does not end", file: file)
    case .trailingBytes(let consumed):
      malformed(
        "has \(blob.count - consumed == 1 ? "1 byte" : "\(blob.count - consumed) bytes") "
          + "after the end of its DEFLATE stream",
        file: file)
    case .tooLong:
      StoreError(
        .limitExceeded, "the model cache inflates to more than \(maximumInflatedBytes) bytes",
        at: InputLocation(file: file))
    }
  }
}
