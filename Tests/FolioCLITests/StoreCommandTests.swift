import FolioTestSupport
import Foundation
import Testing

@Suite("folio info, dump, convert, validate")
struct StoreCommandTests {
  static let sample = "Samples/Expenses/Expenses.xml"
  static let model = "Samples/Expenses/Expenses.xcdatamodeld"

  @Test("output that cannot be written is an error: exit 1 and the system's reason")
  func fullOutput() throws {
    for arguments in [
      ["dump", Self.sample], ["info", Self.sample], ["model", "info", Self.model], ["--help"],
      ["--version"], ["query", "--help"], ["help", "model", "graph"],
    ] {
      let process = Process()
      process.executableURL = folio
      process.arguments = arguments
      process.currentDirectoryURL = packageRoot
      process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
      let error = Pipe()
      process.standardError = error
      try process.run()
      let message = String(
        decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      #expect(process.terminationStatus == 1, "\(arguments)")
      #expect(
        message == "Error: cannot write to standard output: No space left on device\n",
        "\(arguments)")
    }
  }

  @Test("convert refuses an output extension before reading anything, with its own usage")
  func convertChecksFirst() throws {
    // The input does not exist: the extension is what is reported, so nothing was read.
    let result = try run(folio, ["convert", "/nonexistent/big.xml", "/tmp/out.txt"])
    #expect(result.status == 64)
    #expect(
      result.standardError.hasPrefix(
        "Error: \"/tmp/out.txt\": the extension names no store format (use .sqlite, .xml or .folio, or a postgresql:// URL)\n"
          + "Usage: folio convert "))
  }

  @Test("- reads a store, of any format, or a script from standard input")
  func standardInput() throws {
    let xml = try Data(contentsOf: packageRoot.appendingPathComponent(Self.sample))
    let piped = try run(folio, ["dump", "--jsonl", "-"], input: xml)
    #expect(piped.status == 0, "\(piped.standardError)")
    #expect(
      piped.standardOutput == (try run(folio, ["dump", "--jsonl", Self.sample])).standardOutput)
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let sqlite = folder.appendingPathComponent("expenses.sqlite")
    #expect(
      try run(folio, ["convert", Self.sample, sqlite.path, "--model", Self.model]).status == 0)
    let info = try run(
      folio, ["info", "-", "--model", Self.model], input: Data(contentsOf: sqlite))
    #expect(info.status == 0, "\(info.standardError)")
    #expect(info.standardOutput.hasPrefix("File: -\nFormat: SQLite\n"))
    let script =
      "model \(Self.model)\nopen \(Self.sample)\nprint count Person\nexpect count Person == 4\n"
    let replay = try run(folio, ["replay", "-"], input: Data(script.utf8))
    #expect(replay.status == 1)
    #expect(replay.standardOutput == "3\n")
    #expect(replay.standardError == "<stdin>:4: expected count Person == 4, found 3\n")
  }

  @Test("info shows the format, metadata and counts per entity")
  func info() throws {
    let result = try run(folio, ["info", Self.sample])
    #expect(result.status == 0)
    let lines = result.standardOutput.split(separator: "\n").map(String.init)
    #expect(lines.contains("Format: XML"))
    #expect(lines.contains("Objects: 8"))
    #expect(lines.contains("  Person: 3"))
    #expect(lines.contains("  Spending: 5"))
    #expect(lines.contains("Model: inferred from the file, 2 entities"))
  }

  @Test("a SQLite store Folio wrote opens without --model, with the model inferred from it")
  func sqliteWithoutModel() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("expenses.sqlite").path
    #expect(try run(folio, ["convert", Self.sample, file, "--model", Self.model]).status == 0)
    let info = try run(folio, ["info", file])
    #expect(info.status == 0, "\(info.standardError)")
    #expect(info.standardOutput.contains("Objects: 8"))
    // The schema shows each to-one and its foreign key; a one-to-many's other side is not in
    // it, so the inferred model has the to-one alone.
    let dump = try run(folio, ["dump", file])
    #expect(dump.status == 0, "\(dump.standardError)")
    #expect(dump.standardOutput.contains("  content = \"Tea\"\n  date = "))
    #expect(dump.standardOutput.contains("  person = Person#1\n"))
  }

  @Test(
    "with a bundle of several versions, info reads the store with the version that wrote it",
    .enabled(if: SQLiteCorpus.isPresent))
  func bundleVersionByHashes() throws {
    let store = try #require(SQLiteCorpus.stores.first { $0.file == "Bookmarks_V2.sqlite" })
    let url = try SQLiteCorpus.copy(of: store)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let bundle = SQLiteCorpus.root.appendingPathComponent(store.bundleFolder)
      .appendingPathComponent(store.bundle).path
    let info = try run(folio, ["info", url.path, "--model", bundle])
    #expect(info.status == 0, "\(info.standardError)")
    #expect(
      info.standardOutput.contains(
        "Model: \(bundle), version BookmarksModel 2 (found by the store's version hashes)"))
  }

  @Test(
    "metadata shows and changes user metadata in place, objects untouched; reserved keys refused",
    arguments: ["xml", "folio"])
  func metadata(format: String) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("expenses.\(format)").path
    #expect(
      try run(
        folio,
        ["convert", Self.sample, file, "--model", "Samples/Expenses/Expenses.xcdatamodeld"]
      ).status == 0)
    let objects = try run(folio, ["dump", file]).standardOutput
    let shown = try run(folio, ["metadata", file])
    #expect(shown.status == 0)
    #expect(shown.standardOutput.contains("User metadata: none"))
    let set = try run(folio, ["metadata", file, "--set", "author=Ada", "--set", "note=a=b"])
    #expect(set.status == 0)
    #expect(set.standardOutput.contains("User metadata:\n  author = \"Ada\"\n  note = \"a=b\"\n"))
    let json = try run(folio, ["metadata", file, "--remove", "author", "--json"])
    let object =
      try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
    #expect(object?["userMetadata"] as? [String: String] == ["note": "a=b"])
    #expect(try run(folio, ["dump", file]).standardOutput == objects)
    let before = try Data(contentsOf: URL(fileURLWithPath: file))
    for bad in [
      ["--set", "NSStoreUUID=x"], ["--remove", "NSStoreModelVersionHashes"], ["--set", "=x"],
      ["--remove", "missing"],
    ] {
      let refused = try run(folio, ["metadata", file] + bad)
      #expect(refused.status != 0, "\(bad)")
      #expect(refused.standardError.contains("Error: "), "\(bad)")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
  }

  @Test("dump prints every object; --json is machine-readable")
  func dump() throws {
    let text = try run(folio, ["dump", Self.sample, "--model", Self.model])
    #expect(text.status == 0)
    #expect(
      text.standardOutput.contains(
        "Person#1\n  name = \"Ada Lovelace\"\n  spendings = [Spending#4, Spending#5]"))
    let json = try run(folio, ["dump", "--json", Self.sample])
    let object =
      try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
    #expect((object?["objects"] as? [Any])?.count == 8)
  }

  @Test("convert to binary and back gives the same graph")
  func convertRoundTrip() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let binary = folder.appendingPathComponent("expenses.folio").path
    let xml = folder.appendingPathComponent("expenses.xml").path
    #expect(try run(folio, ["convert", Self.sample, binary, "--model", Self.model]).status == 0)
    #expect(try run(folio, ["convert", binary, xml, "--model", Self.model]).status == 0)
    let original = try run(folio, ["dump", Self.sample, "--model", Self.model]).standardOutput
    let back = try run(folio, ["dump", xml, "--model", Self.model]).standardOutput
    #expect(original == back)
    #expect(
      try run(folio, ["info", binary, "--model", Self.model]).standardOutput.contains(
        "Format: Binary"))
  }

  @Test("validate checks every object; a failing store exits 1 with each failure")
  func validate() throws {
    let valid = try run(folio, ["validate", Self.sample, "--model", Self.model])
    #expect(valid.status == 0)
    #expect(valid.standardOutput == "\(Self.sample): 8 objects, all valid\n")
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let broken = folder.appendingPathComponent("broken.xml")
    let text = try String(
      contentsOf: packageRoot.appendingPathComponent(Self.sample), encoding: .utf8
    )
    .replacingOccurrences(
      of: "<attribute name=\"name\" type=\"string\">Ada Lovelace</attribute>", with: "")
    try Data(text.utf8).write(to: broken)
    let invalid = try run(
      folio,
      ["validate", broken.path, "--model", packageRoot.appendingPathComponent(Self.model).path])
    #expect(invalid.status == 1)
    #expect(invalid.standardError.contains("Person.name"))
    #expect(invalid.standardError.contains("a value is required"))
    // Without the model, the file proves no required values: the output says what was checked.
    let inferred = try run(folio, ["validate", broken.path])
    #expect(inferred.status == 0)
    #expect(
      inferred.standardOutput
        == "\(broken.path): 8 objects; the model was inferred from the file, so only each "
        + "value's type and each relationship's shape were checked, and they hold. Pass --model "
        + "for the model's rules (required values, ranges, counts, uniqueness).\n")
    // A .folio store carries its model: its rules are checked without --model.
    let binary = folder.appendingPathComponent("broken.folio").path
    let converted = try run(
      folio,
      [
        "convert", Self.sample, binary, "--model",
        packageRoot.appendingPathComponent(Self.model).path,
      ])
    #expect(converted.status == 0, "\(converted.standardError)")
    #expect(
      try run(folio, ["validate", binary]).standardOutput == "\(binary): 8 objects, all valid\n")
  }

  @Test("validate refuses a store whose relationship sides disagree, naming both objects")
  func contradictorySides() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let broken = folder.appendingPathComponent("two-owners.xml")
    // Charles's spendings also claim Ada's first spending, whose person is Ada.
    let text = try String(
      contentsOf: packageRoot.appendingPathComponent(Self.sample), encoding: .utf8
    )
    .replacingOccurrences(of: "idrefs=\"z6 z7\"", with: "idrefs=\"z6 z7 z4\"")
    try Data(text.utf8).write(to: broken)
    // With the model, which says the two are inverses. (A model inferred from the file pairs
    // relationships as inverses only where their links mirror each other, so there the two
    // are independent relationships and the file is valid.)
    let result = try run(
      folio,
      ["validate", broken.path, "--model", packageRoot.appendingPathComponent(Self.model).path])
    #expect(result.status == 1)
    #expect(result.standardError.contains("disagree"))
    // Nothing is missing: the flag that leaves out missing targets would not help.
    #expect(!result.standardError.contains("--drop-dangling-references"))
    #expect(result.standardError.contains("Person 2"))
    #expect(result.standardError.contains("Spending 4"))
    #expect(result.standardError.contains("Person 1"))
  }

  @Test("bad input: an unknown format, a binary store without a model, a missing file")
  func badInput() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let text = folder.appendingPathComponent("notes.xml")
    try Data("hello".utf8).write(to: text)
    let unknown = try run(folio, ["info", text.path])
    #expect(unknown.status == 1)
    #expect(
      unknown.standardError
        == "Error: \(text.path): not a store of any known format (XML, Binary, SQLite)\n")
    let binary = folder.appendingPathComponent("e.folio").path
    _ = try run(folio, ["convert", Self.sample, binary, "--model", Self.model])
    // A .folio file carries its model since format 1.1; one written before needs --model.
    let carried = try run(folio, ["info", binary])
    #expect(carried.status == 0)
    #expect(carried.standardOutput.contains("Model: carried in the file, "))
    let old = packageRoot.appendingPathComponent(
      "Tests/FolioCLITests/Fixtures/expenses-format-1.0.folio"
    ).path
    let noModel = try run(folio, ["info", old])
    #expect(noModel.status == 64)
    #expect(
      noModel.standardError.contains(
        "written before version 1.1 and carries no model: pass --model PATH"))
    let withModel = try run(folio, ["info", old, "--model", Self.model])
    #expect(withModel.status == 0)
    let missing = try run(folio, ["info", "nope.xml"])
    #expect(missing.status == 1)
    #expect(missing.standardError == "Error: nope.xml: no such file\n")
    let badExtension = try run(
      folio, ["convert", Self.sample, folder.appendingPathComponent("x.txt").path])
    #expect(badExtension.status == 64)
  }

  @Test(
    "every corpus store opens with an inferred model and converts to binary",
    .enabled(
      if: FileManager.default.fileExists(
        atPath: packageRoot.deletingLastPathComponent().appendingPathComponent(
          "shared/corpus/stores"
        ).path)))
  func corpus() throws {
    let stores = packageRoot.deletingLastPathComponent().appendingPathComponent(
      "shared/corpus/stores")
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let names = try FileManager.default.contentsOfDirectory(atPath: stores.path).sorted()
    #expect(names.count == 24)
    for name in names {
      let path = stores.appendingPathComponent(name).path
      let info = try run(folio, ["info", "--drop-dangling-references", path])
      #expect(info.status == 0, "\(name): \(info.standardError)")
      let dumped = try run(folio, ["dump", "--drop-dangling-references", path])
      #expect(dumped.status == 0, "\(name)")
    }
  }
}

