import FolioModel
import FolioPostgresStore
import FolioSQLiteStore
import FolioStores
import FolioTestSupport
import FolioXMLStore
import Foundation
import Testing

@Suite("PostgreSQL URLs")
struct PostgresLocationTests {
  @Test("a URL names server, database and schema; other parameters go to libpq")
  func parts() throws {
    let url = try #require(
      URL(string: "postgresql://app@db.example.com:6543/books?sslmode=require&schema=library"))
    let location = try PostgresLocation(url)
    #expect(location.schema == "library")
    #expect(
      location.connectionString == "postgresql://app@db.example.com:6543/books?sslmode=require")
    let plain = try PostgresLocation(try #require(URL(string: "postgres://app@host/books")))
    #expect(plain.schema == "public")
    #expect(PostgresLocation.names(url))
    #expect(!PostgresLocation.names(URL(fileURLWithPath: "/tmp/a.sqlite")))
  }

  @Test("a password in the URL is refused without repeating it")
  func password() throws {
    let url = try #require(URL(string: "postgresql://app:hunter2@host/books"))
    let error = try #require(throws: StoreError.self) { try PostgresLocation(url) }
    #expect(error.code == .unreadable)
    #expect(error.message.contains("PGPASSWORD or ~/.pgpass"))
    #expect(!error.description.contains("hunter2"))
  }

  @Test("a URL without a database, or with an empty schema, is refused")
  func incomplete() throws {
    for text in ["postgresql://app@host", "postgresql://app@host/", "postgresql://h/db?schema="] {
      let url = try #require(URL(string: text))
      #expect(throws: StoreError.self, "\(text)") { try PostgresLocation(url) }
    }
  }
}

@Suite(
  "PostgreSQL store", .enabled(if: PostgresTestServer.isAvailable, "FOLIO_TEST_POSTGRES_URL unset"))
struct PostgresStoreTests {
  /// Records in ID order, each relationship's targets sorted where the model leaves them
  /// unordered.
  static func normalized(_ records: [StoreRecord], model: ManagedObjectModel) -> [StoreRecord] {
    records.sorted { $0.id < $1.id }.map { record in
      var record = record
      let entity = model.entity(named: record.entityName)
      for (name, targets) in record.relationships {
        let ordered = entity?.allRelationships.first { $0.name == name }?.isOrdered ?? false
        record.relationships[name] = ordered ? targets : targets.sorted()
      }
      record.version = 0
      return record
    }
  }

  static func expectSame(
    _ a: [StoreRecord], _ b: [StoreRecord], model: ManagedObjectModel, _ what: String
  ) {
    let (left, right) = (normalized(a, model: model), normalized(b, model: model))
    #expect(left.count == right.count, "\(what): \(left.count) records, then \(right.count)")
    for (x, y) in zip(left, right) where !x.isIdentical(to: y) {
      let keys = Set(x.attributes.keys).union(y.attributes.keys).sorted().filter { key in
        switch (x.attribute(key), y.attribute(key)) {
        case (let a?, let b?): !a.isIdentical(to: b)
        case (nil, nil): false
        default: true
        }
      }
      let values = keys.map { key in
        "\(String(describing: x.attribute(key))) / \(String(describing: y.attribute(key)))"
      }
      let links = keys.isEmpty ? "\(x.relationships) / \(y.relationships)" : ""
      let message: String =
        "\(what): \(x.entityName) \(x.id) differs in \(keys): "
        + values.joined(separator: "; ") + links
      Issue.record(Comment(rawValue: message))
      return
    }
  }

  @Test(
    "every corpus store goes SQLite to PostgreSQL to XML with the same graph",
    arguments: SQLiteCorpus.available)
  func corpusRoundTrip(store: SQLiteCorpus.Store) throws {
    let original = try SQLiteCorpus.copy(of: store)
    let folder = original.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try SQLiteCorpus.model(of: store)
    let sqlite = SQLiteStore(missingExternalData: .readAsNil)
    let contents = try sqlite.read(from: original, model: model)
    let document = PostgresTestServer.document("corpus")
    defer { try? PostgresStore.dropSchema(at: document) }
    try PostgresStore().write(contents, model: model, to: document)
    let back = try PostgresStore().read(from: document, model: model)
    Self.expectSame(contents.records, back.records, model: model, "\(store) PostgreSQL")
    // The straight read and the read through a SQLite copy of the tables agree.
    let copied = try PostgresStore().readThroughCopy(from: document, model: model)
    Self.expectSame(back.records, copied.records, model: model, "\(store) through a copy")
    #expect(back.nextObjectID == copied.nextObjectID)
    #expect(back.metadata.storeType == "PostgreSQL")
    #expect(back.metadata.identifier == contents.metadata.identifier)
    #expect(back.metadata.modelVersionHashes == model.entityVersionHashesByName)
    let xml = folder.appendingPathComponent("b.xml")
    try XMLStore().write(back, model: model, to: xml)
    let fromXML = try XMLStore().read(from: xml, model: model)
    Self.expectSame(contents.records, fromXML.records, model: model, "\(store) XML")
    // The model rides along in Z_MODELCACHE, as in a SQLite store.
    let carried = try #require(try PostgresStore().readModel(from: document))
    #expect(carried.entityVersionHashesByName == model.entityVersionHashesByName)
  }

