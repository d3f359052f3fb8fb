import FolioModel
import FolioSQLiteStore
import FolioStores
import Foundation

/// Migrates a store file from the model version that wrote it to another version of its model
/// bundle, as `NSPersistentContainer` does when it opens a store of an older version.
///
/// The store is read whole with its version's model, carried through each step of its
/// ``MigrationPlan`` in memory, and written in its own format with the destination model. A
/// SQLite store whose every step is a plain copy (renames, added and removed properties and
/// entities: what Core Data infers) is migrated in SQL instead, table by table into a new
/// database, without reading its objects into memory; the result is the same.
/// Nothing touches the original until every step has succeeded: the new file is written
/// beside it and renamed over it (the format's atomic write), and the original is kept as a
/// backup (a second name for the same file, `NAME.backup-VERSION` after the version it was
/// in, `NAME.backup-VERSION-2`… when taken by another file; a backup an interrupted
/// migration of the same original left is used again), which stays unless ``keepsBackup`` is
/// turned off. A failure, a cancellation or a crash at any point leaves the original file as
/// it was.
///
/// A document on a server (`PostgresStore`) has no file to write beside it: it is read, migrated
/// and written back in its place in one transaction that holds the document's write lock from
/// before the read until the commit, so no other client's save lands in between and is lost.
/// The transaction is its backup: a failure rolls it back, and the document is as it was.
///
/// ```swift
/// var migration = try StoreMigration(storeAt: url, format: XMLStore(), bundle: bundle)
/// print(try migration.dryRun())          // what would happen
/// try migration.run()                     // do it
/// ```
public struct StoreMigration {
  public let url: URL
  public let format: any StoreFormat
  public let plan: MigrationPlan
  /// Whether the original stays as `NAME.backup-VERSION` after a migration that succeeded;
  /// `true` unless turned off.
  public var keepsBackup = true
  /// The migration policies by the class names mapping models give them.
  public var policies: [String: EntityMigrationPolicy.Type] = [:]
  /// Whether a SQLite store whose steps are all plain copies is migrated in SQL.
  var copiesInSQL = true

  /// Plans the migration of the store at `url` from the version of `bundle` whose entity
  /// hashes its metadata records to `version` (by default the bundle's current version).
  ///
  /// - Throws: `MigrationError.storeFailed` when the store's metadata cannot be read;
  ///   `.unknownVersion` when no version of the bundle wrote the store, or `version` is not
  ///   one; `.needsMapping` as ``MigrationPlan/init(bundle:from:to:mappings:)``.
  public init(
    storeAt url: URL, format: any StoreFormat, bundle: ModelBundle, to version: String? = nil,
    mappings: [MigrationPlan.GivenMapping] = []
  ) throws(MigrationError) {
    let metadata: StoreMetadata
    do {
      metadata = try format.readMetadata(from: url)
    } catch {
      throw MigrationError(.storeFailed, error.message, at: error.location, underlying: error)
    }
    guard
      let source = bundle.version(
        matchingVersionHashes: metadata.modelVersionHashes,
        identifiers: metadata.modelVersionIdentifiers)
    else {
      throw MigrationError(
        .unknownVersion,
        "no version of the model bundle wrote this store: its entity version hashes match none of "
          + bundle.versions.map(\.name).joined(separator: ", "),
        at: InputLocation(file: url.storePlace))
    }
    self.url = url
    self.format = format
    self.plan = try MigrationPlan(
      bundle: bundle, from: source.name, to: version ?? bundle.currentVersionName,
      mappings: mappings)
  }

  /// Migrates the store in memory and says what the migration would do, writing nothing.
  ///
  /// - Throws: as ``run(progress:isCancelled:)``; the file is never touched.
  public func dryRun(
    progress: ((StoreMigrationProgress) -> Void)? = nil, isCancelled: (() -> Bool)? = nil
  ) throws(MigrationError) -> StoreMigrationReport {
    if let (_, report) = try migrateInSQL(keepingResult: false, progress, isCancelled) {
      return report
    }
    return try migrate(progress: progress, isCancelled: isCancelled).1
  }

