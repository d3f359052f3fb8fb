import FolioTestSupport
import Foundation
import Testing

@Suite("folio info --json and validate --json, against their schemas")
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
}
