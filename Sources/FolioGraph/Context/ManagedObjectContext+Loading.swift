import FolioModel
import FolioStores
import Foundation

extension ManagedObjectContext {
  /// Fills an empty context with a store's objects, as saved objects: nothing is inserted,
  /// nothing is undoable, no notification is posted. The records become the committed rows the
  /// context works against (its coordinator's, or its own without one).
  ///
  /// Each record becomes an object with the record's ID as its primary key, so permanent IDs
  /// (and the URIs apps keep) stay stable from one session to the next. A relationship whose
  /// inverse the store left out is completed from the side it has; sides that contradict each
  /// other are an error.
  ///
  /// Undo: loading registers nothing.
  ///
  /// - Throws: `GraphError.unknownEntity`, `.unknownKey`, `.typeMismatch` for records that do
  ///   not fit the model; `.objectNotFound` for a relationship naming an ID no record has, or
  ///   sides of a relationship that contradict each other; `.notRegistered` when the context
  ///   already holds objects. On error the context stays empty.
  /// - Complexity: O(*n*) in the records and their relationships.
  package func load(_ contents: StoreContents) throws(GraphError) {
    do {
      try cache.load { (loader: inout GraphLoader) throws(StoreError) in
        try loader.begin(
          metadata: contents.metadata, nextObjectID: contents.nextObjectID,
          recordCount: contents.records.count)
        for record in contents.records { try loader.consume(record) }
        try loader.finish()
      }
    } catch {
      throw Self.graphError(error)
    }
    registerAllObjects()
  }

  /// The graph error for a store error met loading: the `GraphError` it carries, if any.
  static func graphError(_ error: StoreError) -> GraphError {
    if let graphError = error.underlying as? GraphError { return graphError }
    return GraphError(.store, error.message, at: error.location, underlying: error)
  }
}

extension RowCache {
  /// Fills the empty cache with the store in the file at `url`, read with `format` record by
  /// record: the records never exist all at once beside the rows. Returns the store's metadata.
  ///
  /// - Throws: `StoreError`; a record that does not fit the model is a `.modelMismatch`,
  ///   `.typeMismatch` or `.danglingReference` wrapping the `GraphError`.
  ///
  /// A document on a server is read again once when its read fails: a restart may cut a read
  /// short, and the second read is on a new connection. A failure of the document's own fails
  /// both times.
  func load(from url: URL, format: any StoreFormat, model: ManagedObjectModel) throws(StoreError)
    -> StoreMetadata
  {
    var attempts = format is any ServerStoreFormat ? 2 : 1
    while true {
      do {
        return try load { (loader: inout GraphLoader) throws(StoreError) in
          try format.read(from: url, model: model, into: &loader)
        }
      } catch {
        attempts -= 1
        guard attempts == 0 else { continue }
        throw Self.located(error, url)
      }
    }
  }

  /// `error` with the store's place named, when it names none: errors found once every record
  /// is in name the object, not a line.
  private static func located(_ error: StoreError, _ url: URL) -> StoreError {
    var located = error
    if located.location?.file == nil {
      var location = located.location ?? InputLocation()
      location.file = url.isFileURL ? url.relativePath : url.absoluteString
      located.location = location
    }
    return located
  }

  /// Runs `read`, which feeds a loader for this cache, and leaves the cache empty when it
  /// throws. Returns the metadata the loader was given.
  @discardableResult
  func load(_ read: (inout GraphLoader) throws(StoreError) -> Void) throws(StoreError)
    -> StoreMetadata
  {
    guard rows.isEmpty else {
      throw StoreError(
        .malformedStore, "a context loads a store only while it is empty",
        underlying: GraphError(.notRegistered, "a context loads a store only while it is empty"))
    }
    var loader = GraphLoader(cache: self)
    do {
      try read(&loader)
      generation &+= 1
      return loader.metadata
    } catch {
      clear()
      throw error
    }
  }
}

extension GraphError {
  /// An object ID that is not positive, or appears twice.
  static func badID(_ id: Int64, entity: String? = nil) -> GraphError {
    GraphError(
      .typeMismatch, "object ID \(id) is not positive, or appears twice",
      at: entity.map { InputLocation(entity: $0) })
  }
}
