import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioSQLiteStore
@testable import FolioStores
@testable import FolioSupport

/// Z_MODELCACHE archives whose objects are referred to from many places: a keyed archive
/// names an object once and refers to it by number, so a reader that reads a shared object
/// again at each reference can be made to do work far beyond the archive's size.
@Suite("SQLite model cache: shared objects")
struct ModelCacheSharingTests {
  typealias Builder = SQLiteModelCacheTests.ArchiveBuilder

  /// A chain of `links` NSArrays, each holding the next twice, the last holding `leaf`:
  /// 2^links references to `leaf` for anything that follows every reference.
  static func doublingChain(_ links: Int, to leaf: PropertyListValue, in archive: inout Builder)
    -> PropertyListValue
  {
    var next = archive.array([leaf])
    for _ in 0..<links { next = archive.array([next, next]) }
    return next
  }

  /// A cache of one entity, Person {name}, listed `entityReferences` times in the model's
  /// entities; `extra` adds objects to the archive and gives more fields for Person and for
  /// its attribute `name`.
  static func cache(
    entityReferences: Int = 1,
    _ extra: (inout Builder) -> (
      entity: [String: PropertyListValue], name: [String: PropertyListValue]
    )
  ) -> Data {
    var archive = Builder()
    let model = archive.reserve()
    let person = archive.reserve()
    let (entityFields, nameFields) = extra(&archive)
    var nameInstance: [String: PropertyListValue] = [
      "NSPropertyName": archive.string("name"), "NSAttributeType": .integer(700),
      "NSIsOptional": .boolean(true),
    ]
    nameInstance.merge(nameFields) { $1 }
    let name = archive.instance("NSAttributeDescription", nameInstance)
    var personFields: [String: PropertyListValue] = [
      "NSEntityName": archive.string("Person"),
      "NSProperties": archive.dictionary([("name", name)]),
    ]
    personFields.merge(entityFields) { $1 }
    archive.set(person, "NSEntityDescription", personFields)
    let values = Array(repeating: Builder.reference(person), count: entityReferences)
    let entities = archive.instance("NSKnownKeysDictionary1", ["values": archive.array(values)])
    archive.set(model, "NSManagedObjectModel", ["NSEntities": entities])
    return BinaryPropertyList.encode(archive.archive(root: Builder.reference(model)))
  }

  @Test("a chain of lists 40 deep, each holding the next twice, is read link by link")
  func doublingChainIsNotFollowed() throws {
    let bytes = Self.cache { archive in
      let name = archive.string("name")
      let chain = Self.doublingChain(40, to: name, in: &archive)
      let user = archive.dictionary([("chain", chain)])
      let entity: [String: PropertyListValue] = [
        "NSUniqueTuples": chain, "NSCompoundIndexes": archive.array([chain, chain]),
        "NSUserInfo": user,
      ]
      return (entity, ["NSDefaultValue": chain, "NSUserInfo": user])
    }
    let (model, valuesRead) = try SQLiteModelCache.model(ofArchive: [UInt8](bytes), file: nil)
    let person = try #require(model.entity(named: "Person"))
    #expect(person.attributes.map(\.name) == ["name"])
    #expect(person.attribute(named: "name")?.defaultValue == nil)
    #expect(person.uniquenessConstraints.isEmpty && person.compoundIndexes.isEmpty)
    #expect(person.userInfo.isEmpty)
    // The reader lists a link and looks at its members, never following them further.
    #expect(valuesRead < 200, "read \(valuesRead) values")
  }

  @Test("one entity listed a thousand times, with constraints listed as often, is refused")
  func entityListedFromManyPlaces() throws {
    // Person is listed 1,000 times; its uniqueness constraints list one list 1,000 times,
    // which lists "name" 1,000 times: read at each reference, 10^9 names.
    let bytes = Self.cache(entityReferences: 1_000) { archive in
      let name = archive.string("name")
      let members = archive.array(Array(repeating: name, count: 1_000))
      let lists = archive.array(Array(repeating: members, count: 1_000))
      return (["NSUniqueTuples": lists], [:])
    }
    // `make fuzz-replay` runs it through `FuzzSQLiteStore` (mode 1, an inflated archive).
    let fixture = SQLiteModelCacheTests.fixtures.appendingPathComponent(
      "fuzz/sqlite-store-model-cache-shared-lists.bin")
    #expect(try Data(contentsOf: fixture) == Data([1]) + bytes)
    let error = try #require(throws: StoreError.self) {
      try SQLiteModelCache.decode(SQLiteModelCacheTests.rawDeflate(bytes), file: "shared.sqlite")
    }
    #expect(error.code == .limitExceeded)
    #expect(error.location == InputLocation(file: "shared.sqlite"))
    // Object 3 is the string "name", the object read most.
    #expect(
      error.message
        == "the model cache expands to more than \(16 * bytes.count) values (a value read or"
        + " a byte of its text each) at object 3: it refers to the same objects from too many"
        + " places")
  }

  @Test("a long name shared by many properties counts each time it is read")
  func sharedLongName() throws {
    // 2,000 properties all named by one 10,000-character string: 20 MB of names from an
    // archive of 47 KB.
    let long = String(repeating: "n", count: 10_000)
    let bytes = Self.cache { archive in
      let name = archive.string(long)
      let attribute = archive.instance(
        "NSAttributeDescription", ["NSPropertyName": name, "NSAttributeType": .integer(700)])
      let properties = archive.instance(
        "NSMutableDictionary",
        [
          "NS.keys": .array(Array(repeating: name, count: 2_000)),
          "NS.objects": .array(Array(repeating: attribute, count: 2_000)),
        ])
      return (["NSProperties": properties], [:])
    }
    let error = try #require(throws: StoreError.self) {
      try SQLiteModelCache.model(ofArchive: [UInt8](bytes), file: nil)
    }
    #expect(error.code == .limitExceeded)
    #expect(error.message.hasPrefix("the model cache expands to more than"), "\(error)")
  }

  @Test("every corpus cache reads well within the limit")
  func corpusCachesWithinLimit() throws {
    for cache in SQLiteModelCacheTests.caches {
      let blob = try Data(
        contentsOf: SQLiteModelCacheTests.fixtures.appendingPathComponent(
          "SQLiteModelCache/\(cache.name).bin"))
      let bytes = try Zlib.inflateRaw([UInt8](blob), limit: 1 << 20)
      let (_, valuesRead) = try SQLiteModelCache.model(ofArchive: bytes, file: nil)
      // A quarter of the limit at most: real caches refer to an object from a place or two.
      #expect(
        valuesRead * 4 <= SQLiteModelCache.maximumValuesPerByte * bytes.count,
        "\(cache.name): \(valuesRead) values from \(bytes.count) bytes")
    }
  }
}
