import FolioTestSupport
import Foundation
import Testing

@testable import FolioModel
@testable import FolioSQLiteStore
@testable import FolioStores
@testable import FolioXMLStore

@Suite("Core Data's version hashes")
struct CoreDataVersionHashTests {
  /// The two Recipes stores were written from Apple's Xcode 3 model, whose flags differ from
  /// the later XML model the corpus has for them: only `RecipeType` is the same entity.
  static let recipesDiffer = ["Image", "Ingredient", "Recipe"]

  @Test(
    "every entity hash a corpus store records equals the hash of the model that wrote it",
    arguments: SQLiteCorpus.available)
  func corpusStoreHashes(_ store: SQLiteCorpus.Store) throws {
    let model = try SQLiteCorpus.model(of: store)
    let url = try SQLiteCorpus.copy(of: store)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let recorded = try SQLiteStore().readMetadata(from: url).modelVersionHashes
    let computed = model.entityVersionHashesByName
    #expect(Set(recorded.keys) == Set(computed.keys))
    let differing = recorded.keys.filter { recorded[$0] != computed[$0] }.sorted()
    #expect(differing == (store.file == "Recipes.sqlite" ? Self.recipesDiffer : []), "\(store)")
  }

  @Test("each corpus store's version is found in its model bundle by its version hashes")
  func versionsFoundByHashes() throws {
    var bundles: [String: ModelBundle] = [:]
    for store in SQLiteCorpus.available {
      let path = store.bundleFolder + "/" + store.bundle
      let bundle =
        try bundles[path]
        ?? ModelBundle(contentsOf: SQLiteCorpus.root.appendingPathComponent(path))
      bundles[path] = bundle
      let url = try SQLiteCorpus.copy(of: store)
      defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
      let metadata = try SQLiteStore().readMetadata(from: url)
      let found = bundle.version(
        matchingVersionHashes: metadata.modelVersionHashes,
        identifiers: metadata.modelVersionIdentifiers)
      // The Recipes stores' hashes are those of Apple's older model (see above).
      let expected =
        store.file == "Recipes.sqlite" ? nil : String(store.version.dropLast(".xcdatamodel".count))
      #expect(found?.name == expected, "\(store)")
    }
  }

  /// The encoding, restated byte by byte for a model that exercises what no corpus store
  /// does: an entity modifier, a self-inverse relationship, a derived sum and a transient.
  @Test("hashes follow the encoding for what the corpus does not show")
  func encodingOfTheRest() throws {
    var total = AttributeDescription("total", .double)
    total.derivationExpression = "lines.amount.@sum"
    var note = AttributeDescription("note", .string)
    note.isTransient = true
    var node = EntityDescription("Node") {
      AttributeDescription("name", .string, isOptional: false)
      total
      note
      RelationshipDescription("twin", to: "Node", inverse: "twin")
      RelationshipDescription(
        "lines", to: "Line", inverse: "node", toMany: true, ordered: true)
    }
    node.versionHashModifier = "v2"
    node.uniquenessConstraints = [["name"], ["name", "twin"]]
    let model = try ManagedObjectModel {
      node
      EntityDescription("Line") {
        AttributeDescription("amount", .double)
        RelationshipDescription("node", to: "Node", inverse: "lines")
      }
    }
    func sha(_ parts: [UInt8]...) -> [UInt8] { [UInt8](SHA256.hash(parts.flatMap { $0 })) }
    func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }
    func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
      withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
    let name = sha(sha(utf8("name"), le(UInt16(0))), le(UInt32(700)))
    let totalHash = sha(utf8("sum:(lines.amount)"))
    let noteHash = sha(sha(utf8("note"), le(UInt16(3))), le(UInt32(700)))
    // Its own inverse: the inverse's name is left out.
    let twin = sha(sha(utf8("twin"), le(UInt16(1))), utf8("Node"), le(UInt32(1)), le(UInt32(0)))
    let lines = sha(
      sha(utf8("lines"), le(UInt16(1))), utf8("Line"), utf8("node"), le(UInt32(0)),
      le(UInt32(0)), [1, 0])
    let entity = try #require(model.entity(named: "Node"))
    #expect([UInt8](try #require(entity.attribute(named: "note")).versionHash) == noteHash)
    // Transient properties are left out; the rest in name order, then the modifier and the
    // constraints.
    let expected = sha(
      utf8("Node"), [0], lines, name, totalHash, twin, utf8("v2"), utf8("name"),
      utf8("name.twin"))
    #expect([UInt8](entity.versionHash) == expected)
  }

  @Test("a store Folio wrote with its earlier hashes still opens, and a changed entity is named")
  func earlierHashesStillMatch() throws {
    let url = packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xml")
    let model = try ManagedObjectModel(
      contentsOf: packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld"))
    let metadata = try XMLStore().readMetadata(from: url)
    #expect(metadata.hasFolioVersionHashes)
    #expect(metadata.modelVersionHashes == model.legacyEntityVersionHashes)
    #expect(metadata.modelVersionHashes != model.entityVersionHashesByName)
    try metadata.checkVersionHashes(against: model)
    var entities = model.entities
    let spending = try #require(entities.firstIndex { $0.name == "Spending" })
    entities[spending].attributes.append(AttributeDescription("note", .string))
    let changed = try ManagedObjectModel(entities: entities)
    #expect(metadata.entitiesWithChangedVersionHashes(comparedWith: changed) == ["Spending"])
    #expect(throws: StoreError.self) { try metadata.checkVersionHashes(against: changed) }
  }

  @Test("a key path ending in @count or @sum hashes as the function; anything else as written")
  func canonicalDerivations() {
    #expect(CoreDataVersionHasher.canonicalDerivation("pages.@count") == "count:(pages)")
    #expect(CoreDataVersionHasher.canonicalDerivation("a.b.@sum") == "sum:(a.b)")
    #expect(CoreDataVersionHasher.canonicalDerivation("author.name") == "author.name")
  }
}
