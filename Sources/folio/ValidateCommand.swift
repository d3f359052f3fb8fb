import ArgumentParser
import Folio
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `folio validate FILE`: every object checked against the model's rules.
struct ValidateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "validate",
    abstract: "Check every object of a store against the model's constraints.",
    discussion: """
      Exit status 0 when every object validates, 1 with every failure listed otherwise. \
      Without --model, a .folio store is checked against the model it carries and a SQLite \
      store against the one cached in it, an XML store Folio wrote against the one in its \
      metadata; an XML store Core Data wrote (or a SQLite store that caches none) has only \
      a model inferred from the file, which proves no more than each \
      value's type and each relationship's shape: that is all that is checked, and the \
      output says so. --format json prints the counts, what was checked and every failure \
      (Formats/validate.schema.json), with the same exit status. Example:
        folio validate Samples/Expenses/Expenses.xml \\
          --model Samples/Expenses/Expenses.xcdatamodeld

      \(progressHelp)
      """)

  @OptionGroup var store: StoreOptions

  @OptionGroup var output: TextOrJSON

  /// Whether to print JSON: `--format json` or `--json`.
  var json: Bool { output.json }

  func run() throws {
    let progress = try store.progress()
    defer { progress.finish() }
    let opened = try store.open(progress: progress)
    let (url, format) = (opened.url, opened.format)
    let coordinator = PersistentStoreCoordinator(managedObjectModel: opened.model)
    progress.begin(.reading(opened))
    try coordinator.addPersistentStore(
      at: url, format: ProgressCountingFormat.forCoordinator(format, progress: progress))
    let context = try ManagedObjectContext(coordinator: coordinator, undoManager: nil)
    let count = context.registeredObjectCount
    let source = store.modelSource(for: format, version: nil)
    let inferred = store.model == nil && source.hasPrefix("inferred")
    progress.begin(.init(name: "validating \(ProgressLine.objects(count, of: nil))"))
    guard json else {
      try context.validateAllObjects()
      progress.finish()
      report(count: count, source: source, inferred: inferred)
      return
    }
    var failures: [ValidationFailure] = []
    do {
      try context.validateAllObjects()
    } catch {
      guard !error.failures.isEmpty else { throw error }
      failures = error.failures
    }
    progress.finish()
    let listed = failures.map { failure in
      "{\"object\":\(ObjectJSON.string(failure.objectID.uriRepresentation.absoluteString)),"
        + "\"entity\":\(ObjectJSON.string(failure.entityName)),"
        + "\"key\":\(failure.key.map(ObjectJSON.string) ?? "null"),"
        + "\"rule\":\(ObjectJSON.string(failure.rule.rawValue)),"
        + "\"message\":\(ObjectJSON.string(failure.message))}"
    }
    print(
      "{\"file\":\(ObjectJSON.string(store.file)),\"objects\":\(count),"
        + "\"model\":\(ObjectJSON.string(source)),"
        + "\"checked\":\(ObjectJSON.string(inferred ? "types and relationship shapes" : "the model's rules")),"
        + "\"valid\":\(failures.isEmpty),\"failures\":[\(listed.joined(separator: ","))]}")
    if !failures.isEmpty { throw ExitCode.failure }
  }

  private func report(count: Int, source: String, inferred: Bool) {
    if inferred {
      print(
        "\(store.file): \(count) objects; the model was \(source), so only each value's type "
          + "and each relationship's shape were checked, and they hold. Pass --model for the "
          + "model's rules (required values, ranges, counts, uniqueness).")
    } else {
      print("\(store.file): \(count) objects, all valid")
    }
  }
}
