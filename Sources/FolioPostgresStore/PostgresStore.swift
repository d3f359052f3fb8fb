import FolioModel
import FolioSQLiteStore
import FolioStores
internal import FolioSupport
import Foundation

/// A document in a PostgreSQL database: a schema holding Core Data's SQLite layout translated
/// to PostgreSQL's types (`Formats/postgres-store.md`), named by a URL,
/// `postgresql://USER@HOST:PORT/DATABASE?schema=NAME`.
///
/// A whole write replaces the document's tables in one transaction, so a reader sees the old
/// document or the new one, never a mixture, and a client killed midway leaves the old one.
/// A read takes one snapshot of every table (`REPEATABLE READ`), so a save by another client
/// meanwhile is seen whole or not at all.
///
/// The tables are built, and read, through a SQLite database in the system's temporary
/// folder: the layout is the SQLite store's, rule for rule, and so is the reading of it.
///
/// ```swift
/// let url = URL(string: "postgresql://app@db.example.com/books?schema=library")!
/// try coordinator.addPersistentStore(at: url, format: PostgresStore())
/// ```
public struct PostgresStore: StoreFormat {
  /// Whether a write replaces a document the schema already holds. With `false`, the
  /// default, such a write is refused and the document left as it is.
  public var replacesExisting: Bool

  public init(replacesExisting: Bool = false) {
    self.replacesExisting = replacesExisting
  }

  /// From how many rows a read goes on a second thread while the consumer takes the records;
  /// settable for tests.
  package var readAheadThreshold = 50_000

  public var typeName: String { "PostgreSQL" }
  public var fileExtension: String { "postgresql" }

  /// Never: a PostgreSQL document is not a file, and is recognised by its URL's scheme.
  public func recognizes(_ prefix: Data) -> Bool { false }

  public func readMetadata(from url: URL) throws(StoreError) -> StoreMetadata {
    let connection = try PostgresConnection(try PostgresLocation(url))
    return try Self.metadata(in: connection)
  }

  public func read(from url: URL, model: ManagedObjectModel) throws(StoreError) -> StoreContents {
    var collector = StoreContentsCollector()
    try read(from: url, model: model, into: &collector)
    var contents = collector.contents
    contents.records = SQLiteStore.completingInverses(of: contents.records, model: model)
    return contents
  }

  /// Streams the document's records from one snapshot: each table's rows straight from
  /// `COPY (…) TO STDOUT`, read by the SQLite store's reader.
  public func read<Consumer: StoreRecordConsumer>(
    from url: URL, model: ManagedObjectModel, into consumer: inout Consumer
  ) throws(StoreError) {
    let connection = try PostgresConnection(try PostgresLocation(url))
    try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    defer { try? connection.execute("ROLLBACK") }
    try read(in: connection, model: model, into: &consumer)
  }

  /// Streams the document's records as the transaction `connection` has begun sees them.
  /// The transaction's search path is the document's schema afterwards.
  func read<Consumer: StoreRecordConsumer>(
    in connection: PostgresConnection, model: ManagedObjectModel, into consumer: inout Consumer
  ) throws(StoreError) {
    let location = connection.location
    let metadata = try Self.metadata(in: connection)
    try metadata.checkVersionHashes(against: model, file: location.url.absoluteString)
    let schema = SQLiteSchema(model: model)
    guard schema.unsupported.isEmpty else {
      throw StoreError(
        .modelMismatch,
        "the model has what a Core Data layout cannot hold: "
          + schema.unsupported.joined(separator: ", "), at: location.inputLocation)
    }
    // The reader names tables without their schema.
    try connection.execute("SET LOCAL search_path TO \(connection.quotedSchema)")
    let database = CopyTextDatabase(connection)
    var reader = SQLiteRecordReader(database: database, schema: schema)
    reader.givesEveryRelationship = consumer.wantsEveryRelationship
    // Keys are never given out twice: new objects are numbered above every root's Z_MAX.
    let largest = try database.firstInteger(
      "SELECT max(\"Z_MAX\") FROM \"Z_PRIMARYKEY\"", at: "Z_PRIMARYKEY")
    let count = try reader.recordCount()
    try consumer.begin(
      metadata: metadata, nextObjectID: min(max(largest ?? 0, 0), StoreKeySpace.maximumKey) + 1,
      recordCount: count)
    connection.fault(.read)
    if count >= readAheadThreshold {
      // The rows are parsed on a second thread while the consumer takes the records, as a
      // SQLite store's are; the connection is that thread's until the read returns.
      try SQLiteReadAhead().run(
        reading: { (batcher) throws(StoreError) in try reader.read(intoBatches: &batcher) },
        into: &consumer)
    } else {
      try reader.read(into: &consumer)
    }
    try consumer.finish()
  }

