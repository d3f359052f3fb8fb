import FolioTestSupport
import Foundation
import Testing

/// `folio query` answers a query of stored attributes from the records as it reads them, and
/// any other through a context; both give the same rows in the same order.
@Suite("folio query from records")
struct QueryStreamingTests {
  /// Stores of every format with their models' arguments: the samples, and where ../shared is,
  /// copies of the corpus's SQLite stores (each with the model Core Data cached in it). Copies,
  /// with their `-wal` and `-shm` files: reading a store in WAL mode rewrites its `-shm`, and
  /// the corpus is never written.
  static let stores: [[String]] = {
    var stores: [[String]] = [
      ["Samples/Expenses/Expenses.xml", "--model", "Samples/Expenses/Expenses.xcdatamodeld"],
      ["Samples/Expenses/Expenses.xml"],
    ]
    let corpus = packageRoot.appendingPathComponent("../shared/corpus/sqlite")
    let folders = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []
    guard !folders.isEmpty, let scratch = try? makeTemporaryFolder() else { return stores }
    for folder in folders.sorted() {
      let path = corpus.appendingPathComponent(folder)
      let files = (try? FileManager.default.contentsOfDirectory(atPath: path.path)) ?? []
      let copies = scratch.appendingPathComponent(folder)
      try? FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
      for file in files.sorted() where file.hasSuffix(".sqlite") {
        for suffix in ["", "-wal", "-shm"] {
          try? FileManager.default.copyItem(
            at: path.appendingPathComponent(file + suffix),
            to: copies.appendingPathComponent(file + suffix))
        }
        stores.append([copies.appendingPathComponent(file).path])
      }
    }
    return stores
  }()

  /// The entities of the store `store` with objects, from `folio info --json`.
  func entities(_ store: [String]) throws -> [String] {
    let info = try run(folio, ["info", "--json"] + store)
    #expect(info.status == 0, "\(store): \(info.standardError)")
    let json = try JSONSerialization.jsonObject(with: Data(info.standardOutput.utf8))
    let counts = (json as? [String: Any])?["objectsByEntity"] as? [String: Int] ?? [:]
    return counts.filter { $0.value > 0 }.keys.sorted()
  }

  /// `folio query` with `arguments` answered from records, and through a context (the same
  /// query with `SELF == SELF` added, which only a context answers).
  func bothWays(_ store: [String], _ entity: String, where predicate: String?, _ more: [String])
    throws -> (streamed: ProcessResult, context: ProcessResult)
  {
    let base = ["query", store[0], entity, "--format", "jsonl"] + store.dropFirst() + more
    let streamed = try run(folio, base + (predicate.map { ["--where", $0] } ?? []))
    let context = try run(
      folio, base + ["--where", predicate.map { "(\($0)) AND SELF == SELF" } ?? "SELF == SELF"])
    return (streamed, context)
  }

  static func same(_ a: ProcessResult, _ b: ProcessResult) -> Bool {
    a.status == b.status && a.standardOutput == b.standardOutput
      && a.standardError == b.standardError
  }

  /// The sample in the binary and SQLite formats, made once.
  static let converted: Result<[[String]], any Error> = Result {
    let folder = try makeTemporaryFolder()
    return try ["expenses.folio", "expenses.sqlite"].map { name in
      let url = folder.appendingPathComponent(name)
      let converted = try run(folio, ["convert"] + stores[0] + [url.path])
      guard converted.status == 0 else { throw ConversionFailed(message: converted.standardError) }
      return [url.path]
    }
  }

  struct ConversionFailed: Error {
    var message: String
  }

  @Test(
    "every store's entities give the same rows from records as from a context",
    arguments: stores.indices.map { $0 } + [-1, -2])
  func sameRows(index: Int) throws {
    let store = index >= 0 ? Self.stores[index] : try Self.converted.get()[-index - 1]
    // The samples' every entity; one of each corpus store, whose objects are many.
    let isSample = !store[0].contains("/corpus/")
    var compared = 0
    for entity in try entities(store).prefix(isSample ? 3 : 1) {
      let (all, allByContext) = try bothWays(store, entity, where: nil, [])
      #expect(Self.same(all, allByContext), "\(store) \(entity)")
      // The attributes, from the first row's keys, in the order they are printed.
      let first = all.standardOutput.split(separator: "\n").first.map(String.init) ?? "{}"
      let keys =
        (try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])?.keys
        .sorted() ?? []
      guard let a = keys.first, let b = keys.last else { continue }
      var queries: [(String?, [String])] = [
        ("\(b) == nil OR \(a) != nil", ["--sort", "\(b):desc", "--sort", a, "--limit", "7"])
      ]
      if isSample {
        queries += [
          (nil, ["--sort", "\(a):desc", "--limit", "5"]), ("\(a) != nil", ["--sort", b]),
        ]
      }
      for (predicate, more) in queries {
        let (streamed, context) = try bothWays(store, entity, where: predicate, more)
        #expect(Self.same(streamed, context), "\(store) \(entity) \(predicate ?? "") \(more)")
        compared += 1
      }
    }
    #expect(compared >= 1, "\(store): no entity with objects and attributes")
  }

  @Test("a query of attributes is answered from records, without the checks a context makes")
  func answeredFromRecords() throws {
    // Ada's spendings claim a spending whose person is Bob: a context refuses the two sides,
    // but a query of attributes reads no relationship.
    let text = """
      <?xml version="1.0"?>
      <database>
        <databaseInfo><version>134481920</version><UUID>U</UUID><nextObjectID>10</nextObjectID>
        </databaseInfo>
        <object type="PERSON" id="z1"><attribute name="name" type="string">Ada</attribute>
          <relationship name="spendings" type="0/0" destination="SPENDING" idrefs="z2 z3"/>
        </object>
        <object type="PERSON" id="z4"><attribute name="name" type="string">Bob</attribute>
          <relationship name="spendings" type="0/0" destination="SPENDING"/></object>
        <object type="SPENDING" id="z3"><attribute name="amount" type="double">2</attribute>
          <relationship name="person" type="1/1" destination="PERSON" idrefs="z4"/></object>
        <object type="SPENDING" id="z2"><attribute name="amount" type="double">1</attribute>
          <relationship name="person" type="1/1" destination="PERSON" idrefs="z1"/></object>
      </database>
      """
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("store.xml")
    try Data(text.utf8).write(to: store)
    let model = ["--model", "Samples/Expenses/Expenses.xcdatamodeld"]
    let (streamed, context) = try bothWays(
      [store.path] + model, "Spending", where: "amount > 0", ["--keys", "amount"])
    #expect(streamed.status == 0, "\(streamed.standardError)")
    // In ID order, not the file's.
    #expect(streamed.standardOutput == "{\"amount\":1.0}\n{\"amount\":2.0}\n")
    #expect(context.status == 1 && context.standardError.contains("disagree"))
  }
}
