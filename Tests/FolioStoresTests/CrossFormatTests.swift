import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioStores
@testable import FolioXMLStore

@Suite("Across formats")
struct CrossFormatTests {
  @Test(
    "every corpus store converts to a .folio store and back with the same graph",
    arguments: XMLStoreSupport.corpusNames)
  func corpusThroughBinary(name: String) throws {
    guard let folder = XMLStoreSupport.corpusStores else {
      print("skipped: ../shared/corpus/stores is absent")
      return
    }
    let url = folder.appendingPathComponent(name)
    let model = try XMLStore.inferModel(from: url)
    let xml = XMLStore(dropsDanglingReferences: true)
    let original = try xml.read(from: url, model: model)
    let scratch = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let binaryURL = scratch.appendingPathComponent("copy.folio")
    try BinaryStore().write(original, model: model, to: binaryURL)
    let fromBinary = try BinaryStore().read(from: binaryURL, model: model)
    #expect(Set(fromBinary.records) == Set(original.records))
    #expect(fromBinary.metadata.identifier == original.metadata.identifier)
    let xmlURL = scratch.appendingPathComponent("back.xml")
    try xml.write(fromBinary, model: model, to: xmlURL)
    #expect(Set(try xml.read(from: xmlURL, model: model).records) == Set(original.records))
  }
}
