import FolioTestSupport
import Foundation
import Testing

@Suite("folio codegen")
struct CodegenCommandTests {
  @Test("writes the classes once, and leaves files that exist alone unless told")
  func writesOnce() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = "Samples/Company/Company.xcdatamodeld"
    let first = try run(folio, ["codegen", model, "--output", folder.path])
    #expect(first.status == 0, "\(first.standardError)")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    #expect(
      files == [
        "CompanyEntities.swift", "Department+FolioClass.swift",
        "Department+FolioProperties.swift", "Employee+FolioClass.swift",
        "Employee+FolioProperties.swift",
      ])
    // The developer edits a file; a second run must not lose the edit.
    let owned = folder.appendingPathComponent("Employee+FolioClass.swift")
    try Data("// mine\n".utf8).write(to: owned)
    let second = try run(folio, ["codegen", model, "--output", folder.path])
    #expect(second.status == 1)
    #expect(second.standardError.contains("these files exist and were left alone"))
    #expect(try String(contentsOf: owned, encoding: .utf8) == "// mine\n")
    let forced = try run(folio, ["codegen", model, "--output", folder.path, "--overwrite"])
    #expect(forced.status == 0)
    #expect(try String(contentsOf: owned, encoding: .utf8).contains("public class Employee"))
  }

  @Test("entities written one run at a time are all in the list of classes to register")
  func entityByEntity() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = "Samples/Company/Company.xcdatamodeld"
    for entity in ["Employee", "Department"] {
      let result = try run(folio, ["codegen", model, "--output", folder.path, "--entity", entity])
      #expect(result.status == 0, "\(entity): \(result.standardError)")
    }
    let list = try String(
      contentsOf: folder.appendingPathComponent("CompanyEntities.swift"), encoding: .utf8)
    #expect(list.contains("Department.self"))
    #expect(list.contains("Employee.self"))
    // Written again, it lists what the folder holds, in model order, as a run of all would.
    let whole = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: whole) }
    #expect(try run(folio, ["codegen", model, "--output", whole.path]).status == 0)
    #expect(
      try String(contentsOf: whole.appendingPathComponent("CompanyEntities.swift"), encoding: .utf8)
        == list)
  }

  @Test("a bad model, an unknown entity or conflicting options fail with the place named")
  func badInput() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let missing = try run(folio, ["codegen", "nope.xcdatamodeld", "--output", folder.path])
    #expect(missing.status == 1)
    #expect(missing.standardError.contains("nope.xcdatamodeld"))
    let unknown = try run(
      folio,
      [
        "codegen", "Samples/Company/Company.xcdatamodeld", "--output", folder.path, "--entity",
        "Employe",
      ])
    #expect(unknown.status == 1)
    #expect(unknown.standardError.contains("Employe: the model has no entity \"Employe\""))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    let both = try run(
      folio,
      [
        "codegen", "Samples/Company/Company.xcdatamodeld", "--output", folder.path,
        "--entity", "Employee", "--build-time",
      ])
    #expect(both.status == 64)
  }
}
