import FolioTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `folio history`: a SQLite store's persistent history turned on, listed and deleted, and
/// what it refuses.
@Suite("folio history")
struct HistoryCommandTests {
  static let model = packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld")
    .path

  /// The Expenses sample as a SQLite store in `folder`, written by Folio (so carrying its
  /// model).
  static func store(in folder: URL) throws -> String {
    let path = folder.appendingPathComponent("expenses.sqlite").path
    let sample = packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xml").path
    let made = try run(folio, ["convert", sample, path, "--model", model])
    #expect(made.status == 0, "\(made.standardError)")
    return path
  }

  /// What the sqlite3 shell prints for `sql` on `store`, trimmed.
  static func sqlite(_ store: String, _ sql: String) throws -> String {
    // Waits for another process's write, as Folio does.
    let result = try run(
      URL(fileURLWithPath: "/usr/bin/sqlite3"), ["-cmd", ".timeout 5000", store, sql])
    #expect(result.status == 0, "\(sql): \(result.standardError)")
    return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  static func setAmount(_ amount: Int, in store: String) throws -> ProcessResult {
    try run(
      folio,
      [
        "update", store, "--entity", "Spending", "--where", "TRUEPREDICATE", "--set",
        "amount=\(amount)",
      ])
  }

  @Test(
    "--enable makes the tables, saves are listed as text and JSON, --delete-through drops the oldest"
  )
  func enableListDelete() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try Self.store(in: folder)
    // `info` tells whether history is kept, and how much.
    func info() throws -> (line: String?, json: Any?) {
      let text = try run(folio, ["info", store]).standardOutput.split(separator: "\n")
      let json = try run(folio, ["info", store, "--json"]).standardOutput
      let schema = try JSONSchemaCheck(
        contentsOf: packageRoot.appendingPathComponent("Formats/info.schema.json"))
      let value = try JSONSerialization.jsonObject(with: Data(json.utf8))
      #expect(schema.failures(of: value) == [], "\(json)")
      return (
        text.first { $0.hasPrefix("Persistent history: ") }.map(String.init),
        (value as? [String: Any])?["history"]
      )
    }
    let off = try info()
    #expect(off.line == "Persistent history: off (folio history FILE --enable turns it on)")
    #expect(off.json is NSNull)
    let none = try run(folio, ["history", store])
    #expect(none.status == 1)
    #expect(
      none.standardError.contains("keeps no persistent history; turn it on with folio history"))
    let on = try run(folio, ["history", store, "--enable"])
    #expect(
      on.status == 0 && on.standardOutput == "persistent history is on\n", "\(on.standardError)")
    // Core Data apps that do not ask for history could not save the store any more: said.
    #expect(
      on.standardError.contains("Core Data opens a store whose history was tracked read-only"))
    #expect(
      try Self.sqlite(store, "SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT >= 16000 ORDER BY Z_ENT")
        == "CHANGE\nTRANSACTION\nTRANSACTIONSTRING")
    #expect(
      try run(folio, ["history", store, "--enable"]).standardOutput
        == "persistent history was already on\n")
    #expect(try run(folio, ["history", store]).standardOutput == "no transactions recorded\n")
    #expect(try info().line == "Persistent history: on, no transactions")
    let spendings = Int(try Self.sqlite(store, "SELECT count(*) FROM ZSPENDING")) ?? 0
    #expect(spendings > 0)
    for amount in 1...3 { #expect(try Self.setAmount(amount, in: store).status == 0) }
    let three = try info()
    #expect(three.line == "Persistent history: on, 3 transactions (1 to 3)")
    let summary = three.json as? [String: Any]
    #expect(summary?["transactions"] as? Int == 3 && summary?["first"] as? Int == 1)
    #expect(summary?["last"] as? Int == 3)
    let listed = try run(folio, ["history", store, "--after", "1"])
    #expect(listed.status == 0, "\(listed.standardError)")
    let lines = listed.standardOutput.split(separator: "\n")
    #expect(
      lines.filter { $0.hasPrefix("transaction ") }.map { $0.prefix(14) } == [
        "transaction 2 ", "transaction 3 ",
      ])
    #expect(
      lines.filter { $0.hasPrefix("  update Spending p") && $0.hasSuffix(": amount") }.count == 2
        * spendings)
    #expect(lines.first?.contains(#"process "folio""#) == true, "\(lines)")
    // JSON, as its schema says: every change names its object by URI.
    let json = try run(folio, ["history", store, "--json"])
    let schema = try JSONSchemaCheck(
      contentsOf: packageRoot.appendingPathComponent("Formats/history.schema.json"))
    let value = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8))
    #expect(schema.failures(of: value) == [], "\(json.standardOutput)")
    let transactions = try #require((value as? [String: Any])?["transactions"] as? [[String: Any]])
    #expect(transactions.map { $0["token"] as? Int } == [1, 2, 3])
    let uuid = try Self.sqlite(store, "SELECT Z_UUID FROM Z_METADATA")
    let objects = (transactions[0]["changes"] as? [[String: Any]] ?? []).compactMap {
      $0["object"] as? String
    }
    #expect(
      objects.count == spendings
        && objects.allSatisfy { $0.hasPrefix("x-coredata://\(uuid)/Spending/p") })
    // Deleting through 2 keeps 3; asking after 1 then would miss 2: the token is expired.
    let deleted = try run(folio, ["history", store, "--delete-through", "2"])
    #expect(
      deleted.standardOutput == "deleted the history through transaction 2\n",
      "\(deleted.standardError)")
    #expect(try Self.sqlite(store, "SELECT group_concat(Z_PK) FROM ATRANSACTION") == "3")
    #expect(try info().line == "Persistent history: on, 1 transaction (3)")
    #expect(try Self.sqlite(store, "SELECT count(*) FROM ACHANGE WHERE ZTRANSACTIONID < 3") == "0")
    let expired = try run(folio, ["history", store, "--after", "1"])
    #expect(expired.status == 1)
    #expect(
      expired.standardError.contains("the history token is expired"), "\(expired.standardError)")
    #expect(
      try run(folio, ["history", store, "--after", "2"]).standardOutput.hasPrefix("transaction 3 "))
    #expect(
      try run(folio, ["history", store, "--after", "3"]).standardOutput
        == "no transactions after 3\n")
    // The objects are untouched by all of it.
    #expect(try Self.sqlite(store, "SELECT DISTINCT ZAMOUNT FROM ZSPENDING") == "3.0")
  }

  @Test(
    "stores that cannot keep history, standard input, and a guessed model are refused, and nothing changes"
  )
  func refusals() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try Self.store(in: folder)
    let xml = packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xml").path
    let notSQLite = try run(folio, ["history", xml, "--enable"])
    #expect(notSQLite.status == 1)
    #expect(notSQLite.standardError.contains("only SQLite stores do (nothing was changed)"))
    let piped = try run(
      folio, ["history", "-", "--enable"], input: try Data(contentsOf: URL(fileURLWithPath: store)))
    #expect(piped.status == 64 && piped.standardError.contains("cannot read one from -"))
    let both = try run(folio, ["history", store, "--enable", "--delete-through", "1"])
    #expect(both.status == 64 && both.standardError.contains("exclude each other"))
    // Without the model it carries, a store's model is guessed: it cannot say the tombstones.
    _ = try Self.sqlite(store, "DELETE FROM Z_MODELCACHE")
    let before = try Data(contentsOf: URL(fileURLWithPath: store))
    let guessed = try run(folio, ["history", store, "--enable"])
    #expect(
      guessed.status == 1 && guessed.standardError.contains("pass --model"),
      "\(guessed.standardError)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    #expect(try run(folio, ["history", store, "--enable", "--model", Self.model]).status == 0)
    // A read-only store is not written, even by the superuser.
    #expect(chmod(store, 0o444) == 0)
    let locked = try Data(contentsOf: URL(fileURLWithPath: store))
    for arguments in [["--delete-through", "1"]] {
      let result = try run(folio, ["history", store] + arguments)
      #expect(
        result.status == 1 && result.standardError.contains("Permission denied"),
        "\(result.standardError)")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == locked)
  }

  @Test("history tables laid out otherwise are refused, naming the file and the table, unchanged")
  func malformedHistory() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try Self.store(in: folder)
    _ = try Self.sqlite(
      store,
      """
      CREATE TABLE ACHANGE (Z_PK INTEGER PRIMARY KEY);
      CREATE TABLE ATRANSACTION (Z_PK INTEGER PRIMARY KEY, ZTIMESTAMP TEXT);
      CREATE TABLE ATRANSACTIONSTRING (Z_PK INTEGER PRIMARY KEY);
      INSERT INTO ATRANSACTION VALUES (1, 'noon');
      """)
    let before = try Data(contentsOf: URL(fileURLWithPath: store))
    for (arguments, table) in [
      ([String](), "ATRANSACTIONSTRING"), (["--after", "0", "--json"], "ATRANSACTIONSTRING"),
      (["--delete-through", "1"], "ACHANGE"),
    ] {
      let result = try run(folio, ["history", store] + arguments)
      #expect(result.status == 1, "\(arguments)")
      #expect(
        result.standardError.hasPrefix("Error: \(store) \(table): ")
          && result.standardError.contains("no such column"), "\(result.standardError)")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
  }

  @Test(
    "history deleted and turned on while another process saves keeps every save and a whole history"
  )
  func anotherWriter() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try Self.store(in: folder)
    let stop = folder.appendingPathComponent("stop").path
    let saved = folder.appendingPathComponent("saved").path
    // Another process saves until told to stop, noting each amount it saved; this one turns
    // history on meanwhile, then deletes it five times as it grows.
    let writer = Process()
    writer.executableURL = URL(fileURLWithPath: "/bin/sh")
    writer.arguments = [
      "-c",
      """
      i=0
      while [ ! -e "$2" ] && [ $i -lt 1000 ]; do
        i=$((i+1))
        "$0" update "$1" --entity Spending --where TRUEPREDICATE --set amount=$i >/dev/null || exit 1
        echo $i > "$3"
      done
      """,
      folio.path, store, stop, saved,
    ]
    try writer.run()
    #expect(try run(folio, ["history", store, "--enable"]).status == 0)
    var through = 0
    for _ in 0..<5 {
      var last = 0
      let deadline = Date().addingTimeInterval(20)
      while last < through + 2, Date() < deadline, writer.isRunning {
        usleep(5_000)
        last = Int(try Self.sqlite(store, "SELECT coalesce(max(Z_PK), 0) FROM ATRANSACTION")) ?? 0
      }
      guard last >= through + 2 else { break }
      through = last - 1
      let deleted = try run(folio, ["history", store, "--delete-through", String(through)])
      #expect(deleted.status == 0, "\(deleted.standardError)")
    }
    #expect(FileManager.default.createFile(atPath: stop, contents: nil))
    writer.waitUntilExit()
    #expect(writer.terminationStatus == 0)
    #expect(through >= 5, "history was deleted through \(through) only")
    let last = try String(contentsOfFile: saved, encoding: .utf8)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(try Self.sqlite(store, "SELECT DISTINCT ZAMOUNT FROM ZSPENDING") == "\(last).0")
    #expect(try Self.sqlite(store, "PRAGMA integrity_check") == "ok")
    // No change outlives its transaction, and what is left lists from there.
    #expect(
      try Self.sqlite(
        store,
        "SELECT count(*) FROM ACHANGE WHERE ZTRANSACTIONID NOT IN (SELECT Z_PK FROM ATRANSACTION)"
      ) == "0")
    let left = try run(folio, ["history", store, "--after", String(through)])
    #expect(
      left.status == 0 && left.standardOutput.hasPrefix("transaction"), "\(left.standardError)")
  }
}
