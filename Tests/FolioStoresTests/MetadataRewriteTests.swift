import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioStores
@testable import FolioXMLStore

/// Rewriting a store's metadata without loading its objects.
@Suite("Writing metadata alone")
struct MetadataRewriteTests {
  /// A small Expenses store written by Folio in `format`.
  func writtenStore(_ format: any StoreFormat, in folder: URL) throws -> (URL, StoreContents) {
    var metadata = StoreMetadata(storeType: format.typeName)
    metadata.userInfo = ["kept": .string("no"), "number": .integer(1)]
    let contents = StoreContents(
      metadata: metadata,
      records: [
        StoreRecord(
          entityName: "Person", id: 1, attributes: ["name": .string("Ada")],
          relationships: ["spendings": [2, 3]]),
        StoreRecord(
          entityName: "Spending", id: 2, attributes: ["amount": .double(4.5)],
          relationships: ["person": [1]]),
        StoreRecord(
          entityName: "Spending", id: 3, attributes: ["content": .string("</databaseInfo>")],
          relationships: ["person": [1]]),
      ], nextObjectID: 9)
    let url = folder.appendingPathComponent("store.\(format.fileExtension)")
    try format.write(contents, model: try XMLStoreSupport.expensesModel(), to: url)
    return (url, contents)
  }

  /// The stored bytes of each section but META, by kind.
  func storedSections(_ data: Data) throws -> [UInt32: Data] {
    try withBytes(of: data) { (raw) throws(StoreError) in
      let container = try BinaryContainer(prefix: raw, fileSize: raw.count, file: "store")
      var result: [UInt32: Data] = [:]
      for section in container.sections where section.kind != SectionKind.metadata {
        result[section.kind] = Data(raw[section.offset..<section.offset + section.storedLength])
      }
      return result
    }
  }

  func newMetadata(from old: StoreMetadata) -> StoreMetadata {
    var new = old
    new.userInfo = [
      "author": .string("Ada <ada@example.org> & co"), "revision": .integer(7),
      "tags": .array([.string("a"), .boolean(true)]),
    ]
    new.modelVersionIdentifiers = ["v2"]
    new.modelVersionHashes = ["Person": Data(repeating: 1, count: 32)]  // ignored: the file's stay
    return new
  }

  @Test(
    "the metadata changes, the objects and what describes them stay, byte for byte",
    arguments: [0, 1])
  func rewrite(formatIndex: Int) throws {
    let format: any StoreFormat = [XMLStore(), BinaryStore()][formatIndex]
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (url, contents) = try writtenStore(format, in: folder)
    let before = try Data(contentsOf: url)
    let old = try format.readMetadata(from: url)
    try format.writeMetadata(newMetadata(from: old), to: url)
    let read = try format.readMetadata(from: url)
    #expect(read.identifier == old.identifier)
    #expect(read.modelVersionHashes == old.modelVersionHashes)
    #expect(read.modelVersionIdentifiers == ["v2"])
    #expect(read.userInfo["author"] == .string("Ada <ada@example.org> & co"))
    #expect(read.userInfo["revision"] == .integer(7))
    #expect(read.userInfo["tags"] == .array([.string("a"), .boolean(true)]))
    #expect(read.userInfo["kept"] == nil)
    let model = try XMLStoreSupport.expensesModel()
    let reopened = try format.read(from: url, model: model)
    #expect(Set(reopened.records) == Set(contents.records))
    #expect(reopened.nextObjectID == 9)
    let after = try Data(contentsOf: url)
    if formatIndex == 0 {
      // Everything from the first object on is the old file's.
      let tail = { (data: Data) in data[data.range(of: Data("<object".utf8))!.lowerBound...] }
      #expect(tail(after) == tail(before))
      #expect(XMLStoreSupport.schemaError(of: url) == nil)
    } else {
      // The body and the model are copied as stored, not inflated and deflated again.
      #expect(try storedSections(after) == storedSections(before))
    }
  }

