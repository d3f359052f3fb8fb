import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioStores
@testable import FolioSupport

@Suite("Binary store")
struct BinaryStoreTests {
  let store = BinaryStore()

  @Test("every attribute type and relationship kind round-trips through a file")
  func roundTrip() throws {
    let model = try BinaryFixtures.model()
    let contents = BinaryFixtures.contents()
    let (file, folder) = try BinaryFixtures.temporaryFile()
    defer { try? FileManager.default.removeItem(at: folder) }
    try store.write(contents, model: model, to: file)
    let loaded = try store.read(from: file, model: model)
    BinaryFixtures.expectSame(loaded, contents)
    #expect(loaded.metadata.storeType == "Binary")
    #expect(loaded.metadata.modelVersionHashes == model.entityVersionHashesByName)
    let spendings = loaded.records.first { $0.id == 10 }?.relationships["spendings"]
    #expect(spendings == [42, 40, 41], "ordered to-many keeps its order")
  }

  @Test("the same records make the same bytes, whatever their dictionaries' order")
  func deterministic() throws {
    let model = try BinaryFixtures.model()
    let contents = BinaryFixtures.contents()
    let first = try BinaryStore().encode(contents, model: model)
    for round in 0..<20 {
      // Rebuilt dictionaries, keys inserted in another order: Swift seeds each dictionary's
      // iteration order on its own.
      var shuffled = contents
      var generator = SeededGenerator(seed: UInt64(round))
      shuffled.records = contents.records.map { record in
        var copy = record
        copy.attributes = [:]
        for key in record.attributes.keys.shuffled(using: &generator) {
          copy.attributes[key] = record.attributes[key]
        }
        return copy
      }
      #expect(try BinaryStore().encode(shuffled, model: model) == first, "round \(round)")
    }
  }

  @Test("an empty store round-trips")
  func emptyStore() throws {
    let model = try BinaryFixtures.model()
    let contents = StoreContents(metadata: StoreMetadata(storeType: "XML"), records: [])
    let bytes = try store.encode(contents, model: model)
    let loaded = try store.decode(Data(bytes), model: model, file: "empty.folio")
    #expect(loaded.records.isEmpty)
    #expect(loaded.nextObjectID == 1)
    #expect(loaded.metadata.identifier == contents.metadata.identifier)
  }

  @Test("the format names itself and recognises its magic")
  func recognises() throws {
    #expect(store.typeName == "Binary")
    #expect(store.fileExtension == "folio")
    let bytes = try store.encode(BinaryFixtures.contents(), model: BinaryFixtures.model())
    #expect(store.recognizes(Data(bytes.prefix(64))))
    #expect(!store.recognizes(Data("<?xml version=\"1.0\"?>".utf8)))
    #expect(!store.recognizes(Data(bytes.prefix(5))))
  }

