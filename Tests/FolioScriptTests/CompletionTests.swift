import Folio
import FolioTestSupport
import Foundation
import Testing

@testable import FolioScript

/// What Tab completes in a session, by the language's grammar and the session's state.
@Suite("Completion")
struct CompletionTests {
  /// A session on the library model with `$b` a Book on a Shelf `$s`.
  func session() throws -> ScriptRunner {
    let runner = ScriptRunner()
    runner.beginSession(in: FileManager.default.temporaryDirectory.path)
    for line in [
      "model \(libraryModel)", "new", "insert Shelf $s name=\"A\"", "insert Book $b shelf=$s",
    ] {
      for command in try Script(parsing: line, file: "<test>").commands {
        try runner.perform(command)
      }
    }
    return runner
  }

  @Test("the first word is a command; insert and fetch take entity names, insert only concrete")
  func commandsAndEntities() throws {
    let runner = try session()
    #expect(runner.completions(for: "un").candidates == ["undo", "undo-nested"])
    #expect(runner.completions(for: "").candidates.contains("merge-policy"))
    #expect(
      runner.completions(for: "insert ").candidates == ["Book", "Magazine", "Reader", "Shelf"])
    #expect(runner.completions(for: "fetch I").candidates == ["Item"])
    #expect(runner.completions(for: "insert I").candidates.isEmpty)
    #expect(runner.completions(for: "  insert  Bo").word == "Bo")
  }

  @Test("insert's assignments: keys with =, inherited ones too; then the values a key takes")
  func assignments() throws {
    let runner = try session()
    #expect(runner.completions(for: "insert Book $c ti").candidates == ["title="])
    #expect(runner.completions(for: "insert Book $c sh").candidates == ["shelf=", "shout="])
    #expect(
      runner.completions(for: "insert Book $c shelf=").candidates == [
        "shelf=$b", "shelf=$s", "shelf=nil",
      ])
    #expect(runner.completions(for: "insert Book $c inPrint=t").candidates == ["inPrint=true"])
    #expect(runner.completions(for: "insert Book ").candidates.isEmpty)
  }

  @Test("variables, and key paths through to-one relationships to the keys at the end")
  func keyPaths() throws {
    let runner = try session()
    #expect(runner.completions(for: "delete $").candidates == ["$b", "$s"])
    #expect(runner.completions(for: "set $").candidates == ["$b.", "$s."])
    #expect(runner.completions(for: "set $b.pa").candidates == ["$b.pages"])
    #expect(runner.completions(for: "print $b.shelf.na").candidates == ["$b.shelf.name"])
    #expect(runner.completions(for: "print $b.shelf.items.").candidates.isEmpty == false)
    #expect(runner.completions(for: "print $b.title.x").candidates.isEmpty)
    #expect(runner.completions(for: "print $nobody.").candidates.isEmpty)
    #expect(runner.completions(for: "set $b.title = ").candidates.contains("nil"))
  }

  @Test("fetch clauses in their order, sort keys and directions; expressions after expect")
  func clauses() throws {
    let runner = try session()
    #expect(runner.completions(for: "fetch Book ").candidates == ["as", "limit", "sort", "where"])
    #expect(
      runner.completions(for: "fetch Book where \"pages > 1\" ").candidates == [
        "as", "limit", "sort",
      ])
    #expect(runner.completions(for: "fetch Book sort pa").candidates == ["pages"])
    #expect(runner.completions(for: "fetch Book sort pages ").candidates == ["asc", "desc"])
    #expect(
      runner.completions(for: "fetch Book sort pages asc ").candidates == ["as", "limit", "sort"])
    #expect(runner.completions(for: "fetch Book limit 3 ").candidates == ["as"])
    #expect(runner.completions(for: "expect count Sh").candidates == ["Shelf"])
    #expect(runner.completions(for: "expect count Shelf ").candidates == ["where"])
    #expect(runner.completions(for: "expect can-").candidates == ["can-redo", "can-undo"])
    #expect(runner.completions(for: "merge-policy o").candidates == ["object-trump", "overwrite"])
  }

  @Test("copy and duplicate take variables, then duplicate and paste take as")
  func pasteboardCommands() throws {
    let runner = try session()
    #expect(runner.completions(for: "cop").candidates == ["copy"])
    #expect(runner.completions(for: "copy ").candidates == ["$b", "$s"])
    #expect(runner.completions(for: "copy $b ").candidates == ["$b", "$s"])
    #expect(runner.completions(for: "paste ").candidates == ["as"])
    #expect(runner.completions(for: "paste as ").candidates.isEmpty)
    #expect(runner.completions(for: "duplicate ").candidates == ["$b", "$s"])
    #expect(runner.completions(for: "duplicate $b ").candidates == ["$b", "$s", "as"])
    #expect(runner.completions(for: "duplicate $b as ").candidates.isEmpty)
  }

  @Test("nothing inside a string or a comment; files and folders for open, save and model")
  func stringsAndFiles() throws {
    let runner = try session()
    #expect(runner.completions(for: "fetch Book where \"pa").candidates.isEmpty)
    #expect(runner.completions(for: "undo # un").candidates.isEmpty)
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data().write(to: folder.appendingPathComponent("Budget.xml"))
    try Data().write(to: folder.appendingPathComponent(".hidden.xml"))
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("Backups"), withIntermediateDirectories: true)
    try Data().write(to: folder.appendingPathComponent("Backups/Old.folio"))
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("M.xcdatamodeld"), withIntermediateDirectories: true)
    #expect(
      runner.completions(for: "open ", in: folder.path).candidates
        == ["Backups/", "Budget.xml", "M.xcdatamodeld"])
    #expect(
      runner.completions(for: "save Backups/", in: folder.path).candidates == ["Backups/Old.folio"])
    #expect(runner.completions(for: "open .h", in: folder.path).candidates == [".hidden.xml"])
    #expect(
      runner.completions(for: "open \(folder.path)/Bu").candidates == ["\(folder.path)/Budget.xml"])
    #expect(ScriptCompletion.isComplete("Budget.xml") && !ScriptCompletion.isComplete("Backups/"))
    #expect(
      ScriptCompletion(word: "B", candidates: ["Backups/", "Budget.xml"]).commonPrefix == "B")
  }
}