  @Test("a store Apple wrote keeps being checked by structure, and opens with the same graph")
  func appleStore() throws {
    guard let corpus = XMLStoreSupport.corpusStores else { return }
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    for name in XMLStoreSupport.corpusNames.prefix(6) {
      let url = folder.appendingPathComponent(name)
      try FileManager.default.copyItem(at: corpus.appendingPathComponent(name), to: url)
      // The corpus is read-only; its copy is the test's to write.
      try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
      let model = try XMLStore.inferModel(from: url)
      let before = try XMLStore().read(from: url, model: model)
      var metadata = before.metadata
      metadata.userInfo["FolioNote"] = .string("edited")
      try XMLStore().writeMetadata(metadata, to: url)
      let after = try XMLStore().read(from: url, model: model)
      #expect(Set(after.records) == Set(before.records), "\(name)")
      #expect(after.metadata.userInfo["FolioNote"] == .string("edited"))
      #expect(after.metadata.userInfo[StoreMetadata.folioChecksumKey] == nil, "\(name)")
      #expect(
        after.metadata.userInfo["NSStoreModelVersionHashesDigest"]
          == before.metadata.userInfo["NSStoreModelVersionHashesDigest"])
      #expect(after.metadata.identifier == before.metadata.identifier)
    }
  }

  @Test("markup that looks like the end of the header is not taken for it")
  func trickyHeader() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let text = """
      <?xml version="1.0"?>
      <!-- </databaseInfo> in a comment -->
      <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
      <database>
          <databaseInfo>
              <version>134481920</version>
              <UUID>4B3F2D62-0000-4000-8000-000000000001</UUID>
              <nextObjectID>3</nextObjectID>
              <!-- <databaseInfo> </databaseInfo> -->
              <metadata>
                  <plist version="1.0">
                      <dict>
                          <key>note</key>
                          <string><![CDATA[</databaseInfo><object type="X">]]></string>
                          <key>empty</key>
                          <dict/>
                      </dict>
                  </plist>
              </metadata>
          </databaseInfo>
          <object type="PERSON" id="z1">
              <attribute name="name" type="string">Ada</attribute>
          </object>
      </database>

      """
    let url = try XMLStoreSupport.file(text, in: folder)
    var metadata = try XMLStore().readMetadata(from: url)
    #expect(metadata.userInfo["note"] == .string("</databaseInfo><object type=\"X\">"))
    metadata.userInfo["note"] = .string("rewritten")
    try XMLStore().writeMetadata(metadata, to: url)
    let read = try XMLStore().read(from: url, model: try XMLStoreSupport.expensesModel())
    #expect(read.metadata.userInfo["note"] == .string("rewritten"))
    #expect(read.metadata.userInfo["empty"] == .dictionary([:]))
    #expect(read.metadata.identifier == "4B3F2D62-0000-4000-8000-000000000001")
    #expect(read.nextObjectID == 3)
    #expect(
      read.records == [
        StoreRecord(entityName: "Person", id: 1, attributes: ["name": .string("Ada")])
      ])
    #expect(XMLHeaderScanner.endOfHeader(in: Array("<database><object/>".utf8)) == 10)
    #expect(XMLHeaderScanner.endOfHeader(in: Array("<database><databaseInfo>".utf8)) == nil)
    #expect(XMLHeaderScanner.endOfHeader(in: Array("<data/>".utf8)) == nil)
  }

  @Test("a damaged or hostile file, or a format that cannot, is refused and left as it was")
  func refusals() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (binary, _) = try writtenStore(BinaryStore(), in: folder)
    var bytes = try Data(contentsOf: binary)
    bytes[bytes.count - 3] ^= 0x10
    try bytes.write(to: binary)
    let metadata = StoreMetadata(storeType: "Binary")
    let damaged = XMLStoreSupport.storeError { () throws(StoreError) in
      try BinaryStore().writeMetadata(metadata, to: binary)
    }
    #expect(damaged?.code == .badChecksum)
    #expect(try Data(contentsOf: binary) == bytes)

    let hostile = try XMLStoreSupport.file(
      """
      <?xml version="1.0"?>
      <!DOCTYPE database [<!ENTITY x SYSTEM "file:///etc/passwd">]>
      <database><databaseInfo><version>134481920</version></databaseInfo></database>
      """, in: folder, name: "hostile.xml")
    let hostileBytes = try Data(contentsOf: hostile)
    #expect(
      XMLStoreSupport.storeError { () throws(StoreError) in
        try XMLStore().writeMetadata(metadata, to: hostile)
      } != nil)
    #expect(try Data(contentsOf: hostile) == hostileBytes)

    let test = folder.appendingPathComponent("store.test")
    try TestFormat().write(
      StoreContents(metadata: StoreMetadata(storeType: "Test"), records: []),
      model: try XMLStoreSupport.expensesModel(), to: test)
    let testBytes = try Data(contentsOf: test)
    let refused = XMLStoreSupport.storeError { () throws(StoreError) in
      try TestFormat().writeMetadata(metadata, to: test)
    }
    #expect(refused?.code == .writeFailed)
    #expect(refused?.message == "the Test format cannot rewrite its metadata alone")
    #expect(try Data(contentsOf: test) == testBytes)
  }
}
