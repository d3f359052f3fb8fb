import FolioTestSupport
import Foundation
import Testing

/// Rules the source tree keeps, checked on its files: what a release build may hold.
@Suite("source rules")
struct SourceRulesTests {
  /// Every file under `Sources/` whose name ends in one of `extensions`, with its path from the
  /// package root.
  static func sourceFiles(_ extensions: Set<String>) throws -> [(path: String, text: String)] {
    let root = packageRoot.appendingPathComponent("Sources")
    let walker = try #require(FileManager.default.enumerator(atPath: root.path))
    var files: [(String, String)] = []
    while let relative = walker.nextObject() as? String {
      guard extensions.contains((relative as NSString).pathExtension) else { continue }
      let text = try String(
        contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
      files.append(("Sources/" + relative, text))
    }
    return files.sorted { $0.0 < $1.0 }
  }

  /// The lines of `text` that name a `FOLIO_TEST_…` environment variable in a string literal
  /// outside a `#if FOLIO_TEST_HOOKS` (Swift) or `#ifdef FOLIO_TEST_HOOKS` (C) block, as
  /// `line: text`.
  static func unguardedHooks(in text: String) -> [String] {
    var found: [String] = []
    // The conditional blocks open around the line, innermost last: whether each is the hooks'.
    var blocks: [Bool] = []
    for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      let code = line.trimmingCharacters(in: .whitespaces)
      if code.hasPrefix("#if") {
        blocks.append(code.contains("FOLIO_TEST_HOOKS") && !code.contains("!"))
      } else if code.hasPrefix("#endif") {
        _ = blocks.popLast()
      } else if code.hasPrefix("#else") || code.hasPrefix("#elif"), !blocks.isEmpty {
        // The other branch of a hooks block is what a release build compiles.
        blocks[blocks.count - 1] = false
      }
      if code.contains("\"FOLIO_TEST_"), !blocks.contains(true) {
        found.append("\(number + 1): \(code)")
      }
    }
    return found
  }

  @Test("the tests' fault injection is compiled into debug builds only, never a release build")
  func testHooksOnlyInDebugBuilds() throws {
    let files = try Self.sourceFiles(["swift", "c", "h"])
    #expect(files.count > 100)
    var unguarded: [String] = []
    for (path, text) in files {
      unguarded += Self.unguardedHooks(in: text).map { "\(path):\($0)" }
    }
    #expect(unguarded == [])
    // The hooks are there in a debug build, which the crash-safety tests run.
    let hooked = files.filter { $0.text.contains("\"FOLIO_TEST_") }.map(\.path)
    #expect(hooked.contains("Sources/FolioSQLiteStore/SQLiteDatabase.swift"), "\(hooked)")
    #expect(hooked.contains("Sources/FolioStores/Files/AtomicFile.swift"), "\(hooked)")
  }

  @Test("the check finds a hook outside its block, and none inside one or after #else")
  func hookCheckFindsStrays() {
    #expect(Self.unguardedHooks(in: "let a = \"FOLIO_TEST_X\"") == ["1: let a = \"FOLIO_TEST_X\""])
    let guarded = "#if FOLIO_TEST_HOOKS\n  let a = \"FOLIO_TEST_X\"\n#endif"
    #expect(Self.unguardedHooks(in: guarded) == [])
    let afterElse = "#if FOLIO_TEST_HOOKS\n#else\n  let a = \"FOLIO_TEST_X\"\n#endif"
    #expect(Self.unguardedHooks(in: afterElse) == ["3: let a = \"FOLIO_TEST_X\""])
    let negated = "#if !FOLIO_TEST_HOOKS\n  let a = \"FOLIO_TEST_X\"\n#endif"
    #expect(Self.unguardedHooks(in: negated) == ["2: let a = \"FOLIO_TEST_X\""])
    let c = "#ifdef FOLIO_TEST_HOOKS\nconst char *a = \"FOLIO_TEST_X\";\n#endif"
    #expect(Self.unguardedHooks(in: c) == [])
  }

  @Test("no module holds more than 10,000 lines of Swift")
  func moduleSizes() throws {
    var lines: [String: Int] = [:]
    for (path, text) in try Self.sourceFiles(["swift"]) {
      let module = path.split(separator: "/")[1]
      guard module != "FolioBenchmarks" else { continue }
      lines[String(module), default: 0] +=
        text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
    }
    #expect(lines.count > 10)
    #expect(lines.filter { $0.value > 10_000 } == [:])
  }
}
