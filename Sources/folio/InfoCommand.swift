import ArgumentParser
import Folio
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

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
    // Before the store is opened, which makes a -wal file beside a store in WAL mode; `nil`
    // for a file that is not a SQLite database.
    let journal = SQLiteJournal(url: try store.url())
    let (source, tally) =
      load
      ? try loadedTally(store, progress: progress)
      : try store.openAndRead(making: { RecordTally() }, progress: progress)
    let (format, model, version) = (source.format, source.model, source.version)
    progress.finish()
    let (metadata, counts, total) = (tally.metadata, tally.counts, tally.total)
    let layout = try StoreLayout(url: source.url, format: format, journal: journal)
    if total == 0, let note = journal?.emptyStoreNote(file: store.file) {
      FileHandle.standardError.write(Data((note + "\n").utf8))
    }
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
    print("\(StoreArgument.isServerURL(store.file) ? "Document" : "File"): \(store.file)")
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
