import FolioMigration
import FolioModel
import FolioStores
import Foundation

/// One version of an app's models, as SwiftData's `VersionedSchema`: an enumeration that
/// nests the `@Model` classes of that version.
///
/// ```swift
/// enum TripsV1: VersionedSchema {
///   static let versionIdentifier = Schema.Version(1, 0, 0)
///   static var models: [any PersistentModel.Type] { [Trip.self] }
///   @Model final class Trip { … }
/// }
/// ```
public protocol VersionedSchema {
  static var versionIdentifier: Schema.Version { get }
  static var models: [any PersistentModel.Type] { get }
}

/// How a store moves from one version of the models to the next: SwiftData's
/// `SchemaMigrationPlan`, run by FolioMigration when a container opens the store.
public protocol SchemaMigrationPlan {
  /// Every version, oldest first.
  static var schemas: [any VersionedSchema.Type] { get }
  /// The steps between them, in order.
  static var stages: [MigrationStage] { get }
}

/// One step of a migration plan.
public enum MigrationStage {
  /// A step Folio infers from the two versions, as Core Data's lightweight migration does:
  /// added, removed and renamed (`originalName:`) properties and entities, optionality
  /// and type changes it can convert.
  case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
  /// An inferred step with the app's own work before it (`willMigrate`, in a context of the
  /// old version) and after it (`didMigrate`, in a context of the new one); each context's
  /// changes are saved.
  case custom(
    fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
    willMigrate: ((ModelContext) throws -> Void)?, didMigrate: ((ModelContext) throws -> Void)?)

  var versions: (from: any VersionedSchema.Type, to: any VersionedSchema.Type) {
    switch self {
    case .lightweight(let from, let to), .custom(let from, let to, _, _): (from, to)
    }
  }
}

extension Schema {
  /// A version number of a versioned schema.
  public struct Version: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let major: Int
    public let minor: Int
    public let patch: Int

    public init(_ major: Int, _ minor: Int, _ patch: Int) {
      (self.major, self.minor, self.patch) = (major, minor, patch)
    }

    public static func < (lhs: Version, rhs: Version) -> Bool {
      (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    public var description: String { "\(major).\(minor).\(patch)" }
  }

  /// The schema of a versioned schema's models.
  public init(versionedSchema: any VersionedSchema.Type) {
    self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
  }
}

/// Runs a migration plan on a store file before a container opens it.
struct PlannedMigration {
  let plan: any SchemaMigrationPlan.Type
  let url: URL
  let format: any StoreFormat

  /// Moves the store from the version that wrote it, stage by stage, to the plan's last
  /// version. A store that does not exist yet, or was written with the last version, is left
  /// alone.
  ///
  /// - Throws: ``SchemaError`` when no version of the plan wrote the store, or no stage leads
  ///   on from a version; `MigrationError` from a step; what `willMigrate` or `didMigrate`
  ///   throws. The store is then as the last completed step left it.
  func run() throws {
    let hashes: [String: Data]
    do {
      hashes = try format.readMetadata(from: url).modelVersionHashes
    } catch {
      if error.code == .notFound { return }  // A new store: nothing to migrate.
      throw error
    }
    let versions = plan.schemas
    let models = try versions.map { try Schema(versionedSchema: $0).managedObjectModel() }
    guard
      var current = models.firstIndex(where: { $0.entityVersionHashesByName == hashes })
    else {
      throw SchemaError(
        "no version of \(plan) wrote the store at \(url.path): its entity version hashes match none of \(versions.map { "\($0.versionIdentifier)" }.joined(separator: ", "))"
      )
    }
    while current < versions.count - 1 {
      let from = versions[current]
      guard
        let stage = plan.stages.first(where: {
          ObjectIdentifier($0.versions.from) == ObjectIdentifier(from)
        }),
        let next = versions.firstIndex(where: {
          ObjectIdentifier($0) == ObjectIdentifier(stage.versions.to)
        })
      else {
        throw SchemaError(
          "\(plan) has no stage from version \(from.versionIdentifier), which wrote the store at \(url.path)"
        )
      }
      if case .custom(_, _, let willMigrate?, _) = stage {
        try work(on: from, willMigrate)
      }
      let bundle = try ModelBundle(versions: [
        ModelBundle.Version(name: "\(from.versionIdentifier)", model: models[current]),
        ModelBundle.Version(name: "\(versions[next].versionIdentifier)", model: models[next]),
      ])
      var migration = try StoreMigration(storeAt: url, format: format, bundle: bundle)
      migration.keepsBackup = false
      try migration.run()
      if case .custom(_, _, _, let didMigrate?) = stage {
        try work(on: versions[next], didMigrate)
      }
      current = next
    }
  }

  /// Runs `body` in a context on the store with the models of `version`, and saves.
  private func work(on version: any VersionedSchema.Type, _ body: (ModelContext) throws -> Void)
    throws
  {
    let container = try ModelContainer(
      for: Schema(versionedSchema: version), configurations: [ModelConfiguration(url: url)])
    let context = ModelContext(container)
    try body(context)
    try context.save()
  }
}