@Suite("folio model infer")
struct InferCommandTests {
  @Test("an inferred model prints as a contents file that loads back")
  func infer() throws {
    let result = try run(folio, ["model", "infer", "Samples/Expenses/Expenses.xml"])
    #expect(result.status == 0)
    // What the file cannot say is said on standard error, apart from the contents file.
    #expect(result.standardError.contains("writes property names in lower case"))
    #expect(!result.standardOutput.contains("lower case"))
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let contents = folder.appendingPathComponent("contents")
    try Data(result.standardOutput.utf8).write(to: contents)
    let info = try run(folio, ["model", "info", contents.path])
    #expect(info.status == 0)
    #expect(info.standardOutput.contains("spendings: to-many Spending"))
    #expect(info.standardOutput.contains("person: to-one Person"))
  }
}

@Suite("folio query")
struct QueryCommandTests {
  @Test("a table of the objects a predicate matches, sorted")
  func table() throws {
    let result = try run(
      folio,
      [
        "query", "Samples/Expenses/Expenses.xml", "Spending", "--where", "amount > 10",
        "--sort", "amount:desc", "--keys", "content,amount,person.name",
      ])
    #expect(result.status == 0)
    #expect(
      result.standardOutput == """
        content                         amount  person.name
        ------------------------------  ------  ---------------
        Brass gears                     240.0   Charles Babbage
        Punched cards                   35.2    Charles Babbage
        Notes on the Analytical Engine  12.5    Ada Lovelace
        (3 objects)

        """)
  }

  @Test("collection operators in predicates, JSON output, and a limit")
  func json() throws {
    let result = try run(
      folio,
      [
        "query", "Samples/Expenses/Expenses.xml", "Person", "--where", "spendings.@count >= 2",
        "--sort", "name", "--limit", "1", "--json",
      ])
    #expect(result.status == 0)
    let object =
      try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
    let rows = try #require(object?["objects"] as? [[String: String]])
    #expect(rows == [["name": "Ada Lovelace"]])
  }

  @Test("--format prints a table, CSV, TSV, JSON or JSON Lines, each escaping what it must")
  func formats() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    // People whose names hold a comma, quotes and a line break, and wide characters.
    let store = folder.appendingPathComponent("people.xml")
    let text = try String(
      contentsOf: packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xml"),
      encoding: .utf8
    )
    .replacingOccurrences(of: ">Ada Lovelace<", with: ">Ada, &quot;the&quot;&#10;first<")
    .replacingOccurrences(of: ">Charles Babbage<", with: ">東京 太郎<")
    try Data(text.utf8).write(to: store)
    func query(_ format: String) throws -> String {
      let result = try run(
        folio,
        [
          "query", store.path, "Person", "--keys", "name,spendings.@count", "--sort", "name",
          "--format", format,
        ])
      #expect(result.status == 0, "\(format): \(result.standardError)")
      return result.standardOutput
    }
    #expect(
      try query("table")
        == "name               spendings.@count\n"
        + "-----------------  ----------------\n"
        + "Ada, \"the\"\\nfirst  2\n"
        + "Mary Somerville    1\n"
        + "東京 太郎          2\n"
        + "(3 objects)\n", "wide characters take two columns")
    #expect(
      try query("csv")
        == "name,spendings.@count\r\n\"Ada, \"\"the\"\"\nfirst\",2\r\nMary Somerville,1\r\n"
        + "東京 太郎,2\r\n")
    #expect(
      try query("tsv")
        == "name\tspendings.@count\nAda, \"the\"\\nfirst\t2\nMary Somerville\t1\n東京 太郎\t2\n")
    let lines = try query("jsonl").split(separator: "\n")
    #expect(lines.count == 3)
    let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
    #expect(first?["name"] as? String == "Ada, \"the\"\nfirst")
    #expect(first?["spendings.@count"] as? Int == 2)
    let document =
      try JSONSerialization.jsonObject(with: Data(try query("json").utf8)) as? [String: Any]
    #expect((document?["objects"] as? [[String: Any]])?.count == 3)
  }

  @Test("ISO 8601 date literals filter a store's dates; a bad one is bad usage at its column")
  func dates() throws {
    // Ada's tea is at 1843-07-11T16:30:00Z, her notes at 1843-07-10T10:00:00Z; Babbage's gears
    // and Somerville's book are from 1834; the punched cards have no date.
    func query(_ predicate: String) throws -> ProcessResult {
      try run(
        folio,
        [
          "query", "Samples/Expenses/Expenses.xml", "Spending", "--where", predicate, "--sort",
          "date", "--keys", "content,date",
        ])
    }
    let after = try query("date > @1843-07-11")
    #expect(after.status == 0, "\(after.standardError)")
    #expect(
      after.standardOutput == """
        content  date
        -------  --------------------
        Tea      1843-07-11T16:30:00Z
        (1 object)

        """)
    let times = try query(
      "date >= @1843-07-10T11:00:00+01:00 AND date < CAST(\"1843-07-11T16:30:00Z\", \"NSDate\")")
    #expect(times.status == 0, "\(times.standardError)")
    #expect(times.standardOutput.contains("Notes on the Analytical Engine"))
    #expect(!times.standardOutput.contains("Tea"))
    let bad = try query("date > @1843-02-29")
    #expect(bad.status == 64)
    #expect(
      bad.standardError.contains(
        "--where \"date > @1843-02-29\": column 8: invalid date \"@1843-02-29\": February 1843 "
          + "has no day 29"))
  }

  @Test("a malformed predicate is bad usage naming the column; an unknown key fails")
  func errors() throws {
    let malformed = try run(
      folio, ["query", "Samples/Expenses/Expenses.xml", "Person", "--where", "name =="])
    #expect(malformed.status == 64)
    #expect(malformed.standardError.contains("column"))
    let unknown = try run(
      folio, ["query", "Samples/Expenses/Expenses.xml", "Person", "--where", "nmae == 'x'"])
    #expect(unknown.status == 1)
    #expect(unknown.standardError.contains("nmae"))
  }
}