  /// Migrates the store and replaces the file with the result; a document on a server, in
  /// one transaction under its write lock, with no backup.
  ///
  /// - Throws: `MigrationError` of a step (`.invalidValue`, `.invalidMapping`,
  ///   `.missingPolicy`, `.policyFailed`), `.cancelled`, or `.storeFailed` when the store
  ///   cannot be read or the new file written. The original file is then as it was.
  @discardableResult
  public func run(
    progress: ((StoreMigrationProgress) -> Void)? = nil, isCancelled: (() -> Bool)? = nil
  ) throws(MigrationError) -> StoreMigrationReport {
    if let transactional = format as? any TransactionalStoreFormat {
      return try runInTransaction(transactional, progress: progress, isCancelled: isCancelled)
    }
    let write: () throws(StoreError) -> Void
    let report: StoreMigrationReport
    var scratch: ScratchFile?
    defer { scratch?.discard() }
    if let (database, done) = try migrateInSQL(keepingResult: true, progress, isCancelled),
      let database
    {
      scratch = database
      report = done
      write = { () throws(StoreError) in
        try SQLiteStore.replace(url, withDatabaseAt: database.url)
      }
    } else {
      let (contents, done) = try migrate(progress: progress, isCancelled: isCancelled)
      report = done
      let model = plan.destinationVersion.model
      write = { () throws(StoreError) in try format.write(contents, model: model, to: url) }
    }
    guard !plan.steps.isEmpty else { return report }
    if isCancelled?() == true {
      throw MigrationError(.cancelled, "the migration was cancelled; nothing was written")
    }
    let target = url.resolvingSymlinksInPath()
    let (backup, isNew) = try makeBackup(of: target)
    do {
      try write()
    } catch {
      if isNew { try? FileManager.default.removeItem(at: backup) }
      throw MigrationError(.storeFailed, error.message, at: error.location, underlying: error)
    }
    var done = report
    if keepsBackup {
      done.backup = backup
    } else {
      try? FileManager.default.removeItem(at: backup)
    }
    return done
  }

  /// The migration of a store on a server: read, migrated and written back in its place in
  /// one transaction that holds the store's write lock throughout, so no other writer's save
  /// lands between the read and the replace; a failure rolls it back.
  private func runInTransaction(
    _ transactional: any TransactionalStoreFormat,
    progress: ((StoreMigrationProgress) -> Void)?, isCancelled: (() -> Bool)?
  ) throws(MigrationError) -> StoreMigrationReport {
    var report: StoreMigrationReport?
    do {
      try transactional.replace(at: url, readingWith: plan.sourceVersion.model) { contents in
        let (migrated, done) = try migrate(
          contents, progress: progress, isCancelled: isCancelled)
        report = done
        guard !plan.steps.isEmpty else { return nil }
        if isCancelled?() == true {
          throw MigrationError(.cancelled, "the migration was cancelled; nothing was written")
        }
        return (migrated, plan.destinationVersion.model)
      }
    } catch let error as MigrationError {
      throw error
    } catch let error as StoreError {
      // Another client, waited for at the lock, migrated the document to this version first.
      if error.code == .modelMismatch, let metadata = try? format.readMetadata(from: url),
        (try? metadata.checkVersionHashes(against: plan.destinationVersion.model)) != nil
      {
        let name = plan.destinationVersion.name
        return StoreMigrationReport(sourceVersion: name, destinationVersion: name, steps: [])
      }
      throw MigrationError(.storeFailed, error.message, at: error.location, underlying: error)
    } catch {
      throw MigrationError(.storeFailed, "\(error)", at: InputLocation(file: url.storePlace))
    }
    guard let report else {
      preconditionFailure("a transactional replace returned without reading the store")
    }
    return report
  }

  private func migrate(
    progress: ((StoreMigrationProgress) -> Void)?, isCancelled: (() -> Bool)?
  ) throws(MigrationError) -> (StoreContents, StoreMigrationReport) {
    let contents: StoreContents
    do {
      contents = try format.read(from: url, model: plan.sourceVersion.model)
    } catch {
      throw MigrationError(.storeFailed, error.message, at: error.location, underlying: error)
    }
    return try migrate(contents, progress: progress, isCancelled: isCancelled)
  }

