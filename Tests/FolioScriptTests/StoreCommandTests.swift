import FolioTestSupport
import Foundation
import Testing

@testable import FolioScript

@Suite("Store commands")
struct StoreCommandTests {
  func run(_ text: String, in folder: URL) -> (failure: String?, output: [String]) {
    var lines: [String] = []
    let runner = ScriptRunner(formats: [TestFormat()]) { lines.append($0) }
    do {
      try runner.run(Script(parsing: text, file: folder.appendingPathComponent("t.undo").path))
      return (nil, lines)
    } catch {
      return (error.description, lines)
    }
  }

  @Test("save as, close, open: the graph comes back; save writes to the open file")
  func saveCloseOpen() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = run(
      """
      model \(libraryModel)
      new
      insert Shelf $s name="Fiction"
      save
      expect error store
      save shelves.test
      expect !has-changes
      insert Shelf $t name="Poetry"
      save
      close
      open shelves.test
      expect count Shelf == 2
      expect !has-changes
      open missing.test
      expect error store
      """, in: folder)
    #expect(result.failure == nil)
    #expect(
      FileManager.default.fileExists(atPath: folder.appendingPathComponent("shelves.test").path))
  }

  @Test("commands on a document need one; open needs a model")
  func needsDocument() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(
      run("open x.test\n", in: folder).failure?.hasSuffix(
        "\"open\" needs a model: load one with \"model PATH\" first") == true)
    #expect(
      run("model \(libraryModel)\nclose\n", in: folder).failure?.contains("needs a document")
        == true)
  }
}
