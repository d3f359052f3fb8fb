import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores
@testable import FolioXMLStore

/// Parsing ahead on a second thread gives the events, records and errors that parsing on the
/// reader's thread gives.
@Suite("XML store: parsing ahead")
struct XMLParseAheadTests {
  /// The records of the store at `url`, read with `model`, or its error; parsed ahead or not.
  static func read(_ url: URL, model: ManagedObjectModel, ahead: Bool) -> Result<
    [StoreRecord], StoreError
  > {
    Result { () throws(StoreError) in
      let parser = try XMLStoreParser(url: url, parsesAhead: ahead)
      return try XMLRecordReader(parser: parser, model: model).read()
    }
  }

  @Test("every bad input is refused with its exact error", arguments: XMLStoreErrorTests.cases)
  func sameErrors(_ input: XMLBadInput) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try XMLStoreSupport.file(input.text, in: folder)
    let result = Self.read(url, model: try XMLStoreErrorTests.model(), ahead: true)
    guard case .failure(let error) = result else {
      Issue.record("\(input.id) was read")
      return
    }
    #expect(error.code == input.code)
    #expect(error.description == "\(url.path):\(input.message)")
  }

  /// A store of `count` people, each with a spending, about 330 bytes an object pair: some
  /// megabytes, many chunks.
  static func bigStore(_ count: Int) -> String {
    var text = """
      <?xml version="1.0"?>
      <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
      <database>

      """
    for number in 1...count {
      text += """
            <object type="PERSON" id="z\(number)">
                <attribute name="name" type="string">person \(number) &amp; family</attribute>
                <attribute name="age" type="int16">\(number % 90)</attribute>
                <relationship name="spendings" type="0/0" destination="SPENDING" idrefs="z\(count + number)"></relationship>
            </object>
            <object type="SPENDING" id="z\(count + number)">
                <relationship name="person" type="1/1" destination="PERSON" idrefs="z\(number)"></relationship>
            </object>

        """
    }
    return text + "</database>\n"
  }

  @Test(
    "a large store's records, or its error wherever it is, are the same parsed ahead",
    arguments: [
      ("intact", nil, ""),
      ("an unclosed tag in the first chunk", 2_000, "<broken"),
      ("an unclosed tag in a middle chunk", 700_000, "<broken"),
      ("a stray end tag near the end", 1_500_000, "</nothing>"),
      ("an entity reference", 900_000, "&e;"),
      ("a byte that is not UTF-8", 1_100_000, "\u{FFFF}"),
      ("an unknown attribute", 1_300_000, "<attribute name=\"nope\" type=\"string\">x</attribute>"),
      ("the end cut off", -1, ""),
    ] as [(String, Int?, String)])
  func sameAhead(name: String, offset: Int?, inserted: String) throws {
    var bytes = Array(Self.bigStore(5_000).utf8)
    #expect(bytes.count > 1_600_000)
    if let offset {
      if offset < 0 {
        bytes.removeLast(100_000)
      } else {
        // At the start of the object tag at or after `offset`.
        let at = Self.objectStart(in: bytes, from: offset)
        var piece = Array(inserted.utf8)
        if inserted == "\u{FFFF}" { piece = [0xFF, 0xFE] }
        bytes.insert(contentsOf: piece, at: at)
      }
    }
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("big.xml")
    try Data(bytes).write(to: url)
    let model = try XMLStoreErrorTests.model()
    let here = Self.read(url, model: model, ahead: false)
    let ahead = Self.read(url, model: model, ahead: true)
    switch (here, ahead) {
    case (.success(let a), .success(let b)):
      #expect(offset == nil, "\(name) was read")
      #expect(a == b)
      #expect(a.count == 10_000)
    case (.failure(let a), .failure(let b)):
      #expect(offset != nil)
      #expect(a.description == b.description, "\(name)")
    default:
      Issue.record("\(name): \(here) parsed here, \(ahead) parsed ahead")
    }
  }

  /// The offset of the first `<object` at or after `offset`.
  static func objectStart(in bytes: [UInt8], from offset: Int) -> Int {
    let pattern = Array("<object".utf8)
    var index = offset
    while index + pattern.count <= bytes.count {
      if Array(bytes[index..<index + pattern.count]) == pattern { return index }
      index += 1
    }
    return offset
  }

  @Test("a reader dropped before the end stops its thread and frees its parser")
  func droppedEarly() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try XMLStoreSupport.file(Self.bigStore(4_000), in: folder)
    for objects in [0, 1, 3_000] {
      for _ in 0..<10 {
        let parser = try XMLStoreParser(url: url, parsesAhead: true)
        for _ in 0..<objects {
          _ = try parser.nextObject()
          while let property = try parser.nextProperty() {
            if case .attribute = property { try parser.skipAttribute() }
          }
        }
      }
    }
    // Every reader above ended: the file can still be read whole, ahead and not.
    let model = try XMLStoreErrorTests.model()
    let here = try Self.read(url, model: model, ahead: false).get()
    #expect(try Self.read(url, model: model, ahead: true).get() == here)
  }
}
