import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores
@testable import FolioXMLStore

/// One bad input: a file's text and the exact error it gets (after `PATH:`).
struct XMLBadInput: Sendable, CustomTestStringConvertible {
  let id: String
  let text: String
  let code: StoreError.Code
  let message: String
  var testDescription: String { id }
}

private let prolog = """
  <?xml version="1.0"?>
  <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

  """

private let person = """
      <object type="PERSON" id="z1">
          <attribute name="name" type="string">Ann</attribute>
      </object>
  """

@Suite("XML store: bad input is refused with its place")
struct XMLStoreErrorTests {
  static let cases: [XMLBadInput] = [
    XMLBadInput(
      id: "truncated file", text: prolog + "<database>\n" + person, code: .truncated,
      message:
        "6:14: the file ends before the store does (Extra content at the end of the document)"),
    XMLBadInput(
      id: "truncated mid-tag", text: String((prolog + "<database>\n" + person).prefix(150)),
      code: .truncated,
      message: "5:13: the file ends before the store does (Couldn't find end of Start Tag att)"),
    XMLBadInput(
      id: "not XML", text: "name,amount\nAnn,12\n", code: .malformedXML,
      message: "1:1: the file is not XML: it starts with \"name,amount\""),
    XMLBadInput(
      id: "empty file", text: "", code: .truncated,
      message: "1:1: the file ends before the store does (the file is empty)"),
    XMLBadInput(
      id: "unknown encoding",
      text: "<?xml version=\"1.0\" encoding=\"X-NONSENSE\"?>\n<database></database>\n",
      code: .malformedXML, message: "1:42: Unsupported encoding X-NONSENSE"),
    XMLBadInput(
      id: "wrong root", text: prolog + "<plist version=\"1.0\"/>\n", code: .malformedStore,
      message: "3:1: expected <database>, found <plist>"),
    XMLBadInput(
      id: "foreign DTD",
      text:
        "<?xml version=\"1.0\"?>\n<!DOCTYPE database SYSTEM \"http://evil.example/x.dtd\">\n<database/>",
      code: .malformedXML,
      message:
        "2:1: DOCTYPE \"<!DOCTYPE database SYSTEM \"http://evil.example/x.dtd\">\" is refused: the only one allowed is <!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">"
    ),
    XMLBadInput(
      id: "billion laughs",
      text: """
        <?xml version="1.0"?>
        <!DOCTYPE database [
          <!ENTITY lol "lol">
          <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
        ]>
        <database>&lol2;</database>
        """, code: .malformedXML,
      message: "3:3: entity declaration \"lol\" is refused: a store declares no entities"),
    XMLBadInput(
      id: "external entity",
      text: """
        <?xml version="1.0"?>
        <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd" [
          <!ENTITY secret SYSTEM "file:///etc/passwd">
        ]>
        <database>&secret;</database>
        """, code: .malformedXML,
      message: "3:3: entity declaration \"secret\" is refused: a store declares no entities"),
    XMLBadInput(
      id: "internal subset",
      text:
        "<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\" [ ]>\n<database/>",
      code: .malformedXML,
      message: "1:70: a DOCTYPE with an internal subset is refused: a store declares nothing"),
    // The prolog check searches the bytes for the end of each comment and declaration, and
    // for an entity declaration in an internal subset, at any distance within its 64 KiB.
    XMLBadInput(
      id: "foreign DTD after comments and a processing instruction",
      text: "<?xml version=\"1.0\"?>\n<!-- one -->\n<?pi a=\"-->\"?><!-- two\n-- -->"
        + "<!DOCTYPE database SYSTEM \"x.dtd\">\n<database/>",
      code: .malformedXML,
      message:
        "4:7: DOCTYPE \"<!DOCTYPE database SYSTEM \"x.dtd\">\" is refused: the only one allowed is <!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">"
    ),
    XMLBadInput(
      id: "entity declaration far into the internal subset",
      text: "<!DOCTYPE database [" + String(repeating: "\n", count: 30_000)
        + String(repeating: " ", count: 30_000) + "<!ENTITY %  far \"x\">]>\n<database/>",
      code: .malformedXML,
      message: "30001:30001: entity declaration \"far\" is refused: a store declares no entities"),
    XMLBadInput(
      id: "comment left open in the prolog",
      text: "<?xml version=\"1.0\"?>\n<!-- " + String(repeating: "- > ", count: 20_000) + "-",
      code: .truncated,
      message: "2:80007: the file ends before the store does (Comment not terminated)"),
    XMLBadInput(
      id: "undeclared entity reference", text: prolog + "<database>&foo;</database>\n",
      code: .malformedXML,
      message: "3:1: entity reference \"&foo;\" is refused: a store uses no entities"),
    XMLBadInput(
      // In an element the reader skips, so that only the element limit applies (a property
      // list stops at 32 levels, NestingLimitTests).
      id: "deep nesting",
      text: prolog
        + "<database><databaseInfo><version>134481920</version>"
        + String(repeating: "<x>", count: 100_000),
      code: .malformedXML, message: "3:53: elements are nested more than 64 deep"),
    XMLBadInput(
      id: "deep nesting, one per line",
      text: prolog + "<database><databaseInfo><version>134481920</version>\n"
        + String(repeating: "<x>\n", count: 100) + String(repeating: "</x>", count: 100)
        + "</databaseInfo></database>\n",
      code: .malformedXML, message: "66:1: elements are nested more than 64 deep"),
    XMLBadInput(
      id: "unknown entity",
      text: prolog + "<database>\n    <object type=\"PERSN\" id=\"z1\"></object>\n</database>\n",
      code: .modelMismatch, message: "4:5: unknown entity \"PERSN\" (did you mean \"Person\"?)"),
    XMLBadInput(
      id: "unknown property",
      text: prolog + "<database>\n    <object type=\"PERSON\" id=\"z1\">\n"
        + "        <attribute name=\"nme\" type=\"string\">Ann</attribute>\n    </object>\n</database>\n",
      code: .modelMismatch,
      message: "5:9: Person.nme: entity \"Person\" has no property \"nme\" (did you mean \"name\"?)"
    ),
    XMLBadInput(
      id: "int16 abc",
      text: prolog + "<database>\n    <object type=\"PERSON\" id=\"z1\">\n"
        + "        <attribute name=\"age\" type=\"int16\">abc</attribute>\n    </object>\n</database>\n",
      code: .typeMismatch, message: "5:9: Person.age: \"abc\" is not a valid Integer 16 value"),
    XMLBadInput(
      id: "int16 out of range",
      text: prolog + "<database>\n    <object type=\"PERSON\" id=\"z1\">\n"
        + "        <attribute name=\"age\" type=\"int16\">40000</attribute>\n    </object>\n</database>\n",
      code: .typeMismatch, message: "5:9: Person.age: \"40000\" is not a valid Integer 16 value"),
    XMLBadInput(
      id: "bad date",
      text: prolog + "<database>\n    <object type=\"SPENDING\" id=\"z1\">\n"
        + "        <attribute name=\"date\" type=\"date\">yesterday</attribute>\n    </object>\n</database>\n",
      code: .typeMismatch, message: "5:9: Spending.date: \"yesterday\" is not a valid Date value"),
    XMLBadInput(
      id: "bad base64",
      text: prolog + "<database>\n    <object type=\"PERSON\" id=\"z1\">\n"
        + "        <attribute name=\"photo\" type=\"binary\">not*base64</attribute>\n    </object>\n</database>\n",
      code: .typeMismatch, message: "5:9: Person.photo: \"not*base64\" is not a valid Binary value"),
    XMLBadInput(
      id: "incompatible type word",
      text: prolog + "<database>\n    <object type=\"PERSON\" id=\"z1\">\n"
        + "        <attribute name=\"age\" type=\"string\">12</attribute>\n    </object>\n</database>\n",
      code: .typeMismatch,
      message: "5:9: Person.age: a \"string\" value does not fit the model's type Integer 16"),
    XMLBadInput(
      id: "dangling idref",
      text: prolog + "<database>\n    <object type=\"SPENDING\" id=\"z1\">\n"
        + "        <relationship name=\"person\" type=\"1/1\" destination=\"PERSON\" idrefs=\"z9\"></relationship>\n"
        + "    </object>\n</database>\n",
      code: .danglingReference,
      message: "5:9: Spending.person: \"z9\" is not the ID of an object in the store"),
    XMLBadInput(
      id: "duplicate id",
      text: prolog + "<database>\n" + person + "\n" + person + "\n</database>\n",
      code: .malformedStore, message: "7:5: object ID \"z1\" is used twice (first on line 4)"),
    XMLBadInput(
      id: "to-one with two targets",
      text: prolog + "<database>\n" + person
        + "\n    <object type=\"SPENDING\" id=\"z2\">\n"
        + "        <relationship name=\"person\" type=\"1/1\" destination=\"PERSON\" idrefs=\"z1 z1\"></relationship>\n"
        + "    </object>\n</database>\n",
      code: .typeMismatch, message: "8:9: Spending.person: a to-one relationship has 2 targets"),
    XMLBadInput(
      id: "attribute given twice",
      text: prolog + "<database>\n    <object type=\"PERSON\" id=\"z1\">\n"
        + "        <attribute name=\"age\" type=\"int16\">1</attribute>\n"
        + "        <attribute name=\"NAME\" type=\"string\">Ann</attribute>\n"
        + "        <attribute name=\"name\" type=\"string\">Bob</attribute>\n    </object>\n</database>\n",
      code: .malformedStore,
      message: "7:9: Person.name: attribute \"name\" appears twice in one object of \"Person\""),
    XMLBadInput(
      id: "relationship given twice, once empty",
      text: prolog + "<database>\n" + person
        + "\n    <object type=\"SPENDING\" id=\"z2\">\n"
        + "        <relationship name=\"person\" type=\"1/1\" destination=\"PERSON\" idrefs=\"z1\"></relationship>\n"
        + "        <relationship name=\"person\" type=\"1/1\" destination=\"PERSON\"></relationship>\n"
        + "    </object>\n</database>\n",
      code: .malformedStore,
      message:
        "9:9: Spending.person: relationship \"person\" appears twice in one object of \"Spending\""),
    XMLBadInput(
      id: "other store version",
      text: prolog
        + "<database>\n    <databaseInfo>\n        <version>1</version>\n    </databaseInfo>\n</database>\n",
      code: .unsupportedVersion,
      message: "5:9: store version \"1\" is not 134481920, the XML store version Core Data writes"),
  ]

