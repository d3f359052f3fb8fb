import Folio
import FolioTestSupport
import Foundation
import Testing

@Suite("Opening a document of an older model version")
struct DocumentMigrationTests {
  let bundleURL = packageRoot.appendingPathComponent("Samples/Library/Library.xcdatamodeld")

  /// A version 1 Library store of `format` in a new folder: a book by Ada, and a note.
  func versionOneStore(_ format: any StoreFormat, _ name: String) throws -> (URL, URL) {
    let folder = try makeTemporaryFolder()
    let bundle = try ModelBundle(contentsOf: bundleURL)
    let document = try Document(model: bundle.versions[0].model)
    let ada = try document.context.insertNewObject(forEntityName: "Author")
    try ada.setValue("Ada", forKey: "name")
    let book = try document.context.insertNewObject(forEntityName: "Book")
    try book.setValue("Notes", forKey: "title")
    try book.setValue("#3366cc", forKey: "color")
    try book.setValue(ada, forKey: "author")
    let note = try document.context.insertNewObject(forEntityName: "Note")
    try note.setValue("later", forKey: "text")
    let url = folder.appendingPathComponent("library.\(name)")
    try document.save(to: url, format: format)
    return (folder, url)
  }

  @Test(
    "a store of an older version is migrated to the current one as it opens",
    arguments: ["xml", "folio", "sqlite"])
  func migratesOnOpen(format name: String) throws {
    let formats: [any StoreFormat] = [XMLStore(), BinaryStore(), SQLiteStore()]
    let format = try #require(formats.first { $0.fileExtension == name })
    let (folder, url) = try versionOneStore(format, name)
    defer { try? FileManager.default.removeItem(at: folder) }
    let bundle = try ModelBundle(contentsOf: bundleURL)
    let document = try Document.open(url, bundle: bundle, formats: formats)
    #expect(document.model.entity(named: "Item") != nil)
    let books = try document.context.fetch(FetchRequest(entityName: "Book"))
    #expect(books.count == 1)
    let book = try #require(books.first)
    #expect(try book.value(forKey: "hexColor") as? String == "#3366cc")
    #expect(try book.value(forKey: "rating") as? Int == 3)
    let authors = try #require(try book.value(forKey: "authors") as? Set<ManagedObject>)
    #expect(try authors.map { try $0.value(forKey: "name") as? String } == ["Ada"])
    #expect(!document.isEdited)
    // The file itself is of the current version now.
    let metadata = try format.readMetadata(from: url)
    #expect(
      bundle.version(matchingVersionHashes: metadata.modelVersionHashes)?.name == "Library 3")
  }

  @Test("with automatic migration off, such a store is refused and left as it was")
  func migrationOff() throws {
    let (folder, url) = try versionOneStore(XMLStore(), "xml")
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = try Data(contentsOf: url)
    let bundle = try ModelBundle(contentsOf: bundleURL)
    #expect {
      _ = try Document.open(
        url, bundle: bundle, formats: [XMLStore()], migratesAutomatically: false)
    } throws: { error in
      guard let error = error as? MigrationError else { return false }
      return error.code == .needsMapping && error.message.contains("version Library 1")
    }
    #expect(try Data(contentsOf: url) == before)
  }
}
