import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores
@testable import FolioXMLStore

@Suite("XML store: round trips")
struct XMLStoreRoundTripTests {
  /// Writes `contents`, checks the file against the schema, and reads it back.
  static func roundTrip(_ contents: StoreContents, model: ManagedObjectModel) throws
    -> StoreContents
  {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("store.xml")
    try XMLStore().write(contents, model: model, to: url)
    #expect(XMLStoreSupport.schemaError(of: url) == nil)
    return try XMLStore().read(from: url, model: model)
  }

  @Test("every attribute type and relationship kind survives write then read")
  func everyType() throws {
    let model = try XMLStoreSupport.everyTypeModel()
    let item = StoreRecord(
      entityName: "Item", id: 1,
      attributes: [
        "text": .string("line one\nline two\t<tag> & \"quotes\" \\u3c00 \r\u{1}\u{FFFE} é 🎉"),
        "small": .integer(-32768), "medium": .integer(2_147_483_647),
        "large": .integer(Int64.min), "price": .decimal(Decimal(string: "12345.6789")!),
        "ratio": .double(0.1), "weight": .float(19.6), "flag": .boolean(true),
        "when": .date(Date(timeIntervalSinceReferenceDate: -978307200.123456)),
        "blob": .binaryData(Data((0..<200).map { UInt8($0) })),
        "identifier": .uuid(UUID(uuidString: "F17B8B92-EEB0-4A30-98EC-425208280CBC")!),
        "link": .uri(URL(string: "https://example.com/a?b=1&c=<2>")!),
        "payload": .transformable(Data([0, 1, 2, 255])),
        "reference": .objectID("x-coredata://F17B8B92/Item/p1"),
        "address": .composite(["street": .string("Main <St>"), "number": .integer(12)]),
      ],
      relationships: ["owner": [3], "tags": [4, 5]])
    let empty = StoreRecord(
      entityName: "Item", id: 2,
      attributes: ["text": .string(""), "ratio": .double(-.infinity), "flag": .boolean(false)])
    let owner = StoreRecord(
      entityName: "Owner", id: 3, attributes: ["name": .string("  spaced  ")],
      relationships: ["items": [2, 1], "best": [1]])
    let tags = [
      StoreRecord(entityName: "Tag", id: 4, relationships: ["items": [1]]),
      StoreRecord(
        entityName: "Tag", id: 5, attributes: ["name": .string(" ")], relationships: ["items": [1]]),
    ]
    var metadata = StoreMetadata(storeType: "XML", identifier: "STORE-1")
    metadata.userInfo = [
      "count": .integer(3), "ratio": .real(0.5), "on": .boolean(true),
      "when": .date(Date(timeIntervalSince1970: 1_000_000_000)), "bytes": .data(Data([1, 2, 3])),
      "list": .array([.string("a"), .integer(1)]), "nested": .dictionary(["k": .string("v")]),
    ]
    let contents = StoreContents(metadata: metadata, records: [item, empty, owner] + tags)
    let read = try Self.roundTrip(contents, model: model)
    #expect(read.records == contents.records)
    #expect(read.nextObjectID == 6)
    #expect(read.metadata.identifier == "STORE-1")
    var userInfo = read.metadata.userInfo
    #expect(userInfo.removeValue(forKey: StoreMetadata.folioChecksumKey) != nil)
    #expect(userInfo == metadata.userInfo)
    #expect(read.metadata.modelVersionHashes == model.entityVersionHashesByName)
    #expect(read.metadata.hasFolioVersionHashes)
  }

  @Test("random record sets round-trip (seeded; the seed is printed on failure)", arguments: 0..<20)
  func randomRecordSets(run: Int) throws {
    let seed = UInt64(run) &* 0x9E37_79B9_7F4A_7C15 &+ 12345
    var generator = SeededGenerator(seed: seed)
    let model = try XMLStoreSupport.everyTypeModel()
    let contents = XMLRandomRecords.contents(model: model, using: &generator)
    let read = try Self.roundTrip(contents, model: model)
    #expect(read.records == contents.records, "seed \(seed)")
  }

  @Test("readMetadata reads databaseInfo without objects")
  func metadataOnly() throws {
    let model = try XMLStoreSupport.expensesModel()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("store.xml")
    var metadata = StoreMetadata(storeType: "XML", identifier: "ABC")
    metadata.userInfo["App"] = .string("Folio")
    let records = [StoreRecord(entityName: "Person", id: 7, attributes: ["name": .string("A")])]
    try XMLStore().write(StoreContents(metadata: metadata, records: records), model: model, to: url)
    // A broken object after the header proves that reading metadata stops before the objects.
    var text = try String(contentsOf: url, encoding: .utf8)
    text = text.replacingOccurrences(of: "type=\"PERSON\"", with: "type=\"NOSUCH\"")
    try Data(text.utf8).write(to: url)
    let read = try XMLStore().readMetadata(from: url)
    #expect(read.identifier == "ABC")
    #expect(read.storeType == "XML")
    #expect(read.userInfo["App"] == .string("Folio"))
    #expect(read.frameworkVersion == XMLStore.frameworkVersion)
    #expect(read.modelVersionHashes == model.entityVersionHashesByName)
  }

