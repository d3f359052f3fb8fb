import Folio
import FolioTestSupport
import Foundation
import Testing

@testable import FolioScript

/// Every `Samples/*/*.undo` script, as a path relative to the package root.
let sampleScripts: [String] = {
  let samples = packageRoot.appendingPathComponent("Samples")
  let manager = FileManager.default
  let folders = (try? manager.contentsOfDirectory(atPath: samples.path)) ?? []
  return folders.sorted().flatMap { folder in
    let files =
      (try? manager.contentsOfDirectory(atPath: samples.appendingPathComponent(folder).path))
    return (files ?? []).filter { $0.hasSuffix(".undo") }.sorted().map { "Samples/\(folder)/\($0)" }
  }
}()

@Suite("Sample scripts")
struct SampleScriptTests {
  @Test("every sample script runs to its end", arguments: sampleScripts)
  func sampleRuns(_ path: String) throws {
    // Run a copy of the sample's folder: scripts that save write files beside themselves.
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let source = packageRoot.appendingPathComponent(path).deletingLastPathComponent()
    let copy = folder.appendingPathComponent(source.lastPathComponent)
    try FileManager.default.copyItem(at: source, to: copy)
    let script = try Script(
      contentsOfFile: copy.appendingPathComponent((path as NSString).lastPathComponent).path)
    try ScriptRunner(formats: [XMLStore(), BinaryStore(), SQLiteStore()], output: { _ in }).run(
      script)
  }

  @Test(
    "each sample model has at least three scripts, each starting with model and new (or open)",
    arguments: ["Expenses", "Company", "Messaging"])
  func samplesPerModel(_ model: String) throws {
    let scripts = sampleScripts.filter { $0.hasPrefix("Samples/\(model)/") }
    #expect(scripts.count >= 3)
    for path in scripts {
      let script = try Script(contentsOfFile: packageRoot.appendingPathComponent(path).path)
      let start = script.commands.prefix(2).map(\.kind)
      #expect(start.first == .model(path: "\(model).xcdatamodeld"))
      #expect(start.last == .new || start.last == .open(path: "\(model).xml"))
      #expect(
        script.commands.allSatisfy { $0.part != .fetching },
        "only the parts built so far: graph, undo and store commands")
    }
  }
}

@Suite("Literals")
struct LiteralTests {
  @Test(
    "dates read and print back in UTC",
    arguments: [
      ("2026-11-21T10:00:00Z", "@2026-11-21T10:00:00Z"),
      ("2026-11-21", "@2026-11-21T00:00:00Z"),
      ("2026-11-21T10:00:00.5Z", "@2026-11-21T10:00:00.5Z"),
      ("2026-11-21T10:00:00.000001Z", "@2026-11-21T10:00:00.000001Z"),
      ("2026-11-21T23:30:00-01:30", "@2026-11-22T01:00:00Z"),
      ("2024-02-29T00:00:00Z", "@2024-02-29T00:00:00Z"),
      ("2000-02-29", "@2000-02-29T00:00:00Z"),
      ("1815-12-10", "@1815-12-10T00:00:00Z"),
      ("0001-01-01", "@0001-01-01T00:00:00Z"),
      ("1969-12-31T23:59:59Z", "@1969-12-31T23:59:59Z"),
    ])
  func dates(_ text: String, _ printed: String) throws {
    let date = try #require(Literal.date(from: text))
    #expect(Literal.text(of: date) == printed)
    #expect(Literal.date(from: String(printed.dropFirst())) == date)
  }

  @Test(
    "impossible dates are not dates",
    arguments: [
      "2026-11-31", "1900-02-29", "2026-00-01", "2026-11-21T24:00:00Z", "2026-11-21T10:60:00Z",
      "2026-11-21T10:00:60Z", "2026-11-21T10:00Z", "26-11-21", "2026-11-21T10:00:00.Z",
      "2026-11-21T10:00:00+0100", "2026-11-21 10:00:00Z", "", "2026-11-21T10:00:00Zjunk",
    ])
  func impossibleDates(_ text: String) {
    #expect(Literal.date(from: text) == nil)
  }

