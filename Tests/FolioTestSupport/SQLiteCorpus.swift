import FolioModel
import FolioSQLiteStore
import FolioStores
import Foundation

/// The Core Data SQLite stores of `../shared/corpus/sqlite`, each with the model version that
/// wrote it (its MANIFEST), copied to a scratch folder with their `-wal` and `-shm` files
/// before a test opens them, so the corpus is never touched.
public enum SQLiteCorpus {
  public struct Store: Sendable, CustomStringConvertible {
    public let folder: String
    public let file: String
    /// The model bundle's folder (another repository's for the oldest Recipes store) and the
    /// version that wrote the store.
    public let bundleFolder: String
    public let bundle: String
    public let version: String
    /// How many rows its entity tables hold.
    public let objects: Int

    public var description: String { file }
  }

  public static let root = packageRoot.deletingLastPathComponent().appendingPathComponent(
    "shared/corpus/sqlite")

  public static var isPresent: Bool { FileManager.default.fileExists(atPath: root.path) }

  private static let wire = "wireapp__wire-ios-data-model__zmessaging"
  private static let careKit = "carekit-apple__CareKit__CareKitStore"
  private static let xcs = "richardpiazza__XCServerCoreData__XCServerCoreData"
  private static let ddg = "duckduckgo__BrowserServicesKit__BookmarksModel"
  private static let wib = "wibosco__CoreDataMigration-Example__CoreDataMigration_Example"
  private static let recipes = "alhoqbani__AppleSample-iPhoneCoreDataRecipes__Recipes"

  public static let stores: [Store] = [
    Store(
      folder: wire, file: "store1-25.wiredatabase", bundleFolder: wire,
      bundle: "zmessaging.xcdatamodeld", version: "zmessaging.xcdatamodel", objects: 1780),
    Store(
      folder: wire, file: "store2-80-0.wiredatabase", bundleFolder: wire,
      bundle: "zmessaging.xcdatamodeld", version: "zmessaging2.80.0.xcdatamodel", objects: 99),
    Store(
      folder: wire, file: "store2-101-0.wiredatabase", bundleFolder: wire,
      bundle: "zmessaging.xcdatamodeld", version: "zmessaging2.101.0.xcdatamodel", objects: 99),
    Store(
      folder: careKit, file: "SampleStore2.0.sqlite", bundleFolder: careKit,
      bundle: "CareKitStore.xcdatamodeld", version: "CareKitStore2.0.xcdatamodel", objects: 19),
    Store(
      folder: careKit, file: "SampleStore2.1.sqlite", bundleFolder: careKit,
      bundle: "CareKitStore.xcdatamodeld", version: "CareKitStore2.1.xcdatamodel", objects: 28),
    Store(
      folder: xcs, file: "XCServerCoreData_1.2.0.sqlite", bundleFolder: xcs,
      bundle: "XCServerCoreData.xcdatamodeld", version: "XCServerCoreData1.2.0.xcdatamodel",
      objects: 304),
    Store(
      folder: xcs, file: "XCServerCoreData_2.0.1.sqlite", bundleFolder: xcs,
      bundle: "XCServerCoreData.xcdatamodeld", version: "XCServerCoreData2.0.1.xcdatamodel",
      objects: 13225),
    Store(
      folder: ddg, file: "Bookmarks_V1.sqlite", bundleFolder: ddg,
      bundle: "BookmarksModel.xcdatamodeld", version: "BookmarksModel.xcdatamodel", objects: 10),
    Store(
      folder: ddg, file: "Bookmarks_V2.sqlite", bundleFolder: ddg,
      bundle: "BookmarksModel.xcdatamodeld", version: "BookmarksModel 2.xcdatamodel", objects: 10),
    Store(
      folder: ddg, file: "Bookmarks_V4.sqlite", bundleFolder: ddg,
      bundle: "BookmarksModel.xcdatamodeld", version: "BookmarksModel 4.xcdatamodel", objects: 10),
    Store(
      folder: wib, file: "CoreDataMigration_Example_1.sqlite", bundleFolder: wib,
      bundle: "CoreDataMigration_Example.xcdatamodeld",
      version: "CoreDataMigration_Example.xcdatamodel", objects: 1001),
    Store(
      folder: wib, file: "CoreDataMigration_Example_WAL.sqlite", bundleFolder: wib,
      bundle: "CoreDataMigration_Example.xcdatamodeld",
      version: "CoreDataMigration_Example 4.xcdatamodel", objects: 168),
    Store(
      folder: recipes, file: "Recipes.sqlite", bundleFolder: recipes,
      bundle: "Recipes.xcdatamodeld", version: "Recipes.xcdatamodel", objects: 29),
    Store(
      folder: "thepost__iPhoneCoreDataRecipesMigration__Recipes", file: "Recipes.sqlite",
      bundleFolder: recipes, bundle: "Recipes.xcdatamodeld", version: "Recipes.xcdatamodel",
      objects: 50),
    Store(
      folder: "hwaxxer__BookMigration__Model", file: "Model1.sqlite",
      bundleFolder: "hwaxxer__BookMigration__Model", bundle: "Model.xcdatamodeld",
      version: "Model1.xcdatamodel", objects: 7),
    Store(
      folder: "designatednerd__FlickrSearcher__FlickrSearcher", file: "starter_database.sqlite",
      bundleFolder: "designatednerd__FlickrSearcher__FlickrSearcher",
      bundle: "FlickrSearcher.xcdatamodeld", version: "FlickrSearcher.xcdatamodel", objects: 131),
  ]

  /// The stores, when the corpus is there; none otherwise.
  public static var available: [Store] { isPresent ? stores : [] }

  /// The model version that wrote `store`.
  public static func model(of store: Store) throws -> ManagedObjectModel {
    try ManagedObjectModel(
      contentsOf: root.appendingPathComponent(store.bundleFolder)
        .appendingPathComponent(store.bundle).appendingPathComponent(store.version))
  }

  /// A copy of `store` and its companions in a new scratch folder, writable.
  public static func copy(of store: Store) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "folio-sqlite-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let source = root.appendingPathComponent(store.folder).appendingPathComponent(store.file)
    let target = folder.appendingPathComponent(store.file)
    for suffix in ["", "-wal", "-shm"] {
      let from = URL(fileURLWithPath: source.path + suffix)
      guard FileManager.default.fileExists(atPath: from.path) else { continue }
      let copy = URL(fileURLWithPath: target.path + suffix)
      try FileManager.default.copyItem(at: from, to: copy)
      // The corpus is read-only; its copy is the test's to write.
      try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy.path)
    }
    return target
  }
}
