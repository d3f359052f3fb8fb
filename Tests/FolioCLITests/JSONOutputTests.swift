import FolioTestSupport
import Foundation
import Testing

@Suite("folio info, validate and model info --json, against their schemas")
struct JSONOutputTests {
  func check(_ output: String, against name: String) throws -> [String: Any] {
    let schema = try JSONSchemaCheck(
      contentsOf: packageRoot.appendingPathComponent("Formats/\(name).schema.json"))
    let value = try JSONSerialization.jsonObject(with: Data(output.utf8))
    #expect(schema.failures(of: value) == [], "\(name): \(output)")
    return try #require(value as? [String: Any])
  }

  @Test("info --json gives the format, metadata, model and counts, for every format")
  func info() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    var files = [StoreCommandTests.sample]
    for name in ["expenses.sqlite", "expenses.folio"] {
      let file = folder.appendingPathComponent(name).path
      let made = try run(
        folio, ["convert", StoreCommandTests.sample, file, "--model", StoreCommandTests.model])
      #expect(made.status == 0, "\(made.standardError)")
      files.append(file)
    }
    for file in files {
      let result = try run(folio, ["info", "--json", file])
      #expect(result.status == 0, "\(result.standardError)")
      let info = try check(result.standardOutput, against: "info")
      #expect(info["objects"] as? Int == 8)
      #expect(info["objectsByEntity"] as? [String: Int] == ["Person": 3, "Spending": 5])
    }
    let sqlite = try check(
      try run(folio, ["info", "--json", files[1]]).standardOutput, against: "info")
    #expect(sqlite["format"] as? String == "SQLite")
  }

  @Test("info gives a store's file size, and a binary store's sections with their compression")
  func layout() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("expenses.folio").path
    let made = try run(
      folio, ["convert", StoreCommandTests.sample, file, "--model", StoreCommandTests.model])
    #expect(made.status == 0, "\(made.standardError)")
    let size = try #require(
      try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
    let info = try check(try run(folio, ["info", "--json", file]).standardOutput, against: "info")
    #expect(info["fileSize"] as? Int == size)
    let sections = try #require(info["sections"] as? [[String: Any]])
    #expect(sections.map { $0["name"] as? String } == ["META", "BODY", "MODL"])
    for section in sections {
      let offset = try #require(section["offset"] as? Int)
      let stored = try #require(section["storedBytes"] as? Int)
      #expect(offset + stored <= size, "a section lies inside the file")
    }
    let body = try #require(sections.first { $0["name"] as? String == "BODY" })
    #expect(body["deflated"] as? Bool == true)
    #expect(try #require(body["bytes"] as? Int) > (try #require(body["storedBytes"] as? Int)))
    let text = try run(folio, ["info", file]).standardOutput
    #expect(text.contains("File size: \(size) bytes\nSections:\n  META: "))
    #expect(
      text.range(
        of: #"  BODY: \d+ bytes at offset \d+, \d+ inflated \(\d+\.\d:1\)"#,
        options: .regularExpression) != nil)
    // Another format has a size and no sections.
    let xml = try check(
      try run(folio, ["info", "--json", StoreCommandTests.sample]).standardOutput, against: "info")
    #expect(xml["fileSize"] as? Int != nil && xml["sections"] == nil)
  }

  @Test("validate --json lists every failure with its object's URI, and exits as without it")
  func validate() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = packageRoot.appendingPathComponent(StoreCommandTests.model).path
    let valid = try run(folio, ["validate", "--json", StoreCommandTests.sample, "--model", model])
    #expect(valid.status == 0)
    let report = try check(valid.standardOutput, against: "validate")
    #expect(report["valid"] as? Bool == true)
    #expect(report["checked"] as? String == "the model's rules")
    // Two people without names.
    let broken = folder.appendingPathComponent("broken.xml")
    let text = try String(
      contentsOf: packageRoot.appendingPathComponent(StoreCommandTests.sample), encoding: .utf8
    )
    .replacingOccurrences(
      of: "<attribute name=\"name\" type=\"string\">Ada Lovelace</attribute>", with: ""
    )
    .replacingOccurrences(
      of: "<attribute name=\"name\" type=\"string\">Charles Babbage</attribute>", with: "")
    try Data(text.utf8).write(to: broken)
    let invalid = try run(folio, ["validate", "--json", broken.path, "--model", model])
    #expect(invalid.status == 1)
    let failed = try check(invalid.standardOutput, against: "validate")
    #expect(failed["valid"] as? Bool == false)
    let failures = try #require(failed["failures"] as? [[String: Any]])
    #expect(failures.count == 2)
    #expect(
      failures.allSatisfy { $0["rule"] as? String == "required" && $0["key"] as? String == "name" })
    #expect(
      Set(failures.compactMap { ($0["object"] as? String)?.split(separator: "/").last })
        == ["p1", "p2"])
    // Without the model, the report says what an inferred model checks.
    let inferred = try check(
      try run(folio, ["validate", "--json", broken.path]).standardOutput, against: "validate")
    #expect(inferred["checked"] as? String == "types and relationship shapes")
    #expect(inferred["valid"] as? Bool == true)
  }

  @Test(
    "model info --json conforms to its schema for every sample model",
    arguments: sampleModels + [catalogModel])
  func modelInfo(model: String) throws {
    let result = try run(folio, ["model", "info", "--json", model])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardError == "")
    let info = try check(result.standardOutput, against: "model-info")
    #expect((info["warnings"] as? [Any])?.isEmpty == true)
  }

  @Test(
    "model info --json gives each warning its kind, place and message, as standard error has it")
  func modelInfoWarnings() throws {
    let model = "Tests/FolioCLITests/Fixtures/Warnings.xcdatamodel"
    let contents = "\(model)/contents"
    let result = try run(folio, ["model", "info", "--json", model])
    #expect(result.status == 0, "\(result.standardError)")
    let info = try check(result.standardOutput, against: "model-info")
    let warnings = try #require(info["warnings"] as? [[String: Any]])
    let expected: [(kind: String, property: String, line: Int, message: String)] = [
      (
        "coercedDefaultValue", "level", 4,
        #"defaultValueString "2.0" is read as 2, as Core Data does"#
      ),
      ("coercedBound", "scale", 5, #"minValueString "1.0" is read as 1, as Core Data does"#),
      (
        "ignoredDefaultValue", "serial", 6,
        #"defaultValueString "none" is not a UUID, so Core Data ignores it"#
      ),
      (
        "missingInverse", "owner", 7,
        #"relationship "owner" has no inverse, so changes to it do not reach "Owner""#
      ),
    ]
    #expect(warnings.count == expected.count)
    for (warning, want) in zip(warnings, expected) {
      #expect(warning["kind"] as? String == want.kind)
      #expect(warning["entity"] as? String == "Gauge")
      #expect(warning["property"] as? String == want.property)
      #expect(warning["file"] as? String == contents)
      #expect(warning["line"] as? Int == want.line)
      #expect(warning["column"] is NSNull)
      #expect(warning["message"] as? String == want.message)
      #expect(
        warning["description"] as? String
          == "\(contents):\(want.line): Gauge.\(want.property): warning: \(want.message)")
    }
    // Standard error lists the same warnings, one a line, with or without --json.
    let lines = warnings.compactMap { $0["description"] as? String }.map { $0 + "\n" }.joined()
    #expect(result.standardError == lines)
    let text = try run(folio, ["model", "info", model])
    #expect(text.status == 0)
    #expect(text.standardError == lines)
    #expect(text.standardOutput.hasPrefix("Model: 2 entities"))
  }
}