  @Test("a store Folio wrote for another model is refused, naming the entities that differ")
  func versionHashMismatch() throws {
    let model = try XMLStoreSupport.expensesModel()
    let other = try ManagedObjectModel {
      EntityDescription("Person") {
        AttributeDescription("name", .string)
        AttributeDescription("age", .integer16)
        RelationshipDescription("spendings", to: "Spending", inverse: "person", toMany: true)
      }
      EntityDescription("Spending") {
        AttributeDescription("amount", .double)
        AttributeDescription("content", .string)
        AttributeDescription("date", .date)
        RelationshipDescription("person", to: "Person", inverse: "spendings")
      }
    }
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("store.xml")
    let contents = StoreContents(metadata: StoreMetadata(storeType: "XML"), records: [])
    try XMLStore().write(contents, model: model, to: url)
    let error = XMLStoreSupport.storeError { () throws(StoreError) in
      _ = try XMLStore().read(from: url, model: other)
    }
    #expect(error?.code == .modelMismatch)
    #expect(
      error?.description
        == "\(url.path): the store was written with another model: entity \"Person\" differs")
    let metadata = try XMLStore().readMetadata(from: url)
    #expect(metadata.entitiesWithChangedVersionHashes(comparedWith: other) == ["Person"])
  }

  @Test("a store whose hashes are not Folio's is checked by structure and opens")
  func appleHashesCheckedByStructure() throws {
    let model = try XMLStoreSupport.expensesModel()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("store.xml")
    let contents = StoreContents(
      metadata: StoreMetadata(storeType: "XML"),
      records: [StoreRecord(entityName: "Person", id: 1, attributes: ["name": .string("A")])])
    try XMLStore().write(contents, model: model, to: url)
    var text = try String(contentsOf: url, encoding: .utf8)
    text = text.replacingOccurrences(
      of: #"<key>FolioStoreModelVersionHashesChecksum</key>"#, with: "<key>Other</key>")
    try Data(text.utf8).write(to: url)
    let other = try ManagedObjectModel {
      EntityDescription("Person") {
        AttributeDescription("name", .string)
        AttributeDescription("age", .integer16)
        RelationshipDescription("spendings", to: "Spending", toMany: true)
      }
      EntityDescription("Spending")
    }
    #expect(try XMLStore().read(from: url, model: other).records == contents.records)
  }

  @Test("an inferred model written as an Xcode model loads back the same")
  func xcodeModelRoundTrip() throws {
    let model = try XMLStoreSupport.everyTypeModel()
    let text = model.xcodeModelXML()
    let loaded = try ManagedObjectModel(xcodeModelData: Data(text.utf8))
    #expect(loaded.versionHash == model.versionHash)
    guard let folder = XMLStoreSupport.corpusStores else { return }
    let things = folder.appendingPathComponent("haraldmartin__things-rb__Database.xml")
    let inferred = try XMLStore.inferModel(from: things)
    let reloaded = try ManagedObjectModel(
      xcodeModelData: Data(inferred.xcodeModelXML().utf8))
    #expect(reloaded.versionHash == inferred.versionHash)
  }

  @Test("inference finds types, to-one and to-many, inheritance and inverses")
  func inference() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try XMLStoreSupport.file(
      XMLStoreSupport.store(
        """
            <object type="PERSON" id="z1">
                <attribute name="name" type="string">Ann</attribute>
                <attribute name="age" type="int16">30</attribute>
                <relationship name="spendings" type="0/0" destination="SPENDING" idrefs="z2 z3"></relationship>
            </object>
            <object type="SPENDING" id="z2">
                <attribute name="age" type="int16">1</attribute>
                <relationship name="person" type="1/1" destination="PERSON" idrefs="z1"></relationship>
                <relationship name="tag" type="1/1" destination="TAG" idrefs="z5"></relationship>
            </object>
            <object type="SPENDING" id="z3">
                <attribute name="age" type="int32">70000</attribute>
                <relationship name="person" type="1/1" destination="PERSON" idrefs="z1"></relationship>
            </object>
            <object type="SPECIALTAG" id="z5">
            </object>
        """), in: folder)
    let model = try XMLStore.inferModel(from: url)
    let person = try #require(model.entity(named: "Person"))
    #expect(person.attribute(named: "age")?.attributeType == .integer16)
    #expect(person.relationship(named: "spendings")?.isToMany == true)
    #expect(person.relationship(named: "spendings")?.inverseName == "person")
    let spending = try #require(model.entity(named: "Spending"))
    #expect(spending.attribute(named: "age")?.attributeType == .integer32)
    #expect(spending.relationship(named: "person")?.isToMany == false)
    #expect(spending.relationship(named: "tag")?.inverseName == nil)
    #expect(model.entity(named: "Specialtag")?.parentEntityName == "Tag")
    #expect(try XMLStore().read(from: url, model: model).records.count == 4)
  }
}

