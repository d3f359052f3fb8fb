import CSQLite
import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

/// Writes Core Data SQLite stores: a whole new file from records, in Core Data's schema.
enum SQLiteWriter {
  /// The bookkeeping tables, with the text Core Data declares them with.
  static let fixedTables = [
    "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
    "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
  ]

  /// Writes `contents` as a new store at `url`, replacing what is there atomically: the
  /// database is built beside it, in a scratch file (``ScratchFile``), and moved into place
  /// whole.
  ///
  /// A record's key is its ID's key in its hierarchy's space (``StoreKeySpace``); records of a
  /// store that numbers all objects in one sequence (space 0) keep their ID as their key, so
  /// object URIs stay the same.
  ///
  /// - Throws: `StoreError.modelMismatch` for what the schema cannot hold; `.malformedStore`
  ///   for a record that does not fit the model; `.writeFailed`. The old file is then intact.
  static func writeNewStore(_ contents: StoreContents, model: ManagedObjectModel, to url: URL)
    throws(StoreError)
  {
    let schema = SQLiteSchema(model: model)
    guard schema.unsupported.isEmpty else {
      throw StoreError(
        .modelMismatch,
        "the model has what a SQLite store cannot hold: "
          + schema.unsupported.joined(separator: ", "),
        at: InputLocation(file: url.path))
    }
    // The new database is built beside the store, never in the system's temporary folder:
    // the same disk, and a build killed midway is cleaned up by the next write.
    let scratchFile = try ScratchFile(besides: url)
    defer { scratchFile.discard() }
    let scratch = scratchFile.url
    do {
      try buildDatabase(contents, schema: schema, model: model, at: scratch)
    } catch {
      // The file is the one being written, not the scratch copy; the entity and property a
      // bad record names stay.
      var located = error
      var location = error.location ?? InputLocation()
      location.file = url.path
      located.location = location
      throw located
    }
    try replace(url, with: scratch)
  }

  /// Creates the schema in `database` and inserts every record.
  /// Builds a new database holding `contents` at `path`, where no file is.
  static func buildDatabase(
    _ contents: StoreContents, schema: SQLiteSchema, model: ManagedObjectModel, at path: URL
  ) throws(StoreError) {
    let database = try SQLiteDatabase(path: path.path, readOnly: false, create: true)
    // The new file needs no journal: it is thrown away if anything fails.
    try database.execute(
      "PRAGMA journal_mode = OFF; PRAGMA auto_vacuum = 2; PRAGMA page_size = 4096; "
        + "PRAGMA synchronous = OFF")
    try database.execute("BEGIN")
    try build(contents, schema: schema, model: model, in: database)
    try SQLiteCommitLog.create(in: database)
    try database.execute("COMMIT")
    try SQLiteCommitLog.recordFirstCommit(in: database)
    try database.execute("PRAGMA journal_mode = DELETE")
    database.close()
  }

  static func build(
    _ contents: StoreContents, schema: SQLiteSchema, model: ManagedObjectModel,
    in database: SQLiteDatabase
  ) throws(StoreError) {
    try createTables(schema, in: database)
    // Each record's entity number and key, found first: foreign keys and entity columns of
    // targets are written from them.
    var entityOfID: [Int64: Int] = [:]
    entityOfID.reserveCapacity(contents.records.count)
    var maximumKey: [Int: Int64] = [:]
    for record in contents.records {
      guard let entity = schema.entity(record.entityName), !entity.isAbstract else {
        throw StoreError(
          .malformedStore,
          "a record of \(record.entityName), which is not a concrete entity of the model",
          at: InputLocation(entity: record.entityName))
      }
      let space = StoreKeySpace.space(of: record.id)
      guard space == 0 || space == entity.rootNumber else {
        throw StoreError(
          .malformedStore,
          "the record \(record.id) of \(record.entityName) is numbered in another hierarchy",
          at: InputLocation(entity: record.entityName))
      }
      let key = StoreKeySpace.key(of: record.id)
      guard key >= 1 else {
        throw StoreError(
          .malformedStore, "the record of \(record.entityName) has key \(key)",
          at: InputLocation(entity: record.entityName))
      }
      guard entityOfID.updateValue(entity.number, forKey: record.id) == nil else {
        throw StoreError(
          .malformedStore, "two records have the ID \(record.id)",
          at: InputLocation(entity: record.entityName))
      }
      maximumKey[entity.rootNumber] = max(maximumKey[entity.rootNumber] ?? 0, key)
    }
    // Keys must be unique within each table: space-0 IDs are unique across the store.
    var orderOf = OrderPositions(contents: contents, schema: schema)
    try insertRows(contents, schema: schema, entityOfID: entityOfID, orders: &orderOf, in: database)
    try insertJoinRows(
      contents, schema: schema, entityOfID: entityOfID, orders: orderOf, in: database)
    try writePrimaryKeys(schema, largestKeys: maximumKey, in: database)
    var written = metadata(contents.metadata, of: model)
    if contents.keepsVersionHashes {
      // The original's hashes, and no checksum of Folio's: checked by structure, as a store
      // Core Data wrote is.
      written.modelVersionHashes = contents.metadata.modelVersionHashes
      written.modelVersionIdentifiers = contents.metadata.modelVersionIdentifiers
      written.userInfo[StoreMetadata.folioChecksumKey] =
        contents.metadata.userInfo[
          StoreMetadata.folioChecksumKey]
    }
    try SQLiteMetadata.write(written, to: database)
    try writeModelCache(model, in: database)
    for sql in schema.indexes { try database.execute(sql) }
  }