  static func model() throws -> ManagedObjectModel {
    try ManagedObjectModel {
      EntityDescription("Person") {
        AttributeDescription("name", .string)
        AttributeDescription("age", .integer16)
        AttributeDescription("photo", .binaryData)
        RelationshipDescription("spendings", to: "Spending", inverse: "person", toMany: true)
      }
      EntityDescription("Spending") {
        AttributeDescription("date", .date)
        RelationshipDescription("person", to: "Person", inverse: "spendings")
      }
    }
  }

  @Test("bad input is refused with its exact error", arguments: cases)
  func refused(_ input: XMLBadInput) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try XMLStoreSupport.file(input.text, in: folder)
    let model = try Self.model()
    let error = XMLStoreSupport.storeError { () throws(StoreError) in
      _ = try XMLStore().read(from: url, model: model)
    }
    #expect(error?.code == input.code)
    #expect(error?.description == "\(url.path):\(input.message)")
  }

  /// A store declaring `encoding`, whose line `badLine` holds `bad`, inside a comment when
  /// `inComment` says so (a comment opened on line 4 and closed after the bad bytes).
  static func encodedStore(
    _ encoding: String, bad: [UInt8], goodLines: Int, good: [UInt8], inComment: Bool = false
  ) -> (bytes: Data, badLine: Int) {
    var bytes = Data("<?xml version=\"1.0\" encoding=\"\(encoding)\"?>\n<database>\n".utf8)
    bytes.append(contentsOf: Array("<databaseInfo><version>134481920</version>\n".utf8))
    if inComment { bytes.append(contentsOf: Array("<!-- open\n".utf8)) }
    for _ in 0..<goodLines {
      if !inComment { bytes.append(contentsOf: Array("<!-- ".utf8)) }
      bytes.append(contentsOf: good)
      bytes.append(contentsOf: Array((inComment ? "\n" : " -->\n").utf8))
    }
    let badLine = 4 + (inComment ? 1 : 0) + goodLines
    bytes.append(contentsOf: Array((inComment ? "" : "<!-- ").utf8) + bad + Array(" -->\n".utf8))
    bytes.append(contentsOf: Array("</databaseInfo>\n</database>\n".utf8))
    return (bytes, badLine)
  }

  @Test(
    "a byte the declared encoding cannot decode is refused with the encoding, the bytes and the line",
    arguments: [
      ("EUC-JP", [0xFF, 0xFE] as [UInt8], 0, "0xFF 0xFE 0x20 0x2D"),
      ("EUC-JP", [0xFF, 0xFE], 200, "0xFF 0xFE 0x20 0x2D"),
      ("EUC-JP", [0xA4, 0xFF], 1_000, "0xA4 0xFF 0x20 0x2D"),
      ("Shift_JIS", [0x81, 0x20], 37, "0x81 0x20 0x20 0x2D"),
    ])
  func undecodable(encoding: String, bad: [UInt8], goodLines: Int, bytes: String) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let good: [UInt8] = encoding == "Shift_JIS" ? [0x82, 0xA0] : [0xA4, 0xA2]
    let store = Self.encodedStore(encoding, bad: bad, goodLines: goodLines, good: good)
    let url = folder.appendingPathComponent("store.xml")
    try store.bytes.write(to: url)
    let expected =
      "\(url.path):\(store.badLine): the file is not valid \(encoding), the encoding it declares "
      + "(input conversion failed due to input error, bytes \(bytes))"
    let model = try Self.model()
    var error: StoreError?
    var metadataError: StoreError?
    let printed = try FaultInjectionTests.standardError {
      error = XMLStoreSupport.storeError { () throws(StoreError) in
        _ = try XMLStore().read(from: url, model: model)
      }
      metadataError = XMLStoreSupport.storeError { () throws(StoreError) in
        _ = try XMLStore().readMetadata(from: url)
      }
    }
    #expect(error?.code == .malformedXML)
    #expect(error?.description == expected)
    #expect(metadataError?.description == expected)
    // libxml2 reports a decoding failure to the thread, not the parser: it must not reach
    // standard error ("encoding error : input conversion failed", "I/O error : encoder error",
    // the generic handler's "xmlParseChunk: encoder error").
    #expect(!printed.contains(" error : "), "\(printed)")
    #expect(!printed.contains("encoder error"), "\(printed)")
  }

  @Test("undecodable bytes inside a comment are refused at the line the comment starts")
  func undecodableInComment() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = Self.encodedStore(
      "EUC-JP", bad: [0xFF, 0xFE], goodLines: 50, good: [0xA4, 0xA2], inComment: true)
    let url = folder.appendingPathComponent("store.xml")
    try store.bytes.write(to: url)
    let error = XMLStoreSupport.storeError { () throws(StoreError) in
      _ = try XMLStore().readMetadata(from: url)
    }
    #expect(store.badLine == 55)
    #expect(
      error?.description
        == "\(url.path):4: the file is not valid EUC-JP, the encoding it declares "
        + "(input conversion failed due to input error, bytes 0xFF 0xFE 0x20 0x2D)")
  }

  @Test("a missing file is notFound")
  func missingFile() {
    let error = XMLStoreSupport.storeError { () throws(StoreError) in
      _ = try XMLStore().readMetadata(from: URL(fileURLWithPath: "/nonexistent/store.xml"))
    }
    #expect(error?.code == .notFound)
  }

  @Test("a model whose names differ only by case cannot use the XML store")
  func caseCollision() throws {
    let model = try ManagedObjectModel {
      EntityDescription("Person") {
        AttributeDescription("name", .string)
        AttributeDescription("Name", .string)
      }
    }
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let error = XMLStoreSupport.storeError { () throws(StoreError) in
      try XMLStore().write(
        StoreContents(metadata: StoreMetadata(storeType: "XML"), records: []), model: model,
        to: folder.appendingPathComponent("store.xml"))
    }
    #expect(error?.code == .modelMismatch)
    #expect(
      error?.description
        == "Person.Name: properties \"name\" and \"Name\" differ only by case, which the XML store cannot tell apart"
    )
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
  }

  @Test("a record that does not fit the model is refused before anything is written")
  func badRecord() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("store.xml")
    try Data("old".utf8).write(to: url)
    let records = [StoreRecord(entityName: "Person", id: 1, attributes: ["age": .string("x")])]
    let error = XMLStoreSupport.storeError { () throws(StoreError) in
      try XMLStore().write(
        StoreContents(metadata: StoreMetadata(storeType: "XML"), records: records),
        model: try! Self.model(), to: url)
    }
    #expect(error?.code == .typeMismatch)
    #expect(
      error?.description == "Person.age: value \"x\" does not fit the model's type Integer 16")
    #expect(try String(contentsOf: url, encoding: .utf8) == "old")
  }

  @Test("the XML store recognises XML by its first bytes")
  func recognizes() {
    let store = XMLStore()
    #expect(store.recognizes(Data("<?xml version=\"1.0\"?>".utf8)))
    #expect(store.recognizes(Data("\u{FEFF}\n<database>".utf8)))
    #expect(!store.recognizes(Data("FOLIO\r\n".utf8)))
    #expect(store.typeName == "XML")
    #expect(store.fileExtension == "xml")
  }
}
