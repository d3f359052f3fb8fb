import ArgumentParser
import Folio
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The store formats the CLI reads and writes, recognised by content.
let storeFormats: [any StoreFormat] = [XMLStore(), BinaryStore(), SQLiteStore()]

/// A store file and the model to read it with, for the store commands.
struct StoreOptions: ParsableArguments {
  @Argument(
    help: """
      A store file: a Core Data SQLite or XML store, or a .folio binary store; - reads it \
      from standard input.
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

  /// The store's file; for `-`, standard input saved to a temporary file.
  func url() throws -> URL {
    guard !file.isEmpty else { throw ValidationError("the store's path is empty") }
    return file == "-" ? try StandardInput.file() : URL(fileURLWithPath: file)
  }

  /// The formats to recognise the file among, XML leniency as asked.
  var formats: [any StoreFormat] {
    [
      XMLStore(
        dropsDanglingReferences: dropDanglingReferences, checksVersionHashes: model != nil),
      BinaryStore(),
      SQLiteStore(
        missingExternalData: allowMissingExternalData ? .readAsNil : .fail,
        checksVersionHashes: model != nil),
    ]
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
    if let progress, model == nil, format is XMLStore, try XMLStore().readModel(from: url) == nil {
      progress.begin(.scanning(url, as: "inferring the model"))
    }
    let (model, version, inferred) = try loadModel(for: url, format: format)
    var source = Source(url: url, format: format, model: model, version: version)
    source.modelIsInferred = inferred
    return source
  }

  /// The store, and its records read into a consumer `makeConsumer` makes. An XML store's
  /// model, without `--model`, is inferred while the store is read, by
  /// `XMLStore.readInferringModel`, which may start again with a new consumer: for consumers
  /// that only gather, such as counts.
  func openAndRead<Consumer: StoreRecordConsumer>(
    making makeConsumer: () -> Consumer, progress: ProgressReporter
  ) throws -> (Source, Consumer) {
    let url = try self.url()
    let format = try format(of: url)
    guard model == nil, format is XMLStore, try XMLStore().readModel(from: url) == nil else {
      let source = try open(progress: progress)
      var consumer = makeConsumer()
      try read(source, into: &consumer, progress: progress)
      return (source, consumer)
    }
    progress.begin(.readingWhileInferring(url))
    let counting = ProgressCountingFormat(base: format, progress: progress)
    do {
      let (model, consumer) = try XMLStore.readInferringModel(
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
        at: source.url, format: ProgressCountingFormat(base: source.format, progress: progress))
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
    if format is BinaryStore {
      guard let embedded = try BinaryStore().readModel(from: url) else {
        throw ValidationError(
          "this .folio store was written before version 1.1 and carries no model: pass --model PATH"
        )
      }
      return (embedded, false)
    }
    if let sqlite = format as? SQLiteStore {
      if let cached = try sqlite.readModel(from: url) { return (cached, false) }
      return (try SQLiteStore.inferModel(from: url), true)
    }
    guard format is XMLStore else {
      throw ValidationError(
        "a \(format.typeName) store carries no model to infer: pass --model PATH")
    }
    if let carried = try XMLStore().readModel(from: url) { return (carried, false) }
    // The store is read with the model next, which checks the file: inferring from its tags
    // alone is enough, and a small part of the time.
    return (try XMLStore.inferModelForReading(from: url), true)
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
    if format is BinaryStore { return "carried in the file" }
    if format is SQLiteStore {
      guard let url = try? self.url() else { return "inferred from the file's schema" }
      return (try? SQLiteStore().readModel(from: url)) != nil
        ? "cached in the file (Z_MODELCACHE)" : "inferred from the file's schema"
    }
    guard let url = try? self.url(), (try? XMLStore().readModel(from: url)) != nil else {
      return "inferred from the file"
    }
    return "carried in the file's metadata (\(XMLStore.carriedModelKey))"
  }

  /// The format of the store at `url`; a model given where a store belongs is said to be one,
  /// with where it goes.
  func format(of url: URL) throws -> any StoreFormat {
    // What a killed save or conversion of this store left beside it, and no process holds,
    // goes now: every command that opens a store clears it, not only the next write.
    if file != "-" { Self.removeStaleScratch(besides: url) }
    do {
      return try PersistentStoreCoordinator.format(of: url, among: formats)
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

/// `folio info FILE`: what a store is.
struct InfoCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "info",
    abstract: "Show a store's format, metadata and object counts per entity.",
    discussion: """
      --format json prints one document, as Formats/info.schema.json describes it. Example:
        folio info Samples/Expenses/Expenses.xml

      \(progressHelp)
      """)

  @OptionGroup var store: StoreOptions

  @OptionGroup var output: TextOrJSON

  /// Whether to print JSON: `--format json` or `--json`.
  var json: Bool { output.json }

  @Flag(
    help:
      "Count the objects of the graph loaded into memory first: the same output, the slow way, for checking."
  )
  var load = false

  func run() throws {
    // Counting objects reads no values: external data files a store lacks do not matter.
    var store = self.store
    store.allowMissingExternalData = true
    let progress = try store.progress()
    defer { progress.finish() }
    let (source, tally) =
      load
      ? try loadedTally(store, progress: progress)
      : try store.openAndRead(making: { RecordTally() }, progress: progress)
    let (format, model, version) = (source.format, source.model, source.version)
    progress.finish()
    let (metadata, counts, total) = (tally.metadata, tally.counts, tally.total)
    let layout = try StoreLayout(url: source.url, format: format)
    if json {
      let entities = counts.keys.sorted().map {
        ObjectJSON.string($0) + ":" + "\(counts[$0] ?? 0)"
      }
      let identifiers = metadata.modelVersionIdentifiers.map(ObjectJSON.string)
      print(
        "{\"file\":\(ObjectJSON.string(store.file)),\"format\":\(ObjectJSON.string(format.typeName)),"
          + "\"storeUUID\":\(ObjectJSON.string(metadata.identifier)),"
          + "\"frameworkVersion\":\(metadata.frameworkVersion.map { ObjectJSON.string("\($0)") } ?? "null"),"
          + "\"modelVersionIdentifiers\":[\(identifiers.joined(separator: ","))],"
          + "\"model\":{\"source\":\(ObjectJSON.string(store.modelSource(for: format, version: version))),"
          + "\"version\":\(version.map(ObjectJSON.string) ?? "null"),"
          + "\"entities\":\(model.entities.count)},"
          + "\"objects\":\(total),\"objectsByEntity\":{\(entities.joined(separator: ","))}"
          + "\(layout.json)}"
      )
      return
    }
    print("File: \(store.file)")
    print("Format: \(format.typeName)")
    for line in layout.lines { print(line) }
    print("Store UUID: \(metadata.identifier)")
    if let version = metadata.frameworkVersion { print("Framework version: \(version)") }
    // Core Data records an empty identifier for a model that names none: nothing to show.
    let identifiers = metadata.modelVersionIdentifiers.filter { !$0.isEmpty }
    if !identifiers.isEmpty {
      print("Model version identifiers: \(identifiers.joined(separator: ", "))")
    }
    print(
      "Model: \(store.modelSource(for: format, version: version)), \(model.entities.count) "
        + (model.entities.count == 1 ? "entity" : "entities")
    )
    print("Objects: \(total)")
    for name in counts.keys.sorted() { print("  \(name): \(counts[name] ?? 0)") }
  }
}

/// Counts a store's records by entity as they are read, holding none of them.
extension InfoCommand {
  /// The store opened and its objects counted in a context that loaded it: the slow twin of
  /// the tally taken as the records are read, which must count the same.
  private func loadedTally(_ store: StoreOptions, progress: ProgressReporter) throws -> (
    StoreOptions.Source, RecordTally
  ) {
    let source = try store.open(progress: progress)
    let context = try store.loadContext(source, progress: progress)
    let records = context.persistentRecords()
    var tally = RecordTally()
    tally.begin(
      metadata: context.persistentStoreCoordinator?.persistentStores.first?.metadata
        ?? StoreMetadata(storeType: ""),
      nextObjectID: (records.map(\.id).max() ?? 0) + 1, recordCount: records.count)
    for record in records { tally.consume(record) }
    tally.finish()
    return (source, tally)
  }
}

/// The objects of a store counted by entity as its records are read.
struct RecordTally: StoreRecordConsumer {
  private(set) var metadata = StoreMetadata(storeType: "")
  private(set) var counts: [String: Int] = [:]
  private(set) var total = 0

  mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?) {
    self.metadata = metadata
  }

  mutating func consume(_ record: StoreRecord) {
    counts[record.entityName, default: 0] += 1
    total += 1
  }

  mutating func finish() {}
}

/// `folio convert IN OUT`: a store written again, in the format OUT's extension names.
struct ConvertCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "convert",
    abstract:
      "Write a store again in another format (.sqlite, .xml or .folio, by OUT's extension).",
    discussion: """
      The output is written atomically: an existing OUT is replaced only once the new file is \
      complete. Without --model, OUT records the version hashes IN records, so it opens with \
      the app's model; a conversion that would have to guess what IN does not record (the \
      order of an XML store's to-many relationships, in a SQLite or binary OUT; anything of a \
      SQLite store that caches no model) is refused: pass --model. Example:
        folio convert Samples/Expenses/Expenses.xml Expenses.folio \\
          --model Samples/Expenses/Expenses.xcdatamodeld