  /// `Z_MODELCACHE`: the model the store is written with, as Core Data caches it, so the store
  /// opens with its relationships whole where no model is at hand.
  static func writeModelCache(_ model: ManagedObjectModel, in database: SQLiteDatabase)
    throws(StoreError)
  {
    try database.execute("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
    let insert = try database.prepare(
      "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", at: "Z_MODELCACHE")
    insert.bind(SQLiteModelCache.encode(model), at: 1)
    try insert.run(at: "Z_MODELCACHE")
  }

  /// `Z_PRIMARYKEY`: each entity's number, name and parent, and for each hierarchy's root the
  /// largest key given out (`largestKeys`, by the root's number).
  static func writePrimaryKeys(
    _ schema: SQLiteSchema, largestKeys: [Int: Int64], in database: SQLiteDatabase
  ) throws(StoreError) {
    let primaryKeys = try database.prepare(
      "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)")
    for entity in schema.entities {
      primaryKeys.reset()
      primaryKeys.bind(Int64(entity.number), at: 1)
      primaryKeys.bind(entity.name, at: 2)
      primaryKeys.bind(Int64(entity.superNumber), at: 3)
      let max = entity.number == entity.rootNumber ? largestKeys[entity.number] ?? 0 : 0
      primaryKeys.bind(max, at: 4)
      try primaryKeys.run(at: "Z_PRIMARYKEY")
    }
  }

  /// The bookkeeping tables and the schema's tables, empty.
  static func createTables(_ schema: SQLiteSchema, in database: SQLiteDatabase)
    throws(StoreError)
  {
    let q = Quoting.sqlIdentifier
    for sql in fixedTables { try database.execute(sql) }
    for (table, columns) in schema.tables {
      try database.execute(
        "CREATE TABLE \(q(table)) ( "
          + columns.map { "\(q($0.name)) \($0.type)" }.joined(separator: ", ")
          + join(primaryKeyOf: table, schema: schema) + " )")
    }
  }

  /// `metadata` as a new store written with `model` records it: the model's hashes and
  /// version identifier, and Folio's checksum of the hashes.
  static func metadata(_ metadata: StoreMetadata, of model: ManagedObjectModel) -> StoreMetadata {
    var metadata = metadata
    metadata.storeType = "SQLite"
    metadata.modelVersionHashes = model.entityVersionHashesByName
    if let identifier = model.versionIdentifier { metadata.modelVersionIdentifiers = [identifier] }
    // Keys computed from another file's hashes would contradict these: Folio records its own
    // checksum of the hashes it writes instead, as in its other formats.
    for key in SQLiteMetadata.hashDerivedKeys { metadata.userInfo[key] = nil }
    metadata.userInfo[StoreMetadata.folioChecksumKey] = .string(
      StoreMetadata.folioChecksum(of: metadata.modelVersionHashes))
    return metadata
  }

  private static func join(primaryKeyOf table: String, schema: SQLiteSchema) -> String {
    guard let join = schema.joinTables.first(where: { $0.name == table }) else { return "" }
    let q = Quoting.sqlIdentifier
    return ", PRIMARY KEY (\(q(join.sides[0].ownerColumn)), \(q(join.sides[1].ownerColumn)))"
  }

  /// Each member's position in each ordered relationship, by relationship and the pair of
  /// owner and member IDs, as Core Data numbers a fresh list: 2048, 3072, 4096, …
  struct OrderPositions {
    private var positions: [String: [Int64: [Int64: Int64]]] = [:]

    init(contents: StoreContents, schema: SQLiteSchema) {
      var ordered: Set<String> = []
      for (owner, list) in schema.orderedToManys {
        for relationship in list { ordered.insert(owner + "." + relationship.relationship.name) }
      }
      for join in schema.joinTables {
        for side in join.sides where side.orderColumn != nil {
          ordered.insert(side.entity + "." + side.relationship.name)
        }
      }
      guard !ordered.isEmpty else { return }
      let names = Set(ordered.map { String($0.split(separator: ".").last ?? "") })
      for record in contents.records {
        for (name, targets) in record.relationships where names.contains(name) {
          var byMember: [Int64: Int64] = [:]
          for (index, target) in targets.enumerated() {
            byMember[target] = Int64(index + 2) * 1024
          }
          positions[name, default: [:]][record.id] = byMember
        }
      }
    }

    /// The position of `member` in `owner`'s relationship `name`, if it is listed.
    func position(of member: Int64, in name: String, of owner: Int64) -> Int64? {
      positions[name]?[owner]?[member]
    }
  }

  private static func insertRows(
    _ contents: StoreContents, schema: SQLiteSchema, entityOfID: [Int64: Int],
    orders: inout OrderPositions, in database: SQLiteDatabase
  ) throws(StoreError) {
    let q = Quoting.sqlIdentifier
    var statements: [String: (SQLiteStatement, [String: Int])] = [:]
    for (table, columns) in schema.tables
    where !schema.joinTables.contains(where: { $0.name == table }) {
      let sql =
        "INSERT INTO \(q(table)) (" + columns.map { q($0.name) }.joined(separator: ", ")
        + ") VALUES (" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
      let positions = Dictionary(
        columns.enumerated().map { ($0.element.name, $0.offset + 1) },
        uniquingKeysWith: { a, _ in a })
      statements[table] = (try database.prepare(sql, at: table), positions)
    }
    // The order column of each member of an ordered one-to-many: by the inverse's name.
    var orderColumnOf: [String: (table: String, column: String, owner: String)] = [:]
    for (_, list) in schema.orderedToManys {
      for ordered in list {
        orderColumnOf[ordered.memberTable + "." + (ordered.relationship.inverseName ?? "")] = (
          ordered.memberTable, ordered.orderColumn, ordered.relationship.name
        )
      }
    }
    // What a record of each entity binds, found at its first record.
    var plans: [String: InsertPlan] = [:]
    func plan(of name: String) -> InsertPlan? {
      if let found = plans[name] { return found }
      guard let entity = schema.entity(name), let (statement, positions) = statements[entity.table]
      else { return nil }
      let found = InsertPlan(
        entity: entity, statement: statement,
        attributes: (schema.attributes[name] ?? []).compactMap { column in
          positions[column.column].map { InsertPlan.Attribute(position: $0, column.attribute) }
        },
        toOnes: (schema.toOnes[name] ?? []).map { toOne in
          let order = orderColumnOf[entity.table + "." + toOne.relationship.name]
          return InsertPlan.ToOne(
            name: toOne.relationship.name, position: positions[toOne.column],
            entityPosition: toOne.entityColumn.flatMap { positions[$0] },
            order: order.flatMap { order in positions[order.column].map { (order.owner, $0) } })
        })
      plans[name] = found
      return found
    }
    var last: InsertPlan?
    for record in contents.records {
      if last?.entity.name != record.entityName { last = plan(of: record.entityName) }
      guard let plan = last else { continue }
      let (entity, statement) = (plan.entity, plan.statement)
      statement.reset()
      let key = StoreKeySpace.key(of: record.id)
      // Every table starts Z_PK, Z_ENT, Z_OPT; a row keeps the version it had.
      statement.bind(key, at: 1)
      statement.bind(Int64(entity.number), at: 2)
      statement.bind(Int64(max(record.version, 1)), at: 3)
      for bound in plan.attributes {
        let value = record.attribute(bound.name)
        if let value, !value.fits(bound.type) {
          throw StoreError(
            .typeMismatch, "\(value.modelText) is not of type \(bound.type.xcodeName)",
            at: InputLocation(entity: entity.name, property: bound.name))
        }
        SQLiteValues.bind(value, at: bound.position, to: statement, attribute: bound.attribute)
      }
      for toOne in plan.toOnes {
        guard let target = record.targets(of: toOne.name)?.first else { continue }
        guard let targetEntity = entityOfID[target] else {
          throw StoreError(
            .danglingReference,
            "\(entity.name).\(toOne.name) of record \(record.id) names \(target), "
              + "which is not in the store",
            at: InputLocation(entity: entity.name, property: toOne.name))
        }
        if let position = toOne.position {
          statement.bind(StoreKeySpace.key(of: target), at: position)
        }
        if let position = toOne.entityPosition {
          statement.bind(Int64(targetEntity), at: position)
        }
        if let order = toOne.order,
          let value = orders.position(of: record.id, in: order.owner, of: target)
        {
          statement.bind(value, at: order.position)
        }
      }
      try statement.run(at: "row Z_PK \(key)")
    }
  }

  /// What inserting a record of one entity binds: its table's statement, each attribute's
  /// parameter, and each to-one's key, entity and order parameters.
  private final class InsertPlan {
    /// An attribute and its parameter, shared rather than copied at each record.
    final class Attribute {
      let position: Int
      let attribute: AttributeDescription
      let name: String
      let type: AttributeType

      init(position: Int, _ attribute: AttributeDescription) {
        (self.position, self.attribute) = (position, attribute)
        (name, type) = (attribute.name, attribute.attributeType)
      }
    }

    struct ToOne {
      let name: String
      let position: Int?
      let entityPosition: Int?
      /// The owning relationship's name and the parameter of the order column, for a member
      /// of an ordered one-to-many.
      let order: (owner: String, position: Int)?
    }

    let entity: SQLiteSchema.Entity
    let statement: SQLiteStatement
    let attributes: [Attribute]
    let toOnes: [ToOne]

    init(
      entity: SQLiteSchema.Entity, statement: SQLiteStatement, attributes: [Attribute],
      toOnes: [ToOne]
    ) {
      (self.entity, self.statement, self.attributes, self.toOnes) = (
        entity, statement, attributes, toOnes
      )
    }
  }

  private static func insertJoinRows(
    _ contents: StoreContents, schema: SQLiteSchema, entityOfID: [Int64: Int],
    orders: OrderPositions, in database: SQLiteDatabase
  ) throws(StoreError) {
    let q = Quoting.sqlIdentifier
    for join in schema.joinTables {
      var columns = [join.sides[0].ownerColumn, join.sides[1].ownerColumn]
      let orderColumns = join.sides.compactMap(\.orderColumn)
      columns += orderColumns
      let statement = try database.prepare(
        "INSERT OR IGNORE INTO \(q(join.name)) (" + columns.map(q).joined(separator: ", ")
          + ") VALUES (" + Array(repeating: "?", count: columns.count).joined(separator: ", ")
          + ")", at: join.name)
      var seen: Set<[Int64]> = []
      for record in contents.records {
        for (sideIndex, side) in join.sides.enumerated()
        where side.entity == record.entityName
          || isKind(record.entityName, of: side.entity, schema: schema)
        {
          for target in record.relationships[side.relationship.name] ?? [] {
            let pair = sideIndex == 0 ? [record.id, target] : [target, record.id]
            guard seen.insert(pair).inserted else { continue }
            statement.reset()
            statement.bind(StoreKeySpace.key(of: pair[0]), at: 1)
            statement.bind(StoreKeySpace.key(of: pair[1]), at: 2)
            var position = 3
            for (index, other) in join.sides.enumerated() where other.orderColumn != nil {
              // Side `index` owns pair[index] and lists pair[1 - index].
              let owner = pair[index]
              let member = pair[1 - index]
              if let value = orders.position(of: member, in: other.relationship.name, of: owner) {
                statement.bind(value, at: position)
              } else {
                statement.bind(Int64(0), at: position)
              }
              position += 1
            }
            try statement.run(at: "\(join.name) row")
          }
        }
      }
    }
  }

  private static func isKind(_ entity: String, of ancestor: String, schema: SQLiteSchema) -> Bool {
    guard let entity = schema.entity(entity), let ancestor = schema.entity(ancestor) else {
      return false
    }
    return ancestor.kindNumbers.contains(entity.number)
  }

  /// Puts the database built at `scratch` at `url`, atomically, leaving the store at `url` as it
  /// was if anything fails.
  ///
  /// A SQLite database already at `url` is written through, not replaced: its pages become the
  /// new database's in one SQLite transaction (the online backup API), under SQLite's own
  /// locks, so a program that has it open (another Folio document, Core Data, `sqlite3`) waits
  /// for the write and then reads the new store, instead of writing on into a file that
  /// nobody reads any more. Another program's transaction is waited for up to 10 seconds, then
  /// the write fails with `StoreError.busy` and changes nothing. Any other file at `url` is
  /// replaced by a rename (``AtomicFile``).
  static func replace(_ url: URL, with scratch: URL) throws(StoreError) {
    _ = try WriteAccess.check(url.path, reportedAs: url.path)
    if let target = existingDatabase(at: url) {
      return try write(scratch, into: target, at: url)
    }
    // A write-ahead log beside the old file belongs to it: it is folded into the old file
    // first, so nothing of it is lost if the move fails, and removed after, so SQLite never
    // applies it to the new file.
    let wal = URL(fileURLWithPath: url.path + "-wal")
    let shm = URL(fileURLWithPath: url.path + "-shm")
    if FileManager.default.fileExists(atPath: wal.path) {
      let old = try SQLiteDatabase(path: url.path, readOnly: false)
      try old.execute("PRAGMA wal_checkpoint(TRUNCATE)")
      old.close()
    }
    guard let handle = FileHandle(forReadingAtPath: scratch.path) else {
      throw StoreError(
        .writeFailed, "cannot read the database built for the save",
        at: InputLocation(file: url.path))
    }
    defer { try? handle.close() }
    try AtomicFile.write(to: url) { output throws(StoreError) in
      while true {
        let chunk: Data
        do {
          chunk = try handle.read(upToCount: 1 << 20) ?? Data()
        } catch {
          throw StoreError(
            .writeFailed, "cannot read the database built for the save",
            at: InputLocation(file: url.path))
        }
        if chunk.isEmpty { break }
        try output.write(chunk)
      }
    }
    try? FileManager.default.removeItem(at: wal)
    try? FileManager.default.removeItem(at: shm)
  }

  /// A read-write connection to the SQLite database at `url` (at the end of its symbolic
  /// links), or `nil` when there is none: no file, another kind of file, or one this process
  /// may not write.
  private static func existingDatabase(at url: URL) -> SQLiteDatabase? {
    guard let handle = FileHandle(forReadingAtPath: url.path) else { return nil }
    defer { try? handle.close() }
    guard let prefix = try? handle.read(upToCount: SQLiteStore.header.count),
      prefix.elementsEqual(SQLiteStore.header),
      FileManager.default.isWritableFile(atPath: url.path),
      let database = try? SQLiteDatabase(path: url.path, readOnly: false),
      (try? database.tableNames()) != nil
    else { return nil }
    return database
  }

  /// Copies every page of the database at `scratch` into `target`, the database at `url`, in
  /// one transaction of `target`'s.
  private static func write(_ scratch: URL, into target: SQLiteDatabase, at url: URL)
    throws(StoreError)
  {
    sqlite3_busy_timeout(target.handle, SQLiteStoreConnection.busyTimeout)
    var wasWAL = false
    do {
      if let mode = try? target.prepare("PRAGMA journal_mode"), (try? mode.step()) == true {
        wasWAL = mode.text(0)?.lowercased() == "wal"
      }
    }
    let source = try SQLiteDatabase(path: scratch.path, readOnly: true)
    guard let backup = sqlite3_backup_init(target.handle, "main", source.handle, "main") else {
      throw target.error(
        "cannot write the new store into the old one", code: sqlite3_errcode(target.handle))
    }
    var code: Int32
    repeat { code = sqlite3_backup_step(backup, -1) } while code == SQLITE_OK
    sqlite3_backup_finish(backup)
    guard code == SQLITE_DONE else {
      if code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED {
        throw StoreError(
          .busy,
          "another program has been using the store for \(SQLiteStoreConnection.busyTimeout / 1000) s; try again when it is done",
          at: InputLocation(file: url.path))
      }
      throw target.error("cannot write the new store into the old one", code: code)
    }
    // The copy takes the new database's journal mode; a store kept in a write-ahead log stays
    // in one, as its other programs expect.
    if wasWAL { try? target.execute("PRAGMA journal_mode = WAL") }
  }
}
