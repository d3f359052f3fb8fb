import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores
@testable import FolioXMLStore

@Suite("XML store: model inference from a scan of the tags")
struct XMLTagScanTests {
  /// The XML stores at hand: the corpus's (when ../shared is there) and the samples'.
  static let stores: [URL] = {
    var urls =
      (XMLStoreSupport.corpusStores.map { folder in
        XMLStoreSupport.corpusNames.map { folder.appendingPathComponent($0) }
      } ?? [])
    let samples = packageRoot.appendingPathComponent("Samples")
    for folder in (try? FileManager.default.contentsOfDirectory(atPath: samples.path)) ?? [] {
      let path = samples.appendingPathComponent(folder)
      for file in (try? FileManager.default.contentsOfDirectory(atPath: path.path)) ?? []
      where file.hasSuffix(".xml") {
        urls.append(path.appendingPathComponent(file))
      }
    }
    return urls
  }()

  @Test("the scan reads every real store and infers the model a parse infers")
  func sameModel() throws {
    // The samples' stores always (the sessions' copies once the sample scripts have run), and
    // the corpus's 24 where ../shared is.
    #expect(Self.stores.count >= (XMLStoreSupport.corpusStores == nil ? 2 : 26))
    for url in Self.stores {
      #expect(XMLModelInference.scan(url) != nil, "\(url.lastPathComponent): the scan gave up")
      let scanned = try XMLStore.inferModelForReading(from: url)
      let parsed = try XMLStore.inferModel(from: url)
      #expect(scanned == parsed, "\(url.lastPathComponent)")
    }
  }

  /// A store of a person and her spendings, with `prolog` before `<database>` and `extra`
  /// inside the person's object.
  func store(prolog: String = "<?xml version=\"1.0\"?>", extra: String = "") throws -> URL {
    let text = """
      \(prolog)
      <database>
        <databaseInfo><version>134481920</version><UUID>X</UUID><nextObjectID>104</nextObjectID>
          <metadata><plist version="1.0"><dict><key>attribute</key><string>a &lt;b&gt;</string>\
      </dict></plist></metadata>
        </databaseInfo>
        <!-- <object type="GHOST" id="z9"></object> -->
        <object type="SPENDING" id="z102">
          <attribute name="amount" type="double">12.5</attribute>
          <relationship name="person" type="1/1" destination="PERSON" idrefs="z101"></relationship>
        </object>
        <object type="PERSON" id="z101">\(extra)
          <attribute name="name" type="string"><![CDATA[<object type="NOT" id="z7">]]></attribute>
          <relationship name="spendings" type="0/0" destination="SPENDING"
            idrefs="z102
              z103"/>
        </object>
        <object type='SPENDING' id="z103">
          <attribute name="amount" type="float">1</attribute>
          <attribute name="note" type="string">a &amp; b</attribute>
          <relationship name="person" type="1/1" destination="PERSON" idrefs="z101"/>
        </object>
      </database>
      """
    let url = try makeTemporaryFolder().appendingPathComponent("store.xml")
    try Data(text.utf8).write(to: url)
    return url
  }

  @Test(
    "comments, CDATA, references, line breaks in idrefs and single quotes read as libxml2 reads them"
  )
  func markup() throws {
    let url = try store()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    #expect(XMLModelInference.scan(url) != nil)
    let model = try XMLStore.inferModelForReading(from: url)
    #expect(model == (try XMLStore.inferModel(from: url)))
    #expect(model.entities.map(\.name).sorted() == ["Person", "Spending"])
    let spending = try #require(model.entity(named: "Spending"))
    #expect(spending.attributes.map(\.name) == ["amount", "note"])
    #expect(spending.attributes.first?.attributeType == .double, "float and double read as double")
    let spendings = try #require(model.entity(named: "Person")?.relationships.first)
    #expect(spendings.isToMany && spendings.inverseName == "person")
  }

  @Test(
    "the scan gives up on what it does not read, and the parse decides",
    arguments: [
      ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>", ""),
      ("<?xml version=\"1.0\"?>\n<!DOCTYPE database [<!ENTITY e \"x\">]>", ""),
      ("<?xml version=\"1.0\"?>", "<attribute name=\"a&e;\" type=\"string\"/>"),
      ("<?xml version=\"1.0\"?>", "<attribute name=\"x\" type=\"composite\"/>"),
      ("<?xml version=\"1.0\"?>", "<attribute name=\"x\" type=\"nonsense\"/>"),
      ("<?xml version=\"1.0\"?>", "<relationship name=\"r\" type=\"one\" idrefs=\"\"/>"),
    ])
  func givesUp(prolog: String, extra: String) throws {
    let url = try store(prolog: prolog, extra: extra)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    #expect(XMLModelInference.scan(url) == nil)
    // Whatever the scan does, the result is the parse's: the same model or the same error.
    let parsed = Result { () throws(StoreError) in try XMLStore.inferModel(from: url) }
    let scanned = Result { () throws(StoreError) in try XMLStore.inferModelForReading(from: url) }
    switch (parsed, scanned) {
    case (.success(let a), .success(let b)): #expect(a == b)
    case (.failure(let a), .failure(let b)): #expect(a.description == b.description)
    default: Issue.record("the parse and the scan disagree: \(parsed) against \(scanned)")
    }
  }

  @Test(
    "a store broken where the scan does not look gives a model, and reading it names the place",
    arguments: [
      "<attribute name=\"x\" type=\"string\">a</attributeX>",
      "<attribute name=\"x\" type=\"string\">&e;</attribute>",
    ])
  func brokenAfterTags(extra: String) throws {
    let url = try store(extra: extra)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    #expect(throws: StoreError.self) { try XMLStore.inferModel(from: url) }
    let model = try XMLStore.inferModelForReading(from: url)
    let error = try #require(throws: StoreError.self) {
      try XMLStore().read(from: url, model: model)
    }
    #expect(error.location?.line != nil, "\(error)")
  }
}
