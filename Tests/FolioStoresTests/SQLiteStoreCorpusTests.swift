import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioSQLiteStore
@testable import FolioStores

@Suite("SQLite store: the Core Data stores of the corpus")
struct SQLiteStoreCorpusTests {
  let store = SQLiteStore(missingExternalData: .readAsNil)

  @Test("the corpus has its 16 stores")
  func corpusIsThere() {
    guard SQLiteCorpus.isPresent else {
      print("skipped: ../shared/corpus/sqlite is absent")
      return
    }
    for store in SQLiteCorpus.stores {
      let url = SQLiteCorpus.root.appendingPathComponent(store.folder)
        .appendingPathComponent(store.file)
      #expect(FileManager.default.fileExists(atPath: url.path), "\(store.file)")
    }
  }

  @Test(
    "every corpus store opens with the model that wrote it, with every row its tables hold",
    arguments: SQLiteCorpus.available)
  func opensWithModel(_ corpusStore: SQLiteCorpus.Store) throws {
    let url = try SQLiteCorpus.copy(of: corpusStore)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let model = try SQLiteCorpus.model(of: corpusStore)
    #expect(store.recognizes(try Data(contentsOf: url).prefix(64)))
    let contents = try store.read(from: url, model: model)
    #expect(contents.records.count == corpusStore.objects)
    #expect(contents.metadata.storeType == "SQLite")
    #expect(!contents.metadata.identifier.isEmpty)
    // Every record's ID is its Z_PK in its hierarchy's key space.
    for record in contents.records {
      #expect(StoreKeySpace.key(of: record.id) >= 1)
      #expect(StoreKeySpace.space(of: record.id) >= 1)
    }
  }
}
