import FolioData
import FolioSQLiteStore
import FolioTestSupport
import Foundation
import Testing

/// The Trips sample's tool, beside the test executable.
let tripsTool: URL? = {
  let url = productsDirectory.appendingPathComponent("TripsSample")
  return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
}()

/// Several processes opening one SQLite store through FolioData at the same moment, each
/// giving it persistent history if it has none and saving, one killed while it does.
@Suite(
  "FolioData containers of several processes on one store",
  .enabled(if: tripsTool != nil, "needs the built TripsSample"))
struct TripsProcessesTests {
  @Test(
    "processes that turn history on as they open the store keep every save, one killed among them")
  func concurrentOpens() throws {
    let tool = try #require(tripsTool)
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("trips.store")
    let first = try run(
      tool, ["add-trip", "S0", "Seed", "--start", "2027-01-01", "--store", store.path],
      in: folder)
    #expect(first.status == 0, "\(first.standardError)")
    // The store as a Core Data app without history tracking leaves it.
    let drop = try run(
      URL(fileURLWithPath: "/usr/bin/env"),
      [
        "sqlite3", store.path,
        "DROP TABLE ACHANGE; DROP TABLE ATRANSACTION; DROP TABLE ATRANSACTIONSTRING; "
          + "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT > 16000;",
      ], in: folder)
    #expect(drop.status == 0, "\(drop.standardError)")
    #expect(try !SQLiteStore().tracksHistory(at: store))
    // One more process, killed at once or a little later, whatever it was doing.
    let victim = Process()
    victim.executableURL = tool
    victim.arguments = ["add-trip", "K9", "Killed", "--start", "2027-03-01", "--store", store.path]
    victim.standardOutput = FileHandle.nullDevice
    victim.standardError = FileHandle.nullDevice
    let writers = 6
    let results = Results()
    try victim.run()
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 0...150))) {
      kill(victim.processIdentifier, SIGKILL)
    }
    DispatchQueue.concurrentPerform(iterations: writers) { index in
      let arguments = [
        "add-trip", "T\(index)", "Trip \(index)", "--start", "2027-02-0\(index + 1)",
        "--store", store.path,
      ]
      results.append(index, Result { try run(tool, arguments, in: folder) })
    }
    victim.waitUntilExit()
    for (index, result) in results.all {
      let outcome = try result.get()
      #expect(outcome.status == 0, "writer \(index): \(outcome.standardError)")
      #expect(outcome.standardOutput == "added trip T\(index)\n")
    }
    // Every save that returned is in the store, which now keeps history and is sound.
    let list = try run(tool, ["list", "--store", store.path], in: folder)
    let codes = list.standardOutput.split(separator: "\n").compactMap { line in
      // "CODE  DAY  NAME …"; stop and traveler lines are indented, the count line has no day.
      line.first == " " || !line.contains("  2027-")
        ? nil : line.split(separator: " ").first.map(String.init)
    }
    let expected = ["S0"] + (0..<writers).map { "T\($0)" }
    #expect(Set(codes).isSuperset(of: expected), "\(list.standardOutput)")
    #expect(Set(codes).subtracting(expected).isSubset(of: ["K9"]))
    #expect(try SQLiteStore().tracksHistory(at: store))
    let check = try run(
      URL(fileURLWithPath: "/usr/bin/env"), ["sqlite3", store.path, "PRAGMA integrity_check"],
      in: folder)
    #expect(check.standardOutput == "ok\n")
    // Each writer opened the store before it saved, so each save is in the history.
    let recorded = try run(
      URL(fileURLWithPath: "/usr/bin/env"),
      ["sqlite3", store.path, "SELECT count(*) FROM ATRANSACTION"], in: folder)
    #expect((Int(recorded.standardOutput.dropLast()) ?? 0) >= writers)
  }
}

/// What the concurrent writers returned, by writer.
private final class Results: @unchecked Sendable {
  private let lock = NSLock()
  private var results: [(Int, Result<ProcessResult, any Error>)] = []

  func append(_ index: Int, _ result: Result<ProcessResult, any Error>) {
    lock.withLock { results.append((index, result)) }
  }

  var all: [(Int, Result<ProcessResult, any Error>)] {
    lock.withLock { results.sorted { $0.0 < $1.0 } }
  }
}