  @Test("the reference date is 2001-01-01 at midnight UTC")
  func referenceDate() {
    #expect(Literal.date(from: "2001-01-01") == Date(timeIntervalSinceReferenceDate: 0))
    #expect(Literal.date(from: "1970-01-01") == Date(timeIntervalSince1970: 0))
  }

  @Test("strings quote with JSON's escapes")
  func quoting() {
    #expect(
      Literal.quoted("a\"b\\c\n\r\t\u{08}\u{0C}\u{01}é/")
        == "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001é/\"")
  }

  @Test("numbers compare by value across integer, floating-point and decimal types")
  func numbers() {
    let half = Decimal(string: "0.5") ?? 0
    let tenth = Decimal(string: "0.1") ?? 0
    #expect(RuntimeValue.equal(.integer(2), .double(2)) == true)
    #expect(RuntimeValue.equal(.integer(2), .decimal(2)) == true)
    #expect(RuntimeValue.equal(.float(0.5), .decimal(half)) == true)
    #expect(RuntimeValue.equal(.float(0.1), .decimal(tenth)) == true)
    #expect(RuntimeValue.equal(.double(0.1), .decimal(tenth)) == true)
    #expect(RuntimeValue.equal(.double(0.1), .float(0.1)) == false)
    #expect(RuntimeValue.holds(.integer(3), .less, .decimal(half * 7)) == true)
    #expect(RuntimeValue.holds(.double(.nan), .equal, .double(.nan)) == false)
    #expect(RuntimeValue.holds(.double(.nan), .less, .integer(1)) == false)
    #expect(RuntimeValue.equal(.string("1"), .integer(1)) == nil)
    #expect(RuntimeValue.equal(.null, .integer(1)) == false)
    #expect(
      RuntimeValue.equal(
        .list([.integer(1), .integer(1), .integer(2)], isOrdered: false),
        .list([.integer(2), .double(1), .integer(1)], isOrdered: true)) == true)
    #expect(
      RuntimeValue.equal(
        .list([.integer(1), .integer(2)], isOrdered: true),
        .list([.integer(2), .integer(1)], isOrdered: true)) == false)
    #expect(
      RuntimeValue.equal(
        .list([.integer(1), .string("a")], isOrdered: true),
        .list([.integer(1), .integer(2)], isOrdered: true)) == false)
  }
}

@Suite("Undo sample scripts")
struct UndoSampleTests {
  @Test("samples show undo: turns, cascades, ordered positions, limits and misuse")
  func undoSamplesExist() throws {
    let undoScripts = sampleScripts.filter { $0.contains("/undo-") }
    #expect(undoScripts.count >= 4)
    let commands = try undoScripts.flatMap { path in
      try Script(contentsOfFile: packageRoot.appendingPathComponent(path).path).commands.map(\.name)
    }
    for name in ["turn", "begin", "end", "undo", "redo", "levels", "disable", "enable", "rollback"]
    {
      #expect(commands.contains(name), "no sample uses \(name)")
    }
  }
}

@Suite("Pasteboard sample scripts")
struct PasteboardSampleTests {
  @Test("a sample copies, pastes into another document, duplicates and undoes a paste")
  func pasteboardSampleExists() throws {
    let scripts = try sampleScripts.map { path in
      try Script(contentsOfFile: packageRoot.appendingPathComponent(path).path).commands
        .map(\.name)
    }
    #expect(
      scripts.contains { names in
        ["copy", "paste", "duplicate", "new", "undo"].allSatisfy(names.contains)
      }, "no sample uses copy, paste, duplicate, new and undo together")
  }
}

@Suite("Context sample scripts")
struct ContextSampleTests {
  @Test("samples show contexts: a conflict refused then merged, refreshing, an edit sheet")
  func contextSamplesExist() throws {
    let commands = try sampleScripts.flatMap { path in
      try Script(contentsOfFile: packageRoot.appendingPathComponent(path).path).commands
    }
    let names = Set(commands.map(\.name))
    for name in ["context", "child", "merge-policy", "refresh", "refresh-all"] {
      #expect(names.contains(name), "no sample uses \(name)")
    }
    #expect(commands.contains { $0.kind == .expect(.error(code: "merge-conflict")) })
  }
}