  @Test("the header's fixed fields and the CRC are as the spec gives them")
  func specConstants() throws {
    let check = Array("123456789".utf8).withUnsafeBytes { Zlib.crc32($0) }
    #expect(check == 0xCBF4_3926)
    let bytes = try store.encode(BinaryFixtures.contents(), model: BinaryFixtures.model())
    #expect(
      bytes.prefix(16) == [
        0x89, 0x46, 0x4F, 0x4C, 0x49, 0x4F, 0x0D, 0x0A, 0x1A, 0x0A, 1, 0, 1, 0, 0, 0,
      ])
    #expect(Array(bytes[16..<48]) == Array(try BinaryFixtures.model().versionHash))
    #expect(Array(bytes[56..<60]) == Array("META".utf8))
    #expect(Array(bytes[92..<96]) == Array("BODY".utf8))
    #expect(Array(bytes[128..<132]) == Array("MODL".utf8))
    #expect(bytes[132] == 0b10, "MODL is optional and deflated")
  }

  @Test("metadata reads without reading or inflating the body")
  func metadataWithoutBody() throws {
    let model = try BinaryFixtures.model()
    let contents = BinaryFixtures.contents()
    var bytes = try store.encode(contents, model: model)
    let container = try withBytes(of: bytes) { (raw) throws(StoreError) in
      try BinaryContainer(prefix: raw, fileSize: raw.count, file: "x")
    }
    let body = try BinarySections(container, file: "x").body
    // Garble the whole body, checksum and all: reading it would fail, inflating it too.
    for offset in body.offset..<body.offset + body.storedLength { bytes[offset] ^= 0x5A }
    let (file, folder) = try BinaryFixtures.temporaryFile()
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data(bytes).write(to: file)
    let metadata = try store.readMetadata(from: file)
    #expect(metadata.identifier == "STORE-UUID")
    #expect(metadata.storeType == "Binary")
    #expect(metadata.userInfo == contents.metadata.userInfo)
    #expect(metadata.modelVersionHashes == model.entityVersionHashesByName)
    #expect(metadata.frameworkVersion == 1)
    let error = try #require(throws: StoreError.self) { try store.read(from: file, model: model) }
    #expect(error.code == .badChecksum)
  }

  @Test("a missing file is notFound")
  func missingFile() throws {
    let url = URL(fileURLWithPath: "/nonexistent/folder/store.folio")
    let error = try #require(throws: StoreError.self) { try store.readMetadata(from: url) }
    #expect(error.code == .notFound)
    let readError = try #require(throws: StoreError.self) {
      try store.read(from: url, model: BinaryFixtures.model())
    }
    #expect(readError.code == .notFound)
  }

  @Test("a model whose entities differ is refused, naming them")
  func modelMismatch() throws {
    let bytes = try store.encode(BinaryFixtures.contents(), model: BinaryFixtures.model())
    let changed = try BinaryFixtures.model(extraAttribute: true)
    let error = try #require(throws: StoreError.self) {
      try store.decode(Data(bytes), model: changed, file: "s.folio")
    }
    #expect(error.code == .modelMismatch)
    #expect(
      error.description
        == "s.folio@16: the store was written with another model: entity \"Everything\" differs")
  }

  @Test("a newer major version is refused before anything else is read")
  func newerMajor() throws {
    var bytes = try store.encode(BinaryFixtures.contents(), model: BinaryFixtures.model())
    bytes[10] = 2
    let error = try #require(throws: StoreError.self) {
      try store.decode(Data(bytes), model: BinaryFixtures.model(), file: "s.folio")
    }
    #expect(error.code == .unsupportedVersion)
    #expect(
      error.description
        == "s.folio@10: binary store version 2.1 cannot be read by this Folio, which reads"
        + " version 1.x; it was written by a newer Folio; open it with that version")
  }

  @Test("a newer minor version with an unknown optional section is read")
  func newerMinorOptionalSection() throws {
    let model = try BinaryFixtures.model()
    let contents = BinaryFixtures.contents()
    let bytes = try store.encode(
      contents, model: model,
      extraSections: [
        (SectionKind.code("XTRA"), [], Array("future index".utf8)),
        (SectionKind.code("ZIPX"), [.deflated], Array(repeating: 7, count: 1000)),
      ], minor: 9)
    let loaded = try store.decode(Data(bytes), model: model, file: "s.folio")
    BinaryFixtures.expectSame(loaded, contents)
  }

  @Test("an unknown required section is refused")
  func unknownRequiredSection() throws {
    let bytes = try store.encode(
      BinaryFixtures.contents(), model: BinaryFixtures.model(),
      extraSections: [(SectionKind.code("MUST"), [.required], [1, 2, 3])], minor: 1)
    let error = try #require(throws: StoreError.self) {
      try store.decode(Data(bytes), model: BinaryFixtures.model(), file: "s.folio")
    }
    #expect(error.code == .unsupportedVersion)
    #expect(error.message.hasPrefix("the file has a required section \"MUST\""))
  }

  @Test(
    "records that do not fit the model are refused when writing",
    arguments: [
      ("unknown entity", StoreRecord(entityName: "Nope", id: 1), StoreError.Code.modelMismatch),
      (
        "unknown key", StoreRecord(entityName: "Tag", id: 1, attributes: ["lable": .string("x")]),
        .typeMismatch
      ),
      (
        "wrong type", StoreRecord(entityName: "Tag", id: 1, attributes: ["label": .integer(1)]),
        .typeMismatch
      ),
      (
        "out of range",
        StoreRecord(entityName: "Everything", id: 1, attributes: ["int16": .integer(40_000)]),
        .typeMismatch
      ),
      (
        "dangling", StoreRecord(entityName: "Tag", id: 1, relationships: ["people": [99]]),
        .danglingReference
      ),
      (
        "transient",
        StoreRecord(entityName: "Everything", id: 1, attributes: ["scratch": .string("")]),
        .typeMismatch
      ),
      ("zero ID", StoreRecord(entityName: "Tag", id: 0), .malformedStore),
    ])
  func writeRefusesMisfits(name: String, record: StoreRecord, code: StoreError.Code) throws {
    let contents = StoreContents(metadata: StoreMetadata(storeType: "Binary"), records: [record])
    let error = try #require(throws: StoreError.self, "\(name)") {
      try store.encode(contents, model: BinaryFixtures.model())
    }
    #expect(error.code == code, "\(name): \(error)")
  }

  @Test("a to-one holding two objects and a target of the wrong entity are refused")
  func relationshipMisfits() throws {
    let model = try BinaryFixtures.model()
    let tag = StoreRecord(entityName: "Tag", id: 5)
    let twoSpouses = StoreRecord(entityName: "Person", id: 1, relationships: ["spouse": [2, 3]])
    let others = [
      StoreRecord(entityName: "Person", id: 2), StoreRecord(entityName: "Person", id: 3),
    ]
    for records in [
      [twoSpouses] + others,
      [StoreRecord(entityName: "Person", id: 1, relationships: ["spouse": [5]]), tag],
    ] {
      let contents = StoreContents(metadata: StoreMetadata(storeType: "Binary"), records: records)
      let error = try #require(throws: StoreError.self) {
        try store.encode(contents, model: model)
      }
      #expect(error.code == .typeMismatch)
      #expect(error.location?.description == "Person.spouse")
    }
  }
}
