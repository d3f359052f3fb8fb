import Folio
import FolioBinaryStore
import FolioGraph
import FolioModel
import FolioPostgresStore
import FolioSQLiteStore
import FolioStores
import FolioXMLStore
import Foundation

/// Where a container keeps its models: a store file (SQLite by default, XML for `.xml`, Folio's
/// binary format for `.folio`), a document on a PostgreSQL server
/// (`postgresql://USER@HOST:PORT/DATABASE?schema=NAME`, password from the environment or
/// `~/.pgpass`), or memory only.
public struct ModelConfiguration: Sendable, Hashable {
  /// The configuration's name.
  public let name: String
  /// The store file.
  public let url: URL
  /// Whether the models live in memory only, never written.
  public let isStoredInMemoryOnly: Bool
  /// Whether the container's contexts may save.
  public let allowsSave: Bool

  /// A configuration of the default store: `default.store` in the user's application support
  /// folder (`~/.local/share` on Linux), or memory only.
  public init(_ name: String? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true) {
    self.name = name ?? "default"
    let folder =
      FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
      ?? URL(fileURLWithPath: NSTemporaryDirectory())
    url = folder.appendingPathComponent("\(name ?? "default").store")
    self.isStoredInMemoryOnly = isStoredInMemoryOnly
    self.allowsSave = allowsSave
  }

  /// A configuration of the store file at `url`.
  public init(_ name: String? = nil, url: URL, allowsSave: Bool = true) {
    self.name = name ?? url.deletingPathExtension().lastPathComponent
    self.url = url
    isStoredInMemoryOnly = false
    self.allowsSave = allowsSave
  }

  /// Whether the store is a document on a PostgreSQL server.
  var isServerDocument: Bool { ["postgresql", "postgres"].contains(url.scheme?.lowercased()) }

  /// The format of the store: the file's own when it exists, else the extension's. A SQLite
  /// store keeps persistent history, as SwiftData's do.
  func format() throws -> any StoreFormat {
    if isServerDocument { return PostgresStore() }
    let formats: [any StoreFormat] = [
      SQLiteStore(tracksHistory: true), XMLStore(), BinaryStore(),
    ]
    if FileManager.default.fileExists(atPath: url.path) {
      return try PersistentStoreCoordinator.format(of: url, among: formats)
    }
    switch url.pathExtension.lowercased() {
    case "xml": return XMLStore()
    case "folio", "binary": return BinaryStore()
    default: return SQLiteStore(tracksHistory: true)
    }
  }
}

/// The schema of a set of `@Model` classes and the store they are kept in: SwiftData's
/// `ModelContainer`, over a ``FolioGraph/PersistentStoreCoordinator``.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
/// let context = ModelContext(container)
/// ```
///
/// A container crosses actors (a model actor takes one). Its coordinator belongs to the contexts
/// made with ``ModelContext/init(_:)``, which share one thread (the main actor's); a model actor's
/// context works on a coordinator of its own.
public final class ModelContainer: @unchecked Sendable {
  /// The classes and the model they make.
  public let schema: Schema
  /// The store's configuration.
  public let configurations: [ModelConfiguration]
  /// The model the schema makes.
  public let managedObjectModel: ManagedObjectModel
  /// The coordinator holding the store, which every context of the container works against.
  public let coordinator: PersistentStoreCoordinator
  @MainActor private var main: ModelContext?
  /// The contexts on ``coordinator``, used on its thread alone.
  private var sharedContexts: [() -> ModelContext?] = []
  /// How many saves model actors' contexts made, and how many of them the contexts on
  /// ``coordinator`` have merged.
  private let actorSaves = ActorSaveCount()
  private var mergedActorSaves = 0
  /// Why the last merge of a model actor's save failed; `nil` when it did not.
  public private(set) var mergeProblem: (any Error)?

  /// A container for `types` (and the classes they refer to) in the store `configurations`
  /// names: one configuration, or none for the default store.
  public convenience init(
    for types: any PersistentModel.Type..., configurations: ModelConfiguration...
  ) throws {
    try self.init(for: Schema(types), configurations: configurations)
  }

  /// A container for `schema` in the store `configurations` names.
  ///
  /// - Throws: ``SchemaError`` when the classes make no model; `StoreError` when the store
  ///   cannot be read or was written with another model.
  public convenience init(for schema: Schema, configurations: [ModelConfiguration] = []) throws {
    try self.init(for: schema, migrationPlan: nil, configurations: configurations)
  }

