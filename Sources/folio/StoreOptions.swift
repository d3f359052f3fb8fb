import ArgumentParser
import Folio
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A store file and the model to read it with, for the store commands.
struct StoreOptions: ParsableArguments {
  @Argument(
    help: """
      A store file: a Core Data SQLite or XML store, or a .folio binary store; - reads it \
      from standard input. A PostgreSQL document is named by its URL, \
      postgresql://USER@HOST:PORT/DATABASE?schema=NAME.
      """,
    completion: Completions.store)
  var file: String

  @Option(
    help: """
      The model the store was written with (.xcdatamodeld, .xcdatamodel or contents). \
      Without it, a .folio store's model is the one it carries, a SQLite store's the one \
      cached in it, an XML store's the one Folio wrote into its metadata, and an XML store \
      Core Data wrote has one inferred from the file.
      """,
    completion: Completions.model)
  var model: String?

  @Flag(
    help: """
      Open an XML store even if some relationships name objects the file does not contain \
      (such targets are left out); without it, such a store is refused.
      """)
  var dropDanglingReferences = false

  @Flag(
    help: """
      Open a SQLite store even if some binary values it keeps in external files are missing \
      (they read as empty); without it, such a store is refused.
      """)
  var allowMissingExternalData = false

  /// A server's URL is checked before anything is read: one with a password is bad usage.
  func validate() throws {
    if file != "-" { try StoreArgument.check(file) }
  }

  /// The store's URL: a file's, a server's (``StoreArgument``), or for `-`, standard input
  /// saved to a temporary file.
  func url() throws -> URL {
    guard !file.isEmpty else { throw ValidationError("the store's path is empty") }
    return file == "-" ? try StandardInput.file() : try StoreArgument.url(file)
  }

  /// The formats to recognise the file among, read as leniently as the options ask.
  var formats: [any StoreFormat] {
    FormatRegistry.formats(
      .init(
        dropsDanglingReferences: dropDanglingReferences, checksVersionHashes: model != nil,
        allowsMissingExternalData: allowMissingExternalData))
  }

  /// Whether, without `--model`, the model of the store at `url` in `format` is to be
  /// inferred: the format can, and the file carries none.
  func infersModel(of url: URL, format: any StoreFormat) throws -> Bool {
    guard model == nil, format is any ModelInferringStoreFormat else { return false }
    guard let carrying = format as? any ModelCarryingStoreFormat else { return true }
    return try carrying.readModel(from: url) == nil
  }

  /// The whole store `source` names, its records in the file's order; `progress` shows the
  /// bytes read.
  func readContents(_ source: Source, progress: ProgressReporter) throws -> StoreContents {
    progress.begin(.reading(source, isWhole: true))
    let format = ProgressCountingFormat(base: source.format, progress: progress)
    do {
      return try format.read(from: source.url, model: source.model)
    } catch {
      throw hinted(error)
    }
  }

  /// A store recognised and its model found, ready to be read.
  struct Source {
    var url: URL
    var format: any StoreFormat
    var model: ManagedObjectModel
    /// The version of a bundle `--model` names that the store was found to be written with.
    var version: String?
    /// Whether the model was inferred from the store's content (an XML store, a SQLite store
    /// that caches none), not given or carried by the store: it is then not the app's model,
    /// and a store written with it keeps the version hashes the original records.
    var modelIsInferred = false
  }

  /// The store's file, format and model, before any object is read; `progress` shows the
  /// pass over the file that infers an XML store's model.
  func open(progress: ProgressReporter? = nil) throws -> Source {
    let url = try self.url()
    let format = try format(of: url)
    if let progress, FormatRegistry.entry(for: format)?.inferenceReadsFile == true,
      try infersModel(of: url, format: format)
    {
      progress.begin(.scanning(url, as: "inferring the model"))
    }
    let (model, version, inferred) = try loadModel(for: url, format: format)
    var source = Source(url: url, format: format, model: model, version: version)
    source.modelIsInferred = inferred
    return source
  }

  /// The store, and its records read into a consumer `makeConsumer` makes. Without `--model`,
  /// the model of a store whose format can infer it as it reads (XML) is inferred while the
  /// store is read, which may start again with a new consumer: for consumers that only
  /// gather, such as counts.
  func openAndRead<Consumer: StoreRecordConsumer>(
    making makeConsumer: () -> Consumer, progress: ProgressReporter
  ) throws -> (Source, Consumer) {
    let url = try self.url()
    let format = try format(of: url)
    guard let inferring = format as? any InferringReadStoreFormat,
      try infersModel(of: url, format: format)
    else {
      let source = try open(progress: progress)
      var consumer = makeConsumer()
      try read(source, into: &consumer, progress: progress)
      return (source, consumer)
    }
    progress.begin(.readingWhileInferring(url))
    let counting = ProgressCountingFormat(base: format, progress: progress)
    do {
      let (model, consumer) = try inferring.readInferringModel(
        from: url, making: makeConsumer,
        reading: { model, consumer throws(StoreError) in
          try counting.read(from: url, model: model, into: &consumer)
        })
      var source = Source(url: url, format: format, model: model)
      source.modelIsInferred = true
      return (source, consumer)
    } catch {
      throw hinted(error)
    }
  }

