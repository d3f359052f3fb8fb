import ArgumentParser
import Folio
import FolioModel
import Foundation

/// `folio model …`: look at a Core Data model.
struct ModelCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "model",
    abstract: "Inspect a Core Data model (.xcdatamodeld, .xcdatamodel or contents file).",
    discussion: """
      Examples:
        folio model info Samples/Expenses/Expenses.xcdatamodeld
        folio model graph Samples/Company/Company.xcdatamodeld \\
          | dot -Tsvg > company.svg
        folio model graph --format mermaid Samples/Library/Library.xcdatamodeld
        folio model infer Samples/Expenses/Expenses.xml > contents
        folio model diff \\
          "Samples/Library/Library.xcdatamodeld/Library 1.xcdatamodel" \\
          Samples/Library/Library.xcdatamodeld
      """,
    subcommands: [Info.self, Graph.self, Infer.self, Diff.self]
  )
}

/// The model path and loading flags every `model` subcommand takes.
struct ModelOptions: ParsableArguments {
  @Argument(
    help: "An .xcdatamodeld bundle, an .xcdatamodel folder or a bare contents file.",
    completion: Completions.model)
  var path: String

  @Flag(help: "Treat warnings (lenient default values, missing inverses) as errors.")
  var strict = false

  func load() throws -> ManagedObjectModel {
    try ManagedObjectModel(
      contentsOf: URL(fileURLWithPath: path), options: ModelLoadingOptions(isStrict: strict))
  }
}

