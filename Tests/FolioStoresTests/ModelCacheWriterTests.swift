import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioSQLiteStore
@testable import FolioStores
@testable import FolioSupport

/// Z_MODELCACHE written by Folio: a model archived as Core Data archives it reads back as the
/// same model, with the same version hashes, from every corpus cache and every corpus model.
@Suite("SQLite model cache written")
struct ModelCacheWriterTests {
  /// What a model cache keeps of `model`, a line per entity and property.
  static func shape(of model: ManagedObjectModel) -> [String] {
    // A renaming identifier equal to the name is none: Core Data archives the name for none.
    func renamed(_ identifier: String?, _ name: String) -> String {
      identifier == name ? "-" : identifier ?? "-"
    }
    var lines = ["version \(model.versionIdentifier ?? "-")"]
    for entity in model.entities.sorted(by: { $0.name < $1.name }) {
      lines.append(
        "\(entity.name) : \(entity.parentEntityName ?? "-") abstract=\(entity.isAbstract) "
          + "class=\(entity.representedClassName ?? "-") vhm=\(entity.versionHashModifier ?? "-") "
          + "renamed=\(renamed(entity.renamingIdentifier, entity.name)) info=\(entity.userInfo.sorted { $0.key < $1.key })"
      )
      lines.append("  unique \(entity.uniquenessConstraints) compound \(entity.compoundIndexes)")
      // An index on an expression is not archived.
      for index in entity.fetchIndexes
      where !index.elements.isEmpty && index.elements.allSatisfy({ $0.propertyName != nil }) {
        lines.append(
          "  index \(index.name) "
            + index.elements.map { "\($0.propertyName ?? "?") \($0.kind) \($0.isAscending)" }
            .joined(separator: ", "))
      }
      for attribute in entity.attributes.sorted(by: { $0.name < $1.name })
      where attribute.attributeType != .composite {
        lines.append(
          "  \(attribute.name): \(attribute.attributeType.xcodeName) optional=\(attribute.isOptional) "
            + "transient=\(attribute.isTransient) indexed=\(attribute.isIndexed) "
            + "default=\(attribute.defaultValue.map(\.modelText) ?? "-") "
            + "transformer=\(attribute.valueTransformerName ?? "-") "
            + "external=\(attribute.allowsExternalBinaryDataStorage) "
            + "vhm=\(attribute.versionHashModifier ?? "-") "
            + "renamed=\(renamed(attribute.renamingIdentifier, attribute.name)) "
            + "derived=\(attribute.derivationExpression ?? "-") "
            + "preserved=\(attribute.preservesValueInHistoryOnDeletion)"
        )
      }
      for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) {
        lines.append(
          "  \(relationship.name) -> \(relationship.destinationEntityName) "
            + "inverse=\(relationship.inverseName ?? "-") toMany=\(relationship.isToMany) "
            + "ordered=\(relationship.isOrdered) min=\(relationship.minCount) "
            + "max=\(relationship.maxCount.map(String.init) ?? "-") rule=\(relationship.deleteRule) "
            + "optional=\(relationship.isOptional) transient=\(relationship.isTransient) "
            + "vhm=\(relationship.versionHashModifier ?? "-")")
      }
    }
    return lines
  }

  /// `model` written as a cache and read back.
  static func roundTrip(_ model: ManagedObjectModel) throws -> ManagedObjectModel {
    try SQLiteModelCache.decode(SQLiteModelCache.encode(model), file: "written.sqlite")
  }

  @Test(
    "each corpus cache, decoded and written again, reads back as the same model",
    arguments: SQLiteModelCacheTests.caches)
  func corpusCaches(_ cache: SQLiteModelCacheTests.Cache) throws {
    let model = try SQLiteModelCacheTests.decode(cache.name)
    let again = try Self.roundTrip(model)
    #expect(Self.shape(of: again) == Self.shape(of: model))
    #expect(again.entityVersionHashesByName == model.entityVersionHashesByName)
  }

  @Test("every corpus and sample model a store can hold reads back from its cache as written")
  func corpusModels() throws {
    var urls = [
      "Samples/Expenses/Expenses.xcdatamodeld/Expenses.xcdatamodel",
      "Samples/Company/Company.xcdatamodeld/Company.xcdatamodel",
      "Samples/Messaging/Messaging.xcdatamodeld/Messaging.xcdatamodel",
      "Fuzz/Seeds/Everything.xcdatamodel",
    ].map { packageRoot.appendingPathComponent($0) }
    let corpus = packageRoot.appendingPathComponent("../shared/corpus/models")
    for name in (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? [] {
      urls.append(corpus.appendingPathComponent(name))
    }
    var compared = 0
    for url in urls {
      // Models FolioModel refuses are another test's business.
      guard let model = try? ManagedObjectModel(contentsOf: url),
        SQLiteSchema(model: model).unsupported.isEmpty
      else { continue }
      let again = try Self.roundTrip(model)
      // Derived attributes come back as the stored attributes they are.
      let expected = Self.shape(of: model)
      let got = Self.shape(of: again)
      #expect(
        got == expected,
        "\(url.lastPathComponent): \(zip(got, expected).first { $0 != $1 }.map { "\($0) ≠ \($1)" } ?? "\(got.count) ≠ \(expected.count) lines")"
      )
      let differing = model.entityVersionHashesByName.filter {
        again.entityVersionHashesByName[$0.key] != $0.value
      }.keys.sorted()
      #expect(
        again.entityVersionHashesByName == model.entityVersionHashesByName,
        "\(url.lastPathComponent): \(differing)")
      compared += 1
    }
    // The three sample models always (the fixture of every type holds what SQLite cannot);
    // the corpus's too where it is beside the package.
    #expect(compared >= (urls.count > 4 ? 4 : 3))
  }

  @Test("the archive is laid out as Core Data's: UIDs, class chains, a keyed entity dictionary")
  func layout() throws {
    let model = try SQLiteModelCacheTests.decode("alhoqbani-Recipes")
    let blob = SQLiteModelCache.encode(model)
    let plist = try Zlib.inflateRaw([UInt8](blob), limit: 1 << 20)
    #expect(Array(plist.prefix(8)) == Array("bplist00".utf8))
    guard case .dictionary(let top) = try BinaryPropertyList.decode(Data(plist), file: nil),
      case .array(let objects)? = top["$objects"],
      case .dictionary(let root)? = top["$top"]
    else {
      Issue.record("not a keyed archive")
      return
    }
    // References are UID objects (0x8n), not {"CF$UID": n} dictionaries.
    guard case .uid(let rootNumber)? = root["root"] else {
      Issue.record("the root is not a UID: \(String(describing: root["root"]))")
      return
    }
    let archive = try KeyedArchive(try BinaryPropertyList.decode(Data(plist), file: nil)) {
      StoreError(.malformedStore, $0)
    }
    let modelInstance = try #require(try archive.instance(.uid(rootNumber)))
    #expect(modelInstance.className == "NSManagedObjectModel")
    let entities = try #require(try archive.instance(modelInstance["NSEntities"]))
    #expect(entities.className == "NSKnownKeysDictionary1")
    let mapping = try #require(try archive.instance(entities["searchMapping"]))
    #expect(mapping.className == "NSKnownKeysMappingStrategy1")
    let names = try archive.elements(mapping["keys"], for: "keys").map { node in
      try archive.string(node, for: "a key") ?? ""
    }
    #expect(names == ["Image", "Ingredient", "Recipe", "RecipeType"])
    #expect(
      objects.contains { node in
        guard case .dictionary(let fields) = node, case .array(let chain)? = fields["$classes"]
        else { return false }
        return chain == [
          .string("NSKnownKeysDictionary1"), .string("NSKnownKeysDictionary"),
          .string("NSMutableDictionary"), .string("NSDictionary"), .string("NSObject"),
        ]
      })
  }
}

extension ModelCacheWriterTests {
  @Test("a SQLite store Folio writes caches its model, which reads back with the store's hashes")
  func storesCarryTheirModel() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try ManagedObjectModel(
      contentsOf: packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld"))
    let url = folder.appendingPathComponent("expenses.sqlite")
    let records = [
      StoreRecord(entityName: "Person", id: 1, attributes: ["name": .string("Ada")]),
      StoreRecord(
        entityName: "Spending", id: 2, attributes: ["content": .string("tea")],
        relationships: ["person": [1]]),
    ]
    try SQLiteStore().write(
      StoreContents(metadata: StoreMetadata(storeType: "SQLite"), records: records), model: model,
      to: url)
    let cached = try #require(try SQLiteStore().readModel(from: url))
    #expect(cached.entityVersionHashesByName == model.entityVersionHashesByName)
    #expect(Self.shape(of: cached) == Self.shape(of: model))
    // Read with the cached model, the to-many side Core Data keeps only as foreign keys is there.
    let read = try SQLiteStore().read(from: url, model: cached).records
    let ada = try #require(read.first { $0.entityName == "Person" })
    #expect(ada.relationships["spendings"]?.count == 1)
  }
}