  @Test("a write into a schema that holds a document is refused unless it replaces it")
  func replace() throws {
    let model = try Self.model()
    let metadata = StoreMetadata(storeType: "PostgreSQL")
    var contents = StoreContents(
      metadata: metadata,
      records: [
        StoreRecord(
          entityName: "Book", id: StoreKeySpace.id(space: 1, key: 1),
          attributes: ["title": .string("Emma")])
      ])
    let document = PostgresTestServer.document("replace")
    defer { try? PostgresStore().dropSchemaQuietly(document) }
    try PostgresStore().write(contents, model: model, to: document)
    contents = StoreContents(
      metadata: metadata,
      records: [
        StoreRecord(
          entityName: "Book", id: StoreKeySpace.id(space: 1, key: 1),
          attributes: ["title": .string("Persuasion")])
      ])
    let refusal = try #require(throws: StoreError.self) {
      try PostgresStore().write(contents, model: model, to: document)
    }
    #expect(refusal.code == .writeFailed)
    #expect(refusal.message.contains("already holds a document"))
    #expect(
      try PostgresStore().read(from: document, model: model).records.first?.attribute("title")
        == .string("Emma"))
    try PostgresStore(replacesExisting: true).write(contents, model: model, to: document)
    #expect(
      try PostgresStore().read(from: document, model: model).records.first?.attribute("title")
        == .string("Persuasion"))
  }

  @Test("text holding NUL, which PostgreSQL cannot store, is refused and nothing written")
  func nul() throws {
    let model = try Self.model()
    let contents = StoreContents(
      metadata: StoreMetadata(storeType: "PostgreSQL"),
      records: [
        StoreRecord(
          entityName: "Book", id: StoreKeySpace.id(space: 1, key: 1),
          attributes: ["title": .string("a\0b")])
      ])
    let document = PostgresTestServer.document("nul")
    defer { try? PostgresStore().dropSchemaQuietly(document) }
    let error = try #require(throws: StoreError.self) {
      try PostgresStore().write(contents, model: model, to: document)
    }
    #expect(error.code == .typeMismatch)
    let missing = try #require(throws: StoreError.self) {
      try PostgresStore().readMetadata(from: document)
    }
    #expect(missing.code == .notFound)
    #expect(missing.message.contains("holds no document"))
  }

  @Test("values of every attribute type come back as they went")
  func everyType() throws {
    let model = try Self.model()
    let weird = "tab\tline\nback\\slash \"quote\" 'single' é 😀"
    let records = [
      StoreRecord(
        entityName: "Book", id: StoreKeySpace.id(space: 1, key: 1),
        attributes: [
          "title": .string(weird), "pages": .integer(Int64(Int32.max)),
          "big": .integer(Int64.min), "rating": .double(-0.1), "weight": .float(1.5),
          "price": .decimal(Decimal(string: "12.34") ?? 0), "read": .boolean(true),
          "published": .date(Date(timeIntervalSinceReferenceDate: 123_456.789)),
          "cover": .binaryData(Data([0, 1, 0x5C, 0xFF])), "code": .uuid(UUID()),
          "link": .uri(URL(string: "https://example.com/a?b=c")!),
          "infinite": .double(.infinity),
        ]),
      StoreRecord(
        entityName: "Book", id: StoreKeySpace.id(space: 1, key: 2),
        attributes: ["title": .string("")]),
    ]
    let contents = StoreContents(metadata: StoreMetadata(storeType: "PostgreSQL"), records: records)
    let document = PostgresTestServer.document("types")
    defer { try? PostgresStore().dropSchemaQuietly(document) }
    try PostgresStore().write(contents, model: model, to: document)
    let back = try PostgresStore().read(from: document, model: model)
    Self.expectSame(contents.records, back.records, model: model, "types")
  }

  static func model() throws -> ManagedObjectModel {
    let file = try makeTemporaryFolder().appendingPathComponent("contents")
    try Data(libraryModel.utf8).write(to: file)
    return try ManagedObjectModel(contentsOf: file)
  }

  static let libraryModel = """
    <model>
      <entity name="Book">
        <attribute name="title" optional="YES" attributeType="String"/>
        <attribute name="pages" optional="YES" attributeType="Integer 32"/>
        <attribute name="big" optional="YES" attributeType="Integer 64"/>
        <attribute name="rating" optional="YES" attributeType="Double"/>
        <attribute name="infinite" optional="YES" attributeType="Double"/>
        <attribute name="weight" optional="YES" attributeType="Float"/>
        <attribute name="price" optional="YES" attributeType="Decimal"/>
        <attribute name="read" optional="YES" attributeType="Boolean"/>
        <attribute name="published" optional="YES" attributeType="Date"/>
        <attribute name="cover" optional="YES" attributeType="Binary"/>
        <attribute name="code" optional="YES" attributeType="UUID"/>
        <attribute name="link" optional="YES" attributeType="URI"/>
      </entity>
    </model>
    """
}

extension PostgresStore {
  fileprivate func dropSchemaQuietly(_ url: URL) throws { try Self.dropSchema(at: url) }
}
