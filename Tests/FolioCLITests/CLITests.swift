import FolioTestSupport
import Foundation
import Testing

let folio = productsDirectory.appendingPathComponent("folio")
let snapshots = packageRoot.appendingPathComponent("Tests/FolioCLITests/Snapshots")

@Suite("folio model")
struct ModelCommandTests {
  @Test(
    "model info prints entities, attributes, relationships and hashes",
    arguments: ["Expenses", "Company", "Messaging"])
  func info(sample: String) throws {
    let result = try run(folio, ["model", "info", "Samples/\(sample)/\(sample).xcdatamodeld"])
    #expect(result.status == 0)
    #expect(result.standardError == "")
    assertSnapshot(result.standardOutput, named: "info-\(sample).txt", in: snapshots)
  }

  @Test("model info --json is machine-readable and complete")
  func infoJSON() throws {
    let result = try run(
      folio, ["model", "info", "--json", "Samples/Company/Company.xcdatamodeld"])
    #expect(result.status == 0)
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    let entities = try #require(json["entities"] as? [[String: Any]])
    #expect(entities.map { $0["name"] as? String } == ["Department", "Employee"])
    let employee = entities[1]
    let relationships = try #require(employee["relationships"] as? [[String: Any]])
    let manager = try #require(relationships.first { $0["name"] as? String == "manager" })
    #expect(manager["destination"] as? String == "Employee")
    #expect(manager["inverse"] as? String == "reports")
    #expect(manager["isToMany"] as? Bool == false)
    #expect(manager["deleteRule"] as? String == "Nullify")
    let attributes = try #require(employee["attributes"] as? [[String: Any]])
    let salary = try #require(attributes.first { $0["name"] as? String == "salary" })
    #expect(salary["type"] as? String == "Decimal")
    #expect(salary["minimum"] as? String == "0")
    #expect((json["versionHash"] as? String)?.count == 64)
    #expect((json["warnings"] as? [String])?.isEmpty == true)
    assertSnapshot(result.standardOutput, named: "info-Company.json", in: snapshots)
  }

  @Test("model diff lists each change with its migration step, and whether all can be inferred")
  func diff() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let old = folder.appendingPathComponent("old")
    let new = folder.appendingPathComponent("new")
    try Data(
      """
      <model><entity name="Person"><attribute name="name" attributeType="String"/>\
      <attribute name="age" optional="YES" attributeType="Integer 16"/></entity></model>
      """.utf8
    ).write(to: old)
    try Data(
      """
      <model><entity name="Person"><attribute name="name" optional="YES" attributeType="String"/>\
      <attribute name="years" optional="YES" attributeType="Integer 32" elementID="age"/>\
      <attribute name="email" attributeType="String"/></entity></model>
      """.utf8
    ).write(to: new)
    let result = try run(folio, ["model", "diff", old.path, new.path])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(
      result.standardOutput == """
        Person.email: added (needs a mapping model: existing objects have no value for a required attribute without a default)
        Person.name: became optional (inferred)
        Person.years: renamed from age (inferred)
        Person.years: type changed from Integer 16 to Integer 32 (inferred)
        Lightweight migration: not possible; 1 change needs a mapping model.

        """)
    let same = try run(folio, ["model", "diff", old.path, old.path])
    #expect(same.standardOutput == "No changes: the versions store the same data.\n")
    // A malformed version is an error naming its file, line and column.
    let bad = folder.appendingPathComponent("bad")
    try Data("<model><entity name=\"A\">\n<attribute name=\"x\"/>\n</model>".utf8).write(to: bad)
    let refused = try run(folio, ["model", "diff", old.path, bad.path])
    #expect(refused.status == 1)
    #expect(refused.standardOutput == "")
    #expect(refused.standardError.hasPrefix("Error: \(bad.path):"), "\(refused.standardError)")
  }

  @Test("a missing model is an error with exit status 1")
  func missingModel() throws {
    let result = try run(folio, ["model", "info", "Samples/Nope.xcdatamodeld"])
    #expect(result.status == 1)
    #expect(result.standardOutput == "")
    #expect(
      result.standardError
        == "Error: Samples/Nope.xcdatamodeld: no such file or folder\n")
  }

  @Test("a malformed model names the file, line and column")
  func malformedModel() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("contents")
    try Data(
      "<model><entity name=\"A\">\n<attribute name=\"x\" attributeType=\"String\">\n</entity></model>"
        .utf8
    )
    .write(to: file)
    let result = try run(folio, ["model", "info", "contents"], in: folder)
    #expect(result.status == 1)
    #expect(
      result.standardError
        == "Error: contents:3:10: malformed XML: Opening and ending tag mismatch: attribute line 2 and entity\n"
    )
  }

  @Test("warnings go to standard error, and --strict makes them errors")
  func warningsAndStrict() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data(
      "<model><entity name=\"A\">\n<relationship name=\"b\" optional=\"YES\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"A\"/>\n</entity></model>"
        .utf8
    ).write(to: folder.appendingPathComponent("contents"))
    let lenient = try run(folio, ["model", "info", "contents"], in: folder)
    #expect(lenient.status == 0)
    #expect(
      lenient.standardError
        == "contents:2: A.b: warning: relationship \"b\" has no inverse, so changes to it do not reach \"A\"\n"
    )
    let strict = try run(folio, ["model", "info", "--strict", "contents"], in: folder)
    #expect(strict.status == 1)
    #expect(
      strict.standardError
        == "Error: contents:2: A.b: relationship \"b\" has no inverse, so changes to it do not reach \"A\"\n"
    )
  }

  @Test(
    "bad usage exits with status 64",
    arguments: [["model", "info"], ["model", "frobnicate"], ["model", "info", "--bogus", "x"]])
  func badUsage(arguments: [String]) throws {
    let result = try run(folio, arguments)
    #expect(result.status == 64)
    #expect(result.standardError.hasPrefix("Error: "))
  }

  @Test(
    "help shows an example for each command",
    arguments: [
      ["--help"], ["model", "--help"], ["model", "info", "--help"], ["model", "graph", "--help"],
    ])
  func help(arguments: [String]) throws {
    let result = try run(folio, arguments)
    #expect(result.status == 0)
    #expect(result.standardOutput.contains("Example"))
    #expect(result.standardOutput.contains("folio model"))
  }
}

