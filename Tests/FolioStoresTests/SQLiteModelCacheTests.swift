import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioSQLiteStore
@testable import FolioStores
@testable import FolioSupport

/// Z_MODELCACHE: every corpus store's cache decodes to the model that wrote the store, and
/// malformed caches give a typed error, never a crash.
@Suite("SQLite model cache")
struct SQLiteModelCacheTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures")
  static let corpus = packageRoot.appendingPathComponent("../shared/corpus/sqlite")

  /// A corpus store's cache: its fixture name, its entity count, and the version of its
  /// bundle that wrote the store (MANIFEST.tsv's `matching_model_version`).
  ///
  /// Two bundles were edited after their stores were written, in what the version hashes
  /// leave out or (REC754) in flags the store's hashes show the cache has right: their
  /// differences from the cache are listed so the comparison skips them.
  struct Cache: Sendable, CustomTestStringConvertible {
    var name: String
    var entityCount: Int
    /// The `.xcdatamodel` folder's name, without the extension.
    var model: String
    /// Whether the bundle's default values are the ones the store was written with.
    var hasXcodeDefaults = true
    /// `Entity.property` whose optionality and default the bundle changed.
    var changedInXcode: Set<String> = []
    var testDescription: String { name }
  }

  /// The corpus's model bundles, by the owner prefix of the fixture names.
  static let bundles = [
    "alhoqbani": "alhoqbani__AppleSample-iPhoneCoreDataRecipes__Recipes/Recipes.xcdatamodeld",
    "carekit-apple": "carekit-apple__CareKit__CareKitStore/CareKitStore.xcdatamodeld",
    "duckduckgo": "duckduckgo__BrowserServicesKit__BookmarksModel/BookmarksModel.xcdatamodeld",
    "richardpiazza":
      "richardpiazza__XCServerCoreData__XCServerCoreData/XCServerCoreData.xcdatamodeld",
    "wibosco":
      "wibosco__CoreDataMigration-Example__CoreDataMigration_Example/CoreDataMigration_Example.xcdatamodeld",
    "wireapp": "wireapp__wire-ios-data-model__zmessaging/zmessaging.xcdatamodeld",
  ]

  static let caches: [Cache] = [
    Cache(
      name: "alhoqbani-Recipes", entityCount: 4, model: "Recipes",
      changedInXcode: ["Image.recipe", "Ingredient.displayOrder", "Ingredient.name"]),
    Cache(
      name: "carekit-apple-SampleStore2.0", entityCount: 11, model: "CareKitStore2.0",
      hasXcodeDefaults: false),
    Cache(name: "carekit-apple-SampleStore2.1", entityCount: 16, model: "CareKitStore2.1"),
    Cache(name: "duckduckgo-Bookmarks_V1", entityCount: 1, model: "BookmarksModel"),
    Cache(name: "duckduckgo-Bookmarks_V2", entityCount: 1, model: "BookmarksModel 2"),
    Cache(name: "duckduckgo-Bookmarks_V4", entityCount: 1, model: "BookmarksModel 4"),
    Cache(
      name: "richardpiazza-XCServerCoreData_1.2.0", entityCount: 23,
      model: "XCServerCoreData1.2.0"),
    Cache(
      name: "richardpiazza-XCServerCoreData_2.0.1", entityCount: 23,
      model: "XCServerCoreData2.0.1"),
    Cache(
      name: "wibosco-CoreDataMigration_Example_1", entityCount: 1,
      model: "CoreDataMigration_Example"),
    Cache(
      name: "wibosco-CoreDataMigration_Example_WAL", entityCount: 2,
      model: "CoreDataMigration_Example 4"),
    Cache(name: "wireapp-store1-25", entityCount: 14, model: "zmessaging"),
    Cache(name: "wireapp-store2-80-0", entityCount: 23, model: "zmessaging2.80.0"),
    Cache(name: "wireapp-store2-101-0", entityCount: 24, model: "zmessaging2.101.0"),
  ]

  static func decode(_ name: String) throws -> ManagedObjectModel {
    let blob = try Data(contentsOf: fixtures.appendingPathComponent("SQLiteModelCache/\(name).bin"))
    return try SQLiteModelCache.decode(blob, file: "\(name).sqlite")
  }

  // MARK: Corpus caches

  @Test(
    "each corpus cache has the entities and version identifier its store's metadata names",
    arguments: caches)
  func entitiesMatchMetadata(_ cache: Cache) throws {
    let model = try Self.decode(cache.name)
    #expect(model.entities.count == cache.entityCount)
    let metadata = try BinaryPropertyList.decode(
      try Data(
        contentsOf: Self.fixtures.appendingPathComponent("SQLiteMetadata/\(cache.name).plist")),
      file: nil)
    guard case .dictionary(let entries) = metadata,
      case .dictionary(let hashes)? = entries["NSStoreModelVersionHashes"],
      case .array(let identifiers)? = entries["NSStoreModelVersionIdentifiers"]
    else {
      Issue.record("unexpected metadata \(metadata)")
      return
    }
    #expect(Set(model.entities.map(\.name)) == Set(hashes.keys))
    let identifier = identifiers.compactMap { node -> String? in
      guard case .string(let text) = node, !text.isEmpty else { return nil }
      return text
    }.first
    #expect(model.versionIdentifier == identifier)
  }

  /// The Xcode model that wrote `cache`'s store: a fixture copy for a few, else the corpus's;
  /// `nil` when neither is here.
  static func xcodeModel(of cache: Cache) throws -> ManagedObjectModel? {
    let copy = fixtures.appendingPathComponent(
      "SQLiteModelCache/\(cache.name).xcdatamodel-contents")
    if FileManager.default.fileExists(atPath: copy.path) {
      return try ManagedObjectModel(contentsOf: copy)
    }
    let bundle = try #require(
      bundles.first { cache.name.hasPrefix("\($0.key)-") }?.value, "no bundle for \(cache.name)")
    let url = corpus.appendingPathComponent("\(bundle)/\(cache.model).xcdatamodel")
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    return try ManagedObjectModel(contentsOf: url)
  }

  @Test("each corpus cache describes the Xcode model that wrote the store", arguments: caches)
  func matchesXcodeModel(_ cache: Cache) throws {
    guard let expected = try Self.xcodeModel(of: cache) else {
      print("skipped: ../shared/corpus/sqlite is absent, and \(cache.name) has no model fixture")
      return
    }
    let model = try Self.decode(cache.name)
    #expect(model.entities.map(\.name).sorted() == expected.entities.map(\.name).sorted())
    for want in expected.entities {
      guard let got = model.entity(named: want.name) else { continue }
      let place = "\(cache.name): \(want.name)"
      #expect(got.parentEntityName == want.parentEntityName, "\(place)")
      #expect(got.isAbstract == want.isAbstract, "\(place)")
      #expect(got.subentityNames.sorted() == want.subentityNames.sorted(), "\(place)")
      #expect(got.uniquenessConstraints == want.uniquenessConstraints, "\(place)")
      #expect(
        got.attributes.map(\.name).sorted() == want.attributes.map(\.name).sorted(), "\(place)")
      for attribute in want.attributes {
        guard let decoded = got.attributes.first(where: { $0.name == attribute.name }) else {
          continue
        }
        let where_ = "\(place).\(attribute.name)"
        let isChanged = cache.changedInXcode.contains("\(want.name).\(attribute.name)")
        #expect(decoded.attributeType == attribute.attributeType, "\(where_)")
        #expect(decoded.isOptional == attribute.isOptional || isChanged, "\(where_)")
        #expect(decoded.isTransient == attribute.isTransient, "\(where_)")
        #expect(decoded.valueTransformerName == attribute.valueTransformerName, "\(where_)")
        #expect(
          decoded.allowsExternalBinaryDataStorage == attribute.allowsExternalBinaryDataStorage,
          "\(where_)")
        #expect(decoded.versionHashModifier == attribute.versionHashModifier, "\(where_)")
        // Core Data archives the name itself when there is no renaming identifier.
        #expect(
          (decoded.renamingIdentifier ?? decoded.name)
            == (attribute.renamingIdentifier ?? attribute.name), "\(where_)")
        if cache.hasXcodeDefaults, !isChanged {
          #expect(decoded.defaultValue == attribute.defaultValue, "\(where_)")
        }
      }
      #expect(
        got.relationships.map(\.name).sorted() == want.relationships.map(\.name).sorted(),
        "\(place)")
      for relationship in want.relationships {
        guard let decoded = got.relationships.first(where: { $0.name == relationship.name })
        else { continue }
        let where_ = "\(place).\(relationship.name)"
        #expect(decoded.destinationEntityName == relationship.destinationEntityName, "\(where_)")
        #expect(decoded.inverseName == relationship.inverseName, "\(where_)")
        #expect(decoded.isToMany == relationship.isToMany, "\(where_)")
        #expect(decoded.isOrdered == relationship.isOrdered, "\(where_)")
        #expect(decoded.deleteRule == relationship.deleteRule, "\(where_)")
        #expect(
          decoded.isOptional == relationship.isOptional
            || cache.changedInXcode.contains("\(want.name).\(relationship.name)"), "\(where_)")
        #expect(decoded.isTransient == relationship.isTransient, "\(where_)")
        #expect(
          (decoded.renamingIdentifier ?? decoded.name)
            == (relationship.renamingIdentifier ?? relationship.name), "\(where_)")
      }
    }
  }

  @Test("a cache keeps what the research found in it: flags, rules, renamings, hierarchies")
  func knownFacts() throws {
    let wire125 = try Self.decode("wireapp-store1-25")
    let user = try #require(wire125.entity(named: "User"))
    #expect(user.attribute(named: "imageMediumData")?.allowsExternalBinaryDataStorage == true)
    #expect(user.attribute(named: "imageSmallProfileData")?.allowsExternalBinaryDataStorage == true)
    #expect(user.attribute(named: "name")?.allowsExternalBinaryDataStorage == false)
    // WIRE125 archives inherited properties as proxies; they stay with Message.
    let message = try #require(wire125.entity(named: "Message"))
    let text = try #require(wire125.entity(named: "TextMessage"))
    #expect(text.parentEntityName == "Message")
    #expect(message.isAbstract)
    let inherited = Set(message.properties.map(\.name))
    #expect(
      Set(text.attributes.map(\.name) + text.relationships.map(\.name)).isDisjoint(with: inherited))
    #expect(text.properties.count > message.properties.count)
    #expect(wire125.versionIdentifier == "1.25")

    let recipes = try Self.decode("alhoqbani-Recipes")
    let ingredients = try #require(
      recipes.entity(named: "Recipe")?.relationship(named: "ingredients"))
    #expect(ingredients.deleteRule == .cascade)
    #expect(ingredients.isToMany && ingredients.maxCount == nil)
    #expect(ingredients.inverseName == "recipe")
    let image = try #require(recipes.entity(named: "Image")?.attribute(named: "image"))
    #expect(image.attributeType == .transformable)
    #expect(image.valueTransformerName == "ImageToDataTransformer")
    // The bundle's Recipes model has these optional, without a default; the store's hashes
    // agree with the cache.
    let ingredient = try #require(recipes.entity(named: "Ingredient"))
    #expect(ingredient.attribute(named: "name")?.defaultValue == .string("Ingredient Name"))
    #expect(ingredient.attribute(named: "name")?.isOptional == false)
    #expect(ingredient.attribute(named: "displayOrder")?.isOptional == false)
    #expect(ingredient.attribute(named: "displayOrder")?.defaultValue == .integer(0))
    let recipe = try #require(recipes.entity(named: "Image")?.relationship(named: "recipe"))
    #expect(!recipe.isOptional && recipe.minCount == 1 && recipe.maxCount == 1)

    let bookmarks = try Self.decode("duckduckgo-Bookmarks_V4")
    let bookmark = try #require(bookmarks.entity(named: "BookmarkEntity"))
    #expect(bookmark.relationship(named: "favoriteFolders")?.renamingIdentifier == "favoriteFolder")
    #expect(bookmark.attribute(named: "uuid")?.versionHashModifier == "3")
    #expect(bookmark.attribute(named: "isPendingDeletion")?.isIndexed == true)
    let children = try #require(bookmark.relationship(named: "children"))
    #expect(children.isOrdered && children.isToMany && children.deleteRule == .cascade)
    #expect(children.destinationEntityName == "BookmarkEntity" && children.inverseName == "parent")
    let byUUID = try #require(bookmark.fetchIndexes.first { $0.name == "byUUID" })
    #expect(byUUID.elements.map(\.propertyName) == ["uuid", "isPendingDeletion"])
    #expect(byUUID.elements.allSatisfy { $0.isAscending && $0.kind == "Binary" })

    let careKit = try Self.decode("carekit-apple-SampleStore2.1")
    let taskBase = try #require(careKit.entity(named: "OCKCDTaskBase"))
    #expect(taskBase.subentityNames.sorted() == ["OCKCDHealthKitTask", "OCKCDTask"])
    #expect(taskBase.uniquenessConstraints == [["uuid"]])
    #expect(careKit.entity(named: "OCKCDTag")?.uniquenessConstraints == [["title"]])
    let task = try #require(careKit.entity(named: "OCKCDTask"))
    #expect(task.attributes.isEmpty && task.relationships.isEmpty)
    #expect(task.properties.count == taskBase.properties.count)
    let value = try #require(careKit.entity(named: "OCKCDOutcomeValue"))
    #expect(value.attribute(named: "doubleValue")?.defaultValue == .double(0))
    #expect(value.attribute(named: "integerValue")?.defaultValue == .integer(0))
    let carePlan = try Self.decode("carekit-apple-SampleStore2.0").entity(named: "OCKCDCarePlan")
    #expect(carePlan?.attribute(named: "schemaVersion")?.defaultValue == .string("2.0.1"))
    #expect(
      carePlan?.attribute(named: "allowsMissingRelationships")?.defaultValue == .boolean(true))
    let post = try Self.decode("wibosco-CoreDataMigration_Example_WAL").entity(named: "Post")
    #expect(post?.attribute(named: "hide")?.defaultValue == .boolean(false))
    #expect(post?.relationship(named: "color")?.isOptional == false)
  }

  // MARK: Synthetic archives

  /// Raw DEFLATE of `bytes`: zlib's stream without its 2-byte header and 4-byte Adler-32.
  static func rawDeflate(_ bytes: Data) -> Data {
    let stream = bytes.withUnsafeBytes { Zlib.deflate($0, level: 6) }
    return Data(stream.dropFirst(2).dropLast(4))
  }

  /// Builds a keyed archive by hand, with references written as `{"CF$UID": n}`.
  struct ArchiveBuilder {
    var objects: [PropertyListValue] = [.string("$null")]
    private var classes: [String: PropertyListValue] = [:]

    static func reference(_ number: Int) -> PropertyListValue {
      .dictionary(["CF$UID": .integer(Int64(number))])
    }

    static var null: PropertyListValue { reference(0) }

    /// A reference to a new object holding `value`.
    mutating func add(_ value: PropertyListValue) -> PropertyListValue {
      objects.append(value)
      return Self.reference(objects.count - 1)
    }

    /// A reference to an object that ``set(_:_:_:)`` fills in later.
    mutating func reserve() -> Int {
      objects.append(.string("reserved"))
      return objects.count - 1
    }

    /// Fills object `number` with an instance of `className`.
    mutating func set(_ number: Int, _ className: String, _ fields: [String: PropertyListValue]) {
      var fields = fields
      fields["$class"] = classReference(className)
      objects[number] = .dictionary(fields)
    }

    /// A reference to a new instance of `className`.
    mutating func instance(_ className: String, _ fields: [String: PropertyListValue])
      -> PropertyListValue
    {
      let number = reserve()
      set(number, className, fields)
      return Self.reference(number)
    }

    mutating func string(_ text: String) -> PropertyListValue { add(.string(text)) }

    mutating func array(_ elements: [PropertyListValue]) -> PropertyListValue {
      instance("NSArray", ["NS.objects": .array(elements)])
    }

    mutating func dictionary(_ entries: [(String, PropertyListValue)]) -> PropertyListValue {
      let keys = entries.map { string($0.0) }
      return instance(
        "NSMutableDictionary", ["NS.keys": .array(keys), "NS.objects": .array(entries.map(\.1))])
    }

    private mutating func classReference(_ name: String) -> PropertyListValue {
      if let known = classes[name] { return known }
      let reference = add(
        .dictionary([
          "$classname": .string(name), "$classes": .array([.string(name), .string("NSObject")]),
        ]))
      classes[name] = reference
      return reference
    }

    func archive(root: PropertyListValue) -> PropertyListValue {
      .dictionary([
        "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
        "$top": .dictionary(["root": root]), "$objects": .array(objects),
      ])
    }

    func blob(root: PropertyListValue) -> Data {
      rawDeflate(BinaryPropertyList.encode(archive(root: root)))
    }
  }

  /// What to get wrong in ``smallModel(_:)``.
  enum Fault {
    case none, unknownDestination, selfParent, unknownTypeCode, entityOutOfRange
    /// `friends`' NSMaxCount NSUIntegerMax, which reads as -1: a model built in code.
    case maxCountAsNSUIntegerMax
  }

  /// A cache of Person {name, friends ↔ friends, a derived attribute, a fetched property,
  /// unique on name and on the derived attribute} and Employee : Person {salary}, which lists
  /// Person's properties again as old caches do, through proxies.
  static func smallModel(_ fault: Fault = .none) -> Data {
    var archive = ArchiveBuilder()
    let model = archive.reserve()
    let person = archive.reserve()
    let employee = archive.reserve()
    let name = archive.instance(
      "NSAttributeDescription",
      [
        "NSPropertyName": archive.string("name"), "NSEntity": ArchiveBuilder.reference(person),
        "NSAttributeType": .integer(fault == .unknownTypeCode ? 4242 : 700),
        "NSDefaultValue": archive.string("Ada"), "NSRenamingIdentifier": archive.string("name"),
        "NSFlagsKey": .integer(0),
      ])
    let friends = archive.reserve()
    archive.set(
      friends, "NSRelationshipDescription",
      [
        "NSPropertyName": archive.string("friends"), "NSEntity": ArchiveBuilder.reference(person),
        "NSDestinationEntity": ArchiveBuilder.reference(person),
        "_NSDestinationEntityName": archive.string(
          fault == .unknownDestination ? "Nobody" : "Person"),
        "NSInverseRelationship": ArchiveBuilder.reference(friends),
        "_NSInverseRelationshipName": archive.string("friends"),
        "NSMaxCount": .integer(fault == .maxCountAsNSUIntegerMax ? -1 : 0),
        "NSMinCount": .integer(0), "NSDeleteRule": .integer(3), "NSIsOptional": .boolean(true),
        "NSIsOrdered": .boolean(true),
      ])
    let derived = archive.instance(
      "NSDerivedAttributeDescription",
      ["NSPropertyName": archive.string("friendCount"), "NSAttributeType": .integer(300)])
    let fetched = archive.instance(
      "NSFetchedPropertyDescription", ["NSPropertyName": archive.string("recent")])
    let unique = archive.array([
      archive.array([archive.string("name")]), archive.array([archive.string("friendCount")]),
    ])
    archive.set(
      person, "NSEntityDescription",
      [
        "NSEntityName": archive.string("Person"),
        "NSManagedObjectModel": ArchiveBuilder.reference(model),
        "NSSuperentity": fault == .selfParent
          ? ArchiveBuilder.reference(person) : ArchiveBuilder.null,
        "NSProperties": archive.dictionary([
          ("name", name), ("friends", ArchiveBuilder.reference(friends)),
          ("friendCount", derived), ("recent", fetched),
        ]),
        "NSSubentities": archive.dictionary([("Employee", ArchiveBuilder.reference(employee))]),
        "NSUniqueTuples": unique, "NSIsAbstract": .boolean(true),
      ])
    let proxy = archive.instance(
      "_NSPropertyDescriptionProxy",
      [
        "NSUnderlyingProperty": name, "NSEntityDescription": ArchiveBuilder.reference(employee),
        "NSReferenceID": .integer(0),
      ])
    let salary = archive.instance(
      "NSAttributeDescription",
      [
        "NSPropertyName": archive.string("salary"), "NSAttributeType": .integer(400),
        "NSIsOptional": .boolean(true), "NSDefaultValue": .integer(10),
      ])
    archive.set(
      employee, "NSEntityDescription",
      [
        "NSEntityName": archive.string("Employee"),
        "NSSuperentity": ArchiveBuilder.reference(person),
        "NSProperties": archive.dictionary([
          ("name", proxy), ("friends", ArchiveBuilder.reference(friends)), ("salary", salary),
        ]),
      ])
    let entities = archive.instance(
      "NSKnownKeysDictionary1",
      [
        "values": archive.array([
          ArchiveBuilder.reference(employee),
          fault == .entityOutOfRange
            ? ArchiveBuilder.reference(9_999) : ArchiveBuilder.reference(person),
          archive.string("__empty_slot_token__"),
        ])
      ])
    archive.set(
      model, "NSManagedObjectModel",
      [
        "NSEntities": entities,
        "NSVersionIdentifiers": archive.instance(
          "NSSet", ["NS.objects": .array([archive.string("7")])]),
        "NSFetchRequestTemplates": ArchiveBuilder.null,
      ])
    return archive.blob(root: ArchiveBuilder.reference(model))
  }

  @Test("a count of NSUIntegerMax, as models built in code give a to-many, means no limit")
  func countAsNSUIntegerMax() throws {
    let model = try SQLiteModelCache.decode(Self.smallModel(.maxCountAsNSUIntegerMax), file: nil)
    let friends = try #require(model.entity(named: "Person")?.relationship(named: "friends"))
    #expect(friends.isToMany)
    #expect(friends.maxCount == nil)
  }

  @Test("a hand-made cache decodes, skipping the classes Folio does not model")
  func handMadeCache() throws {
    let model = try SQLiteModelCache.decode(Self.smallModel(), file: nil)
    #expect(model.entities.map(\.name) == ["Employee", "Person"])
    #expect(model.versionIdentifier == "7")
    let person = try #require(model.entity(named: "Person"))
    #expect(person.isAbstract)
    #expect(person.attributes.map(\.name) == ["name"])
    #expect(person.attribute(named: "name")?.defaultValue == .string("Ada"))
    #expect(person.attribute(named: "name")?.renamingIdentifier == nil)
    #expect(person.attribute(named: "name")?.isOptional == false)
    // The constraint on the skipped derived attribute is dropped with it.
    #expect(person.uniquenessConstraints == [["name"]])
    let friends = try #require(person.relationship(named: "friends"))
    #expect(friends.isToMany && friends.isOrdered && friends.deleteRule == .deny)
    #expect(friends.inverseName == "friends")
    let employee = try #require(model.entity(named: "Employee"))
    #expect(employee.parentEntityName == "Person")
    #expect(employee.attributes.map(\.name) == ["salary"])
    #expect(employee.attribute(named: "salary")?.defaultValue == .decimal(10))
    #expect(employee.relationships.isEmpty)
    #expect(employee.properties.map(\.name) == ["name", "friends", "salary"])
  }

  /// A malformed cache and the error it must give.
  struct MalformedCache: Sendable, CustomTestStringConvertible {
    var id: String
    var blob: Data
    var message: String
    var code = StoreError.Code.malformedStore
    var testDescription: String { id }
  }

  static func malformedCaches() throws -> [MalformedCache] {
    let real = try Data(
      contentsOf: fixtures.appendingPathComponent("SQLiteModelCache/alhoqbani-Recipes.bin"))
    var notArchive = ArchiveBuilder()
    let string = notArchive.string("hello")
    var noRoot = ArchiveBuilder()
    _ = noRoot.string("x")
    return [
      MalformedCache(
        id: "not DEFLATE", blob: Data([0xFF, 0x00, 0x01]),
        message: "the model cache is not raw DEFLATE data: zlib says \"invalid block type\""),
      MalformedCache(
        id: "empty", blob: Data(),
        message: "the model cache is cut short: its DEFLATE stream does not end"),
      MalformedCache(
        id: "cut in half", blob: real.prefix(real.count / 2),
        message: "the model cache is cut short: its DEFLATE stream does not end"),
      MalformedCache(
        id: "a zlib stream", blob: real.withUnsafeBytes { Data(Zlib.deflate($0, level: 6)) },
        message:
          "the model cache is not raw DEFLATE data: zlib says \"invalid stored block lengths\""),
      MalformedCache(
        id: "bytes after the stream", blob: real + [0],
        message: "the model cache has 1 byte after the end of its DEFLATE stream"),
      MalformedCache(
        id: "DEFLATE of text",
        blob: rawDeflate(Data(String(repeating: "garbage ", count: 20).utf8)),
        message: "the model cache's archive is not a valid binary property list: the bytes start"
          + " 0x67 0x61 0x72 0x62 0x61 0x67 0x65 0x20, not \"bplist00\" (byte 0 of the inflated archive)"
      ),
      MalformedCache(
        id: "a property list that is no keyed archive",
        blob: rawDeflate(BinaryPropertyList.encode(.dictionary(["a": .integer(1)]))),
        message:
          "the model cache is not a keyed archive: it has no \"$archiver\" of \"NSKeyedArchiver\""),
      MalformedCache(
        id: "an archive of a string", blob: notArchive.blob(root: string),
        message:
          "the model cache has object 1 that is a string, not an archived object"),
      MalformedCache(
        id: "an archive whose root is no model",
        blob: {
          var archive = ArchiveBuilder()
          let root = archive.instance(
            "NSDictionary", ["NS.keys": .array([]), "NS.objects": .array([])])
          return archive.blob(root: root)
        }(),
        message:
          "the model cache has a root object of class \"NSDictionary\", not NSManagedObjectModel"),
      MalformedCache(
        id: "a root UID out of range", blob: noRoot.blob(root: ArchiveBuilder.reference(99)),
        message: "the model cache has its root at object 99, but the archive has only 2 objects"),
      MalformedCache(
        id: "an entity UID out of range", blob: smallModel(.entityOutOfRange),
        message: "the model cache refers to object 9999, but the archive has only 53 objects"),
      MalformedCache(
        id: "an unknown attribute type", blob: smallModel(.unknownTypeCode),
        message: "the model cache gives attribute Person.name the unknown type code 4242"),
      MalformedCache(
        id: "an unknown destination", blob: smallModel(.unknownDestination),
        message: "the model cache describes a model Folio cannot build: Person.friends:"
          + " destination entity \"Nobody\" is not in the model"),
      MalformedCache(
        id: "an entity its own parent", blob: smallModel(.selfParent),
        message: "the model cache describes a model Folio cannot build: Person:"
          + " entity inheritance forms a cycle: Person → Person"),
    ]
  }

  @Test("a malformed cache gives a typed error naming what is wrong")
  func malformedCache() throws {
    for input in try Self.malformedCaches() {
      let error = try #require(throws: StoreError.self, "\(input.id)") {
        try SQLiteModelCache.decode(input.blob, file: "bad.sqlite")
      }
      #expect(error.code == input.code, "\(input.id)")
      #expect(error.location == InputLocation(file: "bad.sqlite"), "\(input.id)")
      #expect(error.message == input.message, "\(input.id)")
    }
  }

  @Test("a cache that inflates past 64 MB is refused as past the limit")
  func inflationLimit() throws {
    let zeros = Data(count: SQLiteModelCache.maximumInflatedBytes + 1)
    let error = try #require(throws: StoreError.self) {
      try SQLiteModelCache.decode(Self.rawDeflate(zeros), file: nil)
    }
    #expect(error.code == .limitExceeded)
    #expect(error.message == "the model cache inflates to more than 67108864 bytes")
  }

  @Test("thousands of random corruptions of real caches throw or decode, never crash")
  func corruptions() throws {
    let blobs = try ["wibosco-CoreDataMigration_Example_WAL", "duckduckgo-Bookmarks_V4"].map {
      try Data(contentsOf: Self.fixtures.appendingPathComponent("SQLiteModelCache/\($0).bin"))
    }
    // Corrupting the inflated archive reaches the walker; corrupting the blob reaches zlib.
    let archives = try blobs.map { Data(try Zlib.inflateRaw([UInt8]($0), limit: 1 << 20)) }
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    for round in 0..<3_000 {
      let inflated = round % 2 == 0
      var bytes = [UInt8]((inflated ? archives : blobs)[round / 2 % blobs.count])
      for _ in 0..<Int.random(in: 1...3, using: &random) {
        bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(
          in: 0...255, using: &random)
      }
      let blob = inflated ? Self.rawDeflate(Data(bytes)) : Data(bytes)
      do {
        _ = try SQLiteModelCache.decode(blob, file: nil)
      } catch {
        #expect(error.code == .malformedStore || error.code == .limitExceeded, "seed \(seed)")
      }
    }
  }
}
