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
        folio replay Samples/Expenses/undo-cascade.undo
        folio info Samples/Expenses/Expenses.xml
        folio convert Samples/Expenses/Expenses.xml /tmp/Expenses.folio
        folio query Samples/Expenses/Expenses.xml Spending --where "amount > 10" --sort amount:desc
        folio codegen Samples/Company/Company.xcdatamodeld --output Sources/App/Model
      """,
    version: "0.1.0",
    subcommands: [
      ModelCommand.self, ReplayCommand.self, InfoCommand.self, DumpCommand.self,
      ConvertCommand.self, ValidateCommand.self, QueryCommand.self, MetadataCommand.self,
      MigrateCommand.self, CodegenCommand.self,
    ]
  )
}