      \(progressHelp)
      """)

  @OptionGroup var store: StoreOptions

  @Argument(
    help: "The file to write; its extension chooses the format.",
    completion: Completions.writableStore)
  var output: String

  /// The format OUT's extension names, and that OUT is not the store itself, checked before
  /// anything is read.
  func validate() throws {
    _ = try outputFormat()
    if store.file != "-", Self.isSameFile(store.file, output) {
      throw ValidationError(
        "\"\(output)\" is the store being converted (\"\(store.file)\"): name another file to write"
      )
    }
  }

  /// Why `source`, whose model was inferred from it, cannot be written faithfully in `format`
  /// without the app's model; `nil` when it can. A SQLite store's tables do not say which
  /// integer columns are references, nor a one-to-many's other side; an XML store does not say
  /// whether a to-many relationship keeps an order, which SQLite and binary stores record
  /// (written again as XML, the order it has is kept).
  static func unfaithfulness(of source: StoreOptions.Source, writtenAs format: any StoreFormat)
    -> String?
  {
    guard source.modelIsInferred else { return nil }
    let name = source.url.lastPathComponent
    if source.format is SQLiteStore {
      return
        "the model of \"\(name)\" was inferred from its tables, which keep no model: which columns are references, and the other sides of one-to-many relationships, are guesses. Pass --model with the model that wrote it"
    }
    guard !(format is XMLStore) else { return nil }
    let toManys = source.model.entities.flatMap { entity in
      entity.relationships.filter(\.isToMany).map { "\(entity.name).\($0.name)" }
    }.sorted()
    guard let first = toManys.first else { return nil }
    let others = toManys.count > 1 ? " (and \(toManys.count - 1) more)" : ""
    return
      "the model of \"\(name)\" was inferred from it, and an XML store does not say whether \(first)\(others) keeps an order, which a \(format.typeName) store records. Pass --model with the model that wrote it, or convert to .xml"
  }

  /// Whether the paths `a` and `b` name one file: through symbolic links, hard links or
  /// spellings of the path. A path with no file names none.
  static func isSameFile(_ a: String, _ b: String) -> Bool {
    var first = stat()
    var second = stat()
    guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino
  }

  private func outputFormat() throws -> any StoreFormat {
    let url = URL(fileURLWithPath: output)
    guard
      let format = storeFormats.first(where: { $0.fileExtension == url.pathExtension.lowercased() })
    else {
      throw ValidationError(
        "\"\(output)\": the extension names no store format (use .sqlite, .xml or .folio)")
    }
    return format
  }

  func run() throws {
    let format = try outputFormat()
    let url = URL(fileURLWithPath: output)
    let progress = try store.progress()
    defer { progress.finish() }
    let source = try store.open(progress: progress)
    if let reason = Self.unfaithfulness(of: source, writtenAs: format) {
      throw ValidationError(reason)
    }
    var converted = try store.readContents(source, progress: progress)
    progress.begin(.writing(objects: converted.records.count))
    converted.metadata.storeType = format.typeName
    // Without --model, the model is the one the store carries or one inferred from it, not
    // necessarily the app's: the new file records the hashes and version the original does,
    // so it opens with the app's model (checked by structure) and migrates from it.
    converted.keepsVersionHashes =
      store.model == nil && !converted.metadata.modelVersionHashes.isEmpty
    try format.write(converted, model: source.model, to: url)
  }
}

/// `folio validate FILE`: every object checked against the model's rules.
struct ValidateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "validate",
    abstract: "Check every object of a store against the model's constraints.",
    discussion: """
      Exit status 0 when every object validates, 1 with every failure listed otherwise. \
      Without --model, a .folio store is checked against the model it carries and a SQLite \
      store against the one cached in it, an XML store Folio wrote against the one in its \
      metadata; an XML store Core Data wrote (or a SQLite store that caches none) has only \
      a model inferred from the file, which proves no more than each \
      value's type and each relationship's shape: that is all that is checked, and the \
      output says so. --format json prints the counts, what was checked and every failure \
      (Formats/validate.schema.json), with the same exit status. Example:
        folio validate Samples/Expenses/Expenses.xml \\
          --model Samples/Expenses/Expenses.xcdatamodeld