@Suite("folio query --group-by, --having and expressions")
struct GroupedQueryCommandTests {
  let expenses = "Samples/Expenses/Expenses.xml"

  @Test("one row per group, with aggregates, a having predicate and a sort by an aggregate")
  func grouped() throws {
    let result = try run(
      folio,
      [
        "query", expenses, "Spending", "--group-by", "person.name", "--keys",
        "person.name,total=sum:(amount),n=count:(amount),max:(amount)", "--having",
        "total > 10", "--sort", "total:desc",
      ])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(
      result.standardOutput == """
        person.name      total  n  max:(amount)
        ---------------  -----  -  ------------
        Charles Babbage  275.2  2  240.0
        Ada Lovelace     13.25  2  12.5
        (2 groups)

        """)
  }

  @Test("the sums agree with the amounts the plain query prints, summed by hand")
  func sumsAgreeWithRows() throws {
    let plain = try run(
      folio, ["query", expenses, "Spending", "--keys", "person.name,amount", "--jsonl"])
    #expect(plain.status == 0)
    var expected: [String: Double] = [:]
    for line in plain.standardOutput.split(separator: "\n") {
      let row = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let name = row["person.name"] as? String ?? "-"
      expected[name, default: 0] += row["amount"] as? Double ?? 0
    }
    let grouped = try run(
      folio,
      [
        "query", expenses, "Spending", "--group-by", "person.name", "--keys",
        "person.name,total=sum:(amount)", "--json",
      ])
    #expect(grouped.status == 0)
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(grouped.standardOutput.utf8)) as? [String: Any])
    let rows = try #require(document["groups"] as? [[String: Any]])
    var found: [String: Double] = [:]
    for row in rows { found[row["person.name"] as? String ?? "-"] = row["total"] as? Double }
    #expect(found.count == expected.count)
    for (name, total) in expected { #expect(abs((found[name] ?? .nan) - total) < 1e-9, "\(name)") }
  }

  @Test("grouping alone counts each group; aggregates alone make one row; expressions per object")
  func defaultsAndExpressions() throws {
    let counted = try run(
      folio, ["query", expenses, "Spending", "--group-by", "person.name", "--format", "csv"])
    #expect(counted.status == 0)
    #expect(
      counted.standardOutput
        == "person.name,count\r\nAda Lovelace,2\r\nCharles Babbage,2\r\nMary Somerville,1\r\n")
    let whole = try run(
      folio,
      ["query", expenses, "Spending", "--keys", "n=count:(SELF),min:(amount)", "--format", "tsv"])
    #expect(whole.standardOutput == "n\tmin:(amount)\n5\t0.75\n", "\(whole.standardError)")
    let perObject = try run(
      folio,
      [
        "query", expenses, "Spending", "--where", "amount > 30", "--sort", "amount", "--keys",
        "content,twice=amount * 2,raise:toPower:(2, 3)", "--format", "csv",
      ])
    #expect(
      perObject.standardOutput
        == "content,twice,\"raise:toPower:(2, 3)\"\r\nPunched cards,70.4,8.0\r\n"
        + "Brass gears,480.0,8.0\r\n", "\(perObject.standardError)")
  }

  @Test("what a group cannot show is refused, naming the key; a bad key is bad usage")
  func refusals() throws {
    let ungrouped = try run(
      folio,
      [
        "query", expenses, "Spending", "--group-by", "person.name", "--keys",
        "content,sum:(amount)",
      ])
    #expect(ungrouped.status == 1)
    #expect(
      ungrouped.standardError.contains(
        "content is neither grouped nor an aggregate: add it to propertiesToGroupBy"))
    let having = try run(folio, ["query", expenses, "Spending", "--having", "n > 1"])
    #expect(having.status == 64)
    #expect(having.standardError.contains("--having needs --group-by"))
    let malformed = try run(
      folio, ["query", expenses, "Spending", "--group-by", "person.name", "--keys", "sum:(amount"])
    #expect(malformed.status == 64)
    #expect(malformed.standardError.contains("--keys \"sum:(amount\": column"))
    let unknown = try run(
      folio,
      ["query", expenses, "Spending", "--group-by", "person.name", "--having", "total > 1"])
    #expect(unknown.status == 1)
    #expect(unknown.standardError.contains("the dictionaries have no key \"total\""))
  }
}

@Suite("folio dump's text")
struct DumpTextTests {
  @Test("a to-one prints as the object or nil, and a string with line breaks stays on its line")
  func shapes() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("e.xml").path
    let script = """
      insert Person $p name="Line one\\nline \\"two\\"\\ttab"
      insert Spending $s amount=1 person=$p
      insert Spending $t amount=2
      save

      """
    let shell = try run(
      folio, ["shell", store, "--model", "Samples/Expenses/Expenses.xcdatamodeld"],
      input: Data(script.utf8))
    #expect(shell.status == 0, "\(shell.standardError)")
    let dump = try run(folio, ["dump", store])
    #expect(dump.standardOutput.contains("  name = \"Line one\\nline \\\"two\\\"\\ttab\"\n"))
    #expect(dump.standardOutput.contains("  person = Person#1\n"))
    #expect(dump.standardOutput.contains("  person = nil\n"))
    #expect(dump.standardOutput.contains("  spendings = [Spending#"))
    let info = try run(folio, ["model", "info", "Samples/Expenses/Expenses.xcdatamodeld"])
    #expect(info.standardOutput.hasPrefix("Model: 2 entities, "))
  }
}
