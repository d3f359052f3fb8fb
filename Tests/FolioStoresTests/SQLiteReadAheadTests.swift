import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioSQLiteStore
@testable import FolioStores

/// Reading a SQLite store on a second thread while the consumer takes the records: the same
/// records in the same order, errors in the same place, and a consumer that throws stops it.
@Suite("SQLite read-ahead")
struct SQLiteReadAheadTests: SQLiteFixtures {
  var store = SQLiteStore()

  /// Keeps every record it is given, and can throw at the `failAt`th.
  struct Recorder: StoreRecordConsumer {
    var records: [StoreRecord] = []
    var failAt: Int?
    var finished = false

    mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?) {}

    mutating func consume(_ record: StoreRecord) throws(StoreError) {
      if records.count == failAt { throw StoreError(.malformedStore, "the consumer stops") }
      records.append(record)
    }

    mutating func finish() { finished = true }
  }

  /// A store of 150 people with two spendings each.
  func bigStore() throws -> URL {
    let folder = try makeTemporaryFolder()
    let url = folder.appendingPathComponent("many.sqlite")
    var records: [StoreRecord] = []
    for person in 0..<150 {
      let id = Int64(3 * person + 1)
      records.append(
        StoreRecord(
          entityName: "Person", id: id, attributes: ["name": .string("p\(person)")],
          relationships: ["spendings": [id + 1, id + 2]]))
      for offset in 1...2 {
        records.append(
          StoreRecord(
            entityName: "Spending", id: id + Int64(offset),
            attributes: ["amount": .double(Double(offset)), "content": .string("s\(person)")],
            relationships: ["person": [id]]))
      }
    }
    try store.write(
      StoreContents(metadata: StoreMetadata(storeType: "SQLite"), records: records),
      model: try expensesModel(), to: url)
    return url
  }

  func read(_ url: URL, ahead: Bool, failAt: Int? = nil) throws -> (Recorder, StoreError?) {
    var format = store
    format.readAheadThreshold = ahead ? 1 : Int.max
    format.readAheadBatch = 7
    var recorder = Recorder(failAt: failAt)
    let model = try expensesModel()
    do throws(StoreError) {
      try format.read(from: url, model: model, into: &recorder)
      return (recorder, nil)
    } catch {
      return (recorder, error)
    }
  }

  @Test("the records, in their order, are those one thread reads")
  func sameRecords() throws {
    let url = try bigStore()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let (alone, _) = try read(url, ahead: false)
    let (ahead, error) = try read(url, ahead: true)
    #expect(error == nil)
    #expect(alone.records.count == 450)
    #expect(ahead.records == alone.records, "\(ahead.records.count) records")
    #expect(ahead.finished)
  }

  @Test("a bad row fails after the same records, with the same error")
  func readingError() throws {
    let url = try bigStore()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    try sql(
      url,
      "UPDATE ZSPENDING SET Z_ENT = 1 WHERE Z_PK = (SELECT Z_PK FROM ZSPENDING LIMIT 1 OFFSET 100)")
    let (alone, aloneError) = try read(url, ahead: false)
    let (ahead, aheadError) = try read(url, ahead: true)
    #expect(aloneError != nil)
    #expect(aheadError?.message == aloneError?.message)
    #expect(alone.records.count == 250, "150 people and 100 spendings before the bad row")
    #expect(ahead.records == alone.records, "\(ahead.records.count) records")
    #expect(!ahead.finished)
  }

  @Test("a consumer that throws stops the reading thread, and its error is the caller's")
  func consumerError() throws {
    let url = try bigStore()
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    for failAt in [0, 6, 7, 30, 449] {
      let (ahead, error) = try read(url, ahead: true, failAt: failAt)
      #expect(error?.message == "the consumer stops")
      #expect(ahead.records.count == failAt)
    }
    // The store reads again afterwards: nothing was left holding it.
    let (again, error) = try read(url, ahead: true)
    #expect(error == nil && again.records.count == 450)
  }
}
