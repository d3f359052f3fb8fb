import FolioModel
import FolioTestSupport
import Foundation

@testable import FolioSQLiteStore
@testable import FolioStores

/// A small Expenses store written by Folio, and SQL run on it, for the SQLite store's suites.
protocol SQLiteFixtures {
  var store: SQLiteStore { get }
}

extension SQLiteFixtures {
  func expensesModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(
      contentsOf: packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld"))
  }

  /// A small Expenses store, written by Folio, in a new folder.
  func writtenStore() throws -> URL {
    let folder = try makeTemporaryFolder()
    let url = folder.appendingPathComponent("expenses.sqlite")
    let records = [
      StoreRecord(
        entityName: "Person", id: 1, attributes: ["name": .string("Ada")],
        relationships: ["spendings": [2]]),
      StoreRecord(
        entityName: "Spending", id: 2,
        attributes: ["amount": .double(3), "content": .string("Tea")],
        relationships: ["person": [1]]),
    ]
    try store.write(
      StoreContents(metadata: StoreMetadata(storeType: "SQLite"), records: records),
      model: try expensesModel(), to: url)
    return url
  }

  func sql(_ url: URL, _ statement: String) throws {
    let database = try SQLiteDatabase(path: url.path, readOnly: false)
    try database.execute(statement)
  }

}
