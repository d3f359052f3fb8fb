import CFolioXML
import CLibXML2
import FolioTestSupport
import Foundation
import Testing

@testable import FolioSQLiteStore
@testable import FolioSupport

/// Text with every kind of character the quoting functions treat specially, at random.
private func awkwardStrings(count: Int, seed: UInt64) -> [String] {
  let pieces: [String] = [
    "a", "Z", " ", "\"", "'", "\\", "&", "<", ">", ",", "\n", "\r", "\r\n", "\t", "\0",
    "\u{1}", "\u{1B}", "\u{7F}", "\u{85}", "\u{2028}", "é", "e\u{301}", "\u{301}", "\u{200D}",
    "👍🏽", "\u{FFFE}", "\u{FFFF}", "\u{10FFFF}", "日本", "$", "%@", "{", "}",
  ]
  var generator = SeededGenerator(seed: seed)
  return (0..<count).map { _ in
    (0..<Int.random(in: 0...12, using: &generator)).map { _ in
      pieces[Int.random(in: 0..<pieces.count, using: &generator)]
    }.joined()
  }
}

@Suite("Quoting for each language Folio writes")
struct QuotingTests {
  @Test("a JSON string reads back as the text, through Foundation's JSON reader")
  func jsonReadsBack() throws {
    for text in awkwardStrings(count: 500, seed: 7) + ["", "\u{8}\u{C}"] {
      let quoted = Quoting.json(text)
      let read = try JSONDecoder().decode(String.self, from: Data(quoted.utf8))
      #expect(read == text, "\(quoted)")
      var bytes: [UInt8] = [1]
      Quoting.appendJSON(text, to: &bytes)
      #expect(bytes == [1] + Array(quoted.utf8))
    }
    #expect(Quoting.json("a\"b\\c\n\u{1}\u{8}\u{C}") == #""a\"b\\c\n\u0001\b\f""#)
  }

  @Test(
    "XML text reads back through libxml2 in an attribute and an element; U+FFFD for what XML cannot hold"
  )
  func xmlReadsBack() throws {
    xmlInitParser()
    for text in awkwardStrings(count: 300, seed: 8) + [""] {
      let quoted = Quoting.xml(text)
      let xml = "<a v=\"\(quoted)\">\(quoted)</a>"
      // The C strings are made outside `#require`, whose closure would outlive them.
      let parsed = xml.withCString { text in
        "UTF-8".withCString { encoding in
          xmlReadMemory(text, Int32(strlen(text)), nil, encoding, 0)
        }
      }
      let document = try #require(parsed, "not well-formed: \(xml)")
      defer { xmlFreeDoc(document) }
      let root = try #require(xmlDocGetRootElement(document))
      let property = "v".withCString { name in
        name.withMemoryRebound(to: xmlChar.self, capacity: 2) { xmlGetProp(root, $0) }
      }
      let attribute = try #require(property)
      defer { folio_xml_free(attribute) }
      let content = try #require(xmlNodeGetContent(root))
      defer { folio_xml_free(content) }
      var expected = ""
      for scalar in text.unicodeScalars {
        let held = scalar.value >= 0x20 || "\t\n\r".unicodeScalars.contains(scalar)
        expected.unicodeScalars.append(
          held && scalar.value != 0xFFFE && scalar.value != 0xFFFF ? scalar : "\u{FFFD}")
      }
      #expect(String(cString: attribute) == expected, "\(xml)")
      #expect(String(cString: content) == expected, "\(xml)")
    }
    #expect(Quoting.xml("a&b<c>d\"e'f") == "a&amp;b&lt;c&gt;d&quot;e'f")
    #expect(Quoting.xml("\t\r\n\n") == "&#9;&#13;&#10;&#10;")
    #expect(Quoting.xml("\u{0}\u{1B}\u{FFFE}é\u{FFFF}") == "\u{FFFD}\u{FFFD}\u{FFFD}é\u{FFFD}")
  }

  @Test("an SQL identifier names the same table and column in SQLite, whatever it holds")
  func sqlIdentifierReadsBack() throws {
    let folder = try makeTemporaryFolder()
    let database = try SQLiteDatabase(
      path: folder.appendingPathComponent("names.sqlite").path, readOnly: false, create: true)
    for (number, text) in awkwardStrings(count: 40, seed: 9).enumerated() {
      let name = "t\(number)" + text.replacingOccurrences(of: "\0", with: "")
      let quoted = Quoting.sqlIdentifier(name)
      try database.execute("CREATE TABLE \(quoted) (\(quoted) TEXT)")
      let columns = try database.columns(of: name)
      #expect(columns.map(\.name) == [name], "\(quoted)")
    }
    #expect(Quoting.sqlIdentifier("a\"b") == "\"a\"\"b\"")
  }

  @Test("a Swift string literal escapes what Swift source cannot hold raw")
  func swiftString() {
    #expect(Quoting.swiftString("plain é 日本") == "\"plain é 日本\"")
    #expect(Quoting.swiftString("a\"b\\c") == #""a\"b\\c""#)
    #expect(Quoting.swiftString("\n\r\t\0") == #""\n\r\t\0""#)
    #expect(
      Quoting.swiftString("\u{7}\u{7F}\u{85}\u{2028}\u{2029}")
        == #""\u{7}\u{7F}\u{85}\u{2028}\u{2029}""#)
    #expect(Quoting.swiftString("\\(x)") == #""\\(x)""#)
  }

  @Test("a CSV field is quoted only when it holds a comma, a quote or a line break")
  func csvField() {
    #expect(Quoting.csvField("plain text") == "plain text")
    #expect(Quoting.csvField("a,b") == "\"a,b\"")
    #expect(Quoting.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
    #expect(Quoting.csvField("two\nlines") == "\"two\nlines\"")
    #expect(Quoting.csvField("cr\r") == "\"cr\r\"")
  }

  @Test("a TSV field escapes backslash, tab and line breaks, so a row is one line")
  func tsvField() {
    #expect(Quoting.tsvField("plain, text") == "plain, text")
    #expect(Quoting.tsvField("a\tb\nc\rd\\e") == #"a\tb\nc\rd\\e"#)
  }

  @Test("a format string escapes delimiters, controls and scalars that would join a quote")
  func formatString() {
    #expect(Quoting.formatString("it's \"x\"\\") == #""it's \"x\"\\""#)
    #expect(Quoting.formatString("\n\t\r\0\u{1}\u{7F}") == #""\n\t\r\0\u0001\u007F""#)
    #expect(Quoting.formatString("\u{301}e\u{301}") == "\"\\u0301e\u{301}\"")
    #expect(Quoting.formatString("e\u{301}") == "\"e\u{301}\"")
    #expect(Quoting.formatString("\u{1F3FD}") == #""\uD83C\uDFFD""#)
  }
}
