import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores
@testable import FolioXMLStore

/// Error messages give the column of the element at fault, found by reading the file again up
/// to its line (`XMLProlog.locate`): right across the reader's 1 MiB pieces and on lines of any
/// length, and only on the way to an error.
@Suite("XML store: columns in error messages")
struct XMLLocationTests {
  static func file(_ text: String) throws -> (url: URL, folder: URL) {
    let folder = try makeTemporaryFolder()
    let url = folder.appendingPathComponent("store.xml")
    try Data(text.utf8).write(to: url)
    return (url, folder)
  }

  @Test("a tag is found after a line that spans two of the reader's pieces")
  func acrossPieces() throws {
    let long = String(repeating: "x", count: 3 << 19)  // 1.5 MiB
    let (url, folder) = try Self.file(
      "<database>\(long)\n  <attribute name=\"a\"/>\n\t<attribute name=\"b\" type=\"string\">\n")
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(XMLProlog.locate(tag: "attribute", named: nil, fromLine: 1, path: url.path)! == (2, 3))
    #expect(XMLProlog.locate(tag: "attribute", named: "b", fromLine: 1, path: url.path)! == (3, 2))
    #expect(XMLProlog.locate(tag: "attribute", named: "b", fromLine: 3, path: url.path)! == (3, 2))
    #expect(XMLProlog.locate(tag: "attribute", named: "a", fromLine: 3, path: url.path) == nil)
    #expect(XMLProlog.locate(tag: "database", named: nil, fromLine: 1, path: url.path)! == (1, 1))
    #expect(XMLProlog.column(ofTag: "attribute", line: 1, path: url.path) == nil)
  }

  @Test("a tag past 1 MiB on one line, and one on the last line without a line break")
  func longLine() throws {
    let long = String(repeating: "y", count: (1 << 20) + 5)
    let (url, folder) = try Self.file(
      "\(long)<attributes/><attribute\tname=\"n\">\n<object id=\"z1\">")
    defer { try? FileManager.default.removeItem(at: folder) }
    // `<attributes` is not `<attribute`: the tag name must end.
    #expect(
      XMLProlog.locate(tag: "attribute", named: "n", fromLine: 1, path: url.path)!
        == (1, (1 << 20) + 5 + 14))
    #expect(XMLProlog.locate(tag: "object", named: nil, fromLine: 1, path: url.path)! == (2, 1))
    #expect(XMLProlog.locate(tag: "object", named: "z1", fromLine: 1, path: url.path) == nil)
  }

  @Test("a name counts only inside its tag")
  func nameInsideTag() throws {
    let (url, folder) = try Self.file(
      "<attribute type=\"string\">name=\"n\"</attribute> <attribute name=\"n\"/>\n")
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(XMLProlog.locate(tag: "attribute", named: "n", fromLine: 1, path: url.path)! == (1, 47))
  }

  /// Inference used to find the column of every attribute it read, each time reading the file
  /// again up to the attribute's line: a 2.7 MB corpus store of 261 objects took 26 s (debug
  /// build), a store of thousands of objects hours. Columns are now found for errors only; the
  /// error's place is the same.
  @Test(
    "inferring a model reads the file once; an error still names its line and column",
    .timeLimit(.minutes(1)))
  func inferenceFindsColumnsForErrorsOnly() throws {
    let blob = Data(repeating: 7, count: 1 << 20).base64EncodedString()
    var text = """
      <?xml version="1.0"?>
      <database>
          <databaseInfo><version>134481920</version></databaseInfo>
          <object type="BLOB" id="z0">
              <attribute name="bytes" type="binary">\(blob)</attribute>
          </object>

      """
    for id in 1...20_000 {
      text += """
            <object type="ITEM" id="z\(id)">
                <attribute name="label" type="string">item \(id)</attribute>
                <attribute name="count" type="int64">\(id)</attribute>
            </object>

        """
    }
    let good = try Self.file(text + "</database>\n")
    defer { try? FileManager.default.removeItem(at: good.folder) }
    let model = try XMLStore.inferModel(from: good.url)
    #expect(model.entity(named: "Item")?.attributes.map(\.name).sorted() == ["count", "label"])
    #expect(model.entity(named: "Blob")?.attribute(named: "bytes")?.attributeType == .binaryData)

    let line = text.split(separator: "\n", omittingEmptySubsequences: false).count
    let bad = try Self.file(
      text + "    <object type=\"ITEM\" id=\"z0x\">\n"
        + "        <attribute name=\"label\" type=\"strnig\">x</attribute>\n"
        + "    </object>\n</database>\n")
    defer { try? FileManager.default.removeItem(at: bad.folder) }
    let error = try #require(throws: StoreError.self) { try XMLStore.inferModel(from: bad.url) }
    #expect(error.location?.line == line + 1, "\(error)")
    #expect(error.location?.column == 9, "\(error)")
    #expect(error.message.hasPrefix("unknown attribute type \"strnig\""), "\(error)")
  }
}
