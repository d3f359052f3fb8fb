import ArgumentParser
import FolioScript
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

      Example:
        folio replay Samples/Expenses/cascade.undo
        folio replay --trace Samples/*/*.undo
      """
  )

  @Argument(help: "The .undo scripts to run, in order.")
  var scripts: [String]

  @Flag(help: "Echo each command and the state it leaves.")
  var trace = false

  func run() throws {
    var failed = false
    for path in scripts {
      let runner = ScriptRunner(trace: trace, formats: storeFormats) { print($0) }
      do {
        try runner.run(Script(contentsOfFile: path))
      } catch {
        failed = true
        fflush(nil)
        FileHandle.standardError.write(Data("\(error)\n".utf8))
      }
    }
    if failed { throw ExitCode.failure }
  }
}
