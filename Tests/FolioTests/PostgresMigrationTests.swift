import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

/// A PostgreSQL document migrated in place: read, migrated and written back in one transaction
/// under the document's lock, so no other client's save is lost, and a client still open on the
/// old version cannot write its layout into the new one.
@Suite(
  "Migrating a PostgreSQL document",
  .enabled(if: PostgresTestServer.isAvailable, "FOLIO_TEST_POSTGRES_URL unset"))
struct PostgresMigrationTests {
  static let formats: [any StoreFormat] = [XMLStore(), SQLiteStore(), PostgresStore()]
  let bundle: ModelBundle

  init() throws {
    bundle = try ModelBundle(
      contentsOf: packageRoot.appendingPathComponent("Samples/Library/Library.xcdatamodeld"))
  }

  /// A version 1 Library document: two books by Ada, and a note; saved to `files` first, then
  /// to `url`, each written whole with the same objects.
  func versionOneDocument(at url: URL, alsoAt files: [URL] = []) throws {
    let document = try Document(model: bundle.versions[0].model)
    let ada = try document.context.insertNewObject(forEntityName: "Author")
    try ada.setValue("Ada", forKey: "name")
    for (title, color) in [("Notes", "#3366cc"), ("Engines", "#ff0000")] {
      let book = try document.context.insertNewObject(forEntityName: "Book")
      try book.setValue(title, forKey: "title")
      try book.setValue(color, forKey: "color")
      try book.setValue(ada, forKey: "author")
    }
    let note = try document.context.insertNewObject(forEntityName: "Note")
    try note.setValue("later", forKey: "text")
    for file in files { try document.save(to: file, formats: Self.formats) }
    try document.save(to: url, formats: Self.formats)
  }

  /// The document's version in the bundle, by its version hashes.
  func version(of url: URL, _ format: any StoreFormat = PostgresStore()) throws -> String? {
    let metadata = try format.readMetadata(from: url)
    return bundle.version(matchingVersionHashes: metadata.modelVersionHashes)?.name
  }

  /// The titles of the document's books, read with the current version.
  func titles(at url: URL) throws -> [String] {
    try PostgresStore().read(from: url, model: bundle.currentModel).records
      .filter { $0.entityName == "Book" }.compactMap { $0.attribute("title")?.modelText }
      .sorted()
  }

