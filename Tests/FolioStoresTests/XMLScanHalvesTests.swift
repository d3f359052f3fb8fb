import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores
@testable import FolioXMLStore

/// A file's tags scanned in two halves at once give the model one scan gives, wherever the
/// file is split.
@Suite("XML store: model inference from two halves at once")
struct XMLScanHalvesTests {
  /// The model `inference` shows, or `nil`.
  static func model(_ inference: XMLModelInference?) -> ManagedObjectModel? {
    guard var inference else { return nil }
    return try? inference.model(spellings: [], path: "")
  }

  /// About `count` offsets of `bytes` where markup starts, then some inside text and tags.
  static func offsets(in bytes: [UInt8], count: Int) -> [Int] {
    let starts = bytes.indices.filter { bytes[$0] == UInt8(ascii: "<") }
    return stride(from: 0, to: starts.count, by: max(starts.count / count, 1)).map { starts[$0] }
      + stride(from: 1, to: bytes.count, by: max(bytes.count / 4, 1)).map { $0 }
  }

  /// Scans `url` split at each of `offsets`, and expects one scan's model each time.
  static func expectSameModel(_ url: URL, at offsets: [Int]) {
    let whole = model(XMLModelInference.scan(url))
    for offset in offsets {
      let halves = model(XMLModelInference.scanInHalves(url, splitAt: offset))
      #expect(halves == whole, "\(url.lastPathComponent) split at \(offset)")
    }
  }

  @Test(
    "every real store and sample, split anywhere, gives one scan's model",
    arguments: XMLTagScanTests.stores)
  func realStores(url: URL) throws {
    let bytes = try [UInt8](Data(contentsOf: url))
    Self.expectSameModel(url, at: Self.offsets(in: bytes, count: 5))
  }

  @Test(
    "objects whose sightings come only after the split: new entities, properties, wider types, other IDs, shared IDs, subentities"
  )
  func laterSightings() throws {
    var text = """
      <?xml version="1.0"?>
      <database>
        <databaseInfo><version>1</version><UUID>U</UUID><nextObjectID>100</nextObjectID></databaseInfo>
        <object type="PERSON" id="z1"><attribute name="age" type="int16">3</attribute>
          <relationship name="spendings" type="0/0" destination="SPENDING" idrefs="z2 odd"/></object>
        <object type="SPENDING" id="z2"><attribute name="amount" type="float">1</attribute>
          <relationship name="person" type="1/1" destination="PERSON" idrefs="z1"/></object>

      """
    text += """
        <!-- the second half -->
        <object type="SPENDING" id="odd"><attribute name="amount" type="double">2</attribute>
          <attribute name="note" type="string">n</attribute>
          <relationship name="person" type="1/1" destination="PERSON" idrefs="z1"/></object>
        <object type="PERSON" id="z9"><attribute name="AGE" type="int32">70000</attribute>
          <relationship name="Spendings" type="1/1" destination="SPENDING" idrefs="z2 z7"/></object>
        <object type="SHOP" id="z2"><attribute name="city" type="string">Oslo</attribute></object>
        <object type="REFUND" id="z7"><relationship name="person" type="1/1" destination="PERSON" idrefs="z9"/></object>
        <object type="SPENDING" id="other"><relationship name="person" type="1/1" destination="PERSON" idrefs="odd"/></object>
      </database>

      """
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("store.xml")
    try Data(text.utf8).write(to: url)
    Self.expectSameModel(url, at: Self.offsets(in: Array(text.utf8), count: 40))
    let model = try #require(Self.model(XMLModelInference.scanInHalves(url, splitAt: 0)))
    #expect(model.entities.map(\.name).sorted() == ["Person", "Refund", "Shop", "Spending"])
  }

  @Test("a store is split at the first object past its middle and gives one scan's model")
  func splitInTheMiddle() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("big.xml")
    try Data(XMLParseAheadTests.bigStore(1_000).utf8).write(to: url)
    #expect(
      Self.model(XMLModelInference.scanInHalves(url, minimum: 0))
        == Self.model(XMLModelInference.scan(url)))
    #expect(try XMLStore.inferModelForReading(from: url) == XMLStore.inferModel(from: url))
  }
}
