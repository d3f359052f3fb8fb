import CSQLite
import FolioModel
import FolioStores
import Foundation

/// Core Data's SQLite store (`NSSQLiteStoreType`), the format of almost every Core Data file:
/// read and written in the schema Core Data writes (`Formats/sqlite-store.md`), so the files
/// Macs and iPhones write open here and the files written here keep Core Data's layout.
///
/// Opening reads the whole graph, as for Folio's other formats. Rows that live only in the
/// `-wal` file beside a store are read; the `-wal` is left as SQLite keeps it. A store of
/// 50,000 rows or more is read on a second thread while the consumer takes the records, in
/// the same order and with the same errors as on one thread.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(at: url, format: SQLiteStore())
/// ```
public struct SQLiteStore: StoreFormat {
  /// What a value stored outside the database, in a file of the store's external-data folder,
  /// reads as when that file is missing.
  public enum MissingExternalData: Sendable {
    /// Reading the store fails, naming the table, column, row and file (the default): a
    /// value would otherwise be lost without a word.
    case fail
    /// The value reads as nil. Saving writes only what changed, so an unchanged row keeps
    /// its reference to the file.
    case readAsNil
  }

  /// What a missing external-data file reads as.
  public var missingExternalData: MissingExternalData
  /// Whether a store Folio wrote is checked by its version hashes. The default is `true`;
  /// `false` when the model comes from the store itself (cached in it or inferred from it),
  /// which the hashes of the model that wrote it cannot describe.
  public var checksVersionHashes: Bool
  /// Whether a new store is written with Core Data's persistent history tables, so that every
  /// save after the first is recorded, as Core Data does for a store opened with
  /// `NSPersistentHistoryTrackingKey` (SwiftData opens every store so). The default is `false`.
  public var tracksHistory = false

  /// From how many rows a read goes on a second thread while the consumer takes the records
  /// (``SQLiteReadAhead``), and how many records it hands over at a time; settable for tests.
  package var readAheadThreshold = 50_000
  package var readAheadBatch = 8_192

  public init(
    missingExternalData: MissingExternalData = .fail, checksVersionHashes: Bool = true,
    tracksHistory: Bool = false
  ) {
    self.missingExternalData = missingExternalData
    self.checksVersionHashes = checksVersionHashes
    self.tracksHistory = tracksHistory
  }

  public var typeName: String { "SQLite" }
  public var fileExtension: String { "sqlite" }

  /// The first 16 bytes of every SQLite 3 database file.
  static let header = Array("SQLite format 3\0".utf8)

  public func recognizes(_ prefix: Data) -> Bool {
    prefix.count >= Self.header.count && prefix.prefix(Self.header.count).elementsEqual(Self.header)
  }

  public func readMetadata(from url: URL) throws(StoreError) -> StoreMetadata {
    let database = try Self.beginReading(url)
    defer { try? database.execute("COMMIT") }
    return try SQLiteMetadata.read(from: database)
  }

  /// The whole store. Unlike the records ``read(from:model:into:)`` streams, which give each
  /// relationship on the side that stores it, these name both sides of every relationship,
  /// as the other formats' records do.
  public func read(from url: URL, model: ManagedObjectModel) throws(StoreError) -> StoreContents {
    try read(from: url, model: model, counting: { _, _ in })
  }

  package func read(
    from url: URL, model: ManagedObjectModel, counting counted: (_ done: Int, _ total: Int?) -> Void
  ) throws(StoreError) -> StoreContents {
    var contents = try collectRecords(from: url, model: model, counting: counted)
    contents.records = Self.completingInverses(of: contents.records, model: model)
    return contents
  }

  /// `records` with each relationship's inverse side filled in where the store left it out:
  /// an unordered side gets its members in ID order.
  package static func completingInverses(of records: [StoreRecord], model: ManagedObjectModel)
    -> [StoreRecord]
  {
    var records = records
    var index: [Int64: Int] = [:]
    for (position, record) in records.enumerated() { index[record.id] = position }
    var added: [Int: [String: [Int64]]] = [:]
    // Each entity's relationships' inverse names, found once; records come grouped by entity.
    var inverses: [String: [String: String]] = [:]
    var lastName = ""
    var lastInverses: [String: String] = [:]
    for record in records {
      if record.entityName != lastName {
        lastName = record.entityName
        if let known = inverses[lastName] {
          lastInverses = known
        } else {
          var names: [String: String] = [:]
          if let entity = model.entity(named: lastName) {
            for relationship in entity.allRelationships {
              if let inverse = model.inverse(of: relationship) {
                names[relationship.name] = inverse.name
              }
            }
          }
          inverses[lastName] = names
          lastInverses = names
        }
      }
      for (name, targets) in record.relationships {
        guard let inverse = lastInverses[name] else { continue }
        for target in targets {
          guard let position = index[target], records[position].relationships[inverse] == nil
          else { continue }
          added[position, default: [:]][inverse, default: []].append(record.id)
        }
      }
    }
    for (position, lists) in added {
      for (name, ids) in lists {
        records[position].relationships[name] = Array(Set(ids)).sorted()
      }
    }
    return records
  }

