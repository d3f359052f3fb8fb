import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

/// A PostgreSQL document read straight from the server's rows, the fast road, against the same
/// document read through a SQLite copy of its tables by the SQLite store's reader, the plain
/// one: on random documents of the Soak model (inheritance, ordered and unordered to-many
/// relationships, many-to-many join tables, one-way references), they must agree.
@Suite(
  "PostgreSQL reads, straight and through a copy",
  .enabled(if: PostgresTestServer.isAvailable, "FOLIO_TEST_POSTGRES_URL unset"))
struct PostgresDifferentialTests {
  static func normalized(_ records: [StoreRecord]) -> [String] {
    records.sorted { $0.id < $1.id }.map { record in
      "\(record.entityName) \(record.id) v\(record.version) "
        + record.attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        .joined(separator: " ") + " | "
        + record.relationships.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        .joined(separator: " ")
    }
  }

  @Test(
    "on random Soak documents the straight read gives what the read through a copy gives",
    arguments: Array(UInt64(1)...UInt64(8)))
  func randomDocuments(seed: UInt64) throws {
    let model = try ManagedObjectModel(contentsOf: BatchDifferentialTests.soakModel)
    var random = SeededGenerator(seed: seed)
    let url = PostgresTestServer.document("differential")
    defer { try? PostgresStore.dropSchema(at: url) }
    try BatchDifferentialTests.randomSoakStore(
      at: url, format: PostgresStore(), model: model, random: &random)
    let straight = try PostgresStore().read(from: url, model: model)
    // Read on a second thread while the records are taken, as big documents are.
    var ahead = PostgresStore()
    ahead.readAheadThreshold = 1
    let aheadRecords = try ahead.read(from: url, model: model).records
    #expect(Self.normalized(aheadRecords) == Self.normalized(straight.records), "seed \(seed)")
    let copied = try PostgresStore().readThroughCopy(from: url, model: model)
    #expect(straight.records.count > 0)
    let (a, b) = (Self.normalized(straight.records), Self.normalized(copied.records))
    #expect(a.count == b.count, "seed \(seed)")
    for (x, y) in zip(a, b) where x != y {
      Issue.record("seed \(seed): straight \(x)\n   through a copy \(y)")
      break
    }
    #expect(straight.nextObjectID == copied.nextObjectID)
    #expect(straight.metadata.identifier == copied.metadata.identifier)
  }
}