  /// Waits up to 20 s for `condition`.
  func eventually(_ condition: () throws -> Bool) throws -> Bool {
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      if try condition() { return true }
      usleep(10_000)
    }
    return false
  }

  @Test("a document migrates in place to the objects a SQLite file of it migrates to")
  func migratesLikeAFile() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = PostgresTestServer.document("migrate")
    defer { try? PostgresStore.dropSchema(at: url) }
    let twin = folder.appendingPathComponent("library.sqlite")
    try versionOneDocument(at: url, alsoAt: [twin])
    #expect(try version(of: url) == "Library 1")

    let report = try StoreMigration(storeAt: url, format: PostgresStore(), bundle: bundle).run()
    #expect(report.steps.map(\.destinationVersion) == ["Library 2", "Library 3"])
    #expect(report.backup == nil)
    try StoreMigration(storeAt: twin, format: SQLiteStore(), bundle: bundle).run()

    #expect(try version(of: url) == "Library 3")
    let migrated = try PostgresStore().read(from: url, model: bundle.currentModel).records
    let expected = try SQLiteStore().read(from: twin, model: bundle.currentModel).records
    #expect(migrated.count == 3)
    #expect(Set(migrated) == Set(expected))
    #expect(try titles(at: url) == ["Engines", "Notes"])
    // The document opens with the current version, and saves.
    let document = try Document.open(url, model: bundle.currentModel, formats: Self.formats)
    let shelf = try document.context.insertNewObject(forEntityName: "Shelf")
    try shelf.setValue("Top", forKey: "label")
    try document.save()
    #expect(try document.context.objects(ofEntity: "Writer").count == 1)
  }

  @Test("two migrations planned on the same old document: the second finds it migrated")
  func migratedMeanwhile() throws {
    let url = PostgresTestServer.document("twice")
    defer { try? PostgresStore.dropSchema(at: url) }
    try versionOneDocument(at: url)
    // Both read version 1 before either ran, as two clients opening the document at once do.
    let first = try StoreMigration(storeAt: url, format: PostgresStore(), bundle: bundle)
    let second = try StoreMigration(storeAt: url, format: PostgresStore(), bundle: bundle)
    try first.run()
    let after = try PostgresStore.dumpSchema(at: url)
    let report = try second.run()
    #expect(report.steps.isEmpty)
    #expect(report.sourceVersion == "Library 3" && report.destinationVersion == "Library 3")
    #expect(try PostgresStore.dumpSchema(at: url) == after)
    #expect(try titles(at: url) == ["Engines", "Notes"])
  }

  @Test("opening a document of an older version with the bundle migrates it as it opens")
  func migratesOnOpen() throws {
    let url = PostgresTestServer.document("open")
    defer { try? PostgresStore.dropSchema(at: url) }
    try versionOneDocument(at: url)
    let document = try Document.open(url, bundle: bundle, formats: Self.formats)
    #expect(try version(of: url) == "Library 3")
    let books = try document.context.fetch(FetchRequest(entityName: "Book"))
    #expect(
      Set(try books.map { try $0.value(forKey: "hexColor") as? String }) == ["#3366cc", "#ff0000"])
    #expect(try books.allSatisfy { try $0.value(forKey: "rating") as? Int == 3 })
  }

  @Test(
    "a migration that fails, in a step or in writing the result, leaves the document as it was",
    arguments: ["step", "write"])
  func failureLeavesDocument(stage: String) throws {
    let url = PostgresTestServer.document("fail")
    defer { try? PostgresStore.dropSchema(at: url) }
    try versionOneDocument(at: url)
    let before = try PostgresStore.dumpSchema(at: url)
    #expect(before.contains { $0.hasPrefix("ZAUTHOR: ") })
    var mapping = try MappingModel.inferred(
      from: bundle.versions[1].model, to: bundle.versions[2].model)
    let book = try #require(mapping.entityMappings.firstIndex { $0.name == "BookToBook" })
    let attribute = stage == "step" ? "pages" : "hexColor"
    let index = try #require(
      mapping.entityMappings[book].attributeMappings.firstIndex { $0.name == attribute })
    // A title where a number goes fails the step's validation; text holding NUL fails only
    // when the server is given it, after the old tables are dropped in the transaction.
    mapping.entityMappings[book].attributeMappings[index].valueExpression =
      stage == "step" ? .keyPath(.variable("source"), "title") : .constant(.string("a\u{0}b"))
    let migration = try StoreMigration(
      storeAt: url, format: PostgresStore(), bundle: bundle,
      mappings: [
        .init(sourceVersion: "Library 2", destinationVersion: "Library 3", mapping: mapping)
      ]
    )
    let error = try #require(throws: MigrationError.self) { try migration.run() }
    #expect(error.code == (stage == "step" ? .invalidValue : .storeFailed), "\(error)")
    #expect(try PostgresStore.dumpSchema(at: url) == before)
    #expect(try version(of: url) == "Library 1")
  }

  @Test("a save holding the lock when the migration starts lands first, and is migrated")
  func saveBeforeIsMigrated() throws {
    let url = PostgresTestServer.document("before")
    defer { try? PostgresStore.dropSchema(at: url) }
    try versionOneDocument(at: url)
    let old = bundle.versions[0].model
    // Another client's save, written and holding the document's lock, not committed yet.
    let contents = try PostgresStore().read(from: url, model: old)
    let book = try #require(
      contents.records.first { $0.attribute("title") == .string("Notes") })
    var renamed = book
    renamed.attributes["title"] = .string("Notes, revised")
    var changes = StoreChanges(nextObjectID: contents.nextObjectID) { _ in nil }
    changes.updated = [(book, renamed)]
    let client = try #require(try PostgresStore().connect(to: url))
    try client.beginWriting()
    #expect(try client.save(changes, metadata: contents.metadata, model: old) == .written)

    let migration = Shared(
      try StoreMigration(storeAt: url, format: PostgresStore(), bundle: bundle))
    let outcome = Shared<Result<StoreMigrationReport, MigrationError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      outcome.value = Result { () throws(MigrationError) in try migration.value.run() }
      done.signal()
    }
    // The migration waits for the lock the save holds, and reads only after its commit.
    #expect(try eventually { try PostgresStore.writersWaiting(at: url) == 1 })
    #expect(try version(of: url) == "Library 1")
    try client.commitWriting()
    done.wait()
    _ = try #require(outcome.value).get()
    #expect(try version(of: url) == "Library 3")
    #expect(try titles(at: url) == ["Engines", "Notes, revised"])
  }

  @Test("a save by a client of the old version waits for the migration, then is refused")
  func saveDuringIsRefused() throws {
    let url = PostgresTestServer.document("during")
    defer { try? PostgresStore.dropSchema(at: url) }
    try versionOneDocument(at: url)
    let client = Shared(
      try Document.open(url, model: bundle.versions[0].model, formats: Self.formats))
    let book = try #require(
      try client.value.context.fetch(FetchRequest(entityName: "Book")).first {
        try $0.value(forKey: "title") as? String == "Notes"
      })
    try book.setValue("Notes, revised", forKey: "title")

    let saved = Shared<(any Error)?>(nil)
    let done = DispatchSemaphore(value: 0)
    var started = false
    // Inside the migration's transaction, the client saves and waits for the lock.
    let migration = try StoreMigration(storeAt: url, format: PostgresStore(), bundle: bundle)
    let report = try migration.run(progress: { _ in
      guard !started else { return }
      started = true
      DispatchQueue.global().async {
        do { try client.value.save() } catch { saved.value = error }
        done.signal()
      }
      #expect((try? eventually { try PostgresStore.writersWaiting(at: url) == 1 }) == true)
    })
    #expect(report.destinationVersion == "Library 3")
    done.wait()
    let error = try #require(saved.value as? GraphError)
    let refusal = try #require(error.underlying as? StoreError)
    #expect(refusal.code == .modifiedOnDisk, "\(refusal)")
    #expect(refusal.message.contains("the store was written with another model"), "\(refusal)")
    // Nothing of the old layout was written: the document reads as migrated, without the edit.
    #expect(try version(of: url) == "Library 3")
    #expect(try titles(at: url) == ["Engines", "Notes"])
    #expect(client.value.isEdited)
  }

  @Test("a write in the old layout after the migration is refused under the lock, naming why")
  func oldLayoutRefused() throws {
    let url = PostgresTestServer.document("after")
    defer { try? PostgresStore.dropSchema(at: url) }
    try versionOneDocument(at: url)
    let old = bundle.versions[0].model
    let contents = try PostgresStore().read(from: url, model: old)
    try StoreMigration(storeAt: url, format: PostgresStore(), bundle: bundle).run()
    let before = try PostgresStore.dumpSchema(at: url)
    var changes = StoreChanges(nextObjectID: contents.nextObjectID) { _ in nil }
    changes.inserted = [
      StoreRecord(
        entityName: "Author", id: contents.nextObjectID, attributes: ["name": .string("Grace")])
    ]
    let error = try #require(throws: StoreError.self) {
      try PostgresStore().save(changes, metadata: contents.metadata, model: old, to: url)
    }
    #expect(error.code == .modelMismatch)
    #expect(
      error.description
        == "\(url.absoluteString): the document was written with another version of the model since it was read (entities \"Author\", \"Book\", \"Item\", \"Magazine\", \"Note\", \"Shelf\", \"Writer\"); open it again with its current model (nothing was saved)"
    )
    #expect(try PostgresStore.dumpSchema(at: url) == before)
  }
}

/// A value handed between the test and a thread it starts, which never touch it at once.
final class Shared<Value>: @unchecked Sendable {
  var value: Value
  init(_ value: Value) { self.value = value }
}
