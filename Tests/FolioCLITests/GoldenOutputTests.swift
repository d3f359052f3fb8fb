import FolioTestSupport
import Foundation
import Testing

/// Every output mode of the store commands, on the Expenses sample, against golden files in
/// `Snapshots` (recorded with `RECORD_SNAPSHOTS=1`): a change to what users and their scripts
/// read shows in review.
@Suite("golden output of every mode")
struct GoldenOutputTests {
  static let store = "Samples/Expenses/Expenses.xml"
  static let model = "Samples/Expenses/Expenses.xcdatamodeld"

  @Test(
    "each command and output mode prints what its golden file holds",
    arguments: [
      ("store-info.txt", ["info", store]),
      ("store-info.json", ["info", "--json", store]),
      ("store-info-model.txt", ["info", store, "--model", model]),
      ("dump.txt", ["dump", store]),
      ("dump.json", ["dump", "--json", store]),
      ("dump.jsonl", ["dump", "--jsonl", store]),
      ("dump-model.jsonl", ["dump", "--jsonl", store, "--model", model]),
      ("query.table", ["query", store, "Spending", "--sort", "amount"]),
      ("query.csv", ["query", store, "Spending", "--sort", "amount", "--format", "csv"]),
      ("query.tsv", ["query", store, "Spending", "--sort", "amount", "--format", "tsv"]),
      ("query.json", ["query", store, "Spending", "--sort", "amount", "--format", "json"]),
      ("query.jsonl", ["query", store, "Spending", "--sort", "amount", "--format", "jsonl"]),
      (
        "query-date.table",
        [
          "query", store, "Spending", "--where", "date > @1843-07-11", "--sort", "date:desc",
          "--keys", "content,date,person.name",
        ]
      ),
      ("validate.txt", ["validate", store, "--model", model]),
      ("validate.json", ["validate", "--json", store, "--model", model]),
      ("replay.tap", ["replay", "--tap", "Samples/Expenses/undo-cascade.undo"]),
    ])
  func golden(name: String, arguments: [String]) throws {
    let result = try run(folio, arguments)
    #expect(result.status == 0, "\(result.standardError)")
    assertSnapshot(result.standardOutput, named: "golden-\(name)", in: snapshots)
  }
}
