import FolioModel
import Foundation

// What a format can do beyond reading and writing records, asked through protocols rather
// than of concrete formats: a tool that opens "any store" (the CLI, a script's `open`) needs
// no list of formats but the one it recognises files among.

/// A format whose files may carry the model they were written with.
package protocol ModelCarryingStoreFormat: StoreFormat {
  /// The model the store at `url` carries; `nil` when it carries none.
  ///
  /// - Throws: `StoreError` when the file is not of this format, or its model cannot be
  ///   decoded.
  func readModel(from url: URL) throws(StoreError) -> ManagedObjectModel?

  /// Where the model a file carries is kept, as `folio info` says it: `carried in the file`.
  var carriedModelPlace: String { get }

  /// Why a file of this format may carry no model, for a format that cannot infer one:
  /// `this .folio store was written before version 1.1 and carries no model`.
  var missingModelReason: String { get }
}

extension ModelCarryingStoreFormat {
  package var missingModelReason: String { "this \(typeName) store carries no model" }
}

/// A format from whose files a model can be inferred, for a store that carries none.
package protocol ModelInferringStoreFormat: StoreFormat {
  /// The model inferred from the store at `url`, whole: what `folio model infer` prints.
  func inferModel(from url: URL) throws(StoreError) -> ManagedObjectModel

  /// A model to read the store at `url` with, inferred as cheaply as the read that follows
  /// allows (that read checks the file); ``inferModel(from:)`` unless the format knows better.
  func inferModelForReading(from url: URL) throws(StoreError) -> ManagedObjectModel

  /// Where an inferred model came from, as `folio info` says it: `inferred from the file`.
  var inferredModelPlace: String { get }

  /// Why the objects of the store named `name`, read with `model` inferred from it, would not
  /// be written faithfully as `format` (a guess the other format would record as fact); `nil`
  /// when they would be.
  func unfaithfulness(
    of model: ManagedObjectModel, inferredFrom name: String,
    writtenAs format: any StoreFormat
  ) -> String?

  /// What an inferred model cannot say of the store at `file`, for a reader comparing it with
  /// the app's model; `nil` when there is nothing to add.
  func inferenceCaveat(forFile file: String) -> String?
}

extension ModelInferringStoreFormat {
  package func inferModelForReading(from url: URL) throws(StoreError) -> ManagedObjectModel {
    try inferModel(from: url)
  }

  package func inferenceCaveat(forFile file: String) -> String? { nil }
}

/// A format that can infer a store's model in the same pass that reads its records, starting
/// the read again with a new consumer when the model grows: quicker than inferring first.
package protocol InferringReadStoreFormat: ModelInferringStoreFormat {
  /// The model inferred from the store at `url`, and a consumer `makeConsumer` made that
  /// `read` filled with the store's records read with that model.
  func readInferringModel<Consumer>(
    from url: URL, making makeConsumer: () -> Consumer,
    reading read: (ManagedObjectModel, inout Consumer) throws(StoreError) -> Void
  ) throws(StoreError) -> (model: ManagedObjectModel, consumer: Consumer)
}

/// A format whose stores live on a server and are named by URLs of its own schemes
/// (`postgresql://…`), not by files: the coordinator asks it whether a store exists, and
/// knows other writers by its connection's change counter rather than by a file's stamp.
public protocol ServerStoreFormat: StoreFormat {
  /// The URL schemes that name its stores, lowercase: `["postgresql", "postgres"]`.
  var urlSchemes: Set<String> { get }

  /// Whether `url` names a store that exists now.
  ///
  /// - Throws: `StoreError` when the server cannot be asked (unreachable, refused login).
  func storeExists(at url: URL) throws(StoreError) -> Bool
}

/// A format whose stores are replaced in place by a transform of themselves in one
/// transaction that holds the store's write lock from before the read until the commit: what a
/// migration of a document on a server needs, which has no file to write beside it and rename.
/// No other writer's save lands between the read and the replace, and a failure anywhere
/// leaves the store as it was. Its stores keep Core Data's SQLite layout, key spaces included.
package protocol TransactionalStoreFormat: StoreFormat {
  /// Reads the store at `url` with `model` under its write lock, and writes what `transform`
  /// makes of its contents (new contents and their model) in its place, in the same
  /// transaction; when `transform` gives `nil`, nothing is written.
  ///
  /// - Throws: `StoreError` from the read or the write; what `transform` throws, as it is.
  ///   The store is then as it was.
  func replace(
    at url: URL, readingWith model: ManagedObjectModel,
    by transform: (StoreContents) throws -> (contents: StoreContents, model: ManagedObjectModel)?
  ) throws
}

/// Whether a store exists at `url`: a file there, or for a server's format, what the server
/// says.
package func storeExists(at url: URL, format: (any StoreFormat)?) throws(StoreError) -> Bool {
  if let server = format as? any ServerStoreFormat { return try server.storeExists(at: url) }
  return FileManager.default.fileExists(atPath: url.path)
}

extension URL {
  /// How a store at this URL is named in messages: a file's path, or a server's URL.
  package var storePlace: String { isFileURL ? path : absoluteString }
}
