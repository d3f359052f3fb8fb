import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores
@testable import FolioXMLStore

/// Collects records, and counts how many collectors were made.
private struct Collector: StoreRecordConsumer {
  var records: [StoreRecord] = []
  var finished = false

  mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?) {}
  mutating func consume(_ record: StoreRecord) { records.append(record) }
  mutating func finish() { finished = true }
}

/// Reading an XML store while its model is inferred gives what inferring first and then
/// reading gives: the same model, the same records, or the same error.
@Suite("XML store: reading while the model is inferred")
struct XMLInferringReadTests {
  /// A store of 40 people with a spending each, then `late` (objects, or anything else) near
  /// the end, where a model guessed from the first half of the file has not seen it.
  func store(late: String) throws -> URL {
    var text = """
      <?xml version="1.0"?>
      <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
      <database>
        <databaseInfo><version>134481920</version><UUID>X</UUID><nextObjectID>1000</nextObjectID>
        </databaseInfo>

      """
    for number in 1...40 {
      text += """
          <object type="PERSON" id="z\(number)">
            <attribute name="name" type="string">person \(number)</attribute>
            <relationship name="spendings" type="0/0" destination="SPENDING" idrefs="z\(number + 100)"/>
          </object>
          <object type="SPENDING" id="z\(number + 100)">
            <attribute name="amount" type="int16">\(number)</attribute>
            <relationship name="person" type="1/1" destination="PERSON" idrefs="z\(number)"/>
          </object>

        """
    }
    text += late + "\n</database>\n"
    let url = try makeTemporaryFolder().appendingPathComponent("store.xml")
    try Data(text.utf8).write(to: url)
    return url
  }

  /// Inferring first, then reading.
  func inferThenRead(_ url: URL) -> Result<(ManagedObjectModel, [StoreRecord]), StoreError> {
    Result { () throws(StoreError) in
      let model = try XMLStore.inferModelForReading(from: url)
      var collector = Collector()
      try XMLStore().read(from: url, model: model, into: &collector)
      return (model, collector.records)
    }
  }

  @Test(
    "the model and records or error are those of inferring first; a guess that does not fit is read again",
    arguments: [
      // Uniform: the guess from the first half fits, and is read once.
      ("", 1),
      // An attribute the first half does not show: the guessed read fails, and is redone.
      (
        """
        <object type="SPENDING" id="z500"><attribute name="note" type="string">n</attribute>
        </object>
        """, 2
      ),
      // A wider type: the guessed read succeeds with the wrong types, and is redone.
      (
        "<object type=\"SPENDING\" id=\"z500\"><attribute name=\"amount\" type=\"int32\">70000</attribute></object>",
        2
      ),
      // An entity the first half does not show.
      (
        "<object type=\"SHOP\" id=\"z500\"><attribute name=\"city\" type=\"string\">Oslo</attribute></object>",
        2
      ),
      // A target the relationship's destination does not admit, made a subentity by the whole file.
      (
        "<object type=\"TRIP\" id=\"z500\"/><object type=\"SPENDING\" id=\"z501\"><relationship name=\"person\" type=\"1/1\" destination=\"PERSON\" idrefs=\"z500\"/></object>",
        2
      ),
      // Broken where the tags do not show it: the guessed read's error stands.
      (
        "<object type=\"SPENDING\" id=\"z500\"><attribute name=\"amount\" type=\"int16\">12</attributeX></object>",
        1
      ),
      // A value that is not a number: the guessed read's error stands.
      (
        "<object type=\"SPENDING\" id=\"z500\"><attribute name=\"amount\" type=\"int16\">twelve</attribute></object>",
        1
      ),
      // A target that is not in the file.
      (
        "<object type=\"SPENDING\" id=\"z500\"><relationship name=\"person\" type=\"1/1\" destination=\"PERSON\" idrefs=\"z999\"/></object>",
        1
      ),
    ])
  func sameAsInferringFirst(late: String, consumers: Int) throws {
    let url = try store(late: late)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let size = try #require(
      try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    var made = 0
    let speculated = Result { () throws(StoreError) in
      let (model, collector) = try XMLStore.readInferringModel(
        from: url, prefix: size / 2,
        making: {
          made += 1
          return Collector()
        },
        reading: { model, collector throws(StoreError) in
          try XMLStore().read(from: url, model: model, into: &collector)
        })
      #expect(collector.finished)
      return (model, collector.records)
    }
    switch (inferThenRead(url), speculated) {
    case (.success(let expected), .success(let found)):
      #expect(found.0 == expected.0)
      #expect(found.1 == expected.1)
      #expect(found.1.count >= 80)
    case (.failure(let expected), .failure(let found)):
      #expect(found.description == expected.description)
    case (let expected, let found):
      Issue.record("inferring first gave \(expected), reading while inferring \(found)")
    }
    #expect(made == consumers)
  }

  @Test("a relationship's inverse, which the first half cannot show, is in the model")
  func inverses() throws {
    let url = try store(late: "")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let (model, _) = try XMLStore.readInferringModel(
      from: url, prefix: 600, making: { Collector() },
      reading: { model, collector throws(StoreError) in
        try XMLStore().read(from: url, model: model, into: &collector)
      })
    let spendings = try #require(model.entity(named: "Person")?.relationships.first)
    #expect(spendings.inverseName == "person")
  }

  @Test("a file smaller than the prefix is inferred, then read once")
  func smallFile() throws {
    let url = try store(late: "")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    var made = 0
    let (model, collector) = try XMLStore.readInferringModel(
      from: url,
      making: {
        made += 1
        return Collector()
      },
      reading: { model, collector throws(StoreError) in
        try XMLStore().read(from: url, model: model, into: &collector)
      })
    #expect(model == (try XMLStore.inferModelForReading(from: url)))
    #expect(collector.records.count == 80 && made == 1)
  }
}
