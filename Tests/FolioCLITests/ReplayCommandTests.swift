import FolioTestSupport
import Foundation
import Testing

/// Writes `scripts` (name → text) into a fresh folder, with a copy of the Expenses model next to
/// them, and returns the folder.
private func folder(with scripts: [String: String]) throws -> URL {
  let folder = try makeTemporaryFolder()
  try FileManager.default.copyItem(
    at: packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld"),
    to: folder.appendingPathComponent("Expenses.xcdatamodeld"))
  for (name, text) in scripts {
    try Data(text.utf8).write(to: folder.appendingPathComponent(name))
  }
  return folder
}

private let passing = """
  model Expenses.xcdatamodeld
  new
  insert Person $p name="Ada"
  insert Spending $s amount=42.5 person=$p
  expect $p.spendings.@sum.amount == 42.5
  print $p.spendings
  """

private let failing = """
  model Expenses.xcdatamodeld
  new
  insert Person $p name="Ada"
  print $p.name
  expect $p.name == "Bob"
  print $p.name
  """

@Suite("folio replay")
struct ReplayCommandTests {
  @Test("the sample scripts all pass")
  func samples() throws {
    let samples = packageRoot.appendingPathComponent("Samples")
    var scripts: [String] = []
    for model in ["Company", "Expenses", "Messaging"] {
      let names = try FileManager.default.contentsOfDirectory(
        atPath: samples.appendingPathComponent(model).path)
      scripts += names.filter { $0.hasSuffix(".undo") }.sorted().map { "Samples/\(model)/\($0)" }
    }
    #expect(scripts.count >= 9)
    // Run a copy: scripts that save write files beside themselves.
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.copyItem(at: samples, to: folder.appendingPathComponent("Samples"))
    let result = try run(folio, ["replay"] + scripts, in: folder)
    #expect(result.standardError == "\(scripts.count) scripts, \(scripts.count) passed, 0 failed\n")
    #expect(result.status == 0)
  }

  @Test("a script whose expectations hold exits 0 and prints what it prints")
  func passingScript() throws {
    let directory = try folder(with: ["pass.undo": passing])
    defer { try? FileManager.default.removeItem(at: directory) }
    let result = try run(folio, ["replay", "pass.undo"], in: directory)
    #expect(result.status == 0)
    #expect(result.standardOutput == "[$s]\n")
    #expect(result.standardError == "")
  }

  @Test("a failing expect exits 1 with FILE:LINE: message, after what ran before it")
  func failingExpect() throws {
    let directory = try folder(with: ["fail.undo": failing])
    defer { try? FileManager.default.removeItem(at: directory) }
    let result = try run(folio, ["replay", "fail.undo"], in: directory)
    #expect(result.status == 1)
    #expect(result.standardOutput == "\"Ada\"\n")
    #expect(result.standardError == "fail.undo:5: expected $p.name == \"Bob\", found \"Ada\"\n")
  }