  /// `contents`, read with the source version's model, carried through every step.
  private func migrate(
    _ contents: StoreContents, progress: ((StoreMigrationProgress) -> Void)?,
    isCancelled: (() -> Bool)?
  ) throws(MigrationError) -> (StoreContents, StoreMigrationReport) {
    var contents = contents
    var report = StoreMigrationReport(
      sourceVersion: plan.sourceVersion.name, destinationVersion: plan.destinationVersion.name,
      steps: [])
    let spaces = keySpaces()
    for (index, step) in plan.steps.enumerated() {
      let manager = MigrationManager(
        sourceModel: step.source.model, destinationModel: step.destination.model,
        mappingModel: step.mapping)
      for (name, type) in policies { manager.register(type, as: name) }
      if let spaces {
        let space = spaces(step.destination.model)
        manager.keySpace = { space[$0] ?? 0 }
      }
      let before = contents.records
      do {
        contents = try manager.migrate(
          contents,
          progress: progress.map { report in
            { report(StoreMigrationProgress(step: index, steps: plan.steps.count, objects: $0)) }
          }, isCancelled: isCancelled)
      } catch {
        throw MigrationError(
          error.code,
          "\(step.source.name) → \(step.destination.name): \(error.message)",
          at: error.location ?? InputLocation(file: url.storePlace), underlying: error)
      }
      report.steps.append(
        StoreMigrationReport.Step(step, before: before, after: contents.records))
    }
    return (contents, report)
  }

  /// The migration in SQL, step by step into new databases, when the store is SQLite and
  /// every step a plain copy: the last database (when `keepingResult`; else none is written
  /// for the last step) and the report. `nil` when a step declines: nothing is left behind.
  private func migrateInSQL(
    keepingResult: Bool, _ progress: ((StoreMigrationProgress) -> Void)?,
    _ isCancelled: (() -> Bool)?
  ) throws(MigrationError) -> (ScratchFile?, StoreMigrationReport)? {
    guard copiesInSQL, format is SQLiteStore, !plan.steps.isEmpty else { return nil }
    var copies: [SQLiteCopyPlan] = []
    for step in plan.steps {
      let manager = MigrationManager(
        sourceModel: step.source.model, destinationModel: step.destination.model,
        mappingModel: step.mapping)
      guard let copy = manager.copyPlan() else { return nil }
      copies.append(copy)
    }
    var report = StoreMigrationReport(
      sourceVersion: plan.sourceVersion.name, destinationVersion: plan.destinationVersion.name,
      steps: [])
    var current = url
    // Each step's database is built beside the store (``ScratchFile``): on its disk, and left
    // to the next write's cleanup if the process is killed.
    var made: [ScratchFile] = []
    func discard() { for file in made { file.discard() } }
    for (index, step) in plan.steps.enumerated() {
      let isLast = index == plan.steps.count - 1
      let nextFile: ScratchFile?
      do {
        nextFile = isLast && !keepingResult ? nil : try ScratchFile(besides: url)
      } catch {
        discard()
        throw MigrationError(.storeFailed, error.message, at: error.location, underlying: error)
      }
      let next = nextFile?.url
      let outcome: SQLiteCopyOutcome
      let lost: [StoreMigrationReport.LostValues]
      do {
        outcome = try SQLiteStore.copy(
          copies[index], from: current, model: step.source.model, to: next,
          model: step.destination.model,
          progress: progress.map { report in
            { done, total in
              report(
                StoreMigrationProgress(
                  step: index, steps: plan.steps.count,
                  objects: MigrationProgress(
                    stage: .creatingObjects, entityMapping: nil, completedObjects: done,
                    totalObjects: total)))
            }
          }, isCancelled: isCancelled)
        guard case .copied(let result) = outcome else {
          nextFile?.discard()
          discard()
          if case .cancelled = outcome {
            throw MigrationError(.cancelled, "the migration was cancelled; nothing was written")
          }
          return nil
        }
        if let nextFile { made.append(nextFile) }
        lost = try StoreMigrationReport.LostValues.count(
          in: current, step, objects: result.sourceObjects)
        var done = StoreMigrationReport.Step(
          step, objectsBefore: result.sourceObjects, objectsAfter: result.destinationObjects,
          lostValues: lost)
        done.copiedInSQL = true
        report.steps.append(done)
      } catch let error as MigrationError {
        discard()
        throw error
      } catch let error as StoreError {
        discard()
        throw MigrationError(
          .storeFailed, "\(step.source.name) → \(step.destination.name): \(error.message)",
          at: error.location ?? InputLocation(file: url.storePlace), underlying: error)
      } catch {
        discard()
        throw MigrationError(.storeFailed, "\(error)", at: InputLocation(file: url.storePlace))
      }
      if let next { current = next }
    }
    // Only the last database is the result, when one is kept; the steps' others go.
    for file in keepingResult ? Array(made.dropLast()) : made { file.discard() }
    return (keepingResult ? made.last : nil, report)
  }

