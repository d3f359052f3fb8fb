import ArgumentParser
import CFolioSupport
import Folio
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `folio migrate STORE --model BUNDLE`: a store moved to another version of its model.
struct MigrateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "migrate",
    abstract: "Migrate a store to another version of its model, step by step.",
    discussion: """
      The store's version is the version of BUNDLE whose entity version hashes its metadata \
      records. The store goes through every version between it and the destination in the \
      bundle's order (numbers in version names by value), each step mapped by the mapping \
      model given for it (--mapping) or inferred as Core Data's lightweight migration infers \
      it. The plan is printed first: each step, every change, each entity mapping with its \
      objects, and the values no mapping reads (lost). A mapping that names a custom \
      migration policy cannot run here: policies are Swift types an app registers.

      The new file replaces the store only when every step has succeeded, and the original \
      stays beside it as STORE.backup-VERSION (the version it was in), unless --no-backup is \
      given. A failure or an interruption leaves the store as it was: \
      Ctrl-C stops the migration, removes what it made and exits with status 130 (once the \
      new file is being put in place, the migration finishes first; a second Ctrl-C stops \
      at once, the store still whole).

      A PostgreSQL document (postgresql://USER@HOST:PORT/DATABASE?schema=NAME) is migrated \
      in place in one transaction that holds the document's write lock from before it is \
      read until the migrated document is committed: other clients' saves wait for it, and \
      a client still open on the old version has its next save refused. The transaction is \
      the backup: a failure or an interruption rolls it back, and no backup is kept \
      (--no-backup changes nothing).

      Examples:
        folio migrate Samples/Library/Library.xml \\
          --model Samples/Library/Library.xcdatamodeld --dry-run
        folio migrate Samples/Library/Library.xml \\
          --model Samples/Library/Library.xcdatamodeld --to "Library 2"

      \(progressHelp)
      """)

  @Argument(
    help: """
      The store: a Core Data SQLite or XML store, a .folio binary store, or a PostgreSQL \
      document's URL.
      """,
    completion: Completions.store)
  var file: String

  @Option(
    help: "The model bundle (.xcdatamodeld) holding the store's version and the destination.",
    completion: Completions.modelBundle)
  var model: String

  @Option(
    help: """
      The destination version: its name in the bundle (its .xcdatamodel folder without the \
      extension) or its version identifier. Default: the bundle's current version.
      """,
    completion: Completions.migrationVersion)
  var to: String?

  @Option(
    name: .customLong("mapping"),
    help: """
      An Xcode mapping model (.xcmappingmodel, or its xcmapping.xml) for one step; repeat it \
      for several. The source and destination model versions it names choose its step.
      """,
    completion: Completions.mappingModel)
  var mappings: [String] = []

  @Flag(help: "Print what the migration would do, and change nothing.")
  var dryRun = false

  @Flag(
    inversion: .prefixedNo,
    help: "Keep the original as STORE.backup-VERSION after a migration that succeeded.")
  var backup = true

  /// The switch of earlier releases, when the backup went by default: accepted, and the default.
  @Flag(help: .hidden)
  var keepBackup = false

  func validate() throws {
    try StoreArgument.check(file)
    let bundle = URL(fileURLWithPath: model)
    guard bundle.pathExtension == "xcdatamodeld" else {
      throw ValidationError(
        "--model \"\(model)\" is not a model bundle: migration needs the .xcdatamodeld that holds the store's version and the destination"
      )
    }
  }

  func run() throws {
    let url = try StoreArgument.url(file)
    let format = try PersistentStoreCoordinator.format(of: url, among: storeFormats)
    let bundle = try ModelBundle(contentsOf: URL(fileURLWithPath: model))
    var given: [MigrationPlan.GivenMapping] = []
    for path in mappings {
      let mapping = try XcodeMappingModel(contentsOf: URL(fileURLWithPath: path))
      given.append(
        MigrationPlan.GivenMapping(
          sourceVersion: mapping.sourceModelName,
          destinationVersion: mapping.destinationModelName, mapping: mapping.mappingModel))
    }
    var migration = try StoreMigration(
      storeAt: url, format: format, bundle: bundle, to: to, mappings: given)
    migration.keepsBackup = backup
    let progress = ProgressReporter(workSize: ProgressReporter.size(of: url))
    defer { progress.finish() }
    progress.begin(.scanning(url, as: "reading"))
    let show = progressShown(on: progress, writing: format)
    Interruption.catchInterrupts()
    let interrupted = { Interruption.requested }
    let report: StoreMigrationReport
    do {
      report = try migrate(migration, progress: Interruption.testing(show), interrupted)
    } catch {
      progress.finish()
      guard error.code == .cancelled, interrupted() else { throw error }
      FileHandle.standardError.write(Data("Interrupted: \(file) was not changed.\n".utf8))
      throw ExitCode(130)
    }
    progress.finish()
    print(report)
    if report.steps.isEmpty { return }
    if dryRun {
      print("Dry run: \(file) was not changed.")
    } else {
      print("Migrated \(file) to \(report.destinationVersion).")
      if let backup = report.backup { print("The original is kept as \(backup.path).") }
    }
  }
}