  public func read<Consumer: StoreRecordConsumer>(
    from url: URL, model: ManagedObjectModel, into consumer: inout Consumer
  ) throws(StoreError) {
    let database = try Self.beginReading(url)
    defer { try? database.execute("COMMIT") }
    let metadata = try SQLiteMetadata.read(from: database)
    // A store Folio wrote is checked by its hashes; one Core Data wrote, by its schema.
    if checksVersionHashes { try metadata.checkVersionHashes(against: model, file: url.path) }
    let binding = try SQLiteBinding(schema: SQLiteSchema(model: model), database: database)
    var reader = SQLiteRecordReader(
      database: database, binding: binding,
      externalData: ExternalDataFolder(store: url, missing: missingExternalData))
    reader.givesEveryRelationship = consumer.wantsEveryRelationship
    // Keys are never given out twice: new objects are numbered above every root's Z_MAX.
    let largest = try database.integer("SELECT max(Z_MAX) FROM Z_PRIMARYKEY", at: "Z_PRIMARYKEY")
    let count = try reader.recordCount()
    try consumer.begin(
      metadata: metadata, nextObjectID: min(max(largest ?? 0, 0), StoreKeySpace.maximumKey) + 1,
      recordCount: count)
    if count >= readAheadThreshold {
      try SQLiteReadAhead(batchSize: readAheadBatch).run(
        reading: { (batcher) throws(StoreError) in try reader.read(into: &batcher) },
        into: &consumer)
    } else {
      try reader.read(into: &consumer)
    }
    try consumer.finish()
  }

  /// The model the store caches in `Z_MODELCACHE`: the one Core Data wrote it (or last
  /// migrated it) with, as Core Data compiled it, or the one Folio wrote it with; `nil` when the
  /// store has no cache (Core Data before 2011). What opens a store when its model is not at
  /// hand.
  ///
  /// - Throws: `StoreError` when the file is not a Core Data store, or its cache cannot be
  ///   decoded (`.malformedStore`, naming the file).
  public func readModel(from url: URL) throws(StoreError) -> ManagedObjectModel? {
    let database = try Self.beginReading(url)
    defer { try? database.execute("COMMIT") }
    let tables = Set(try database.tableNames().map { $0.uppercased() })
    guard tables.contains("Z_MODELCACHE") else { return nil }
    let statement = try database.prepare("SELECT Z_CONTENT FROM Z_MODELCACHE", at: "Z_MODELCACHE")
    guard try statement.step(), let blob = statement.blob(0), !blob.isEmpty else { return nil }
    return try SQLiteModelCache.decode(blob, file: url.path)
  }

  /// A model inferred from the store's schema, for a store that caches none: entities and
  /// inheritance, attributes typed by their columns (named in lower case: the schema does not
  /// keep the original case), to-one relationships where Core Data indexed a foreign key, and
  /// many-to-many relationships from join tables (`Formats/sqlite-store.md`). What opens a store
  /// from before 2011 when its model is not at hand; prefer ``readModel(from:)`` when it gives
  /// one.
  ///
  /// - Throws: `StoreError` when the file is not a Core Data store, or its schema names no
  ///   entity or a table that is not there (`.malformedStore`).
  public static func inferModel(from url: URL) throws(StoreError) -> ManagedObjectModel {
    try SQLiteModelInference.infer(from: try open(url))
  }

  public func writeMetadata(_ metadata: StoreMetadata, to url: URL) throws(StoreError) {
    let database = try Self.open(url, readOnly: false)
    try database.transaction { () throws(StoreError) in
      let old = try SQLiteMetadata.read(from: database)
      var new = metadata
      // What describes the objects stays the file's.
      new.modelVersionHashes = old.modelVersionHashes
      for key in SQLiteMetadata.hashDerivedKeys { new.userInfo[key] = old.userInfo[key] }
      if new.identifier.isEmpty { new.identifier = old.identifier }
      try SQLiteMetadata.write(new, to: database)
    }
  }

  public func write(_ contents: StoreContents, model: ManagedObjectModel, to url: URL)
    throws(StoreError)
  {
    try SQLiteWriter.writeNewStore(contents, model: model, to: url)
    if tracksHistory { try enableHistoryTracking(at: url, model: model) }
  }

