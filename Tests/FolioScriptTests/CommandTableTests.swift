import FolioScript
import FolioTestSupport
import Foundation
import Testing

/// The command table against the specification: every command the parser knows is in one of
/// the command tables of `Formats/undo-script.md` §7 with each of its forms, and every command
/// those tables list is one the parser knows.
@Suite("The undo-script command table")
struct CommandTableTests {
  /// The §7 command tables' rows: each row's first cell, its code spans unescaped.
  private func specificationRows() throws -> [String] {
    let text = try String(
      contentsOf: packageRoot.appendingPathComponent("Formats/undo-script.md"), encoding: .utf8)
    let start = try #require(text.range(of: "\n## 7. Commands\n"))
    let end = try #require(text.range(of: "\n## 8. ", range: start.upperBound..<text.endIndex))
    var rows: [String] = []
    var inCommandTable = false
    for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") {
      if line.hasPrefix("| Command |") {
        inCommandTable = true
      } else if !line.hasPrefix("|") {
        inCommandTable = false
      } else if inCommandTable, !line.hasPrefix("|---") {
        let cell = line.dropFirst(2).components(separatedBy: " | ").first ?? ""
        rows.append(cell.replacingOccurrences(of: "\\|", with: "|"))
      }
    }
    return rows
  }

  /// The code spans of a cell: "`disable` / `enable`" holds two.
  private func codeSpans(_ cell: String) -> [String] {
    cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
      .filter { $0.offset % 2 == 1 }.map { String($0.element) }
  }

  @Test("every command's forms are in the specification's command tables, or its own section")
  func everyFormIsSpecified() throws {
    let rows = try specificationRows()
    let spans = Set(rows.flatMap(codeSpans))
    let text = try String(
      contentsOf: packageRoot.appendingPathComponent("Formats/undo-script.md"), encoding: .utf8)
    for name in ScriptCommand.Name.allCases {
      let listed = spans.contains { $0 == name.rawValue || $0.hasPrefix(name.rawValue + " ") }
      // A command with a section of its own (fetch) gives its grammar in a code block.
      let ownSection = text.contains("\n```\n\(name.rawValue) ")
      #expect(listed || ownSection, "\(name.rawValue) is in no command table of §7")
      if listed {
        for form in name.help.forms where form.contains(" ") {
          let start = form.prefix { $0 != " " }
          #expect(
            spans.contains { $0.hasPrefix(String(start)) },
            "the form \(form) of \(name.rawValue) is not in §7")
        }
      }
    }
  }

  @Test("every command the specification's tables list is one the parser knows")
  func everySpecifiedCommandIsKnown() throws {
    for cell in try specificationRows() {
      for span in codeSpans(cell) {
        let word = String(span.prefix { $0 != " " })
        #expect(ScriptCommand.Name(rawValue: word) != nil, "§7 lists \(word), which is no command")
      }
    }
  }

  @Test("a command parses to the kind its name names, and names its part")
  func parsedCommandsNameThemselves() throws {
    let script = try Script(
      parsing: """
        model M.xcdatamodeld
        undo-nested
        refresh-all
        merge-policy store-trump
        fetch Person
        context other
        duplicate $a as $b
        bogus
        expect error syntax
        """, file: "table.undo")
    let names = script.commands.map { $0.kind.commandName }
    #expect(
      names == [
        .model, .undoNested, .refreshAll, .mergePolicy, .fetch, .context, .duplicate, nil, .expect,
      ])
    #expect(
      script.commands.map(\.part) == [
        .graph, .undo, .undo, .contexts, .fetching, .contexts, .pasteboard, .graph, .graph,
      ])
    #expect(ScriptCommandHelp.all.map(\.name) == ScriptCommand.Name.allCases.map(\.rawValue))
  }
}