extension ModelCommand {
  struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "List a model's entities, attributes, relationships and version hashes.",
      discussion: """
        Warnings about the model (a relationship with no inverse, a default value read \
        leniently as Core Data does) go to standard error, one a line. --format json prints \
        the model as Formats/model-info.schema.json describes it, the warnings listed too, \
        each with its kind and place.

        Example:
          folio model info Samples/Expenses/Expenses.xcdatamodeld
          folio model info --json Samples/Company/Company.xcdatamodeld
        """
    )

    @OptionGroup var model: ModelOptions

    @OptionGroup var output: TextOrJSON

    /// Whether to print JSON: `--format json` or `--json`.
    var json: Bool { output.json }

    func run() throws {
      let loaded = try model.load()
      if json {
        print(try ModelDescription.json(of: loaded))
      } else {
        print(ModelDescription.text(of: loaded), terminator: "")
      }
      for diagnostic in loaded.diagnostics {
        FileHandle.standardError.write(Data("\(diagnostic)\n".utf8))
      }
    }
  }

  struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Draw a model as a diagram: Graphviz DOT, Mermaid, or SVG drawn by Graphviz.",
      discussion: """
        --format dot (the default) prints Graphviz DOT. Each entity is a box: its name \
        («abstract» when it is), its attributes as name : Type (? when optional; {unique}, \
        {indexed}, {transient}, {derived} when they are), then its compound uniqueness \
        constraints and fetch indexes. A relationship and its inverse are one line; each half \
        is labelled with the relationship of the entity at its end, how many objects it holds \
        (0..1, 1, 0..*, 2..5) and its delete rule, and a crow's foot marks an end where many \
        objects take part. Inheritance is a dashed line with a hollow arrowhead to the parent. \
        A legend under the graph explains the notation it uses.

        --format mermaid prints a Mermaid erDiagram, for Markdown: entities with their \
        attributes and types, UK on those in a uniqueness constraint, the rest in comments; \
        relationships as dashed lines with crow's-foot cardinality, labelled with the \
        relationship and its inverse; inheritance as a solid "is a" line to the parent.

        --format svg draws the DOT diagram with Graphviz's dot, which must be on PATH \
        (apt-get install graphviz).

        Examples:
          folio model graph Samples/Company/Company.xcdatamodeld > company.dot
          folio model graph --format mermaid Samples/Library/Library.xcdatamodeld
          folio model graph --format svg --output company.svg \\
            Samples/Company/Company.xcdatamodeld
        """
    )

    /// The diagrams `graph` draws.
    enum Format: String, ExpressibleByArgument, CaseIterable {
      case dot, mermaid, svg
    }

    @OptionGroup var model: ModelOptions

    @Option(
      help: "The diagram: dot, mermaid or svg.", completion: .list(["dot", "mermaid", "svg"]))
    var format: Format = .dot

    @Option(
      help: "Write the diagram to this file instead of standard output.",
      completion: .file(extensions: ["dot", "mmd", "svg"]))
    var output: String?

    /// Finds Graphviz before any work, for SVG. Not a usage error, so it exits 1.
    func validate() throws {
      if format == .svg { _ = try Graphviz.locate() }
    }

    func run() throws {
      let loaded = try model.load()
      let text: String
      switch format {
      case .dot: text = ModelGraph.dot(of: loaded)
      case .mermaid: text = ModelGraph.mermaid(of: loaded)
      case .svg: text = try Graphviz.locate().svg(from: ModelGraph.dot(of: loaded))
      }
      if let output {
        try AtomicFile.write(Data(text.utf8), to: URL(fileURLWithPath: output))
      } else {
        print(text, terminator: "")
      }
    }
  }

  struct Infer: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract:
        "Infer a model from a Core Data SQLite or XML store and print it as an Xcode contents file.",
      discussion: """
        For an XML store Core Data wrote, the model has the store's entities, attribute \
        types, relationships (to-one or to-many as the file shows them, with inverses where \
        both sides agree) and every property optional: a starting point to put in an \
        .xcdatamodel folder and refine in Xcode. For a SQLite store, it is the model Core Data \
        cached in the file (Z_MODELCACHE), or, for a store from before 2011, one inferred from \
        its tables (Formats/sqlite-store.md says what the schema keeps). A store Folio wrote \
        (XML, SQLite or .folio) carries the model it was written with: that model is printed.

        Example:
          mkdir -p Inferred.xcdatamodel
          folio model infer Samples/Expenses/Expenses.xml \\
            > Inferred.xcdatamodel/contents
        """
    )

    @Argument(
      help: """
        A Core Data SQLite or XML store, or a PostgreSQL document's URL \
        (postgresql://USER@HOST:PORT/DATABASE?schema=NAME).
        """,
      completion: Completions.store)
    var store: String

    func validate() throws {
      try StoreArgument.check(store)
    }

    func run() throws {
      let url = try StoreArgument.url(store)
      let model: ManagedObjectModel
      let format = try PersistentStoreCoordinator.format(of: url, among: storeFormats)
      let carrying = format as? any ModelCarryingStoreFormat
      if let carried = try carrying?.readModel(from: url) {
        model = carried
      } else if let inferring = format as? any ModelInferringStoreFormat {
        model = try inferring.inferModel(from: url)
        // What the file cannot say, said once, beside the model (standard output is the
        // contents file).
        if let caveat = inferring.inferenceCaveat(forFile: store) {
          FileHandle.standardError.write(Data("folio: \(store): \(caveat)\n".utf8))
        }
      } else {
        throw ValidationError(
          carrying?.missingModelReason ?? "a \(format.typeName) store carries no model")
      }
      print(model.xcodeModelXML(), terminator: "")
    }
  }

  struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "List every change between two versions of a model, with the migration each needs.",
      discussion: """
        Each change is on one line: the entity (and property), what changed, and either \
        "inferred" (a lightweight migration makes it, as Core Data infers one) or "needs a \
        mapping model" with the reason. Entities and properties are matched by name, or by \
        the renaming identifier the new version gives them. The last line says whether the \
        whole migration can be inferred; the exit status is 0 either way.

        Example:
          folio model diff \\
            "Samples/Library/Library.xcdatamodeld/Library 2.xcdatamodel" \\
            "Samples/Library/Library.xcdatamodeld/Library 3.xcdatamodel"
        """
    )

    @Argument(
      help:
        "The older version: an .xcdatamodel folder, a contents file, or a bundle (its current version).",
      completion: Completions.model)
    var old: String

    @Argument(help: "The newer version, likewise.", completion: Completions.model)
    var new: String

    func run() throws {
      let source = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: old))
      let destination = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: new))
      let difference = ModelDifference(from: source, to: destination)
      for change in difference.changes { print(change) }
      if difference.changes.isEmpty {
        print("No changes: the versions store the same data.")
      } else if difference.isInferable {
        print("Lightweight migration: every change can be inferred.")
      } else {
        let count = difference.refusals.count
        print(
          "Lightweight migration: not possible; \(count) change\(count == 1 ? " needs" : "s need") a mapping model."
        )
      }
    }
  }
}
