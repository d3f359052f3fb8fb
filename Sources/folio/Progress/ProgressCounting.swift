import Folio
import Foundation

/// A store format that reads as `base` does and tells `progress` how many objects have been
/// read: what a command hands a coordinator, or reads through, to count objects it never sees
/// one by one. Everything else is `base`'s.
struct ProgressCountingFormat: StoreFormat {
  let base: any StoreFormat
  let progress: ProgressReporter

  var typeName: String { base.typeName }
  var fileExtension: String { base.fileExtension }

  func recognizes(_ prefix: Data) -> Bool { base.recognizes(prefix) }

  func readMetadata(from url: URL) throws(StoreError) -> StoreMetadata {
    try base.readMetadata(from: url)
  }

  /// `base`'s whole store, counted where its whole read is its streaming read collected
  /// (binary and SQLite stores).
  func read(from url: URL, model: ManagedObjectModel) throws(StoreError) -> StoreContents {
    guard progress.isShown, let counting = base as? any CountingWholeRead else {
      return try base.read(from: url, model: model)
    }
    return try counting.read(from: url, model: model) { [progress] in
      progress.count(objects: $0, of: $1)
    }
  }

  func read<Consumer: StoreRecordConsumer>(
    from url: URL, model: ManagedObjectModel, into consumer: inout Consumer
  ) throws(StoreError) {
    guard progress.isShown else { return try base.read(from: url, model: model, into: &consumer) }
    var counting = CountingConsumer(base: consumer) { [progress] in
      progress.count(objects: $0, of: $1)
    }
    // The consumer keeps what it met even when reading fails (`dump` keeps its output's
    // failure), so it goes back to the caller either way.
    defer { consumer = counting.base }
    try base.read(from: url, model: model, into: &counting)
  }

  func writeMetadata(_ metadata: StoreMetadata, to url: URL) throws(StoreError) {
    try base.writeMetadata(metadata, to: url)
  }

  func write(_ contents: StoreContents, model: ManagedObjectModel, to url: URL)
    throws(StoreError)
  {
    try base.write(contents, model: model, to: url)
  }
}

extension ProgressCountingFormat {
  /// `format` counted on `progress`, for a coordinator to read through; a server's format as
  /// it is: the coordinator asks it whether its document exists, which the wrapper cannot
  /// answer, and a document has no file size to count against.
  static func forCoordinator(_ format: any StoreFormat, progress: ProgressReporter)
    -> any StoreFormat
  {
    format is any ServerStoreFormat
      ? format : ProgressCountingFormat(base: format, progress: progress)
  }
}
