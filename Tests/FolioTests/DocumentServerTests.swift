import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

/// A document on a server, named by its URL: "save as" chooses the format of the URL's scheme,
/// and opening needs the document there, as it needs a file.
@Suite("Documents on a server")
struct DocumentServerTests {
  static let formats: [any StoreFormat] = [XMLStore(), SQLiteStore(), PostgresStore()]

  @Test("save as a file chooses by extension among the files' formats only")
  func fileExtensionOnly() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let document = try Document(model: try musicModel(), eventLoop: fixture.loop)
    let error = try #require(throws: StoreError.self) {
      try document.save(to: fixture.url("a.postgresql"), formats: Self.formats)
    }
    #expect(error.code == .unknownFormat)
    #expect(error.message == "no store format has the extension \".postgresql\"")
  }

  @Test("save as a URL no format reads is refused naming the scheme")
  func unknownScheme() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let document = try Document(model: try musicModel(), eventLoop: fixture.loop)
    let url = try #require(URL(string: "mysql://me@db/app"))
    let error = try #require(throws: StoreError.self) {
      try document.save(to: url, formats: [XMLStore()])
    }
    #expect(error.code == .unknownFormat)
    #expect(error.message == "no store format of this build reads mysql:// URLs")
  }

  @Test(
    "save as a PostgreSQL URL writes the document there; opening a schema without one fails",
    .enabled(if: PostgresTestServer.isAvailable, "FOLIO_TEST_POSTGRES_URL unset"))
  func postgres() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let url = PostgresTestServer.document("saveas")
    defer { try? PostgresStore.dropSchema(at: url) }
    let document = try Document(model: try musicModel(), eventLoop: fixture.loop)
    let track = try document.context.insertNewObject(forEntityName: "Track")
    try track.setValue("Sunrise", forKey: "title")
    fixture.loop.endTurn()
    try document.save(to: url, formats: Self.formats)
    #expect(document.format?.typeName == "PostgreSQL")
    let opened = try Document.open(url, model: try musicModel(), formats: Self.formats)
    #expect(try opened.context.objects(ofEntity: "Track").count == 1)

    let empty = PostgresTestServer.document("nodocument")
    defer { try? PostgresStore.dropSchema(at: empty) }
    let error = try #require(throws: StoreError.self) {
      try Document.open(empty, model: try musicModel(), formats: Self.formats)
    }
    #expect(error.code == .notFound)
    #expect(error.location?.file == empty.absoluteString)
  }
}