  /// The document read through a SQLite copy of its tables, by the SQLite store's reader
  /// whole: the plain twin of ``read(from:model:)``, against which that read is checked.
  package func readThroughCopy(from url: URL, model: ManagedObjectModel) throws(StoreError)
    -> StoreContents
  {
    try withStagedCopy(of: url) { staged throws(StoreError) in
      try SQLiteStore().read(from: staged, model: model)
    }
  }

  public func writeMetadata(_ metadata: StoreMetadata, to url: URL) throws(StoreError) {
    let connection = try PostgresConnection(try PostgresLocation(url))
    try connection.execute("BEGIN")
    do throws(StoreError) {
      try Self.lock(connection)
      _ = try Self.metadata(in: connection)
      var written = metadata
      written.storeType = typeName
      try Self.replaceMetadata(written, in: connection)
      try connection.execute("COMMIT")
    } catch {
      try? connection.execute("ROLLBACK")
      throw error
    }
  }

  /// Writes `contents` as the document in the URL's schema, creating the schema when there
  /// is none, in one transaction.
  ///
  /// - Throws: `StoreError.writeFailed` when the schema already holds a document and
  ///   ``replacesExisting`` is `false`; the server's refusals (`.writeFailed`, `.busy`,
  ///   `.typeMismatch` for text holding NUL, which PostgreSQL cannot store); what building
  ///   Core Data's layout throws. Nothing is changed then.
  public func write(_ contents: StoreContents, model: ManagedObjectModel, to url: URL)
    throws(StoreError)
  {
    let location = try PostgresLocation(url)
    let place = location.url.absoluteString
    try Self.withScratchFolder { folder throws(StoreError) in
      let (staged, metadata) = try stage(contents, model: model, in: folder, reportingAs: place)
      let connection = try PostgresConnection(location)
      try connection.execute("BEGIN")
      do throws(StoreError) {
        try Self.lock(connection)
        try clearSchema(of: connection)
        try Self.writeTables(of: staged, metadata: metadata, in: connection)
        // Clients with the old document open learn that it changed, and read it whole.
        try PostgresHistory.recordReplacement(in: connection)
        try connection.execute("COMMIT", at: "COMMIT")
      } catch {
        try? connection.execute("ROLLBACK")
        throw error
      }
    }
  }

  /// `contents` built into a SQLite database in `folder`, in Core Data's layout, and the
  /// metadata to write with it.
  func stage(
    _ contents: StoreContents, model: ManagedObjectModel, in folder: URL,
    reportingAs place: String
  ) throws(StoreError) -> (staged: URL, metadata: StoreMetadata) {
    let staged = folder.appendingPathComponent("document.sqlite")
    try SQLiteStore().buildDatabase(contents, model: model, at: staged, reportingAs: place)
    var metadata = try SQLiteStore().readMetadata(from: staged)
    metadata.storeType = typeName
    return (staged, metadata)
  }