  /// Why a store in WAL mode cannot be read where it is, when that is why it failed to open:
  /// SQLite reads one through its shared-memory file `NAME-shm`, which it must create beside
  /// the store when it is not there, so the folder has to take a new file.
  static func walReadProblem(_ url: URL) -> String? {
    guard let handle = FileHandle(forReadingAtPath: url.path) else { return nil }
    defer { try? handle.close() }
    // Bytes 18 and 19 of the header are the write and read format versions: 2 is WAL.
    guard let header = try? handle.read(upToCount: 20), header.count == 20, header[18] == 2
    else { return nil }
    let folder = url.deletingLastPathComponent().path
    guard !FileManager.default.fileExists(atPath: url.path + "-shm"),
      access(folder.isEmpty ? "." : folder, W_OK) != 0
    else { return nil }
    return "the store is in WAL mode and its folder is not writable: SQLite must create "
      + "\(url.lastPathComponent)-shm beside it to read it. Make the folder writable, or copy "
      + "the store with its -wal file somewhere that is"
  }

  /// Opens the database at `url` as ``open(_:readOnly:)`` does, and begins a read transaction
  /// holding SQLite's shared lock, so that everything read until `COMMIT` is one state of the
  /// store. A save killed midway after the store was opened leaves a hot journal, which a
  /// read-only connection cannot roll back: the transaction is then begun on a read-write
  /// connection, which rolls it back first, as any SQLite program's does.
  static func beginReading(_ url: URL) throws(StoreError) -> SQLiteDatabase {
    func begin(_ database: SQLiteDatabase) throws(StoreError) {
      try database.execute("BEGIN")
      do {
        _ = try database.integer("SELECT count(*) FROM sqlite_master", at: "sqlite_master")
      } catch {
        try? database.execute("ROLLBACK")
        throw error
      }
    }
    let database = try open(url)
    do {
      try begin(database)
      return database
    } catch  where error.code == .unreadable && FileManager.default.isWritableFile(atPath: url.path)
    {
      database.close()
      let writable = try open(url, readOnly: false)
      try begin(writable)
      return writable
    }
  }

  /// Opens the database at `url`, checking that it is a Core Data store.
  static func open(_ url: URL, readOnly: Bool = true) throws(StoreError) -> SQLiteDatabase {
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw StoreError(.notFound, "no such file", at: InputLocation(file: url.path))
    }
    // A store its owner made read-only is not written, even by the superuser.
    if !readOnly { _ = try WriteAccess.check(url.path, reportedAs: url.path) }
    var database = try SQLiteDatabase(path: url.path, readOnly: readOnly)
    let tables: [String]
    do {
      do {
        tables = try database.tableNames()
      } catch
        where readOnly && FileManager.default.isWritableFile(atPath: url.path)
        && FileManager.default.fileExists(atPath: url.path + "-journal")
      {
        // A save killed midway leaves a hot journal, which a read-only connection cannot roll
        // back: a read-write one does (as Core Data's would), and then the store reads as it
        // was before that save.
        database.close()
        database = try SQLiteDatabase(path: url.path, readOnly: false)
        tables = try database.tableNames()
      }
    } catch {
      if let reason = Self.walReadProblem(url) {
        throw StoreError(.unreadable, reason, at: InputLocation(file: url.path))
      }
      throw StoreError(
        error.code == .unreadable ? .unreadable : .malformedStore,
        "not a readable SQLite database: \(error.message)",
        at: InputLocation(file: url.path, byteOffset: 0))
    }
    let upper = Set(tables.map { $0.uppercased() })
    guard upper.contains("Z_METADATA"), upper.contains("Z_PRIMARYKEY") else {
      throw StoreError(
        .unknownFormat,
        "a SQLite database, but not a Core Data store: it has no Z_METADATA and Z_PRIMARYKEY "
          + "tables",
        at: InputLocation(file: url.path))
    }
    return database
  }
}

extension SQLiteStore: CountingWholeRead {}

extension SQLiteStore: ModelCarryingStoreFormat {
  package var carriedModelPlace: String { "cached in the file (Z_MODELCACHE)" }
}

extension SQLiteStore: ModelInferringStoreFormat {
  package func inferModel(from url: URL) throws(StoreError) -> ManagedObjectModel {
    try Self.inferModel(from: url)
  }

  package var inferredModelPlace: String { "inferred from the file's schema" }

  /// A SQLite store's tables do not say which integer columns are references, nor a
  /// one-to-many relationship's other side: written in any format, those would be guesses.
  package func unfaithfulness(
    of model: ManagedObjectModel, inferredFrom name: String, writtenAs format: any StoreFormat
  ) -> String? {
    "the model of \"\(name)\" was inferred from its tables, which keep no model: which columns are references, and the other sides of one-to-many relationships, are guesses. Pass --model with the model that wrote it"
  }
}
