import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores
@testable import FolioXMLStore

@Suite("XML store: the corpus of real Core Data stores")
struct XMLStoreCorpusTests {
  @Test(
    "every corpus store opens with an inferred model, re-saves and reopens with the same records",
    arguments: XMLStoreSupport.corpusNames)
  func corpusRoundTrip(name: String) throws {
    guard let folder = XMLStoreSupport.corpusStores else {
      print("skipped: ../shared/corpus/stores is absent")
      return
    }
    let url = folder.appendingPathComponent(name)
    let model = try XMLStore.inferModel(from: url)
    // Two Things databases hold idrefs to notes that are not in the file (the fixtures were
    // trimmed); Core Data opens them with unfulfillable faults, Folio by leaving them out.
    let store = XMLStore(dropsDanglingReferences: true)
    let contents = try store.read(from: url, model: model)
    #expect(!contents.records.isEmpty)
    let scratch = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let copy = scratch.appendingPathComponent("copy.xml")
    try store.write(contents, model: model, to: copy)
    #expect(XMLStoreSupport.schemaError(of: copy) == nil)
    let reread = try store.read(from: copy, model: model)
    #expect(reread.records == contents.records)
    #expect(reread.nextObjectID == contents.nextObjectID)
    let reinferred = try XMLStore.inferModel(from: copy)
    #expect(Set(reinferred.entities.map(\.name)) == Set(model.entities.map(\.name)))
  }

  @Test("the corpus has its 24 stores")
  func corpusIsThere() {
    guard XMLStoreSupport.corpusStores != nil else {
      print("skipped: ../shared/corpus/stores is absent")
      return
    }
    #expect(XMLStoreSupport.corpusNames.count == 24)
  }
}

@Suite("XML store: writing as Core Data writes")
struct XMLStoreLayoutTests {
  @Test("a written store has Apple's prolog, databaseInfo and layout")
  func layout() throws {
    let model = try XMLStoreSupport.expensesModel()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("expenses.xml")
    var metadata = StoreMetadata(
      storeType: "XML", identifier: "F17B8B92-EEB0-4A30-98EC-425208280CBC")
    metadata.userInfo["Note"] = .string("a < b & c")
    let records = [
      StoreRecord(
        entityName: "Person", id: 1, attributes: ["name": .string("Ann <&> \\u")],
        relationships: ["spendings": [2]]),
      StoreRecord(
        entityName: "Spending", id: 2,
        attributes: [
          "amount": .double(12.5),
          "date": .date(Date(timeIntervalSinceReferenceDate: 318303557.021736)),
        ],
        relationships: ["person": [1]]),
    ]
    try XMLStore().write(StoreContents(metadata: metadata, records: records), model: model, to: url)
    let text = try String(contentsOf: url, encoding: .utf8)
    #expect(
      text.hasPrefix(
        """
        <?xml version="1.0"?>
        <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

        <database>
            <databaseInfo>
                <version>134481920</version>
                <UUID>F17B8B92-EEB0-4A30-98EC-425208280CBC</UUID>
                <nextObjectID>3</nextObjectID>
                <metadata>
                    <plist version="1.0">
                        <dict>
        """))
    #expect(
      text.contains(
        """
            <object type="PERSON" id="z1">
                <attribute name="name" type="string">Ann \\u3c00\\u2600\\u3e00 \\u5c00u</attribute>
                <relationship name="spendings" type="0/0" destination="SPENDING" idrefs="z2"></relationship>
            </object>
            <object type="SPENDING" id="z2">
                <attribute name="amount" type="double">12.5</attribute>
                <attribute name="date" type="date">318303557.02173602581024169922</attribute>
                <relationship name="person" type="1/1" destination="PERSON" idrefs="z1"></relationship>
            </object>
        </database>

        """))
    #expect(XMLStoreSupport.schemaError(of: url) == nil)
    #expect(try XMLStore().read(from: url, model: model).records == records)
  }
}