@Suite("folio migrate")
struct MigrateCommandTests {
  let bundle = "Samples/Library/Library.xcdatamodeld"

  /// A copy of the Library sample's version 1 store in a new folder.
  func copyOfLibrary() throws -> (folder: URL, store: URL) {
    let folder = try makeTemporaryFolder()
    let store = folder.appendingPathComponent("Library.xml")
    try FileManager.default.copyItem(
      at: packageRoot.appendingPathComponent("Samples/Library/Library.xml"), to: store)
    return (folder, store)
  }

  @Test("a dry run prints every step, change, mapping and lost value, and changes nothing")
  func dryRun() throws {
    let (folder, store) = try copyOfLibrary()
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = try Data(contentsOf: store)
    let result = try run(folio, ["migrate", store.path, "--model", bundle, "--dry-run"])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(try Data(contentsOf: store) == before)
    assertSnapshot(
      result.standardOutput.replacingOccurrences(of: store.path, with: "Library.xml"),
      named: "migrate-dry-run.txt", in: snapshots)
  }

  @Test("Ctrl-C stops a migration or a dry run, leaves the store as it was, and exits 130")
  func interrupted() throws {
    let (folder, store) = try copyOfLibrary()
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = try Data(contentsOf: store)
    for extra in [[], ["--dry-run"]] {
      // The command interrupts itself with SIGINT at its first progress report.
      let result = try run(
        folio, ["migrate", store.path, "--model", bundle] + extra,
        environment: ["FOLIO_TEST_INTERRUPT_AT_PROGRESS": "1"])
      #expect(result.status == 130, "\(extra): \(result.standardError)")
      #expect(result.standardError == "Interrupted: \(store.path) was not changed.\n")
      #expect(result.standardOutput.isEmpty)
      #expect(try Data(contentsOf: store) == before)
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["Library.xml"])
    }
  }

  @Test("migrate moves a store step by step to the version asked, then to the current one")
  func migrate() throws {
    let (folder, store) = try copyOfLibrary()
    defer { try? FileManager.default.removeItem(at: folder) }
    let first = try run(folio, ["migrate", store.path, "--model", bundle, "--to", "Library 2"])
    #expect(first.status == 0, "\(first.standardError)")
    // The real run says what the dropped entity loses, as the dry run does.
    #expect(first.standardOutput.contains("NoteTo: Note → nothing (remove), 1 object\n"))
    #expect(first.standardOutput.contains("lost: Note.text of 1 object\n"))
    #expect(
      first.standardOutput.hasSuffix(
        "Migrated \(store.path) to Library 2.\nThe original is kept as \(store.path).backup-Library 1.\n"
      ))
    let info = try run(folio, ["info", store.path, "--model", bundle])
    #expect(info.standardOutput.contains("version Library 2 (found by the store's version hashes)"))
    let second = try run(folio, ["migrate", store.path, "--model", bundle, "--no-backup"])
    #expect(second.status == 0, "\(second.standardError)")
    #expect(second.standardOutput.hasPrefix("Migrating from Library 2 to Library 3 in 1 step."))
    let dump = try run(folio, ["dump", store.path, "--model", bundle])
    #expect(dump.standardOutput.contains("title = \"COBOL Manual\""))
    #expect(dump.standardOutput.contains("hexColor = \"#cc3333\""))
    #expect(!dump.standardOutput.contains("Note#"))
    // The first migration kept the original; the second, told not to, kept none.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
        "Library.xml", "Library.xml.backup-Library 1",
      ])
    let again = try run(folio, ["migrate", store.path, "--model", bundle])
    #expect(
      again.standardOutput == "The store is already of version Library 3: nothing to migrate.\n")
  }

  @Test("an unknown destination version is an error listing the bundle's versions")
  func unknownVersion() throws {
    let (folder, store) = try copyOfLibrary()
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try run(folio, ["migrate", store.path, "--model", bundle, "--to", "Library 9"])
    #expect(result.status == 1)
    #expect(
      result.standardError.contains(
        "the model bundle has no version Library 9; its versions are Library 1, Library 2, Library 3"
      ),
      "\(result.standardError)")
    // A single version is not a bundle: the error says what is needed, before any reading.
    let single = try run(
      folio, ["migrate", store.path, "--model", "\(bundle)/Library 1.xcdatamodel"])
    #expect(single.status != 0)
    #expect(single.standardError.contains("is not a model bundle"), "\(single.standardError)")
  }
}

