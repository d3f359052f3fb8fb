import Folio
import FolioSoak
import FolioTestSupport
import Foundation
import Testing

/// A SQLite store with Core Data's persistent history tables: Folio's saves are recorded in
/// them as Core Data records its own, and another process merges them through the history.
@Suite("Persistent history")
struct PersistentHistoryTests {
  static let model = packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld")

  /// Runs `sql` on the database at `url` with the sqlite3 shell; returns what it printed.
  @discardableResult
  static func sqlite(_ url: URL, _ sql: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sqlite3", "-separator", "|", url.path]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(sql.utf8))
    try input.fileHandleForWriting.close()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(sql)")
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// An Expenses SQLite store of Ada with two spendings, with the history tables Core Data
  /// adds (`research/sqlite-stores.md` §8), made with the sqlite3 shell.
  static func trackedStore(in folder: URL) throws -> URL {
    let url = folder.appendingPathComponent("Expenses.sqlite")
    let document = try Document(model: try ManagedObjectModel(contentsOf: model))
    let ada = try document.context.insertNewObject(forEntityName: "Person")
    try ada.setValue("Ada", forKey: "name")
    for amount in [3.0, 4.5] {
      let spending = try document.context.insertNewObject(forEntityName: "Spending")
      try spending.setValue(amount, forKey: "amount")
      try spending.setValue(ada, forKey: "person")
    }
    try document.save(to: url, format: SQLiteStore())
    try sqlite(
      url,
      """
      CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB );
      CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB );
      CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
      CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME);
      INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, 0), (16002, 'TRANSACTION', 0, 0), (16003, 'TRANSACTIONSTRING', 0, 0);
      """)
    return url
  }

  @Test(
    "a save is recorded as Core Data records one: a transaction, its strings, a change an object")
  func recordedSave() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try Self.trackedStore(in: folder)
    #expect(try SQLiteStore().tracksHistory(at: url))
    let document = try Document.open(
      url, model: try ManagedObjectModel(contentsOf: Self.model), formats: [SQLiteStore()])
    document.context.transactionAuthor = "importer"
    document.context.name = "main"
    let ada = try #require(document.context.objects(ofEntity: "Person").first)
    try ada.setValue("Ada King", forKey: "name")
    let bob = try document.context.insertNewObject(forEntityName: "Person")
    try bob.setValue("Bob", forKey: "name")
    let spending = try #require(
      document.context.objects(ofEntity: "Spending").first {
        try $0.value(forKey: "amount") as? Double == 3
      })
    try document.context.delete(spending)
    let before = Date().timeIntervalSinceReferenceDate
    try document.save()
    let after = Date().timeIntervalSinceReferenceDate
    let entities = try Self.sqlite(
      url, "SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY WHERE Z_ENT < 16000;")
    let number = Dictionary(
      uniqueKeysWithValues: entities.split(separator: "\n").map {
        let parts = $0.split(separator: "|")
        return (String(parts[0]), String(parts[1]))
      })
    // One transaction: Z_ENT 16002, Z_OPT NULL, its names in ATRANSACTIONSTRING.
    let transaction = try Self.sqlite(
      url,
      """
      SELECT t.Z_PK, t.Z_ENT, quote(t.Z_OPT), a.ZNAME, c.ZNAME, b.ZNAME, p.ZNAME, t.ZTIMESTAMP,
        quote(t.ZAUTHOR), quote(t.ZCONTEXTNAME), quote(t.ZQUERYGEN)
      FROM ATRANSACTION t LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS
        LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS
        LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS
        LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS;
      """
    ).split(separator: "|").map(String.init)
    #expect(transaction.count == 11, "\(transaction)")
    #expect(Array(transaction.prefix(5)) == ["1", "16002", "NULL", "importer", "main"])
    #expect(!transaction[5].isEmpty && !transaction[6].isEmpty)
    let timestamp = try #require(Double(transaction[7]))
    #expect(timestamp >= before - 1 && timestamp <= after + 1)
    #expect(Array(transaction.suffix(3)) == ["NULL", "NULL", "NULL"])
    #expect(
      try Self.sqlite(url, "SELECT DISTINCT Z_ENT FROM ATRANSACTIONSTRING;") == "16003")
    // One change an object: insert 0, update 1 (with the changed columns), delete 2.
    let changes = try Self.sqlite(
      url,
      "SELECT Z_ENT, quote(Z_OPT), ZCHANGETYPE, ZENTITY, ZTRANSACTIONID, ZCOLUMNS IS NULL FROM ACHANGE ORDER BY ZCHANGETYPE;"
    ).split(separator: "\n").map(String.init)
    let person = try #require(number["Person"])
    let spendingNumber = try #require(number["Spending"])
    #expect(
      changes == [
        "16001|NULL|0|\(person)|1|1", "16001|NULL|1|\(person)|1|0",
        "16001|NULL|2|\(spendingNumber)|1|1",
      ], "\(changes)")
    // Each change names its object's key, and the keys' Z_MAX moved past what was given.
    let keys = try Self.sqlite(
      url, "SELECT ZCHANGETYPE, ZENTITYPK FROM ACHANGE ORDER BY ZCHANGETYPE;")
    let bobKey = try Self.sqlite(url, "SELECT Z_PK FROM ZPERSON WHERE ZNAME = 'Bob';")
    let adaKey = try Self.sqlite(url, "SELECT Z_PK FROM ZPERSON WHERE ZNAME = 'Ada King';")
    #expect(
      keys.split(separator: "\n").prefix(2).map(String.init) == ["0|\(bobKey)", "1|\(adaKey)"])
    let strings = try Self.sqlite(url, "SELECT count(*) FROM ATRANSACTIONSTRING;")
    #expect(Int(strings) ?? 0 >= 3)
    #expect(
      try Self.sqlite(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT >= 16001 ORDER BY Z_ENT;")
        .split(separator: "\n") == ["3", "1", Substring(strings)])
    // Read back: the update names what it changed (Ada lost a spending, too).
    let history = try document.fetchHistory(after: nil)
    #expect(history.count == 1)
    let recorded = try #require(history.first)
    #expect(recorded.author == "importer" && recorded.contextName == "main")
    #expect(
      recorded.changes.map(\.changeType) == [.insert, .update, .delete])
    #expect(recorded.changes[1].updatedProperties == ["name", "spendings"])
    // A second save adds a transaction after the first; history before it can go.
    try bob.setValue("Robert", forKey: "name")
    try document.save()
    let later = try document.fetchHistory(after: recorded.token)
    #expect(later.count == 1 && later.first?.changes.map(\.changeType) == [.update])
    try document.coordinator.deleteHistory(before: recorded.token)
    #expect(try document.fetchHistory(after: nil).map(\.token) == later.map(\.token))
    #expect(try Self.sqlite(url, "SELECT count(*) FROM ACHANGE;") == "1")
  }

  @Test(
    "history asked for after a token whose next transactions were deleted is an expired token")
  func expiredToken() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try Self.trackedStore(in: folder)
    let document = try Document.open(
      url, model: try ManagedObjectModel(contentsOf: Self.model), formats: [SQLiteStore()])
    let ada = try #require(try document.context.fetch(FetchRequest(entityName: "Person")).first)
    for name in ["Ada King", "Ada Lovelace", "Augusta Ada"] {
      try ada.setValue(name, forKey: "name")
      try document.save()
    }
    let tokens = try document.fetchHistory(after: nil).map(\.token)
    #expect(tokens.map(\.transactionNumber) == [1, 2, 3])
    try document.coordinator.deleteHistory(before: tokens[1])
    // After the last transaction deleted, the history goes on; before it, changes are lost.
    #expect(try document.fetchHistory(after: tokens[1]).map(\.token) == [tokens[2]])
    #expect(try document.fetchHistory(after: nil).map(\.token) == [tokens[2]])
    for stale in [PersistentHistoryToken(transactionNumber: 0), tokens[0]] {
      #expect {
        _ = try document.fetchHistory(after: stale)
      } throws: { error in
        guard let error = error as? StoreError else { return false }
        return error.code == .historyTokenExpired && error.message.contains("up to 2 were deleted")
          && error.location?.file == url.path
      }
    }
    // With every transaction deleted, a token before the last one given is still expired,
    // and the last one's is not.
    try document.coordinator.deleteHistory(before: tokens[2])
    #expect(try document.fetchHistory(after: tokens[2]).isEmpty)
    #expect(throws: StoreError.self) { try document.fetchHistory(after: tokens[1]) }
    // The document's own merges follow the history on without it.
    try ada.setValue("Ada", forKey: "name")
    try document.save()
    #expect(try document.fetchHistory(after: tokens[2]).count == 1)
  }

  @Test("another process merges a save through the history it recorded")
  func mergedByAnotherProcess() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try Self.trackedStore(in: folder)
    let ready = folder.appendingPathComponent("ready")
    let go = folder.appendingPathComponent("go")
    let out = folder.appendingPathComponent("out.json")
    let reader = Process()
    reader.executableURL = productsDirectory.appendingPathComponent("FolioSoakRunner")
    reader.arguments = [
      "history-reader", url.path, Self.model.path, ready.path, go.path, out.path,
    ]
    let errors = Pipe()
    reader.standardError = errors
    try reader.run()
    while !FileManager.default.fileExists(atPath: ready.path), reader.isRunning { usleep(1000) }
    // This process saves while the other has the store open.
    let document = try Document.open(
      url, model: try ManagedObjectModel(contentsOf: Self.model), formats: [SQLiteStore()])
    document.context.transactionAuthor = "writer"
    try document.context.insertNewObject(forEntityName: "Person").setValue("Bob", forKey: "name")
    try #require(
      document.context.objects(ofEntity: "Person").first {
        try $0.value(forKey: "name") as? String == "Ada"
      }
    ).setValue("Ada King", forKey: "name")
    try document.save()
    _ = FileManager.default.createFile(atPath: go.path, contents: nil)
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    reader.waitUntilExit()
    #expect(reader.terminationStatus == 0, "\(message)")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [String: Any])
    #expect(report["names"] as? [String] == ["Ada King", "Bob"])
    #expect(report["token"] as? Int == 1)
    let transactions = try #require(report["transactions"] as? [[String: Any]])
    #expect(transactions.count == 1)
    #expect(transactions.first?["author"] as? String == "writer")
    #expect(
      transactions.first?["changes"] as? [String] == [
        "insert Person []", "update Person [\"name\"]",
      ])
  }

  @Test("a deletion records the values of the attributes the model keeps after deletion")
  func tombstones() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    var title = AttributeDescription("title", .string)
    title.preservesValueInHistoryOnDeletion = true
    let model = try ManagedObjectModel {
      EntityDescription("Note") {
        title
        AttributeDescription("body", .string)
      }
    }
    let url = folder.appendingPathComponent("Notes.sqlite")
    let setup = try Document(model: model)
    let note = try setup.context.insertNewObject(forEntityName: "Note")
    try note.setValue("Groceries", forKey: "title")
    try note.setValue("milk", forKey: "body")
    try setup.save(to: url, format: SQLiteStore())
    try SQLiteStore().enableHistoryTracking(at: url, model: model)
    #expect(
      try Self.sqlite(
        url,
        "SELECT group_concat(name) FROM pragma_table_info('ACHANGE') WHERE name LIKE 'ZTOMBSTONE%';"
      )
        == "ZTOMBSTONE0")
    let document = try Document.open(url, model: model, formats: [SQLiteStore()])
    try document.context.delete(try #require(document.context.objects(ofEntity: "Note").first))
    try document.save()
    #expect(try Self.sqlite(url, "SELECT ZCHANGETYPE, ZTOMBSTONE0 FROM ACHANGE;") == "2|Groceries")
    let change = try #require(try document.fetchHistory(after: nil).first?.changes.first)
    #expect(change.changeType == .delete)
    #expect(change.tombstone == ["title": .string("Groceries")])
  }

  @Test("history tables laid out otherwise refuse the save, naming the table, and change nothing")
  func malformedHistory() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try Self.trackedStore(in: folder)
    // Another program's ACHANGE, without the column of changed properties.
    try Self.sqlite(
      url,
      """
      DROP TABLE ACHANGE;
      CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER );
      """)
    let before = try Self.sqlite(url, "SELECT group_concat(ZNAME) FROM ZPERSON;")
    let document = try Document.open(
      url, model: try ManagedObjectModel(contentsOf: Self.model), formats: [SQLiteStore()])
    try document.context.insertNewObject(forEntityName: "Person").setValue("Bob", forKey: "name")
    let error = try #require(throws: GraphError.self) { try document.save() }
    #expect(error.code == .store)
    #expect(error.description.contains("ACHANGE"), "\(error)")
    #expect(try Self.sqlite(url, "SELECT group_concat(ZNAME) FROM ZPERSON;") == before)
    #expect(try Self.sqlite(url, "SELECT count(*) FROM ATRANSACTION;") == "0")
    // The document keeps its change; no transaction was recorded.
    #expect(document.isEdited)
    #expect(try document.fetchHistory(after: nil).isEmpty)
  }
}