  /// A container for `schema` in the store `configurations` names, migrated first by
  /// `migrationPlan`, stage by stage, from the version that wrote it.
  public convenience init(
    for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?,
    configurations: ModelConfiguration...
  ) throws {
    try self.init(for: schema, migrationPlan: migrationPlan, configurations: configurations)
  }

  /// A container for `schema` in the store `configurations` names (one, or none for the
  /// default store), migrated first by `migrationPlan`, stage by stage, from the version that
  /// wrote it.
  ///
  /// - Throws: ``SchemaError`` when the classes make no model or the plan has no way from the
  ///   store's version; `MigrationError` from a migration step; `StoreError` when the store
  ///   cannot be read or was written with another model.
  public init(
    for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?,
    configurations: [ModelConfiguration]
  ) throws {
    guard configurations.count <= 1 else {
      throw SchemaError(
        "a container holds one store: \(configurations.count) configurations were given")
    }
    let configuration = configurations.first ?? ModelConfiguration()
    self.schema = schema
    self.configurations = [configuration]
    var model = try schema.managedObjectModel()
    model.entityClasses.byEntity = Dictionary(
      uniqueKeysWithValues: model.entities.map { ($0.name, _ModelObject.self as AnyClass) })
    managedObjectModel = model
    coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    if configuration.isStoredInMemoryOnly {
      try coordinator.addInMemoryStore()
    } else {
      if !configuration.isServerDocument {
        let folder = configuration.url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      }
      if let migrationPlan {
        try PlannedMigration(
          plan: migrationPlan, url: configuration.url, format: configuration.format()
        ).run()
      }
      let format = try configuration.format()
      // A SQLite store opened without persistent history gets it, as SwiftData opens every
      // store with it; one that cannot be written is read as it is.
      if let sqlite = format as? SQLiteStore, sqlite.tracksHistory,
        FileManager.default.isWritableFile(atPath: configuration.url.path),
        try !sqlite.tracksHistory(at: configuration.url)
      {
        try sqlite.enableHistoryTracking(at: configuration.url, model: model)
      }
      try coordinator.addPersistentStore(at: configuration.url, format: format)
    }
  }

  func register(_ context: ModelContext) {
    sharedContexts.removeAll { $0() == nil }
    sharedContexts.append { [weak context] in context }
    let contexts = sharedContexts.compactMap { $0() }
    if contexts.count > 1 { contexts.forEach { $0.shareSaves() } }
  }

  /// Merges `changes`, which `context` saved, into the container's other contexts on its
  /// coordinator.
  func merge(_ changes: ObjectIDChanges, savedBy context: ModelContext) {
    for other in sharedContexts.compactMap({ $0() }) where other !== context {
      other.managedObjectContext.mergeChanges(fromContextDidSave: changes)
    }
  }

  /// Notes that a model actor's context saved, and has the main actor merge it soon; a fetch
  /// of a context on the container's coordinator merges it first in any case.
  func noteActorSave() {
    actorSaves.increment()
    Task { @MainActor [self] in self.mergeActorSaves() }
  }

  /// Merges what model actors saved since the last merge into the contexts on the container's
  /// coordinator.
  func mergeActorSaves() {
    let count = actorSaves.value
    guard count != mergedActorSaves else { return }
    mergedActorSaves = count
    do {
      let changes = try coordinator.takeInChangesFromOtherWriters()
      for context in sharedContexts.compactMap({ $0() }) {
        context.managedObjectContext.mergeChanges(fromContextDidSave: changes)
      }
      mergeProblem = nil
    } catch {
      mergeProblem = error
    }
  }

  /// The context of the main actor, whose objects are tracked by Swift Observation and which
  /// saves by itself (``ModelContext/autosaveEnabled``).
  @MainActor public var mainContext: ModelContext {
    if let main { return main }
    let context = ModelContext(self)
    context.tracksObservation = true
    context.autosaveEnabled = true
    main = context
    return context
  }
}

/// A count that model actors' threads raise and the container's thread reads.
final class ActorSaveCount: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0

  var value: Int { lock.withLock { count } }

  func increment() { lock.withLock { count += 1 } }
}
