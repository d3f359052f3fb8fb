import ArgumentParser

/// The `folio` command-line tool.
@main
struct FolioCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "folio",
    abstract: "Core Data's object graph, stores and undo, on Linux.",
    discussion: """
      Examples:
        folio model info Samples/Expenses/Expenses.xcdatamodeld
        folio model graph Samples/Company/Company.xcdatamodeld | dot -Tsvg > company.svg
      """,
    version: "0.1.0",
    subcommands: [ModelCommand.self, ReplayCommand.self]
  )
}