@Suite("folio migrate with an Xcode mapping model")
struct MigrateMappingCommandTests {
  @Test("--mapping maps its step by the authors' mapping model: JSQCoreDataKit's company split")
  func mappedStep() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let fixtures = packageRoot.appendingPathComponent("Tests/FolioCLITests/Fixtures/JSQ")
    let bundle = folder.appendingPathComponent("Example.xcdatamodeld")
    for version in ["Version 2", "Version 3"] {
      let url = bundle.appendingPathComponent("\(version).xcdatamodel")
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        at: fixtures.appendingPathComponent("\(version).contents"),
        to: url.appendingPathComponent("contents"))
    }
    try """
    <?xml version="1.0" encoding="UTF-8"?>
    <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Version 3.xcdatamodel</string></dict></plist>
    """.write(
      to: bundle.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
    let script = folder.appendingPathComponent("write.undo")
    try """
    model "Example.xcdatamodeld/Version 2.xcdatamodel"
    new
    insert Employee $ada name="Ada" birthDate=@1990-12-10T00:00:00Z companyName="Engines Ltd" companyProfits=12.5 companyDateFounded=@1843-01-01T00:00:00Z
    save store.xml
    """.write(to: script, atomically: true, encoding: .utf8)
    let written = try run(folio, ["replay", script.path])
    #expect(written.status == 0, "\(written.standardError)")
    let store = folder.appendingPathComponent("store.xml")
    let mapping = fixtures.appendingPathComponent("Version2_to_Version3.xcmapping.xml")
    let dry = try run(
      folio,
      ["migrate", store.path, "--model", bundle.path, "--mapping", mapping.path, "--dry-run"])
    #expect(dry.status == 0, "\(dry.standardError)")
    #expect(
      dry.standardOutput.contains("Step 1: Version 2 → Version 3, by the mapping model given"))
    #expect(
      dry.standardOutput.contains("EmployeeToCompany: Employee → Company (transform), 1 object"))
    let result = try run(
      folio, ["migrate", store.path, "--model", bundle.path, "--mapping", mapping.path])
    #expect(result.status == 0, "\(result.standardError)")
    let dump = try run(folio, ["dump", store.path, "--model", bundle.path])
    #expect(dump.standardOutput.contains("Company#"), "\(dump.standardOutput)")
    #expect(dump.standardOutput.contains("name = \"Engines Ltd\""))
    #expect(dump.standardOutput.contains("profits = 12.5"))
    // Without the mapping the step is inferred: the company's fields are lost, no company made.
    let inferred = try run(
      folio, ["migrate", store.path, "--model", bundle.path, "--to", "Version 3"])
    #expect(inferred.standardOutput.contains("already of version Version 3"))
  }
}