  /// For a store in Core Data's SQLite layout, the key space of each entity of a model.
  private func keySpaces() -> ((ManagedObjectModel) -> [String: Int])? {
    guard format is SQLiteStore || format is any TransactionalStoreFormat else { return nil }
    return { SQLiteSchema(model: $0).keySpaces }
  }

  /// The original at `target` under `NAME.backup-VERSION` (the version it is in) or the first
  /// free `NAME.backup-VERSION-N`: a hard link to a file replaced by a rename, so no byte is
  /// copied and the original stays whole whatever the write does to its name; a copy of a
  /// SQLite store, whose new content is written into the file itself, made in a scratch file
  /// and linked to its name only when complete, so a killed copy leaves no half backup.
  ///
  /// A backup with the name already there that holds the original exactly (the same file, or a
  /// copy of the same bytes) is what a migration of this store that was interrupted before
  /// replacing it made: it is the backup again (`isNew` false), not doubled. Only when the
  /// backup is to be kept: one about to be removed is always a new name.
  private func makeBackup(of target: URL) throws(MigrationError) -> (url: URL, isNew: Bool) {
    let folder = target.deletingLastPathComponent()
    let version = plan.sourceVersion.name.replacingOccurrences(of: "/", with: "-")
    let base = target.lastPathComponent + ".backup-" + version
    func failure(_ name: String, _ reason: String, _ underlying: StoreError? = nil)
      -> MigrationError
    {
      MigrationError(
        .storeFailed, "cannot keep the original as \(name) while migrating: \(reason)",
        at: InputLocation(file: url.storePlace), underlying: underlying)
    }
    var copy: ScratchFile?
    defer { copy?.discard() }
    if format is SQLiteStore {
      do {
        let scratch = try ScratchFile(besides: target)
        copy = scratch
        try SQLiteStore.copyDatabase(at: target, to: scratch.url)
      } catch {
        throw failure(base, error.message, error)
      }
    }
    let source = copy?.url ?? target
    for attempt in 1...1000 {
      let name = attempt == 1 ? base : "\(base)-\(attempt)"
      let backup = folder.appendingPathComponent(name)
      if link(source.path, backup.path) == 0 { return (backup, true) }
      let code = errno
      guard code == EEXIST else { throw failure(name, String(cString: strerror(code))) }
      if keepsBackup, Self.holdsTheSame(backup, as: source, copied: copy != nil) {
        return (backup, false)
      }
    }
    throw MigrationError(
      .storeFailed, "cannot find a free backup name beside the store",
      at: InputLocation(file: url.storePlace))
  }

  /// Whether the file at `backup` holds what `source` does: the same file, or for a `copied`
  /// source, a regular file of the same bytes.
  private static func holdsTheSame(_ backup: URL, as source: URL, copied: Bool) -> Bool {
    var named = stat()
    var original = stat()
    guard lstat(backup.path, &named) == 0, stat(source.path, &original) == 0,
      named.st_mode & S_IFMT == S_IFREG
    else { return false }
    if !copied { return named.st_dev == original.st_dev && named.st_ino == original.st_ino }
    return named.st_size == original.st_size
      && FileManager.default.contentsEqual(atPath: backup.path, andPath: source.path)
  }
}

