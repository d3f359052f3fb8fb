import Folio
import FolioTestSupport
import Foundation
import Testing

/// Models travel with the data: a SQLite store Folio writes carries its model, so it opens
/// whole where no model is at hand.
@Suite("Models travel with the data")
struct ModelTravelTests {
  @Test(
    "a SQLite store converted without a model keeps every relationship through another conversion")
  func sqliteToSQLiteToXML() throws {
    let recipes = SQLiteCorpus.root.appendingPathComponent(
      "alhoqbani__AppleSample-iPhoneCoreDataRecipes__Recipes/Recipes.sqlite")
    guard SQLiteCorpus.isPresent else { return }
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let copy = folder.appendingPathComponent("r.sqlite").path
    let xml = folder.appendingPathComponent("r.xml").path
    #expect(try run(folio, ["convert", recipes.path, copy]).status == 0)
    let converted = try run(folio, ["convert", copy, xml])
    #expect(converted.status == 0, "\(converted.standardError)")
    // Each recipe lists its ingredients, as the original's model says.
    for store in [recipes.path, copy, xml] {
      let counts = try run(
        folio, ["query", store, "Recipe", "--keys", "ingredients.@count", "--format", "csv"])
      #expect(
        counts.standardOutput.split(separator: "\r\n").dropFirst().prefix(3) == ["7", "4", "8"],
        "\(store)")
    }
  }

  @Test("a SQLite store written with a model opens without it, to-many sides and all")
  func withoutModel() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("e.sqlite").path
    let written = try run(
      folio,
      [
        "convert", "Samples/Expenses/Expenses.xml", store, "--model",
        "Samples/Expenses/Expenses.xcdatamodeld",
      ])
    #expect(written.status == 0, "\(written.standardError)")
    let query = try run(
      folio, ["query", store, "Person", "--keys", "name,spendings.@count", "--format", "csv"])
    #expect(query.status == 0, "\(query.standardError)")
    #expect(query.standardOutput.contains("Ada Lovelace,2"))
    // The model it carries is the one it was written with: it opens with that model too.
    let info = try run(folio, ["info", store, "--model", "Samples/Expenses/Expenses.xcdatamodeld"])
    #expect(info.status == 0, "\(info.standardError)")
  }

  @Test("a store Folio wrote is refused with another version of its model, SQLite as XML")
  func otherVersionRefused() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let bundle = "Samples/Library/Library.xcdatamodeld"
    for name in ["l.sqlite", "l.xml", "l.folio"] {
      let store = folder.appendingPathComponent(name).path
      let written = try run(
        folio,
        [
          "convert", "Samples/Library/Library.xml", store, "--model",
          "\(bundle)/Library 1.xcdatamodel",
        ])
      #expect(written.status == 0, "\(written.standardError)")
      let other = try run(folio, ["info", store, "--model", "\(bundle)/Library 2.xcdatamodel"])
      #expect(other.status == 1, "\(name)")
      #expect(
        other.standardError.contains("the store was written with another model: entities "),
        "\(name): \(other.standardError)")
      // The bundle finds the version that wrote it.
      #expect(try run(folio, ["info", store, "--model", bundle]).status == 0, "\(name)")
    }
  }

  /// The entity version hashes the store at `path` records, from its metadata.
  static func hashes(_ path: String) throws -> [String: Data] {
    try PersistentStoreCoordinator.metadataForPersistentStore(
      at: URL(fileURLWithPath: path), formats: [XMLStore(), BinaryStore(), SQLiteStore()]
    ).modelVersionHashes
  }

  /// How many objects and relationship links `folio dump --jsonl` shows, by entity.
  static func shape(_ arguments: [String]) throws -> [String: [Int]] {
    let dump = try run(folio, ["dump", "--jsonl", "--allow-missing-external-data"] + arguments)
    var counts: [String: [Int]] = [:]
    for line in dump.standardOutput.split(separator: "\n") {
      guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let entity = object["entity"] as? String
      else { continue }
      var links = 0
      for (_, value) in object["relationships"] as? [String: Any] ?? [:] {
        if let list = value as? [Any] { links += list.count } else if value is String { links += 1 }
      }
      let now = counts[entity] ?? [0, 0]
      counts[entity] = [now[0] + 1, now[1] + links]
    }
    return counts
  }

  @Test(
    "every corpus store converted SQLite to SQLite to XML to binary to SQLite without a model keeps its relationships and hashes, and opens with the app's model",
    arguments: SQLiteCorpus.available)
  func corpusRoundTrip(store: SQLiteCorpus.Store) throws {
    let original = try SQLiteCorpus.copy(of: store)
    let folder = original.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: folder) }
    let bundle = SQLiteCorpus.root.appendingPathComponent(store.bundleFolder)
      .appendingPathComponent(store.bundle).path
    let external = "--allow-missing-external-data"
    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
    // A store that caches its model needs none; one that caches none is refused without it.
    let first = try run(folio, ["convert", original.path, path("a.sqlite"), external])
    let cachesModel = try SQLiteStore().readModel(from: original) != nil
    if !cachesModel {
      #expect(first.status == 64)
      #expect(first.standardError.contains("inferred from its tables"))
      let given = try run(
        folio, ["convert", original.path, path("a.sqlite"), "--model", bundle, external])
      #expect(given.status == 0, "\(store): \(given.standardError)")
    } else {
      #expect(first.status == 0, "\(store): \(first.standardError)")
    }
    let xml = try run(folio, ["convert", path("a.sqlite"), path("b.xml"), external])
    #expect(xml.status == 0, "\(store): \(xml.standardError)")
    // The XML store carries the model it was written with in its metadata: it is written as
    // binary, orders and all, without one.
    #expect(try XMLStore().readModel(from: URL(fileURLWithPath: path("b.xml"))) != nil)
    let binary = try run(folio, ["convert", path("b.xml"), path("c.folio"), external])
    #expect(binary.status == 0, "\(store): \(binary.standardError)")
    let last = try run(folio, ["convert", path("c.folio"), path("d.sqlite"), external])
    #expect(last.status == 0, "\(store): \(last.standardError)")
    // The hashes are the original's (those of the model given, for a store that caches none),
    // at every step, and so are the objects and their links.
    if cachesModel {
      #expect(try Self.hashes(path("a.sqlite")) == Self.hashes(original.path), "\(store)")
    }
    for step in ["b.xml", "c.folio", "d.sqlite"] {
      #expect(try Self.hashes(path(step)) == Self.hashes(path("a.sqlite")), "\(store): \(step)")
    }
    #expect(
      try Self.shape([path("d.sqlite")]) == Self.shape([original.path, "--model", bundle]),
      "\(store)")
    let info = try run(folio, ["info", path("d.sqlite"), "--model", bundle, external])
    #expect(info.status == 0, "\(store): \(info.standardError)")
    // The app's bundle finds the version that wrote it by those hashes (a bundle edited after
    // its store was written, REC754, holds no such version, and opens it by structure).
    let versions = try ModelBundle(contentsOf: URL(fileURLWithPath: bundle))
    if versions.versions.count > 1,
      versions.version(matchingVersionHashes: try Self.hashes(path("a.sqlite"))) != nil
    {
      #expect(info.standardOutput.contains("found by the store's version hashes"), "\(store)")
    }
  }

  @Test("a model-less shell edit of an XML store keeps the hashes of the model that wrote it")
  func shellEdit() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("e.xml")
    try FileManager.default.copyItem(
      at: packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xml"), to: store)
    let before = try Self.hashes(store.path)
    let shell = try run(
      folio, ["shell", store.path], input: Data("insert Person $p name=\"Grace\"\nsave\n".utf8))
    #expect(shell.status == 0, "\(shell.standardError)")
    #expect(try String(contentsOf: store, encoding: .utf8).contains("Grace"))
    #expect(try Self.hashes(store.path) == before)
    let info = try run(
      folio, ["info", store.path, "--model", "Samples/Expenses/Expenses.xcdatamodeld"])
    #expect(info.status == 0, "\(info.standardError)")
  }

  @Test("a shell on a SQLite store that caches no model shows it and refuses to save its guesses")
  func guessedModelNotSaved() throws {
    guard
      let flickr = SQLiteCorpus.available.first(where: {
        $0.file == "starter_database.sqlite"
      })
    else { return }
    let url = try SQLiteCorpus.copy(of: flickr)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let before = try run(folio, ["dump", "--jsonl", url.path]).standardOutput
    let shell = try run(
      folio, ["shell", url.path], input: Data("save\n".utf8))
    let said = shell.standardOutput + shell.standardError
    #expect(said.contains("inferred from its tables"), "\(said)")
    #expect(try run(folio, ["dump", "--jsonl", url.path]).standardOutput == before)
    // With the model that wrote it, the same session saves.
    let bundle = SQLiteCorpus.root.appendingPathComponent(flickr.bundleFolder)
      .appendingPathComponent(flickr.bundle).path
    let given = try run(
      folio, ["shell", url.path, "--model", bundle], input: Data("save\n".utf8))
    #expect(given.status == 0, "\(given.standardError)")
    #expect(
      !(given.standardOutput + given.standardError).contains("error"), "\(given.standardError)")
  }
}