  /// The tables of the SQLite database at `staged` written into the connection's schema,
  /// which holds none of them, with the save history's table and `metadata`.
  static func writeTables(
    of staged: URL, metadata: StoreMetadata, in connection: PostgresConnection
  ) throws(StoreError) {
    try PostgresTables.copy(try SQLiteTableCopy(reading: staged), into: connection)
    try PostgresHistory.create(in: connection)
    try replaceMetadata(metadata, in: connection)
  }

  // MARK: The schema

  /// Makes the schema ready for a new document: created when missing; when it holds a
  /// document, that document's tables dropped if ``replacesExisting``, else a refusal.
  private func clearSchema(of connection: PostgresConnection) throws(StoreError) {
    let tables = try PostgresTables.tables(in: connection).map(\.name)
    if tables.contains("Z_METADATA") {
      guard replacesExisting else {
        throw StoreError(
          .writeFailed,
          "schema \"\(connection.location.schema)\" already holds a document; "
            + "replace it explicitly (folio convert --replace)",
          at: connection.location.inputLocation)
      }
      // Only Core Data's tables: anything else the schema holds is someone else's. The save
      // history stays, its numbers going on, so that every client open sees it move.
      for table in tables where table.hasPrefix("Z") && table != PostgresHistory.table {
        try connection.execute(
          "DROP TABLE \(connection.qualified(table)) CASCADE", at: "dropping \(table)")
      }
    }
    try connection.execute(
      "CREATE SCHEMA IF NOT EXISTS \(connection.quotedSchema)", at: "creating the schema")
  }

  /// Holds the document's write lock until the transaction ends: writers of one document
  /// take turns, and never block writers of another.
  static func lock(_ connection: PostgresConnection) throws(StoreError) {
    _ = try connection.query(
      "SELECT pg_advisory_xact_lock(hashtext($1))", ["folio:" + connection.location.schema],
      at: "locking the document")
  }

  /// The largest key given to an object of any entity (every root's `Z_MAX`): Folio's clients
  /// number new objects above it.
  static func largestKeyGiven(in connection: PostgresConnection) throws(StoreError) -> Int64 {
    try connection.query(
      "SELECT COALESCE(max(\"Z_MAX\"), 0) FROM \(connection.qualified("Z_PRIMARYKEY"))",
      at: "Z_PRIMARYKEY"
    ).first?[0].flatMap { Int64($0) } ?? 0
  }

  // MARK: Metadata

  static func metadata(in connection: PostgresConnection) throws(StoreError) -> StoreMetadata {
    let rows: [[String?]]
    do {
      rows = try connection.query(
        "SELECT \"Z_UUID\", \"Z_PLIST\" FROM \(connection.qualified("Z_METADATA")) "
          + "ORDER BY \"Z_VERSION\" LIMIT 1", at: "Z_METADATA")
    } catch  where error.code == .notFound {
      throw StoreError(
        .notFound, "schema \"\(connection.location.schema)\" holds no document",
        at: connection.location.inputLocation)
    }
    let place = connection.location.url.absoluteString
    guard let row = rows.first else {
      throw StoreError(.malformedStore, "Z_METADATA has no row", at: InputLocation(file: place))
    }
    let plist = row[1].flatMap { CopyText.bytea(Array($0.utf8)) }
    return try SQLiteStore.metadata(identifier: row[0], propertyList: plist, file: place)
  }

  static func replaceMetadata(_ metadata: StoreMetadata, in connection: PostgresConnection)
    throws(StoreError)
  {
    let plist = SQLiteStore.metadataPropertyList(metadata)
    let hex = "\\x" + plist.map { String(format: "%02x", $0) }.joined()
    _ = try connection.query(
      "UPDATE \(connection.qualified("Z_METADATA")) SET \"Z_UUID\" = $1, \"Z_PLIST\" = $2",
      [metadata.identifier.isEmpty ? UUID().uuidString : metadata.identifier, hex],
      at: "Z_METADATA")
  }

  // MARK: Staging

