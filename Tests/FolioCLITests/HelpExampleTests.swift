import FolioTestSupport
import Foundation
import Testing

/// Every example in `folio`'s help is a whole command, as printed (a long one continued with
/// `\`, never wrapped inside), and pasted into a shell in a folder holding the samples, it
/// succeeds.
@Suite("folio's help examples")
struct HelpExampleTests {
  /// Every command and subcommand, as the words that name it.
  static let commands: [[String]] = [
    [], ["model"], ["model", "info"], ["model", "graph"], ["model", "infer"], ["model", "diff"],
    ["replay"], ["info"], ["dump"], ["convert"], ["validate"], ["query"], ["delete"],
    ["update"], ["metadata"], ["migrate"], ["codegen"], ["history"], ["shell"],
  ]

  /// The examples of a help text: the lines after one ending in `Example:` or `Examples:` up
  /// to a blank line, joined where a line ends with `\`; `nil` with a line that is not a
  /// whole command or its continuation.
  static func examples(in help: String) -> (commands: [String], broken: [String]) {
    var commands: [String] = []
    var broken: [String] = []
    var inExamples = false
    var pending: String?
    for line in help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      let text = line.trimmingCharacters(in: .whitespaces)
      if line.hasSuffix("Example:") || line.hasSuffix("Examples:") {
        inExamples = true
        continue
      }
      guard inExamples else { continue }
      if text.isEmpty {
        inExamples = false
        continue
      }
      if let start = pending {
        pending = nil
        if text.hasSuffix("\\") {
          pending = start + " " + text.dropLast()
        } else {
          commands.append(start + " " + text)
        }
        continue
      }
      let first = text.split(separator: " ").first.map(String.init) ?? ""
      guard ["folio", "mkdir", "printf"].contains(first) else {
        broken.append(line)
        continue
      }
      if text.hasSuffix("\\") { pending = String(text.dropLast()) } else { commands.append(text) }
    }
    return (commands, broken)
  }

  @Test("every help example is a whole command that succeeds on the samples")
  func examplesRun() throws {
    var count = 0
    for command in Self.commands {
      // Each command's examples in a folder of their own, with the samples as they ship.
      let folder = try makeTemporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      try FileManager.default.copyItem(
        at: packageRoot.appendingPathComponent("Samples"),
        to: folder.appendingPathComponent("Samples"))
      let help = try run(folio, command + ["--help"])
      #expect(help.status == 0)
      let (examples, broken) = Self.examples(in: help.standardOutput)
      #expect(broken.isEmpty, "folio \(command.joined(separator: " ")): \(broken)")
      #expect(!examples.isEmpty, "folio \(command.joined(separator: " ")) has no example")
      for example in examples {
        let result = try run(
          URL(fileURLWithPath: "/bin/sh"), ["-c", example], in: folder,
          environment: [
            "PATH": productsDirectory.path + ":"
              + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
          ])
        #expect(result.status == 0, "\(example): \(result.standardError)")
        count += 1
      }
    }
    #expect(count > 20)
  }

  @Test("every command's help reads as its golden file holds", arguments: commands)
  func helpText(command: [String]) throws {
    let help = try run(folio, command + ["--help"], environment: ["COLUMNS": "80"])
    #expect(help.status == 0)
    let name = (["folio"] + command).joined(separator: "-")
    assertSnapshot(help.standardOutput, named: "help/\(name).txt", in: snapshots)
  }
}
