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
        folio model graph Samples/Company/Company.xcdatamodeld | dot -Tsvg > company.svg
        folio model infer Samples/Expenses/Expenses.xml > contents
        folio model diff "Old.xcdatamodeld/Model.xcdatamodel" Old.xcdatamodeld
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
        leniently as Core Data does) go to standard error.

        Example:
          folio model info Samples/Expenses/Expenses.xcdatamodeld
          folio model info --json Samples/Company/Company.xcdatamodeld
        """
    )

    @OptionGroup var model: ModelOptions

    @Flag(help: "Print JSON for machines instead of text.")
    var json = false

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
      abstract: "Draw a model as a Graphviz DOT diagram.",
      discussion: """
        Entities are record nodes listing their attributes; relationships are labelled edges \
        (one edge per inverse pair) with their cardinality and delete rule; inheritance is a \
        hollow arrow to the parent entity.

        Example:
          folio model graph Samples/Company/Company.xcdatamodeld | dot -Tsvg > company.svg
        """
    )

    @OptionGroup var model: ModelOptions

    func run() throws {
      print(ModelGraph.dot(of: try model.load()), terminator: "")
    }
  }

  struct Infer: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract:
        "Infer a model from a Core Data SQLite or XML store and print it as an Xcode contents file.",
      discussion: """
        For an XML store, the model has the store's entities, attribute types, relationships \
        (to-one or to-many as the file shows them, with inverses where both sides agree) and \
        every property optional: a starting point to put in an .xcdatamodel folder and refine \
        in Xcode. For a SQLite store, it is the model Core Data cached in the file \
        (Z_MODELCACHE), or, for a store from before 2011, one inferred from its tables \
        (Formats/sqlite-store.md says what the schema keeps).

        Example:
          mkdir -p Inferred.xcdatamodel
          folio model infer Samples/Expenses/Expenses.xml > Inferred.xcdatamodel/contents
        """
    )

    @Argument(help: "A Core Data SQLite or XML store.", completion: Completions.store)
    var store: String

    func run() throws {
      let url = URL(fileURLWithPath: store)
      let model: ManagedObjectModel
      if try PersistentStoreCoordinator.format(of: url, among: storeFormats) is SQLiteStore {
        model = try SQLiteStore().readModel(from: url) ?? SQLiteStore.inferModel(from: url)
      } else {
        model = try XMLStore.inferModel(from: url)
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
          folio model diff Old.xcdatamodel New.xcdatamodel
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