  /// Runs `body` on a SQLite copy of the document's tables, taken in one snapshot; errors
  /// name the document's URL, not the copy.
  private func withStagedCopy<T>(of url: URL, _ body: (URL) throws(StoreError) -> T)
    throws(StoreError) -> T
  {
    let location = try PostgresLocation(url)
    let connection = try PostgresConnection(location)
    try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    defer { try? connection.execute("ROLLBACK") }
    _ = try Self.metadata(in: connection)
    return try Self.withScratchFolder { folder throws(StoreError) in
      let staged = folder.appendingPathComponent("document.sqlite")
      try PostgresTables.copy(from: connection, into: try SQLiteTableCopy(creating: staged))
      do throws(StoreError) {
        return try body(staged)
      } catch {
        var located = error
        var place = error.location ?? InputLocation()
        place.file = location.url.absoluteString
        located.location = place
        throw located
      }
    }
  }

  static func withScratchFolder<T>(_ body: (URL) throws(StoreError) -> T)
    throws(StoreError) -> T
  {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("folio-postgres-\(UUID().uuidString)", isDirectory: true)
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw StoreError(
        .writeFailed, "cannot make a scratch folder: \(error.localizedDescription)",
        at: InputLocation(file: folder.path))
    }
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
  }
}

extension PostgresStore: ModelCarryingStoreFormat {
  package func readModel(from url: URL) throws(StoreError) -> ManagedObjectModel? {
    let connection = try PostgresConnection(try PostgresLocation(url))
    _ = try Self.metadata(in: connection)
    let rows: [[String?]]
    do {
      rows = try connection.query(
        "SELECT \"Z_CONTENT\" FROM \(connection.qualified("Z_MODELCACHE")) LIMIT 1",
        at: "Z_MODELCACHE")
    } catch  where error.code == .notFound {
      return nil
    }
    guard let text = rows.first?[0], let blob = CopyText.bytea(Array(text.utf8)) else {
      return nil
    }
    return try SQLiteModelCache.decode(blob, file: url.absoluteString)
  }

  package var carriedModelPlace: String { "the model cached in Z_MODELCACHE" }
}

extension PostgresStore {
  /// Drops the URL's schema and everything in it; for tests, which each work in a schema of
  /// their own.
  package static func dropSchema(at url: URL) throws(StoreError) {
    let connection = try PostgresConnection(try PostgresLocation(url))
    try connection.execute("DROP SCHEMA IF EXISTS \(connection.quotedSchema) CASCADE")
  }

  /// Every table of the URL's schema, its columns and its rows, as lines of text in a fixed
  /// order: for tests, to show that a document is exactly as it was.
  package static func dumpSchema(at url: URL) throws(StoreError) -> [String] {
    let connection = try PostgresConnection(try PostgresLocation(url))
    var lines: [String] = []
    for table in try PostgresTables.tables(in: connection).sorted(by: { $0.name < $1.name }) {
      lines.append(
        table.name + ": " + table.columns.map { "\($0.name) \($0.type)" }.joined(separator: ", "))
      let rows = try connection.query(
        "SELECT t::text FROM \(connection.qualified(table.name)) AS t ORDER BY 1", at: table.name)
      lines += rows.map { "  " + ($0[0] ?? "NULL") }
    }
    let indexes = try connection.query(
      "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname",
      [connection.location.schema], at: "pg_indexes")
    return lines + indexes.map { $0[0] ?? "" }
  }

  /// How many connections wait for the write lock of the URL's document; for tests, to know
  /// that a writer is held up by another.
  package static func writersWaiting(at url: URL) throws(StoreError) -> Int {
    let connection = try PostgresConnection(try PostgresLocation(url))
    // An advisory lock on one bigint key has its low 32 bits in objid.
    let rows = try connection.query(
      "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
        + "AND objsubid = 1 AND objid = ((hashtext($1)::bigint) & 4294967295)::oid "
        + "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      ["folio:" + connection.location.schema], at: "pg_locks")
    return rows.first?[0].flatMap { Int($0) } ?? 0
  }
}
