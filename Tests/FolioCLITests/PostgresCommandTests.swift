import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

/// `folio` on PostgreSQL documents: every command that takes a store takes a URL, and a
/// document converted in and out of a server is the store it came from.
@Suite(
  "folio on PostgreSQL documents",
  .enabled(if: PostgresTestServer.isAvailable, "FOLIO_TEST_POSTGRES_URL unset"))
struct PostgresCommandTests {
  static let sample = "Samples/Expenses/Expenses.xml"
  static let model = "Samples/Expenses/Expenses.xcdatamodeld"

  /// Runs `body` with a fresh schema's URL, dropped afterwards.
  static func withDocument(_ name: String, _ body: (String) throws -> Void) throws {
    let url = PostgresTestServer.document(name)
    defer { try? PostgresStore.dropSchema(at: url) }
    try body(url.absoluteString)
  }

  /// The sample converted into the schema `url` names.
  static func convertSample(to url: String, sourceLocation: SourceLocation = #_sourceLocation)
    throws
  {
    let result = try run(folio, ["convert", sample, url, "--model", model])
    #expect(result.status == 0, "\(result.standardError)", sourceLocation: sourceLocation)
  }

  /// `folio dump --jsonl` of `arguments`, one object a line, sorted: stores list their objects
  /// in their own orders.
  static func dumpLines(_ arguments: [String]) throws -> [String] {
    let dump = try run(folio, ["dump", "--jsonl"] + arguments)
    #expect(dump.status == 0, "\(arguments): \(dump.standardError)")
    return dump.standardOutput.split(separator: "\n").map(String.init).sorted()
  }

  @Test(
    "every corpus SQLite store converted SQLite to PostgreSQL to XML dumps as the original",
    arguments: SQLiteCorpus.available)
  func corpus(store: SQLiteCorpus.Store) throws {
    let original = try SQLiteCorpus.copy(of: store)
    let folder = original.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: folder) }
    let external = "--allow-missing-external-data"
    let bundle = SQLiteCorpus.root.appendingPathComponent(store.bundleFolder)
      .appendingPathComponent(store.bundle).path
    let xml = folder.appendingPathComponent("out.xml").path
    try Self.withDocument("corpus") { url in
      // A store that caches no model is converted with the app's, as into a file.
      var model: [String] = []
      var written = try run(folio, ["convert", original.path, url, external])
      if written.status == 64, written.standardError.contains("inferred from its tables") {
        model = ["--model", bundle]
        written = try run(folio, ["convert", original.path, url, external] + model)
      }
      #expect(written.status == 0, "\(store): \(written.standardError)")
      let back = try run(folio, ["convert", url, xml, external])
      #expect(back.status == 0, "\(store): \(back.standardError)")
      // The XML store carries the model the document cached: it needs none.
      let expected = try Self.dumpLines([original.path, external] + model)
      #expect(!expected.isEmpty, "\(store)")
      let found = try Self.dumpLines([xml, external])
      #expect(found.count == expected.count, "\(store)")
      let differing = zip(expected, found).first { $0 != $1 }
      #expect(differing == nil, "\(store): \(differing.map { "\($0)\n≠\n\($1)" } ?? "")")
      // Read from the server itself, the document dumps the same too.
      #expect(try Self.dumpLines([url, external]) == expected, "\(store)")
    }
  }

  @Test("convert into a schema that holds a document is refused, then done with --replace")
  func replace() throws {
    try Self.withDocument("replace") { url in
      try Self.convertSample(to: url)
      let before = try run(folio, ["info", url, "--json"])
      let library = [
        "Samples/Library/Library.xml", "--model", "Samples/Library/Library.xcdatamodeld",
      ]
      let refused = try run(folio, ["convert", library[0], url] + library.dropFirst())
      #expect(refused.status == 1)
      #expect(
        refused.standardError
          == "Error: \(url): the schema already holds a document: pass --replace to write over it (nothing was written)\n"
      )
      #expect(refused.standardOutput.isEmpty)
      // The document is as it was.
      #expect(try run(folio, ["info", url, "--json"]).standardOutput == before.standardOutput)
      let replaced = try run(
        folio, ["convert", library[0], url, "--replace"] + library.dropFirst())
      #expect(replaced.status == 0, "\(replaced.standardError)")
      #expect(
        try Self.dumpLines([url]) == Self.dumpLines([library[0], "--model", library[2]]))
    }
  }

  @Test("info on a document needs no --model: it opens with the model the document caches")
  func infoWithoutModel() throws {
    try Self.withDocument("info") { url in
      try Self.convertSample(to: url)
      let info = try run(folio, ["info", url])
      #expect(info.status == 0, "\(info.standardError)")
      let lines = info.standardOutput.split(separator: "\n").map(String.init)
      // A document on a server is not a file, and is not called one.
      #expect(lines.first == "Document: \(url)")
      #expect(lines.contains("Format: PostgreSQL"))
      #expect(lines.contains("Model: the model cached in Z_MODELCACHE, 2 entities"))
      #expect(Array(lines.suffix(3)) == ["Objects: 8", "  Person: 3", "  Spending: 5"])
      // The loaded graph counts the same.
      let loaded = try run(folio, ["info", url, "--load"])
      let loadedLines = loaded.standardOutput.split(separator: "\n").map(String.init)
      #expect(Array(loadedLines.suffix(3)) == Array(lines.suffix(3)))
      // The JSON of info, validate and dump follows their schemas.
      let json = try run(folio, ["info", url, "--json"])
      let members = try JSONOutputTests().check(json.standardOutput, against: "info")
      #expect(members["format"] as? String == "PostgreSQL")
      #expect(members["file"] as? String == url)
      #expect(members["objectsByEntity"] as? [String: Int] == ["Person": 3, "Spending": 5])
      _ = try JSONOutputTests().check(
        try run(folio, ["validate", url, "--json"]).standardOutput, against: "validate")
      let dump = try run(folio, ["dump", url, "--json"]).standardOutput
      let schema = try JSONSchemaCheck(
        contentsOf: packageRoot.appendingPathComponent("Formats/dump.schema.json"))
      #expect(schema.failures(of: try JSONSerialization.jsonObject(with: Data(dump.utf8))) == [])
    }
  }

  @Test("query on a document answers as on the SQLite file it was converted from")
  func query() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let sqlite = folder.appendingPathComponent("e.sqlite").path
    #expect(
      try run(folio, ["convert", Self.sample, sqlite, "--model", Self.model]).status == 0)
    try Self.withDocument("query") { url in
      #expect(try run(folio, ["convert", sqlite, url]).status == 0)
      let queries: [[String]] = [
        ["Spending", "--where", "amount > 10", "--sort", "amount:desc"],
        ["Person", "--keys", "name,spendings.@count", "--format", "csv"],
        ["Spending", "--group-by", "person.name", "--keys", "person.name,total=sum:(amount)"],
        ["Person", "--where", "ANY spendings.amount > 100", "--json"],
      ]
      for arguments in queries {
        let onFile = try run(folio, ["query", sqlite] + arguments)
        let onServer = try run(folio, ["query", url] + arguments)
        #expect(onFile.status == 0, "\(arguments): \(onFile.standardError)")
        #expect(onServer.status == 0, "\(arguments): \(onServer.standardError)")
        #expect(onServer.standardOutput == onFile.standardOutput, "\(arguments)")
      }
      // So does validate, over every object.
      let validated = try run(folio, ["validate", url])
      #expect(validated.standardOutput == "\(url): 8 objects, all valid\n")
    }
  }

  @Test("a shell session saves into a document, and the next one sees what it saved")
  func shell() throws {
    try Self.withDocument("shell") { url in
      try Self.convertSample(to: url)
      let first = try run(
        folio, ["shell", url], input: Data("insert Person $p name=\"Grace\"\nsave\n".utf8))
      #expect(first.status == 0, "\(first.standardError)")
      #expect(first.standardError.isEmpty)
      let second = try run(
        folio, ["shell", url],
        input: Data("fetch Person where \"name == 'Grace'\" as $g\nprint $g.name\n".utf8))
      #expect(second.status == 0, "\(second.standardError)")
      #expect(second.standardOutput.contains("\"Grace\""), "\(second.standardOutput)")
      let query = try run(folio, ["query", url, "Person", "--keys", "name", "--format", "csv"])
      #expect(query.standardOutput.contains("Grace"))
    }
  }

  @Test("with --model, a shell on a schema without a document starts one there")
  func shellNewDocument() throws {
    try Self.withDocument("shellnew") { url in
      let shell = try run(
        folio, ["shell", url, "--model", Self.model],
        input: Data("insert Person $p name=\"Ada\"\nsave\n".utf8))
      #expect(shell.status == 0, "\(shell.standardError)")
      let query = try run(folio, ["query", url, "Person", "--keys", "name", "--format", "csv"])
      #expect(query.standardOutput == "name\r\nAda\r\n")
      // Unsaved changes are discarded naming the whole URL, never the database alone.
      let unsaved = try run(
        folio, ["shell", url], input: Data("insert Person $q name=\"B\"\n".utf8))
      #expect(unsaved.status == 1)
      #expect(unsaved.standardError == "folio shell: unsaved changes to \(url) discarded\n")
    }
  }

  @Test("an undo script opens a document, inserts and saves, and opening it again sees that")
  func replay() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try Self.withDocument("replay") { url in
      try Self.convertSample(to: url)
      let script = folder.appendingPathComponent("edit.undo")
      let model = packageRoot.appendingPathComponent(Self.model).path
      try Data(
        """
        model "\(model)"
        open "\(url)"
        expect count Person == 3
        insert Person $p name="Grace"
        save
        close
        open "\(url)"
        expect count Person == 4
        fetch Person where "name == 'Grace'" as $g
        print $g.name
        save "\(url)"
        expect error store
        save copy.xml
        open copy.xml
        expect count Person == 4

        """.utf8
      ).write(to: script)
      let result = try run(folio, ["replay", script.path])
      #expect(result.status == 0, "\(result.standardError)")
      #expect(result.standardOutput == "\"Grace\"\n")
      #expect(
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("copy.xml").path))
    }
  }

  @Test("an undo script saves a new document as one on a server")
  func replaySaveAs() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try Self.withDocument("saveas") { url in
      let script = folder.appendingPathComponent("new.undo")
      let model = packageRoot.appendingPathComponent(Self.model).path
      try Data(
        """
        model "\(model)"
        new
        insert Person $p name="Ada"
        save "\(url)"
        insert Spending $s amount=3 person=$p
        save
        open "\(url)"
        expect count Spending == 1

        """.utf8
      ).write(to: script)
      let result = try run(folio, ["replay", script.path])
      #expect(result.status == 0, "\(result.standardError)")
      #expect(try Self.dumpLines([url]).count == 2)
    }
  }

  @Test("a schema without a document fails with notFound naming the URL, in every command")
  func noDocument() throws {
    let url = PostgresTestServer.document("empty").absoluteString
    let schema = try #require(url.split(separator: "schema=").last)
    let message = "Error: \(url): schema \"\(schema)\" holds no document\n"
    for arguments in [
      ["info", url], ["dump", url], ["query", url, "Person"], ["validate", url],
      ["validate", url, "--model", Self.model], ["info", url, "--load", "--model", Self.model],
      ["convert", url, "/tmp/never-written.xml"], ["metadata", url], ["model", "infer", url],
      ["shell", url],
    ] {
      let result = try run(folio, arguments)
      #expect(result.status == 1, "\(arguments)")
      #expect(result.standardError == message, "\(arguments)")
      #expect(result.standardOutput.isEmpty, "\(arguments)")
    }
    // The store's own error, with its code, under the message.
    let error = try #require(throws: StoreError.self) {
      try PostgresStore().readMetadata(from: try #require(URL(string: url)))
    }
    #expect(error.code == .notFound)
  }

  @Test("metadata on a document is changed in place and read back")
  func metadata() throws {
    try Self.withDocument("metadata") { url in
      try Self.convertSample(to: url)
      let set = try run(folio, ["metadata", url, "--set", "author=Ada"])
      #expect(set.status == 0, "\(set.standardError)")
      #expect(set.standardOutput.contains("author = \"Ada\""))
      #expect(
        try run(folio, ["metadata", url, "--json"]).standardOutput.contains("\"author\":\"Ada\""))
      #expect(try run(folio, ["metadata", url]).standardOutput.hasPrefix("Document: \(url)\n"))
      #expect(try Self.dumpLines([url]).count == 8)
    }
  }

  @Test("migrate on a document: a dry run writes nothing, then it migrates as a SQLite copy does")
  func migrate() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let bundle = "Samples/Library/Library.xcdatamodeld"
    let xml = folder.appendingPathComponent("Library.xml").path
    let twin = folder.appendingPathComponent("Library.sqlite").path
    try FileManager.default.copyItem(
      atPath: packageRoot.appendingPathComponent("Samples/Library/Library.xml").path, toPath: xml)
    let toTwin = try run(folio, ["convert", xml, twin, "--model", bundle])
    #expect(toTwin.status == 0, "\(toTwin.standardError)")
    try Self.withDocument("migrate") { url in
      let converted = try run(folio, ["convert", xml, url, "--model", bundle])
      #expect(converted.status == 0, "\(converted.standardError)")
      let before = try Self.dumpLines([url])

      let dryRun = try run(folio, ["migrate", url, "--model", bundle, "--dry-run"])
      #expect(dryRun.status == 0, "\(dryRun.standardError)")
      let fileDryRun = try run(folio, ["migrate", twin, "--model", bundle, "--dry-run"])
      #expect(
        dryRun.standardOutput.replacingOccurrences(of: url, with: "STORE")
          == fileDryRun.standardOutput.replacingOccurrences(of: twin, with: "STORE"))
      #expect(dryRun.standardOutput.hasSuffix("Dry run: \(url) was not changed.\n"))
      #expect(try Self.dumpLines([url]) == before)
      // Ctrl-C at the first progress report, inside the transaction: it rolls back.
      let interrupted = try run(
        folio, ["migrate", url, "--model", bundle],
        environment: ["FOLIO_TEST_INTERRUPT_AT_PROGRESS": "1"])
      #expect(interrupted.status == 130, "\(interrupted.standardError)")
      #expect(interrupted.standardError == "Interrupted: \(url) was not changed.\n")
      #expect(try Self.dumpLines([url]) == before)

      let migrated = try run(folio, ["migrate", url, "--model", bundle])
      #expect(migrated.status == 0, "\(migrated.standardError)")
      #expect(
        migrated.standardOutput.hasPrefix("Migrating from Library 1 to Library 3 in 2 steps."))
      #expect(migrated.standardOutput.hasSuffix("\nMigrated \(url) to Library 3.\n"))
      let info = try run(folio, ["info", url, "--model", bundle])
      #expect(
        info.standardOutput.contains("version Library 3 (found by the store's version hashes)"))
      let twinMigrated = try run(folio, ["migrate", twin, "--model", bundle, "--no-backup"])
      #expect(twinMigrated.status == 0, "\(twinMigrated.standardError)")
      let expected = try Self.dumpLines([twin, "--model", bundle])
      #expect(!expected.isEmpty)
      #expect(try Self.dumpLines([url, "--model", bundle]) == expected)

      let again = try run(folio, ["migrate", url, "--model", bundle])
      #expect(
        again.standardOutput == "The store is already of version Library 3: nothing to migrate.\n")
      let unknown = try run(folio, ["migrate", url, "--model", bundle, "--to", "Library 9"])
      #expect(unknown.status == 1)
      // Of the bundle, not the document: worded as for a file.
      #expect(
        unknown.standardError.hasPrefix(
          "Error: the model bundle has no version Library 9; its versions are Library 1, Library 2, Library 3"
        ), "\(unknown.standardError)")
    }
    // A schema without a document: the error names the URL.
    let empty = PostgresTestServer.document("nomigrate").absoluteString
    let missing = try run(folio, ["migrate", empty, "--model", bundle])
    #expect(missing.status == 1)
    let schema = try #require(empty.split(separator: "schema=").last)
    #expect(missing.standardError == "Error: \(empty): schema \"\(schema)\" holds no document\n")
  }
}