extension MigrateCommand {
  /// What shows a migration's reports on `progress`: each step's stages, its objects done of
  /// all, and once the last stage of the last step is done, the new file's bytes written as
  /// `format`.
  func progressShown(on progress: ProgressReporter, writing format: any StoreFormat)
    -> (StoreMigrationProgress) -> Void
  {
    var current: (step: Int, stage: MigrationProgress.Stage)?
    var isWriting = false
    return { state in
      let objects = state.objects
      guard !isWriting else { return }
      if current?.step != state.step || current?.stage != objects.stage {
        current = (state.step, objects.stage)
        let stage =
          switch objects.stage {
          case .creatingObjects: "creating objects"
          case .relationships: "relationships"
          case .validating: "validating"
          }
        progress.begin(
          .init(
            name: "step \(state.step + 1) of \(state.steps): \(stage)", countsObjects: true,
            totalObjects: objects.totalObjects))
      }
      progress.count(objects: objects.completedObjects)
      if !dryRun, state.step == state.steps - 1, objects.stage == .validating,
        objects.completedObjects == objects.totalObjects
      {
        // What is left is writing the new file.
        isWriting = true
        progress.begin(.writing(objects: objects.totalObjects, as: format))
      }
    }
  }

  func migrate(
    _ migration: StoreMigration, progress: @escaping (StoreMigrationProgress) -> Void,
    _ interrupted: @escaping () -> Bool
  ) throws(MigrationError) -> StoreMigrationReport {
    if dryRun { return try migration.dryRun(progress: progress, isCancelled: interrupted) }
    return try migration.run(progress: progress, isCancelled: interrupted)
  }
}

/// Ctrl-C during a migration: the first asks it to stop where it can (the store untouched);
/// a second one ends the process at once.
enum Interruption {
  static func catchInterrupts() { folio_catch_interrupts() }

  static var requested: Bool { folio_interrupt_requested() != 0 }

  /// `show`, which a crash-safety test makes interrupt the process at the first report
  /// (`FOLIO_TEST_INTERRUPT_AT_PROGRESS=1`, debug builds only); `show` itself in a release
  /// build.
  static func testing<T>(_ show: @escaping (T) -> Void) -> (T) -> Void {
    #if FOLIO_TEST_HOOKS
      let interrupts =
        ProcessInfo.processInfo.environment["FOLIO_TEST_INTERRUPT_AT_PROGRESS"] == "1"
    #else
      let interrupts = false
    #endif
    guard interrupts else { return show }
    return { value in
      // The handler runs before `raise` returns, on this thread.
      if !requested { raise(SIGINT) }
      show(value)
    }
  }
}