/// How far a store migration has come: the step, and the objects of that step.
public struct StoreMigrationProgress: Sendable, Hashable {
  /// The step being run, from 0.
  public var step: Int
  public var steps: Int
  public var objects: MigrationProgress
}

/// What a migration did, or would do: each step with its mapping and what became of the
/// objects and values.
public struct StoreMigrationReport: Sendable, CustomStringConvertible {
  public struct Step: Sendable {
    public var sourceVersion: String
    public var destinationVersion: String
    public var isInferred: Bool
    /// Every change between the two versions.
    public var changes: [ModelDifference.Change]
    /// The entity mappings, in order.
    public var entityMappings: [EntityMapping]
    /// Objects of each entity before the step.
    public var objectsBefore: [String: Int]
    /// Objects of each entity after it.
    public var objectsAfter: [String: Int]
    /// Values the step drops: for each source entity and property that a removed property
    /// or an unmapped one held, how many objects had a value.
    public var lostValues: [LostValues]
    /// Whether the step ran in SQL, table by table, rather than through the records.
    var copiedInSQL = false

    init(_ step: MigrationPlan.Step, before: [StoreRecord], after: [StoreRecord]) {
      self.init(
        step, objectsBefore: Self.count(before), objectsAfter: Self.count(after),
        lostValues: LostValues.find(before, step))
    }

    init(
      _ step: MigrationPlan.Step, objectsBefore: [String: Int], objectsAfter: [String: Int],
      lostValues: [LostValues]
    ) {
      sourceVersion = step.source.name
      destinationVersion = step.destination.name
      isInferred = step.isInferred
      changes = step.difference.changes
      entityMappings = step.mapping.entityMappings
      self.objectsBefore = objectsBefore
      self.objectsAfter = objectsAfter
      self.lostValues = lostValues
    }

    /// The records of each entity.
    static func count(_ records: [StoreRecord]) -> [String: Int] {
      var counts: [String: Int] = [:]
      var name = ""
      var run = 0
      for record in records {
        if record.entityName != name {
          if run > 0 { counts[name, default: 0] += run }
          name = record.entityName
          run = 0
        }
        run += 1
      }
      if run > 0 { counts[name, default: 0] += run }
      return counts
    }
  }

  /// The objects of one source entity that had a value in a property no mapping reads.
  public struct LostValues: Sendable, Hashable {
    public var entity: String
    public var property: String
    public var objects: Int

    static func find(_ records: [StoreRecord], _ step: MigrationPlan.Step) -> [LostValues] {
      let lost = properties(step)
      var counts: [LostValues: Int] = [:]
      var name = ""
      var properties: [(name: String, isAttribute: Bool)] = []
      for record in records {
        if record.entityName != name {
          name = record.entityName
          properties = lost[name] ?? []
        }
        for property in properties {
          let holds =
            property.isAttribute
            ? record.attribute(property.name) != nil
            : !(record.relationships[property.name]?.isEmpty ?? true)
          if holds {
            counts[LostValues(entity: name, property: property.name, objects: 0), default: 0] += 1
          }
        }
      }
      return sorted(counts)
    }

    /// The lost values of the SQLite store at `url`, whose entities hold `objects`.
    static func count(in url: URL, _ step: MigrationPlan.Step, objects: [String: Int])
      throws(StoreError) -> [LostValues]
    {
      let pairs = properties(step).filter { (objects[$0.key] ?? 0) > 0 }
        .flatMap { entity, list in list.map { (entity: entity, property: $0.name) } }
      guard !pairs.isEmpty else { return [] }
      let found = try SQLiteStore.countValues(of: pairs, at: url, model: step.source.model)
      var counts: [LostValues: Int] = [:]
      for (pair, count) in zip(pairs, found) where count > 0 {
        counts[LostValues(entity: pair.entity, property: pair.property, objects: 0)] = count
      }
      return sorted(counts)
    }