/// Random record sets that fit ``XMLStoreSupport/everyTypeModel()``.
enum XMLRandomRecords {
  static func contents<G: RandomNumberGenerator>(
    model: ManagedObjectModel, using generator: inout G
  )
    -> StoreContents
  {
    let count = Int.random(in: 1...40, using: &generator)
    var ids = Array(1...Int64(count * 3)).shuffled(using: &generator).prefix(count).map { $0 }
    ids.sort()
    let entities = ids.map { _ in
      ["Item", "Owner", "Tag"][Int.random(in: 0..<3, using: &generator)]
    }
    func targets(_ entity: String, max: Int) -> [Int64] {
      let pool = zip(ids, entities).filter { $0.1 == entity }.map(\.0)
      guard !pool.isEmpty else { return [] }
      return Array(
        pool.shuffled(using: &generator).prefix(Int.random(in: 0...max, using: &generator)))
    }
    var records: [StoreRecord] = []
    for (id, entity) in zip(ids, entities) {
      var record = StoreRecord(entityName: entity, id: id)
      guard let description = model.entity(named: entity) else { continue }
      for attribute in description.allAttributes where Bool.random(using: &generator) {
        record.attributes[attribute.name] = value(attribute.attributeType, using: &generator)
      }
      for relationship in description.allRelationships {
        let chosen = targets(relationship.destinationEntityName, max: relationship.isToMany ? 4 : 1)
        if !chosen.isEmpty { record.relationships[relationship.name] = chosen }
      }
      records.append(record)
    }
    return StoreContents(
      metadata: StoreMetadata(storeType: "XML"), records: records.shuffled(using: &generator))
  }

  static func text<G: RandomNumberGenerator>(using generator: inout G) -> String {
    let alphabet = Array("ab <>&\\\"'\n\t\r\u{0}\u{7}é🎉\u{FFFF}u3c00 ")
    return String(
      (0..<Int.random(in: 0...12, using: &generator)).map { _ in
        alphabet[Int.random(in: alphabet.indices, using: &generator)]
      })
  }

  static func value<G: RandomNumberGenerator>(_ type: AttributeType, using generator: inout G)
    -> AttributeValue?
  {
    switch type {
    case .string: return .string(text(using: &generator))
    case .integer16: return .integer(Int64(Int16.random(in: .min ... .max, using: &generator)))
    case .integer32: return .integer(Int64(Int32.random(in: .min ... .max, using: &generator)))
    case .integer64: return .integer(Int64.random(in: .min ... .max, using: &generator))
    case .decimal:
      return .decimal(Decimal(Int64.random(in: -1_000_000...1_000_000, using: &generator)) / 100)
    case .double:
      return .double(
        Double(bitPattern: UInt64.random(in: 0 ... .max, using: &generator)).isNaN
          ? 1 : Double(bitPattern: UInt64.random(in: 0...0x7FEF_FFFF_FFFF_FFFF, using: &generator)))
    case .float: return .float(Float.random(in: -1e6...1e6, using: &generator))
    case .boolean: return .boolean(Bool.random(using: &generator))
    case .date:
      return .date(
        Date(timeIntervalSinceReferenceDate: Double.random(in: -1e10...1e10, using: &generator)))
    case .binaryData, .transformable:
      let data = Data(
        (0..<Int.random(in: 0...120, using: &generator)).map { _ in
          UInt8.random(in: 0...255, using: &generator)
        })
      return type == .binaryData ? .binaryData(data) : .transformable(data)
    case .uuid: return .uuid(UUID())
    case .uri:
      return .uri(
        URL(string: "https://example.com/\(Int.random(in: 0...999, using: &generator))?q=a&b=<c>")
          ?? URL(fileURLWithPath: "/"))
    case .objectID:
      return .objectID("x-coredata://S/Item/p\(Int.random(in: 1...99, using: &generator))")
    case .composite:
      return .composite(["street": .string(text(using: &generator))])
    case .undefined: return nil
    }
  }
}
