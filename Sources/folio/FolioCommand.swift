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
        folio model graph Samples/Company/Company.xcdatamodeld | dot -Tsvg > company.svg
        folio replay Samples/Expenses/undo-cascade.undo
        folio info Samples/Expenses/Expenses.xml
        folio convert Samples/Expenses/Expenses.xml /tmp/Expenses.folio
        folio query Samples/Expenses/Expenses.xml Spending --where "amount > 10" --sort amount:desc
        folio codegen Samples/Company/Company.xcdatamodeld --output Sources/App/Model
      """,
    version: version,
    subcommands: [
      ModelCommand.self, ReplayCommand.self, InfoCommand.self, DumpCommand.self,
      ConvertCommand.self, ValidateCommand.self, QueryCommand.self, MetadataCommand.self,
      MigrateCommand.self, CodegenCommand.self, ShellCommand.self,
    ]
  )

  /// Runs the command the arguments name, as `ParsableCommand.main()` does, and then makes sure
  /// its output reached standard output: output that could not be written (a full disk, a
  /// closed file) is a failure, not a success with nothing to show.
  static func main() {
    var failure: (any Error)?
    // An error of a subcommand's run is shown with that subcommand's usage.
    var failed: any ParsableCommand.Type = Self.self
    do {
      var command = try parseAsRoot()
      failed = type(of: command)
      try command.run()
    } catch {
      failure = error
    }
    StandardInput.remove()
    let code = folio_flush_standard_output()
    if code != 0, !(failure is OutputFailure) {
      let reason = String(cString: strerror(code))
      FileHandle.standardError.write(
        Data("Error: cannot write to standard output: \(reason)\n".utf8))
      if failure == nil { Foundation.exit(1) }
    }
    if let failure { failed.exit(withError: failure) }
  }
}
