import ArgumentParser
import FolioScript
internal import FolioSupport
import Foundation

/// `folio replay SCRIPT…`: run undo scripts and check their expectations.
struct ReplayCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "replay",
    abstract: "Run undo scripts (.undo) and check every expect in them.",
    discussion: """
      Each script runs on its own, from an empty state; paths in a script are relative to its \
      folder. What print and dump write goes to standard output. A failing expect, or a \
      failing command that no "expect error CODE" follows, stops its script and is reported \
      on standard error as FILE:LINE: message; the other scripts still run. The exit status \
      is 0 when every script ran to its end, 1 otherwise. The language is specified in \
      Formats/undo-script.md.

      --trace writes each command as FILE:LINE: TEXT, then the state it leaves, then the \
      current context's undo stack (oldest first), open group and redo stack (next redo \
      first), with [saved] where the document's save point is (Formats/undo-script.md §14).

      With several scripts, each one's output follows a line naming it (== FILE), and a \
      summary ends the run on standard error: N scripts, N passed, N failed. --tap prints the \
      results as TAP (version 13) on standard output instead, the scripts' output as comments; \
      --junit FILE also writes them as a JUnit XML report, for CI systems.

      Example:
        folio replay Samples/Expenses/cascade.undo
        folio replay --trace Samples/*/*.undo
        folio replay --tap Samples/*/*.undo
      """
  )

  @Argument(
    help: "The .undo scripts to run, in order; - reads one from standard input.",
    completion: Completions.undoScript)
  var scripts: [String]

  @Flag(help: "Echo each command, the state it leaves, and the undo and redo stacks.")
  var trace = false

  @Flag(help: "Print the results as TAP (Test Anything Protocol, version 13).")
  var tap = false

  @Option(
    help: "Also write the results as a JUnit XML report to this file.",
    completion: Completions.xmlReport)
  var junit: String?

  /// One script's result.
  struct Outcome {
    let path: String
    let failure: String?
    let output: [String]
    let seconds: Double
  }

  func run() throws {
    var outcomes: [Outcome] = []
    if tap { print("TAP version 13\n1..\(scripts.count)") }
    for (index, path) in scripts.enumerated() {
      var output: [String] = []
      let start = Date()
      if !tap && scripts.count > 1 { print("== \(path)") }
      let runner = ScriptRunner(trace: trace, formats: storeFormats) { line in
        if tap { output.append(line) } else { print(line) }
      }
      var failure: String?
      do {
        // `-` is a script on standard input; its relative paths start in the current folder.
        let script =
          path == "-"
          ? try Script(parsing: StandardInput.text(), file: "<stdin>")
          : try Script(contentsOfFile: path)
        try runner.run(script)
      } catch {
        failure = "\(error)"
        if !tap {
          fflush(nil)
          FileHandle.standardError.write(Data("\(error)\n".utf8))
        }
      }
      let outcome = Outcome(
        path: path, failure: failure, output: output, seconds: Date().timeIntervalSince(start))
      outcomes.append(outcome)
      if tap { printTAP(outcome, number: index + 1) }
    }
    let failed = outcomes.filter { $0.failure != nil }.count
    let summary =
      "\(scripts.count) \(scripts.count == 1 ? "script" : "scripts"), "
      + "\(scripts.count - failed) passed, \(failed) failed"
    if tap {
      print("# " + summary)
    } else if scripts.count > 1 {
      fflush(nil)
      FileHandle.standardError.write(Data((summary + "\n").utf8))
    }
    if let junit {
      do {
        try Data(Self.junitReport(outcomes).utf8).write(
          to: URL(fileURLWithPath: junit), options: .atomic)
      } catch {
        throw CommandFailure(
          "cannot write the JUnit report \(junit): \(error.localizedDescription)")
      }
    }
    if failed > 0 { throw ExitCode.failure }
  }

  private func printTAP(_ outcome: Outcome, number: Int) {
    for line in outcome.output {
      for part in line.split(separator: "\n", omittingEmptySubsequences: false) {
        print("# " + part)
      }
    }
    if let failure = outcome.failure {
      print("not ok \(number) - \(outcome.path)")
      print("  ---")
      print("  message: " + ObjectJSON.string(failure))
      print("  ...")
    } else {
      print("ok \(number) - \(outcome.path)")
    }
  }

  /// The outcomes as a JUnit XML report: one test suite, one test case per script.
  static func junitReport(_ outcomes: [Outcome]) -> String {
    let failures = outcomes.filter { $0.failure != nil }.count
    let total = outcomes.reduce(0) { $0 + $1.seconds }
    var lines = [
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
      "<testsuites tests=\"\(outcomes.count)\" failures=\"\(failures)\">",
      "  <testsuite name=\"folio replay\" tests=\"\(outcomes.count)\" failures=\"\(failures)\" "
        + "time=\"\(String(format: "%.3f", total))\">",
    ]
    for outcome in outcomes {
      let name = Quoting.xml(outcome.path)
      let time = String(format: "%.3f", outcome.seconds)
      if let failure = outcome.failure {
        lines.append("    <testcase classname=\"replay\" name=\"\(name)\" time=\"\(time)\">")
        let message = Quoting.xml(failure.split(separator: "\n").first.map(String.init) ?? failure)
        lines.append("      <failure message=\"\(message)\">\(Quoting.xml(failure))</failure>")
        lines.append("    </testcase>")
      } else {
        lines.append("    <testcase classname=\"replay\" name=\"\(name)\" time=\"\(time)\"/>")
      }
    }
    lines += ["  </testsuite>", "</testsuites>", ""]
    return lines.joined(separator: "\n")
  }
}
