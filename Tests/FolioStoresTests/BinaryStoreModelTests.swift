import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioStores
@testable import FolioSupport
@testable import FolioXMLStore

@Suite("Binary store: the model in the file")
struct BinaryStoreModelTests {
  let store = BinaryStore()
  let empty = StoreContents(metadata: StoreMetadata(storeType: "Binary"), records: [])

  /// The sample models, and the every-type fixture model.
  static var models: [(String, ManagedObjectModel)] {
    get throws {
      var models = [("every type", try BinaryFixtures.model())]
      for name in ["Expenses", "Company", "Messaging"] {
        let url = packageRoot.appendingPathComponent("Samples/\(name)/\(name).xcdatamodeld")
        models.append((name, try ManagedObjectModel(contentsOf: url)))
      }
      return models
    }
  }

  func write(_ contents: StoreContents, model: ManagedObjectModel) throws -> URL {
    let url = try makeTemporaryFolder().appendingPathComponent("s.folio")
    try store.write(contents, model: model, to: url)
    return url
  }

  @Test("a store carries its model: read back with the same version hash, it opens the store")
  func embeddedModel() throws {
    for (name, model) in try Self.models {
      let contents = name == "every type" ? BinaryFixtures.contents() : empty
      let url = try write(contents, model: model)
      let embedded = try #require(try store.readModel(from: url), "\(name)")
      #expect(embedded.versionHash == model.versionHash, "\(name)")
      #expect(embedded.entities.map { $0.name } == model.entities.map { $0.name }, "\(name)")
      let loaded = try store.read(from: url, model: embedded)
      BinaryFixtures.expectSame(loaded, contents)
    }
  }

  @Test(
    "every corpus store's inferred model travels in a .folio file",
    arguments: XMLStoreSupport.corpusNames)
  func corpusModels(name: String) throws {
    guard let folder = XMLStoreSupport.corpusStores else {
      print("skipped: ../shared/corpus/stores is absent")
      return
    }
    let model = try XMLStore.inferModel(from: folder.appendingPathComponent(name))
    let url = try write(empty, model: model)
    let embedded = try #require(try store.readModel(from: url))
    #expect(embedded.versionHash == model.versionHash)
  }

  /// The corpus's Xcode models, by file name; empty without `../shared/corpus`.
  static var corpusModelNames: [String] {
    let folder = packageRoot.appendingPathComponent("../shared/corpus/models")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".xml") }.sorted()
  }

  @Test(
    "every corpus Xcode model that loads travels in a .folio file with its version hash",
    arguments: corpusModelNames)
  func corpusXcodeModels(name: String) throws {
    let url = packageRoot.appendingPathComponent("../shared/corpus/models/\(name)")
    guard let model = try? ManagedObjectModel(contentsOf: url) else { return }
    let written = try write(empty, model: model)
    let embedded = try #require(try store.readModel(from: written))
    #expect(embedded.versionHash == model.versionHash)
    #expect(embedded == model)
  }

  @Test("a version 1.0 file, without MODL, has no model and still opens with one")
  func versionOneZero() throws {
    let model = try BinaryFixtures.model()
    let full = try store.encode(BinaryFixtures.contents(), model: model)
    let file = try full.withUnsafeBytes {
      try BinaryContainer(prefix: $0, fileSize: full.count, file: "s.folio")
    }
    let kept = file.sections.filter { $0.kind != SectionKind.model }.map { section in
      let stored = Array(full[section.offset..<section.offset + section.storedLength])
      let bytes =
        section.flags.contains(.deflated)
        ? (try? stored.withUnsafeBytes { try Zlib.inflate($0, length: section.length) }) ?? []
        : stored
      return (kind: section.kind, flags: section.flags, bytes: bytes)
    }
    let old = BinaryContainer.assemble(kept, modelHash: model.versionHash, minor: 0)
    let url = try makeTemporaryFolder().appendingPathComponent("old.folio")
    try Data(old).write(to: url)
    #expect(try store.readModel(from: url) == nil)
    BinaryFixtures.expectSame(try store.read(from: url, model: model), BinaryFixtures.contents())
  }

  /// A file whose MODL section holds `text`.
  func file(withModelText text: String, model: ManagedObjectModel) throws -> URL {
    let bytes = try store.encode(empty, model: model)
    let file = try bytes.withUnsafeBytes {
      try BinaryContainer(prefix: $0, fileSize: bytes.count, file: "s.folio")
    }
    let sections = file.sections.map { section in
      let stored = Array(bytes[section.offset..<section.offset + section.storedLength])
      let content =
        section.kind == SectionKind.model
        ? Array(text.utf8)
        : section.flags.contains(.deflated)
          ? (try? stored.withUnsafeBytes { try Zlib.inflate($0, length: section.length) }) ?? []
          : stored
      return (kind: section.kind, flags: section.flags, bytes: content)
    }
    let url = try makeTemporaryFolder().appendingPathComponent("s.folio")
    try Data(BinaryContainer.assemble(sections, modelHash: model.versionHash)).write(to: url)
    return url
  }

  @Test("a MODL that does not load, or is another model, is refused naming the section")
  func badEmbeddedModel() throws {
    let model = try BinaryFixtures.model()
    let garbage = try file(withModelText: "<model><entity", model: model)
    let error = try #require(throws: StoreError.self) { try store.readModel(from: garbage) }
    #expect(error.code == .malformedStore)
    #expect(error.message.hasPrefix("the embedded model does not load"))
    #expect(error.location?.byteOffset != nil)
    let other = try BinaryFixtures.model(extraAttribute: true).xcodeModelXML()
    let mismatched = try file(withModelText: other, model: model)
    let mismatch = try #require(throws: StoreError.self) { try store.readModel(from: mismatched) }
    #expect(mismatch.message == "the embedded model's version hash is not the one in the header")
  }

  @Test("a flipped byte in MODL is a bad checksum, and two MODL sections are refused")
  func corruptEmbeddedModel() throws {
    let model = try BinaryFixtures.model()
    var bytes = try store.encode(empty, model: model)
    bytes[bytes.count - 3] ^= 0xFF
    let url = try makeTemporaryFolder().appendingPathComponent("s.folio")
    try Data(bytes).write(to: url)
    let error = try #require(throws: StoreError.self) { try store.readModel(from: url) }
    #expect(error.code == .badChecksum)
    let doubled = try store.encode(
      empty, model: model, extraSections: [(SectionKind.model, [.deflated], [1])])
    let twice = try #require(throws: StoreError.self) {
      try store.decode(Data(doubled), model: model, file: "s.folio")
    }
    #expect(twice.message == "the file has 2 \"MODL\" sections where it must have at most one")
  }
}
