import FolioTestSupport
import Foundation
import Testing

@testable import FolioScript

/// Two shelves saved to `shelves.xml`.
private let savedShelves = """
  model \(libraryModel)
  new
  insert Shelf $s name="Fiction"
  insert Shelf $t name="Poetry"
  save shelves.xml

  """

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

  @Test("a save refused by validation names the objects as validate does")
  func saveNamesFailures() throws {
    let result = try replayInFolder(savedShelves + "set $s.name = nil\nsave")
    #expect(result.error?.location?.line == 7)
    #expect(result.error?.message == "the changes do not validate (1 failure)")
    #expect(result.error?.details == ["Shelf.name ($s): a value is required"])
  }

  @Test("objects found again after reset keep their numbers")
  func resetKeepsNumbers() throws {
    let result = try replayInFolder(
      savedShelves + "reset\nfetch Shelf sort name desc as $poetry\nfetch Shelf\ndump")
    #expect(result.failure == nil)
    #expect(
      result.output == [
        "2 objects (0 inserted, 0 updated, 0 deleted), no changes", "Shelf#1",
        "  name = \"Fiction\"", "  items = []", "Shelf $poetry", "  name = \"Poetry\"",
        "  items = []",
      ])
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