    private static func sorted(_ counts: [LostValues: Int]) -> [LostValues] {
      counts.map {
        LostValues(entity: $0.key.entity, property: $0.key.property, objects: $0.value)
      }
      .sorted { ($0.entity, $0.property) < ($1.entity, $1.property) }
    }

    /// For each source entity, the stored properties no mapping reads.
    private static func properties(_ step: MigrationPlan.Step)
      -> [String: [(name: String, isAttribute: Bool)]]
    {
      var read: [String: Set<String>] = [:]
      for mapping in step.mapping.entityMappings {
        guard let source = mapping.sourceEntityName else { continue }
        var keys = read[source, default: []]
        for property in mapping.attributeMappings + mapping.relationshipMappings {
          property.valueExpression?.collectSourceKeys(into: &keys)
        }
        read[source] = keys
      }
      // For each entity, the stored properties no mapping reads; then which objects hold them.
      var lost: [String: [(name: String, isAttribute: Bool)]] = [:]
      for entity in step.source.model.entities {
        let keys = read[entity.name] ?? []
        let attributes = MappingModel.storedAttributes(of: entity).filter {
          !keys.contains($0.name)
        }
        let relationships = MappingModel.storedRelationships(of: entity).filter {
          !keys.contains($0.name)
        }
        lost[entity.name] =
          attributes.map { ($0.name, true) } + relationships.map { ($0.name, false) }
      }
      return lost
    }
  }

  public var sourceVersion: String
  public var destinationVersion: String
  public var steps: [Step]
  /// Where the original was kept, when it was.
  public var backup: URL?

  /// Each step, its changes and mappings, and what it loses, as lines of text.
  public var description: String {
    func objects(_ count: Int) -> String { count == 1 ? "1 object" : "\(count) objects" }
    guard !steps.isEmpty else {
      return "The store is already of version \(destinationVersion): nothing to migrate."
    }
    var lines = [
      "Migrating from \(sourceVersion) to \(destinationVersion) in \(steps.count) \(steps.count == 1 ? "step" : "steps")."
    ]
    for (index, step) in steps.enumerated() {
      lines.append(
        "Step \(index + 1): \(step.sourceVersion) → \(step.destinationVersion), "
          + (step.isInferred ? "inferred (lightweight)" : "by the mapping model given"))
      for change in step.changes { lines.append("  \(change)") }
      for mapping in step.entityMappings {
        let source = mapping.sourceEntityName ?? "nothing"
        let destination = mapping.destinationEntityName ?? "nothing"
        let before = mapping.sourceEntityName.flatMap { step.objectsBefore[$0] } ?? 0
        var line = "  \(mapping.name): \(source) → \(destination) (\(mapping.mappingType.rawValue))"
        if mapping.sourceEntityName != nil { line += ", " + objects(before) }
        if let policy = mapping.migrationPolicyClassName { line += ", policy \(policy)" }
        lines.append(line)
      }
      for lost in step.lostValues {
        lines.append("  lost: \(lost.entity).\(lost.property) of " + objects(lost.objects))
      }
      let after = step.objectsAfter.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
      lines.append(
        "  objects after the step: " + (after.isEmpty ? "none" : after.joined(separator: ", ")))
    }
    return lines.joined(separator: "\n")
  }
}

extension MappingExpression {
  /// The keys of `$source` the expression reads first.
  func collectSourceKeys(into keys: inout Set<String>) {
    switch self {
    case .keyPath(.variable("source"), let path):
      if let first = path.split(separator: ".").first { keys.insert(String(first)) }
    case .keyPath(let base, _): base.collectSourceKeys(into: &keys)
    case .function(let receiver, _, let arguments):
      receiver.collectSourceKeys(into: &keys)
      for argument in arguments { argument.collectSourceKeys(into: &keys) }
    case .builtin(_, let arguments):
      for argument in arguments { argument.collectSourceKeys(into: &keys) }
    case .constant, .variable: break
    }
  }
}
