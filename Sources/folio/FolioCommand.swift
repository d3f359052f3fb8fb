import ArgumentParser
import CFolioSupport
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The `folio` command-line tool.
@main
struct FolioCommand: ParsableCommand {
  /// The version `folio --version` prints: the one the top-level VERSION file names, which a
  /// test keeps this equal to.
  static let version = "0.1.0"

  static let configuration = CommandConfiguration(
    commandName: "folio",
    abstract: "Core Data's object graph, stores and undo, on Linux.",
    discussion: """
      Examples:
        folio model info Samples/Expenses/Expenses.xcdatamodeld
        folio model graph Samples/Company/Company.xcdatamodeld \\
          | dot -Tsvg > company.svg
        folio replay Samples/Expenses/undo-cascade.undo
        folio info Samples/Expenses/Expenses.xml
        folio convert Samples/Expenses/Expenses.xml Expenses.folio \\
          --model Samples/Expenses/Expenses.xcdatamodeld
        folio query Samples/Expenses/Expenses.xml Spending --where "amount > 10" \\
          --sort amount:desc
        folio codegen Samples/Company/Company.xcdatamodeld --output Sources/App/Model
      """,
    version: version,
    subcommands: [
      ModelCommand.self, ReplayCommand.self, InfoCommand.self, DumpCommand.self,
      ConvertCommand.self, ValidateCommand.self, QueryCommand.self, DeleteCommand.self,
      UpdateCommand.self, MetadataCommand.self, MigrateCommand.self, CodegenCommand.self,
      HistoryCommand.self, ShellCommand.self,
    ]
  )

  /// Runs the command the arguments name, as `ParsableCommand.main()` does, reporting errors
  /// by ``ErrorReport``'s rules, and then makes sure its output reached standard output: output
  /// that could not be written (a full disk, a closed file) is a failure, not a success with
  /// nothing to show.
  static func main() {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if let unknown = UnknownCommand(arguments) {
      FileHandle.standardError.write(Data((unknown.message + "\n").utf8))
      Foundation.exit(ExitCode.validationFailure.rawValue)
    }
    if arguments.isEmpty {
      // As git does: a command is needed; what there is to run goes to standard error.
      FileHandle.standardError.write(Data((helpMessage() + "\n").utf8))
      Foundation.exit(ExitCode.validationFailure.rawValue)
    }
    var failure: (any Error)?
    // An error of a subcommand's run is shown with that subcommand's usage.
    var failed: any ParsableCommand.Type = Self.self
    do {
      var command = try parseAsRoot(arguments)
      failed = type(of: command)
      try command.run()
    } catch {
      failure = error
    }
    StandardInput.remove()
    var report = failure.map { ErrorReport.report($0, of: failed) }
    if let shown = report, shown.toStandardOutput, !shown.text.isEmpty {
      // Help and the version are output like any other: their failure to arrive is an error.
      var out = OutputBytes()
      out.append(text: shown.text + "\n")
      do { try out.write() } catch { report = ("Error: \(error)", 1, false) }
    }
    let code = folio_flush_standard_output()
    if code != 0, !(failure is OutputFailure) {
      let reason = String(cString: strerror(code))
      FileHandle.standardError.write(
        Data("Error: cannot write to standard output: \(reason)\n".utf8))
      Foundation.exit(1)
    }
    guard let report else { return }
    if !report.toStandardOutput {
      if !report.text.isEmpty {
        FileHandle.standardError.write(Data((report.text + "\n").utf8))
      }
    }
    Foundation.exit(report.status)
  }
}
