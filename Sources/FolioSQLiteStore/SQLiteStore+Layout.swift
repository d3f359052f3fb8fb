import FolioModel
import FolioStores
import Foundation

/// Core Data's SQLite layout for another database that keeps it (PostgreSQL): a document is
/// built here as a SQLite database, table for table what a SQLite store holds, and its tables
/// are copied there; reading copies them back into a SQLite database and reads that.
extension SQLiteStore {
  /// Builds a new SQLite database at `path`, where no file is, holding `contents` in Core
  /// Data's layout, as ``write(_:model:to:)`` would write it; errors name `place`.
  ///
  /// - Throws: `StoreError.modelMismatch` for what the layout cannot hold; `.malformedStore`
  ///   for a record that does not fit the model; `.writeFailed`.
  package func buildDatabase(
    _ contents: StoreContents, model: ManagedObjectModel, at path: URL, reportingAs place: String
  ) throws(StoreError) {
    let schema = SQLiteSchema(model: model)
    guard schema.unsupported.isEmpty else {
      throw StoreError(
        .modelMismatch,
        "the model has what a Core Data layout cannot hold: "
          + schema.unsupported.joined(separator: ", "),
        at: InputLocation(file: place))
    }
    do {
      try SQLiteWriter.buildDatabase(contents, schema: schema, model: model, at: path)
    } catch {
      var located = error
      var location = error.location ?? InputLocation()
      location.file = place
      located.location = location
      throw located
    }
  }

  /// The metadata a `Z_METADATA` row holds: its `Z_UUID` and its `Z_PLIST`.
  package static func metadata(identifier: String?, propertyList: Data?, file: String)
    throws(StoreError) -> StoreMetadata
  {
    try SQLiteMetadata.decode(identifier: identifier, propertyList: propertyList, file: file)
  }

  /// `Z_METADATA.Z_PLIST` for `metadata`, as Core Data keeps it.
  package static func metadataPropertyList(_ metadata: StoreMetadata) -> Data {
    BinaryPropertyList.encode(SQLiteMetadata.propertyList(metadata))
  }

  /// `metadata` as a save with `model` writes it: the model's version hashes and identifiers,
  /// and Folio's checksum of them.
  package static func metadata(_ metadata: StoreMetadata, writtenWith model: ManagedObjectModel)
    -> StoreMetadata
  {
    SQLiteWriter.metadata(metadata, of: model)
  }
}

extension SQLiteStore {
  /// The metadata a save in place writes over `old` when the app's own keys of `new` differ
  /// from it: `old` with `new`'s keys, the hash-derived keys kept; `nil` when nothing changed.
  package static func metadata(_ new: StoreMetadata, savedOver old: StoreMetadata)
    -> StoreMetadata?
  {
    guard SQLiteMetadata.appKeys(of: old) != SQLiteMetadata.appKeys(of: new) else { return nil }
    var written = old
    written.userInfo = new.userInfo
    for key in SQLiteMetadata.hashDerivedKeys { written.userInfo[key] = old.userInfo[key] }
    return written
  }
}
