import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores
@testable import FolioXMLStore

@Suite("XML store: the model in the metadata")
struct XMLStoreCarriedModelTests {
  let store = XMLStore()

  func written(
    with model: ManagedObjectModel, keeping hashes: [String: Data]? = nil
  ) throws -> URL {
    let url = try makeTemporaryFolder().appendingPathComponent("s.xml")
    var metadata = StoreMetadata(storeType: "XML")
    metadata.userInfo["app"] = .string("kept")
    var contents = StoreContents(metadata: metadata, records: [])
    if let hashes {
      contents.metadata.modelVersionHashes = hashes
      contents.keepsVersionHashes = true
    }
    try store.write(contents, model: model, to: url)
    return url
  }

  @Test("a store Folio writes carries its model, which reads back with the same version hash")
  func carried() throws {
    for model in [
      try XMLStoreSupport.everyTypeModel(), try XMLStoreSupport.expensesModel(),
    ] {
      let url = try written(with: model)
      let carried = try #require(try store.readModel(from: url))
      #expect(carried.versionHash == model.versionHash)
      #expect(carried == model)
      // The key is the format's, not the app's: metadata shows only the app's keys.
      let metadata = try store.readMetadata(from: url)
      #expect(metadata.userInfo[XMLStore.carriedModelKey] == nil)
      #expect(metadata.userInfo["app"] == .string("kept"))
      #expect(XMLStoreSupport.schemaError(of: url) == nil)
    }
  }

  @Test("a store written keeping another model's hashes carries the model beside those hashes")
  func keptHashes() throws {
    let model = try XMLStoreSupport.expensesModel()
    let hashes = [
      "Person": Data(repeating: 1, count: 32), "Spending": Data(repeating: 2, count: 32),
    ]
    let url = try written(with: model, keeping: hashes)
    #expect(try store.readMetadata(from: url).modelVersionHashes == hashes)
    #expect(try store.readModel(from: url)?.versionHash == model.versionHash)
  }

  @Test("rewriting the metadata alone keeps the carried model")
  func metadataRewrite() throws {
    let model = try XMLStoreSupport.expensesModel()
    let url = try written(with: model)
    var metadata = try store.readMetadata(from: url)
    metadata.userInfo["app"] = .string("changed")
    try store.writeMetadata(metadata, to: url)
    #expect(try store.readModel(from: url)?.versionHash == model.versionHash)
    #expect(try store.readMetadata(from: url).userInfo["app"] == .string("changed"))
  }

  @Test("a store whose hashes another writer changed since carries no model")
  func staleModel() throws {
    let url = try written(with: try XMLStoreSupport.expensesModel())
    var text = try String(contentsOf: url, encoding: .utf8)
    // A Mac saving with another model version rewrites the hashes and keeps the app's keys.
    let hashes = try #require(text.range(of: "<key>Person</key>"))
    let data = try #require(text.range(of: "<data>", range: hashes.upperBound..<text.endIndex))
    let first = try #require(
      text[data.upperBound...].firstIndex { !$0.isWhitespace && !$0.isNewline })
    text.replaceSubrange(first..<text.index(first, offsetBy: 4), with: "AAAA")
    try Data(text.utf8).write(to: url)
    #expect(try store.readModel(from: url) == nil)
  }

  @Test("a store Core Data wrote carries no model", arguments: XMLStoreSupport.corpusNames)
  func coreDataStores(name: String) throws {
    let url = try #require(XMLStoreSupport.corpusStores).appendingPathComponent(name)
    #expect(try store.readModel(from: url) == nil)
  }

  @Test("a carried model that is not two strings, or does not load, is refused, naming the file")
  func malformed() throws {
    let url = try written(with: try XMLStoreSupport.expensesModel())
    let text = try String(contentsOf: url, encoding: .utf8)
    let start = try #require(text.range(of: "<key>contents</key>"))
    let contents = try #require(
      text.range(of: "<string>", range: start.upperBound..<text.endIndex))
    var broken = text
    broken.replaceSubrange(contents, with: "<string>&lt;model&gt;&lt;entity")
    try Data(broken.utf8).write(to: url)
    let notLoading = XMLStoreSupport.storeError { () throws(StoreError) in
      _ = try store.readModel(from: url)
    }
    #expect(notLoading?.code == .malformedStore)
    #expect(notLoading?.message.contains("the carried model does not load") == true)
    #expect(notLoading?.location?.file == url.path)
    broken = text.replacingOccurrences(of: "<key>contents</key>", with: "<key>other</key>")
    try Data(broken.utf8).write(to: url)
    let notStrings = XMLStoreSupport.storeError { () throws(StoreError) in
      _ = try store.readModel(from: url)
    }
    #expect(notStrings?.message.contains("is not a dictionary holding the strings") == true)
  }
}