  @Test("every script runs, and one failure makes the exit status 1")
  func severalScripts() throws {
    let directory = try folder(with: ["a.undo": passing, "b.undo": failing, "c.undo": passing])
    defer { try? FileManager.default.removeItem(at: directory) }
    let result = try run(
      folio, ["replay", "a.undo", "b.undo", "c.undo", "nope.undo"], in: directory)
    #expect(result.status == 1)
    #expect(
      result.standardOutput
        == "== a.undo\n[$s]\n== b.undo\n\"Ada\"\n== c.undo\n[$s]\n== nope.undo\n")
    #expect(
      result.standardError
        == "b.undo:5: expected $p.name == \"Bob\", found \"Ada\"\nnope.undo: no such file\n"
        + "4 scripts, 2 passed, 2 failed\n")
  }

  @Test("--tap prints TAP 13: a plan, ok or not ok with the message, output as comments")
  func tap() throws {
    let directory = try folder(with: ["a.undo": passing, "b.undo": failing])
    defer { try? FileManager.default.removeItem(at: directory) }
    let result = try run(folio, ["replay", "--tap", "a.undo", "b.undo"], in: directory)
    #expect(result.status == 1)
    #expect(result.standardError == "")
    #expect(
      result.standardOutput == """
        TAP version 13
        1..2
        # [$s]
        ok 1 - a.undo
        # "Ada"
        not ok 2 - b.undo
          ---
          message: "b.undo:5: expected $p.name == \\"Bob\\", found \\"Ada\\""
          ...
        # 2 scripts, 1 passed, 1 failed

        """)
  }

  @Test("--junit writes a JUnit XML report: a test case per script, failures with messages")
  func junit() throws {
    let directory = try folder(with: ["a.undo": passing, "b&c.undo": failing])
    defer { try? FileManager.default.removeItem(at: directory) }
    let report = directory.appendingPathComponent("report.xml")
    let result = try run(
      folio, ["replay", "--junit", report.path, "a.undo", "b&c.undo"], in: directory)
    #expect(result.status == 1)
    let text = try String(contentsOf: report, encoding: .utf8)
    let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    #expect(lines.first == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
    #expect(lines[1] == "<testsuites tests=\"2\" failures=\"1\">")
    #expect(
      lines[2].hasPrefix("<testsuite name=\"folio replay\" tests=\"2\" failures=\"1\" time=\""))
    #expect(lines[3].hasPrefix("<testcase classname=\"replay\" name=\"a.undo\" time=\""))
    #expect(lines[3].hasSuffix("\"/>"))
    #expect(lines[4].hasPrefix("<testcase classname=\"replay\" name=\"b&amp;c.undo\" time=\""))
    #expect(
      lines[5]
        == "<failure message=\"b&amp;c.undo:5: expected $p.name == &quot;Bob&quot;, found "
        + "&quot;Ada&quot;\">b&amp;c.undo:5: expected $p.name == &quot;Bob&quot;, found "
        + "&quot;Ada&quot;</failure>")
    #expect(Array(lines.suffix(3)) == ["</testcase>", "</testsuite>", "</testsuites>"])
    // Well formed, as xmllint reads it.
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint") {
      let lint = try run(URL(fileURLWithPath: "/usr/bin/xmllint"), ["--noout", report.path])
      #expect(lint.status == 0, "\(lint.standardError)")
    }
  }

  @Test("a failing command reports its error and validation failures")
  func failingCommand() throws {
    let script = """
      model Expenses.xcdatamodeld
      new
      insert Person $p name=nil
      validate
      """
    let directory = try folder(with: ["invalid.undo": script])
    defer { try? FileManager.default.removeItem(at: directory) }
    let result = try run(folio, ["replay", "invalid.undo"], in: directory)
    #expect(result.status == 1)
    #expect(
      result.standardError == """
        invalid.undo:4: the changes do not validate (1 failure)
          Person.name ($p): a value is required

        """)
  }

  @Test("a typo'd command is a syntax error with file, line and column, and nothing runs")
  func typo() throws {
    let script = "model Expenses.xcdatamodeld\nnew\nprint count Person\n  insret Person $p\n"
    let directory = try folder(with: ["typo.undo": script])
    defer { try? FileManager.default.removeItem(at: directory) }
    let result = try run(folio, ["replay", "typo.undo"], in: directory)
    #expect(result.status == 1)
    #expect(result.standardOutput == "")
    #expect(
      result.standardError
        == "typo.undo:4:3: unknown command \"insret\" (did you mean \"insert\"?)\n")
  }

  @Test("--trace echoes each command, the state it leaves and the undo stacks")
  func trace() throws {
    let directory = try folder(with: ["pass.undo": passing])
    defer { try? FileManager.default.removeItem(at: directory) }
    let result = try run(folio, ["replay", "--trace", "pass.undo"], in: directory)
    #expect(result.status == 0)
    #expect(
      result.standardOutput == """
        pass.undo:1: model Expenses.xcdatamodeld
          -> model loaded, no document
        pass.undo:2: new
          -> 0 objects (0 inserted, 0 updated, 0 deleted), no changes
             undo: [saved]   redo: (empty)
        pass.undo:3: insert Person $p name="Ada"
          -> 1 object (1 inserted, 0 updated, 0 deleted), has changes
             undo: [saved]   + pending changes   redo: (empty)
        pass.undo:4: insert Spending $s amount=42.5 person=$p
          -> 2 objects (2 inserted, 0 updated, 0 deleted), has changes
             undo: [saved]   + pending changes   redo: (empty)
        pass.undo:5: expect $p.spendings.@sum.amount == 42.5
          -> 2 objects (2 inserted, 0 updated, 0 deleted), has changes
             undo: [saved]   + pending changes   redo: (empty)
        pass.undo:6: print $p.spendings
        [$s]
          -> 2 objects (2 inserted, 0 updated, 0 deleted), has changes
             undo: [saved]   + pending changes   redo: (empty)

        """)
  }

  @Test("--trace shows the undo and redo stacks, the open group and the save point")
  func traceStacks() throws {
    let script = """
      model Expenses.xcdatamodeld
      new
      insert Person $ada name="Ada"
      turn
      name "Insert Ada"
      begin "Add spendings"
      insert Spending $tea amount=3 content="Tea" person=$ada
      begin
      set $tea.amount = 4
      end
      undo                            # a nested group is open
      expect error open-group
      end
      turn
      insert Spending $cake amount=2 content="Cake" person=$ada
      turn
      save trace.xml
      set $ada.name = "Ada Lovelace"
      turn
      undo
      undo                            # past the save point
      redo
      undo
      set $ada.name = "Augusta"       # discards the redo branch that holds the save point
      turn
      save
      levels 1
      undo
      redo
      child sheet                     # another context: its own stacks, no save point
      set $ada.name = "Ada King"
      turn
      """
    let directory = try folder(with: ["trace.undo": script])
    defer { try? FileManager.default.removeItem(at: directory) }
    let result = try run(folio, ["replay", "--trace", "trace.undo"], in: directory)
    #expect(result.status == 0)
    #expect(result.standardError == "")
    assertSnapshot(result.standardOutput, named: "replay-trace-stacks.txt", in: snapshots)
  }

  @Test("paths in a script are relative to its folder, not the current one")
  func relativePaths() throws {
    let directory = try folder(with: [:])
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data(passing.utf8).write(to: directory.appendingPathComponent("pass.undo"))
    let result = try run(folio, ["replay", directory.appendingPathComponent("pass.undo").path])
    #expect(result.status == 0)
    #expect(result.standardOutput == "[$s]\n")
  }

  @Test(
    "bad usage exits with status 64",
    arguments: [["replay"], ["replay", "--bogus", "x.undo"], ["replay", "--trace"]])
  func badUsage(arguments: [String]) throws {
    let result = try run(folio, arguments)
    #expect(result.status == 64)
    #expect(result.standardError.hasPrefix("Error: "))
  }

  @Test("help shows an example")
  func help() throws {
    let result = try run(folio, ["replay", "--help"])
    #expect(result.status == 0)
    #expect(result.standardOutput.contains("Example"))
    #expect(result.standardOutput.contains("folio replay Samples/Expenses/cascade.undo"))
  }
}
