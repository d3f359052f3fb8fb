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

  @Test("model graph draws DOT that Graphviz renders")
  func graph() throws {
    let result = try run(folio, ["model", "graph", "Samples/Company/Company.xcdatamodeld"])
    #expect(result.status == 0)
    assertSnapshot(result.standardOutput, named: "graph-Company.dot", in: snapshots)
    let dot = ["/usr/bin/dot", "/usr/local/bin/dot"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
    guard let dot else { return }
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = folder.appendingPathComponent("company.dot")
    try Data(result.standardOutput.utf8).write(to: input)
    let rendered = try run(URL(fileURLWithPath: dot), ["-Tsvg", input.path])
    #expect(rendered.status == 0)
    #expect(rendered.standardOutput.contains("<svg"))
    #expect(rendered.standardOutput.contains("Employee"))
  }

  @Test("an inheritance edge is a hollow arrow to the parent")
  func inheritanceInGraph() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("contents")
    try Data(
      """
      <model><entity name="Item" isAbstract="YES"><attribute name="title" optional="YES" attributeType="String"/></entity>
      <entity name="Book" parentEntity="Item"><attribute name="pages" attributeType="Integer 32"/></entity></model>
      """.utf8
    ).write(to: file)
    let result = try run(folio, ["model", "graph", file.path])
    #expect(result.status == 0)
    #expect(result.standardOutput.contains("\"Book\" -> \"Item\" [arrowhead=empty, style=dashed];"))
    #expect(
      result.standardOutput.contains("\"Item\" [label=\"«abstract» Item|title : String?\\l\"];"))
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
