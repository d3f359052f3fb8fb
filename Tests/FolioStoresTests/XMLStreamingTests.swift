import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores
@testable import FolioXMLStore

/// Collects streamed records in the order they arrive.
private struct Collector: StoreRecordConsumer {
  var records: [StoreRecord] = []
  var nextObjectID: Int64 = 0
  var finished = false

  mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?) {
    self.nextObjectID = nextObjectID
  }
  mutating func consume(_ record: StoreRecord) { records.append(record) }
  mutating func finish() { finished = true }
}

private let prolog = """
  <?xml version="1.0"?>
  <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
  <database>

  """

/// Streaming an XML store hands over the records reading it whole gives, or the same error.
@Suite("XML store: streamed records")
struct XMLStreamingTests {
  fileprivate func streamed(_ url: URL, model: ManagedObjectModel, store: XMLStore = XMLStore())
    throws(StoreError) -> Collector
  {
    var collector = Collector()
    try store.read(from: url, model: model, into: &collector)
    return collector
  }

  @Test(
    "every bad input is refused with the error reading it whole gives",
    arguments: XMLStoreErrorTests.cases)
  func sameErrors(_ input: XMLBadInput) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try XMLStoreSupport.file(input.text, in: folder)
    let model = try XMLStoreErrorTests.model()
    let error = XMLStoreSupport.storeError { () throws(StoreError) in
      _ = try streamed(url, model: model)
    }
    #expect(error?.code == input.code)
    #expect(error?.description == "\(url.path):\(input.message)")
  }

  @Test("every corpus store and sample streams the records reading it whole gives")
  func sameRecords() throws {
    var urls = XMLStoreSupport.corpusNames.compactMap {
      XMLStoreSupport.corpusStores?.appendingPathComponent($0)
    }
    // Without ../shared (a clone on its own) only the sample runs; with it, the corpus too.
    #expect(urls.count == (XMLStoreSupport.corpusStores == nil ? 0 : 24))
    urls.append(packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xml"))
    for url in urls {
      let model = try XMLStore.inferModel(from: url)
      let store = XMLStore(dropsDanglingReferences: true, checksVersionHashes: false)
      let whole = try store.read(from: url, model: model)
      let collector = try streamed(url, model: model, store: store)
      #expect(collector.finished)
      #expect(collector.records.count == whole.records.count, "\(url.lastPathComponent)")
      #expect(Set(collector.records) == Set(whole.records), "\(url.lastPathComponent)")
      #expect(
        max(collector.nextObjectID, (collector.records.map(\.id).max() ?? 0) + 1)
          == whole.nextObjectID, "\(url.lastPathComponent)")
    }
  }

  /// A model with two hierarchies, so two objects may share a `z` number.
  func twoHierarchies() throws -> ManagedObjectModel {
    try ManagedObjectModel {
      EntityDescription("Person") {
        AttributeDescription("name", .string)
        RelationshipDescription("spendings", to: "Spending", inverse: "person", toMany: true)
      }
      EntityDescription("Spending") {
        AttributeDescription("amount", .double)
        RelationshipDescription("person", to: "Person", inverse: "spendings")
      }
    }
  }

  @Test("records wait only for objects further on; shared and odd IDs wait for the end")
  func waiting() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try twoHierarchies()
    // s2 and s3 name p1 before it comes; s4 after. Then a spending shares p1's number, and
    // one has an ID that is not Core Data's.
    let text =
      prolog + """
            <object type="SPENDING" id="z2"><relationship name="person" type="1/1" destination="PERSON" idrefs="z1"></relationship></object>
            <object type="SPENDING" id="z3"><relationship name="person" type="1/1" destination="PERSON" idrefs="z1"></relationship></object>
            <object type="PERSON" id="z1"><attribute name="name" type="string">Ann</attribute><relationship name="spendings" type="0/0" destination="SPENDING" idrefs="z2 z3 z4 z1 odd"></relationship></object>
            <object type="SPENDING" id="z4"><relationship name="person" type="1/1" destination="PERSON" idrefs="z1"></relationship></object>
            <object type="SPENDING" id="z1"><attribute name="amount" type="double">1</attribute></object>
            <object type="SPENDING" id="odd"><attribute name="amount" type="double">2</attribute></object>
        </database>

        """
    let url = try XMLStoreSupport.file(text, in: folder)
    let collector = try streamed(url, model: model)
    let whole = try XMLStore().read(from: url, model: model)
    #expect(Set(collector.records) == Set(whole.records))
    // s2 and s3 wait for p1 and come as soon as it is read, s4 at once. p1 waits for the
    // end: it names the spending that shares its number and the one with an odd ID, which
    // are provisional until then (numbered above z4 in the order first named: odd 5, z1 6).
    let order = collector.records.map { "\($0.entityName.prefix(1))\($0.id)" }
    #expect(order == ["S2", "S3", "S4", "P1", "S6", "S5"])
    let person = try #require(collector.records.first { $0.entityName == "Person" })
    #expect(person.relationships["spendings"] == [2, 3, 4, 6, 5])
  }

  @Test("a target that never comes is refused at the end, or left out when asked")
  func dangling() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try twoHierarchies()
    let text =
      prolog + """
            <object type="SPENDING" id="z2"><relationship name="person" type="1/1" destination="PERSON" idrefs="z9"></relationship></object>
            <object type="PERSON" id="z1"><relationship name="spendings" type="0/0" destination="SPENDING" idrefs="z2 z7"></relationship></object>
        </database>

        """
    let url = try XMLStoreSupport.file(text, in: folder)
    let streamedError = XMLStoreSupport.storeError { () throws(StoreError) in
      _ = try streamed(url, model: model)
    }
    let wholeError = XMLStoreSupport.storeError { () throws(StoreError) in
      _ = try XMLStore().read(from: url, model: model)
    }
    #expect(streamedError?.code == .danglingReference)
    #expect(streamedError?.description == wholeError?.description)
    let dropped = try streamed(url, model: model, store: XMLStore(dropsDanglingReferences: true))
    #expect(
      Set(dropped.records)
        == Set(try XMLStore(dropsDanglingReferences: true).read(from: url, model: model).records))
    #expect(dropped.records.first { $0.id == 1 }?.relationships["spendings"] == [2])
  }
}