  /// A context holding the whole store `source` names, loaded through a coordinator of its
  /// own; `progress` shows the bytes and objects read.
  func loadContext(_ source: Source, progress: ProgressReporter) throws -> ManagedObjectContext {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: source.model)
    progress.begin(.reading(source))
    do {
      try coordinator.addPersistentStore(
        at: source.url,
        format: ProgressCountingFormat.forCoordinator(source.format, progress: progress))
    } catch {
      throw hinted(error)
    }
    return try ManagedObjectContext(coordinator: coordinator, undoManager: nil)
  }

  /// Reads `source`'s records into `consumer`, one at a time where the format can; `progress`
  /// shows the bytes and objects read.
  func read<Consumer: StoreRecordConsumer>(
    _ source: Source, into consumer: inout Consumer, progress: ProgressReporter
  ) throws {
    progress.begin(.reading(source))
    let format = ProgressCountingFormat(base: source.format, progress: progress)
    do {
      try format.read(from: source.url, model: source.model, into: &consumer)
    } catch {
      throw hinted(error)
    }
  }

  /// The model, and with `--model` naming a bundle, the name of the version found to have
  /// written the store.
  func loadModelAndVersion(for url: URL, format: any StoreFormat) throws -> (
    model: ManagedObjectModel, version: String?
  ) {
    let (model, version, _) = try loadModel(for: url, format: format)
    return (model, version)
  }

  /// The model, the bundle version found (with `--model` naming a bundle), and whether the
  /// model was inferred from the store rather than given or carried by it.
  func loadModel(for url: URL, format: any StoreFormat) throws -> (
    model: ManagedObjectModel, version: String?, inferred: Bool
  ) {
    if let model {
      if let version = try bundleVersion(for: url, format: format) {
        return (version.model, version.name, false)
      }
      return (try ManagedObjectModel(contentsOf: URL(fileURLWithPath: model)), nil, false)
    }
    let (found, inferred) = try inferredOrCarriedModel(for: url, format: format)
    return (found, nil, inferred)
  }

  private func inferredOrCarriedModel(for url: URL, format: any StoreFormat) throws
    -> (model: ManagedObjectModel, inferred: Bool)
  {
    let carrying = format as? any ModelCarryingStoreFormat
    if let carried = try carrying?.readModel(from: url) { return (carried, false) }
    guard let inferring = format as? any ModelInferringStoreFormat else {
      throw ValidationError(
        (carrying?.missingModelReason ?? "a \(format.typeName) store carries no model")
          + ": pass --model PATH")
    }
    // The store is read with the model next, which checks the file: the format may infer
    // from less than a whole parse.
    return (try inferring.inferModelForReading(from: url), true)
  }

  /// With `--model` naming a bundle of several versions, the version that wrote the store at
  /// `url`, found by the version hashes its metadata records; `nil` otherwise (the bundle's
  /// current version is used, and the store is checked as it is read).
  func bundleVersion(for url: URL, format: any StoreFormat) throws -> ModelBundle.Version? {
    guard let model, model.hasSuffix(".xcdatamodeld") || model.hasSuffix(".xcdatamodeld/")
    else { return nil }
    let bundle = try ModelBundle(contentsOf: URL(fileURLWithPath: model))
    guard bundle.versions.count > 1 else { return nil }
    let metadata = try format.readMetadata(from: url)
    return bundle.version(
      matchingVersionHashes: metadata.modelVersionHashes,
      identifiers: metadata.modelVersionIdentifiers)
  }

  /// Where the model came from, for `info`; `version` is the bundle's version `read()` found.
  func modelSource(for format: any StoreFormat, version: String?) -> String {
    if let model {
      if let version { return "\(model), version \(version) (found by the store's version hashes)" }
      return model
    }
    if let carrying = format as? any ModelCarryingStoreFormat, let url = try? self.url(),
      (try? carrying.readModel(from: url)) != nil
    {
      return carrying.carriedModelPlace
    }
    if let inferring = format as? any ModelInferringStoreFormat {
      return inferring.inferredModelPlace
    }
    return (format as? any ModelCarryingStoreFormat)?.carriedModelPlace ?? "none"
  }

  /// The format of the store at `url`; a model given where a store belongs is said to be one,
  /// with where it goes.
  func format(of url: URL) throws -> any StoreFormat {
    // What a killed save or conversion of this store left beside it, and no process holds,
    // goes now: every command that opens a store clears it, not only the next write.
    if file != "-" { Self.removeStaleScratch(besides: url) }
    do {
      let format = try PersistentStoreCoordinator.format(of: url, among: formats)
      // A coordinator takes a schema without a document for a new, empty one: a command
      // reads a document that is there, or fails naming the URL.
      if format is any ServerStoreFormat { _ = try format.readMetadata(from: url) }
      return format
    } catch {
      guard error.code == .unknownFormat, error.message.hasPrefix("is a Core Data model") else {
        throw error
      }
      var hinted = error
      hinted.message +=
        ": give it as --model, with the store first; 'folio model info \(file)' describes it"
      throw hinted
    }
  }

  /// Removes what killed writes of the store at `url` or of its kept undo history left beside
  /// it, when no process holds it (``AtomicFile/removeStaleTemporaries(for:)``).
  static func removeStaleScratch(besides url: URL) {
    guard url.isFileURL else { return }
    AtomicFile.removeStaleTemporaries(for: url)
    AtomicFile.removeStaleTemporaries(
      for: url.deletingLastPathComponent().appendingPathComponent(
        url.lastPathComponent + ".folio-undo"))
  }

  /// `error`, with a hint when a flag would have opened the store.
  func hinted(_ error: StoreError) -> StoreError {
    guard error.code == .danglingReference else { return error }
    var hinted = error
    if error.message.contains("external file") {
      guard !allowMissingExternalData else { return error }
      hinted.message += " (pass --allow-missing-external-data to open the store without them)"
    } else {
      guard !dropDanglingReferences else { return error }
      hinted.message += " (pass --drop-dangling-references to open the store without them)"
    }
    return hinted
  }
}