      \(progressHelp)
      """)

  @OptionGroup var store: StoreOptions

  @OptionGroup var output: TextOrJSON

  /// Whether to print JSON: `--format json` or `--json`.
  var json: Bool { output.json }

  func run() throws {
    let progress = try store.progress()
    defer { progress.finish() }
    let opened = try store.open(progress: progress)
    let (url, format) = (opened.url, opened.format)
    let coordinator = PersistentStoreCoordinator(managedObjectModel: opened.model)
    progress.begin(.reading(opened))
    try coordinator.addPersistentStore(
      at: url, format: ProgressCountingFormat(base: format, progress: progress))
    let context = try ManagedObjectContext(coordinator: coordinator, undoManager: nil)
    let count = context.registeredObjectCount
    let source = store.modelSource(for: format, version: nil)
    let inferred = store.model == nil && source.hasPrefix("inferred")
    progress.begin(.init(name: "validating \(ProgressLine.objects(count, of: nil))"))
    guard json else {
      try context.validateAllObjects()
      progress.finish()
      report(count: count, source: source, inferred: inferred)
      return
    }
    var failures: [ValidationFailure] = []
    do {
      try context.validateAllObjects()
    } catch {
      guard !error.failures.isEmpty else { throw error }
      failures = error.failures
    }
    progress.finish()
    let listed = failures.map { failure in
      "{\"object\":\(ObjectJSON.string(failure.objectID.uriRepresentation.absoluteString)),"
        + "\"entity\":\(ObjectJSON.string(failure.entityName)),"
        + "\"key\":\(failure.key.map(ObjectJSON.string) ?? "null"),"
        + "\"rule\":\(ObjectJSON.string(failure.rule.rawValue)),"
        + "\"message\":\(ObjectJSON.string(failure.message))}"
    }
    print(
      "{\"file\":\(ObjectJSON.string(store.file)),\"objects\":\(count),"
        + "\"model\":\(ObjectJSON.string(source)),"
        + "\"checked\":\(ObjectJSON.string(inferred ? "types and relationship shapes" : "the model's rules")),"
        + "\"valid\":\(failures.isEmpty),\"failures\":[\(listed.joined(separator: ","))]}")
    if !failures.isEmpty { throw ExitCode.failure }
  }

  private func report(count: Int, source: String, inferred: Bool) {
    if inferred {
      print(
        "\(store.file): \(count) objects; the model was \(source), so only each value's type "
          + "and each relationship's shape were checked, and they hold. Pass --model for the "
          + "model's rules (required values, ranges, counts, uniqueness).")
    } else {
      print("\(store.file): \(count) objects, all valid")
    }
  }
}

/// Text renderings of values for `dump`.
enum DumpText {
  static func text(of value: AttributeValue) -> String {
    switch value {
    case .string(let text): return quoted(text)
    case .date(let date): return ObjectJSON.iso8601(date)
    default: return value.modelText
    }
  }

  /// `text` in double quotes, on one line: escaped as a JSON string, as an undo script's
  /// `print` writes strings (`\"`, `\\`, `\n`, `\t`, `\u001b`).
  static func quoted(_ text: String) -> String { ObjectJSON.string(text) }
}

/// Standard input as a file: stores are read by their path (SQLite needs one), so what
/// arrives on standard input is saved once to a temporary file, removed when `folio` ends.
enum StandardInput {
  nonisolated(unsafe) private static var saved: ScratchFile?

  /// The copy is `.folio-stdin.folio-UUID.tmp` in the temporary folder, locked while this
  /// process runs, so one a killed `folio` left is removed by the next that reads `-`.
  static func file() throws -> URL {
    if let saved { return saved.url }
    let name = FileManager.default.temporaryDirectory.appendingPathComponent("folio-stdin")
    let scratch: ScratchFile
    do {
      scratch = try ScratchFile(besides: name)
    } catch {
      throw CommandFailure("cannot keep standard input beside \(name.path): \(error.message)")
    }
    let data = FileHandle.standardInput.readDataToEndOfFile()
    do {
      try data.write(to: scratch.url)
    } catch {
      scratch.discard()
      throw CommandFailure(
        "cannot keep standard input in \(scratch.url.path): \(error.localizedDescription)")
    }
    saved = scratch
    return scratch.url
  }

  /// Removes the saved copy, if there is one.
  static func remove() {
    saved?.discard()
    saved = nil
  }

  /// Standard input as text, for a script given as `-`.
  static func text() -> String {
    String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
  }
}
