import Folio
import FolioTestSupport
import Foundation
import Testing

/// `folio info` counts objects as the store's records are read, and `folio query` answers a
/// query of stored attributes the same way; with `--load` both answer from the graph a context
/// loaded, the slow twin. Every store must get the same answer both ways.
@Suite("info and query streamed and loaded")
struct StreamedAnswerTests {
  /// Runs `arguments` with and without `--load` and expects the same exit status and output.
  static func expectSame(_ arguments: [String], _ label: String) throws {
    let streamed = try run(folio, arguments)
    let loaded = try run(folio, arguments + ["--load"])
    #expect(streamed.status == loaded.status, "\(label): \(arguments)")
    #expect(streamed.standardError == loaded.standardError, "\(label): \(arguments)")
    #expect(streamed.standardOutput == loaded.standardOutput, "\(label): \(arguments)")
  }

  /// The queries asked of each store: for up to `entities` entities of `model` with stored
  /// attributes, spread over its entities by name, every attribute under a predicate and sorted
  /// by a sortable attribute (what a query answers from the records), or unsorted when it has
  /// none. (A query with relationship keys is answered from the graph both ways; the random
  /// stores ask those.)
  static func queries(of model: ManagedObjectModel, entities: Int = 3) -> [[String]] {
    let sortable: Set<AttributeType> = [
      .string, .integer16, .integer32, .integer64, .double, .float, .decimal, .date, .boolean,
    ]
    let candidates = model.entities.filter {
      !$0.isAbstract && $0.allAttributes.contains { !$0.isTransient }
    }.sorted { $0.name < $1.name }
    let stride = max(1, (candidates.count + entities - 1) / entities)
    return Swift.stride(from: 0, to: candidates.count, by: stride).map { index in
      let entity = candidates[index]
      let stored = entity.allAttributes.filter { !$0.isTransient }
      guard let key = stored.first(where: { sortable.contains($0.attributeType) }) else {
        return [entity.name, "--format", "jsonl"]
      }
      let test =
        key.attributeType == .string
        ? "\(key.name) != nil OR \(key.name) == nil" : "\(key.name) != nil OR TRUEPREDICATE"
      return [entity.name, "--where", test, "--sort", "\(key.name):desc", "--format", "jsonl"]
    }
  }

  /// `info --json` and the queries of `model`, streamed and loaded, on a store.
  static func compare(_ store: [String], model: ManagedObjectModel, _ label: String) throws {
    try expectSame(["info", "--json"] + store, label)
    for query in queries(of: model) {
      try expectSame(["query"] + store + query, label)
    }
  }

  @Test(
    "every corpus SQLite store answers info and query the same streamed and loaded",
    arguments: SQLiteCorpus.available)
  func corpus(store: SQLiteCorpus.Store) throws {
    let url = try SQLiteCorpus.copy(of: store)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let external = "--allow-missing-external-data"
    let bundle = SQLiteCorpus.root.appendingPathComponent(store.bundleFolder)
      .appendingPathComponent(store.bundle)
    // The model the store caches, or the app's for one that caches none.
    if let cached = try SQLiteStore().readModel(from: url) {
      try Self.compare([url.path, external], model: cached, "\(store) (cached model)")
    } else {
      try Self.compare(
        [url.path, "--model", bundle.path, external], model: try SQLiteCorpus.model(of: store),
        "\(store)")
    }
  }

  @Test(
    "every corpus XML store answers info and query the same streamed and loaded",
    arguments: DumpDifferentialTests.xmlCorpusNames)
  func xmlCorpus(name: String) throws {
    let url = DumpDifferentialTests.xmlCorpus.appendingPathComponent(name)
    let model = try XMLStore.inferModel(from: url)
    try Self.compare(
      [url.path, "--drop-dangling-references", "--allow-missing-external-data"], model: model,
      name)
  }

  @Test(
    "random stores with every kind of relationship answer info and query the same streamed and loaded",
    arguments: [4, 5] as [UInt64])
  func randomStores(seed: UInt64) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let modelFolder = try DumpDifferentialTests.everyKindModel(in: folder)
    let model = try ManagedObjectModel(contentsOf: modelFolder)
    let document = try DumpDifferentialTests.randomDocument(model, seed: seed)
    for (name, format) in [
      ("every.sqlite", SQLiteStore()), ("every.xml", XMLStore()), ("every.folio", BinaryStore()),
    ] as [(String, any StoreFormat)] {
      let url = folder.appendingPathComponent(name)
      try document.save(to: url, format: format)
      let store = [url.path, "--model", modelFolder.path]
      try Self.expectSame(["info", "--json"] + store, "seed \(seed) \(name)")
      try Self.expectSame(["info"] + store, "seed \(seed) \(name)")
      for query in [
        ["Card", "--sort", "number:desc", "--limit", "5"],
        ["Node", "--where", "label BEGINSWITH 'n1' OR level > 20", "--sort", "label"],
        ["Special", "--where", "level >= 10 AND level < 30", "--sort", "level:desc"],
        ["Node", "--keys", "label,items.@count,tags.name,partner.number", "--sort", "label"],
      ] {
        try Self.expectSame(["query"] + store + query + ["--format", "jsonl"], "seed \(seed)")
      }
    }
  }
}
