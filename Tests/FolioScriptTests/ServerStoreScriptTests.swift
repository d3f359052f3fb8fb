import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

@testable import FolioScript

/// `open` and `save` with the URL of a document on a server: the runner turns the argument
/// into a URL and its formats choose the one of the scheme.
@Suite("Store commands with URLs")
struct ServerStoreScriptTests {
  @Test(
    "an argument that starts SCHEME:// is a URL, anything else a path",
    arguments: [
      ("postgresql://me@db/app?schema=doc", true), ("postgres://db/app", true),
      ("x-custom+v1.2://host", true), ("file:///tmp/a.xml", false), ("a.xml", false),
      ("/tmp/a://b.xml", false), ("dir/postgresql://x", false), ("://x", false),
      ("1abc://x", false),
    ])
  func looksLikeURL(argument: String, isURL: Bool) {
    #expect(ScriptRunner.looksLikeURL(argument) == isURL)
  }

  @Test("a URL is used as it is, not put in the script's folder; a path is")
  func notResolved() throws {
    let runner = ScriptRunner()
    runner.script = try Script(parsing: "", file: "/scripts/t.undo")
    let here = InputLocation()
    let url = try runner.storeURL("postgresql://me@db/app?schema=doc", at: here)
    #expect(url.absoluteString == "postgresql://me@db/app?schema=doc")
    #expect(try runner.storeURL("a.xml", at: here).path == "/scripts/a.xml")
  }

  @Test("a URL no format of the runner reads, or one that does not parse, is a store error")
  func unreadableURL() throws {
    let result = replay(
      """
      model \(libraryModel)
      new
      save "postgresql://me@db/app?schema=doc"
      expect error store
      open "postgresql://me@db/app?schema=doc"
      expect error store
      open "postgresql://me@db:port/app"
      """, formats: [XMLStore()])
    #expect(
      result.error?.message
        == "the store's URL does not parse: write it as SCHEME://…, special characters %-encoded")
    #expect(result.error?.location?.line == 7)
  }

  @Test(
    "open and save a PostgreSQL document, and save as one",
    .enabled(if: PostgresTestServer.isAvailable, "FOLIO_TEST_POSTGRES_URL unset"))
  func postgres() throws {
    let url = PostgresTestServer.document("script")
    defer { try? PostgresStore.dropSchema(at: url) }
    let result = replay(
      """
      model \(libraryModel)
      new
      insert Shelf $s name="Fiction"
      save "\(url.absoluteString)"
      insert Shelf $t name="Poetry"
      save
      close
      open "\(url.absoluteString)"
      expect count Shelf == 2
      save "\(url.absoluteString)"
      expect error store
      """, formats: [XMLStore(), PostgresStore()])
    #expect(result.failure == nil)
    #expect(result.runner.document?.fileURL == url)
  }

  @Test(
    "a document on a server written with an older version of the bundle is not migrated",
    .enabled(if: PostgresTestServer.isAvailable, "FOLIO_TEST_POSTGRES_URL unset"))
  func noMigration() throws {
    let url = PostgresTestServer.document("nomigration")
    defer { try? PostgresStore.dropSchema(at: url) }
    let bundle = packageRoot.appendingPathComponent("Samples/Library/Library.xcdatamodeld")
    let first = try ModelBundle(contentsOf: bundle).versions[0].model
    try PostgresStore().write(
      StoreContents(metadata: StoreMetadata(storeType: ""), records: []), model: first, to: url)
    let result = replay(
      """
      model "\(bundle.path)"
      open "\(url.absoluteString)"
      """, formats: [PostgresStore()])
    #expect(result.error?.code == .store)
    #expect(result.error?.message.hasSuffix("and automatic migration is off") == true)
  }
}
