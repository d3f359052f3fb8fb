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

  /// `line` without its comment and the contents of its string literals (one line's worth: a
  /// multi-line string's lines are told by `inMultilineString`, which it updates).
  static func code(of line: Substring, inMultilineString: inout Bool) -> String {
    let characters = Array(line)
    var result = ""
    var inString = false
    var index = 0
    func isTripleQuote(at position: Int) -> Bool {
      position + 2 < characters.count && characters[position] == "\""
        && characters[position + 1] == "\"" && characters[position + 2] == "\""
    }
    while index < characters.count {
      let character = characters[index]
      if inMultilineString {
        if isTripleQuote(at: index) {
          inMultilineString = false
          index += 3
        } else {
          index += 1
        }
        continue
      }
      if inString {
        if character == "\\" {
          index += 2
          continue
        }
        if character == "\"" { inString = false }
        index += 1
        continue
      }
      if character == "/", index + 1 < characters.count, characters[index + 1] == "/" { break }
      if isTripleQuote(at: index) {
        inMultilineString = true
        index += 3
        continue
      }
      if character == "\"" { inString = true }
      result.append(character)
      index += 1
    }
    return result
  }

  /// The functions and initializers of `text` longer than `limit` lines, as `line: name (n
  /// lines)`: from the line that declares one to the line that closes its body.
  static func longFunctions(in text: String, limit: Int) -> [String] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    var inMultilineString = false
    let code = lines.map { Self.code(of: $0, inMultilineString: &inMultilineString) }
    let declaration =
      /^\s*(?:@[\w()]+\s+)*(?:(?:public|package|private|fileprivate|internal|static|final|override|mutating|nonmutating|nonisolated|convenience|required|class)\s+)*(func\s+[^\s(<]+|init[?!]?\s*[(<])/
    var found: [String] = []
    for start in code.indices {
      guard let match = code[start].firstMatch(of: declaration) else { continue }
      var depth = 0
      var opened = false
      var end = start
      scan: while end < code.count {
        for character in code[end] {
          if character == "{" {
            depth += 1
            opened = true
          } else if character == "}" {
            depth -= 1
            if opened, depth == 0 { break scan }
          }
        }
        // A declaration without a body (a protocol's requirement) ends at its line.
        if !opened, end > start, code[end].trimmingCharacters(in: .whitespaces).isEmpty {
          break
        }
        end += 1
      }
      let length = end - start + 1
      if opened, length > limit { found.append("\(start + 1): \(match.1) (\(length) lines)") }
    }
    return found
  }

  @Test("no function or initializer is longer than 100 lines, outside the benchmarks")
  func functionLengths() throws {
    var long: [String] = []
    for (path, text) in try Self.sourceFiles(["swift"]) where !path.contains("FolioBenchmarks") {
      long += Self.longFunctions(in: text, limit: 100).map { "\(path):\($0)" }
    }
    #expect(long == [])
  }

  @Test("the length check counts a body from its declaration to its closing brace")
  func lengthCheckCounts() {
    let body = (0..<99).map { "  let a\($0) = \"{\" // }" }.joined(separator: "\n")
    let text = "func long() {\n" + body + "\n}\n"
    #expect(Self.longFunctions(in: text, limit: 101) == [])
    #expect(Self.longFunctions(in: text, limit: 100) == ["1: func long (101 lines)"])
    #expect(Self.longFunctions(in: "protocol P {\n  func f()\n\n}\n", limit: 1) == [])
    let multiline = "func f() {\n  let a = \"\"\"\n    }\n    \"\"\"\n  let b = 1\n}\n"
    #expect(Self.longFunctions(in: multiline, limit: 5) == ["1: func f (6 lines)"])
  }
}
