import FolioTestSupport
import Foundation
import Testing

/// The macro plugin beside the test executable.
let macroPlugin: URL? = {
  let url = productsDirectory.appendingPathComponent("FolioDataMacros-tool")
  return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
}()

/// What the compiler says of `@Model` classes it cannot make entities of: each problem at the
/// declaration it is in, and nothing more. Each case is type-checked by `swiftc` against the
/// FolioData module and macro plugin this test run was built with.
@Suite(
  "@Model's errors, at the property they are about",
  .enabled(if: macroPlugin != nil, "needs the built FolioDataMacros plugin"))
struct MacroDiagnosticsTests {
  /// The errors `swiftc -typecheck` reports for `source`, each as `LINE:COLUMN: message`.
  static func errors(in source: String) throws -> [String] {
    try diagnostics(in: source, kind: "error")
  }

  /// The diagnostics of `kind` (`error`, `warning`) `swiftc -typecheck` reports for `source`.
  static func diagnostics(in source: String, kind: String) throws -> [String] {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("Models.swift")
    try Data(("import FolioData\nimport Foundation\n" + source).utf8).write(to: file)
    let sources = packageRoot.appendingPathComponent("Sources")
    var arguments = [
      "swiftc", "-typecheck", "-swift-version", "6", "-I",
      productsDirectory.appendingPathComponent("Modules").path,
      "-load-plugin-executable", "\(try #require(macroPlugin).path)#FolioDataMacros",
      "-Xcc", "-I/usr/include/libxml2", "-Xcc", "-I/usr/include/postgresql",
    ]
    for library in ["CZlib", "CSQLite", "CLibXML2", "CLibPQ"] {
      arguments += ["-I", sources.appendingPathComponent(library).path]
    }
    for target in ["CFolioXML", "CFolioSupport", "CFolioSQLite"] {
      let map = productsDirectory.appendingPathComponent("\(target).build/module.modulemap")
      arguments += [
        "-Xcc", "-fmodule-map-file=\(map.path)", "-Xcc",
        "-I\(sources.appendingPathComponent("\(target)/include").path)",
      ]
    }
    arguments.append(file.path)
    let result = try run(URL(fileURLWithPath: "/usr/bin/env"), arguments, in: folder)
    let lines = result.standardError.split(separator: "\n").map(String.init)
    let prefix = file.path + ":"
    // Line numbers in the case's own source (the two imports come first).
    return lines.filter { $0.hasPrefix(prefix) && $0.contains(" \(kind): ") }.map { line in
      let parts = line.dropFirst(prefix.count).split(separator: ":", maxSplits: 2)
      guard parts.count == 3, let number = Int(parts[0]) else { return line }
      let message = parts[2].replacingOccurrences(of: " (from macro 'Model ')", with: "")
      return "\(number - 2):\(parts[1]):\(message.dropFirst(" \(kind):".count))"
    }
  }

  @Test("a well-formed class compiles without a word")
  func wellFormed() throws {
    let source = """
      @Model final class Note {
        var title: String
        var created: Date = Date.now
        @Transient var isOpen = false
        var summary: String { title }
        init(title: String) { self.title = title }
      }
      """
    #expect(try Self.errors(in: source) == [])
  }

  @Test("@Model subclasses, and a class adopting a protocol first, compile without a word")
  func inheritance() throws {
    let source = """
      @Model class Item {
        var title: String
        init(title: String) { self.title = title }
      }
      @Model class Task: Item {
        var due: Date?
        var done: Bool = false
        init(title: String, due: Date?) {
          self.due = due
          super.init(title: title)
        }
      }
      @Model final class Chore: Task {
        var room: String = "kitchen"
      }
      @Model final class Tag: Codable, CustomStringConvertible {
        var name: String
        var description: String { name }
        init(name: String) { self.name = name }
        required init(from decoder: any Decoder) throws { name = "" }
        func encode(to encoder: any Encoder) throws {}
      }
      """
    #expect(try Self.errors(in: source) == [])
  }

  @Test("a property with an observer, or untyped in a subclass, is named where it is")
  func propertyErrors() throws {
    let source = """
      @Model class Note {
        var count = 0
        var title: String { didSet { print(title) } }
        var body: String
        init(title: String) { self.title = title; self.body = "" }
      }
      @Model final class Memo: Note {
        var pages = 1
      }
      """
    #expect(
      try Self.errors(in: source) == [
        "3:21: @Model cannot persist 'title' with willSet or didSet: mark it @Transient or remove the observer",
        "8:7: in a subclass of another @Model class, @Model needs the type of 'pages' written out (var pages: Type = …)",
      ])
  }

  @Test("a constant, which SwiftData would store, is left out with a warning")
  func constants() throws {
    let source = """
      @Model final class Part {
        let id = UUID()
        static let kind = "part"
        @Transient let note = ""
        var name = "part"
        init() {}
      }
      """
    #expect(try Self.errors(in: source) == [])
    #expect(
      try Self.diagnostics(in: source, kind: "warning") == [
        "2:3: @Model leaves the constant 'id' out of the store, where SwiftData stores it: declare it 'var' to store it"
      ])
  }

  @Test("@Model on a struct, @ModelActor on a class: refused at the attribute")
  func wrongDeclarations() throws {
    let source = """
      @Model struct Point { var x: Double }
      @ModelActor final class Importer {}
      """
    let errors = try Self.errors(in: source)
    #expect(errors.contains { $0.hasPrefix("1:1:") && $0.contains("@Model applies to a class") })
    #expect(
      errors.contains { $0.hasPrefix("2:1:") && $0.contains("@ModelActor applies to an actor") })
  }
}
