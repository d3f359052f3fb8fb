import CSQLite
import FolioModel
import FolioQuery
import FolioStores
internal import FolioSupport
import Foundation

/// A batch executed in SQL, inside the caller's write transaction (`Formats/sqlite-store.md`
/// §12b).
///
/// The selected objects are listed first, in the temporary table `folio_batch` (root entity
/// number, `Z_PK`, `Z_ENT`): by one `INSERT … SELECT` whose `WHERE` is the predicate in SQL
/// (``SQLitePredicate``), or, for a predicate SQL cannot say, by evaluating it over the store's
/// records read in the same transaction. Everything after works on that list with statements
/// over whole tables, never a row at a time: a deletion's cascades, Deny checks and inverses
/// (``SQLiteBatch+Delete.swift``), an update's `UPDATE … WHERE Z_PK IN (…)`. Objects read back
/// for a coordinator or for persistent history are listed in `folio_keys` and read by the
/// store's own reader.
struct SQLiteBatch {
  let database: SQLiteDatabase
  let binding: SQLiteBinding
  let model: ManagedObjectModel
  let batch: StoreBatch
  let externalData: ExternalDataFolder
  var schema: SQLiteSchema { binding.schema }
  let entity: SQLiteSchema.Entity
  let quote = Quoting.sqlIdentifier
  /// Whether the store keeps persistent history, recorded for the batch as for a save.
  let isTracked: Bool

  init(
    database: SQLiteDatabase, model: ManagedObjectModel, batch: StoreBatch,
    externalData: ExternalDataFolder
  ) throws(StoreError) {
    self.database = database
    self.model = model
    self.batch = batch
    self.externalData = externalData
    binding = try SQLiteBinding(schema: SQLiteSchema(model: model), database: database)
    guard let entity = binding.schema.entity(batch.entityName) else {
      throw StoreError(
        .modelMismatch, "the store's model has no entity \"\(batch.entityName)\"",
        at: InputLocation(file: database.path, entity: batch.entityName))
    }
    self.entity = entity
    isTracked = try SQLiteHistory.isTracked(database)
  }

  /// The table of the hierarchy `entity` is in, quoted.
  func table(of entity: SQLiteSchema.Entity) -> String { quote(binding.table(entity.table)) }

  /// `numbers` as a SQL list: `(3, 4, 7)`.
  static func list(_ numbers: some Sequence<Int>) -> String {
    "(" + numbers.sorted().map(String.init).joined(separator: ", ") + ")"
  }

  /// Executes the batch; with a refusal in the outcome, the caller rolls back what was written.
  func run() throws(StoreError) -> StoreBatchOutcome {
    try database.execute(
      """
      CREATE TEMP TABLE IF NOT EXISTS folio_batch (root INTEGER NOT NULL, key INTEGER NOT NULL, \
      ent INTEGER, PRIMARY KEY (root, key)) WITHOUT ROWID;
      CREATE TEMP TABLE IF NOT EXISTS folio_touched (root INTEGER NOT NULL, \
      key INTEGER NOT NULL, ent INTEGER, PRIMARY KEY (root, key)) WITHOUT ROWID;
      CREATE TEMP TABLE IF NOT EXISTS folio_keys (root INTEGER, key INTEGER);
      DELETE FROM temp.folio_batch; DELETE FROM temp.folio_touched; DELETE FROM temp.folio_keys;
      """, at: "temporary tables")
    var outcome = StoreBatchOutcome()
    switch batch.operation {
    case .insert(let objects):
      do {
        try insert(objects, outcome: &outcome)
      } catch {
        outcome.refusal = try uniquenessRefusal(of: error)
      }
      return outcome
    case .delete:
      if let refusal = try select() {
        outcome.refusal = refusal
        return outcome
      }
      try delete(outcome: &outcome)
    case .update(let values):
      if let refusal = try select() {
        outcome.refusal = refusal
        return outcome
      }
      do {
        try update(values, outcome: &outcome)
      } catch {
        outcome.refusal = try uniquenessRefusal(of: error)
      }
    }
    return outcome
  }

  /// The refusal of a statement that broke a UNIQUE index (a uniqueness constraint's, §7),
  /// naming the constraint whose columns the index covers; `error` itself otherwise.
  private func uniquenessRefusal(of error: StoreError) throws(StoreError) -> BatchRefusal {
    // SQLITE_CONSTRAINT_UNIQUE, a macro Swift does not import.
    guard sqlite3_extended_errcode(database.handle) == SQLITE_CONSTRAINT | (8 << 8) else {
      throw error
    }
    // SQLite names the columns: "UNIQUE constraint failed: ZTAG.ZNAME, ZTAG.ZKIND".
    let message = String(cString: sqlite3_errmsg(database.handle))
    let columns = Set(
      (message.split(separator: ":").last ?? "").split(separator: ",").compactMap {
        $0.split(separator: ".").last.map { $0.trimmingCharacters(in: .whitespaces).uppercased() }
      })
    for candidate in schema.entities where candidate.rootNumber == entity.rootNumber {
      let attributes = schema.attributes[candidate.name] ?? []
      for constraint in model.entity(named: candidate.name)?.uniquenessConstraints ?? [] {
        let covered = constraint.compactMap { name in
          attributes.first { $0.attribute.name == name }.map {
            binding.column($0.column, of: candidate.table).uppercased()
          }
        }
        if Set(covered) == columns {
          return .uniqueness(entityName: candidate.name, properties: constraint)
        }
      }
    }
    return .uniqueness(entityName: entity.name, properties: columns.sorted())
  }

  // MARK: Selecting

  /// Lists the selected objects in `folio_batch`; a refusal when the predicate cannot be
  /// evaluated on one.
  private func select() throws(StoreError) -> BatchRefusal? {
    let kinds = batch.includesSubentities ? entity.kindNumbers : [entity.number]
    let head =
      "INSERT OR IGNORE INTO temp.folio_batch SELECT \(entity.rootNumber), Z_PK, Z_ENT FROM "
      + "\(table(of: entity)) WHERE Z_ENT IN \(Self.list(kinds))"
    switch batch.selection {
    case .ids(let ids):
      let statement = try database.prepare(head + " AND Z_PK = ?", at: "temp.folio_batch")
      for id in ids {
        let space = StoreKeySpace.space(of: id)
        guard space == 0 || space == entity.rootNumber else { continue }
        statement.reset()
        statement.bind(StoreKeySpace.key(of: id), at: 1)
        try statement.run(at: "temp.folio_batch")
      }
      return nil
    case .predicate(nil):
      try database.execute(head, at: "temp.folio_batch")
      return nil
    case .predicate(let predicate?):
      if let condition = SQLitePredicate(predicate, entity: entity, binding: binding) {
        let statement = try database.prepare(
          head + " AND " + condition.sql, at: "temp.folio_batch")
        condition.bind(to: statement, from: 1)
        try statement.run(at: "temp.folio_batch")
        return nil
      }
      let graph = try wholeGraph()
      switch batch.select(in: graph) {
      case .failure(let refusal): return refusal
      case .success(let positions):
        try list(positions.map { graph.records[$0] }, in: "folio_batch")
        return nil
      }
    }
  }

  /// Every record of the store, each giving every relationship, read in this transaction.
  func wholeGraph() throws(StoreError) -> RecordGraph {
    var reader = SQLiteRecordReader(
      database: database, binding: binding, externalData: externalData)
    reader.givesEveryRelationship = true
    var collector = StoreContentsCollector()
    collector.begin(metadata: StoreMetadata(storeType: "SQLite"), nextObjectID: 1, recordCount: nil)
    try reader.read(into: &collector)
    return RecordGraph(records: collector.records, model: model)
  }

  /// Adds `records` to the temporary table `table` (`folio_batch` or `folio_touched`).
  func list(_ records: some Sequence<StoreRecord>, in table: String) throws(StoreError) {
    let statement = try database.prepare(
      "INSERT OR IGNORE INTO temp.\(table) (root, key, ent) VALUES (?, ?, ?)", at: "temp.\(table)")
    for record in records {
      guard let entity = schema.entity(record.entityName) else { continue }
      statement.reset()
      statement.bind(Int64(entity.rootNumber), at: 1)
      statement.bind(StoreKeySpace.key(of: record.id), at: 2)
      statement.bind(Int64(entity.number), at: 3)
      try statement.run(at: "temp.\(table)")
    }
  }

  /// The objects listed in the temporary table `table`, in ID order.
  func listed(in table: String) throws(StoreError) -> [StoreBatchOutcome.Object] {
    let statement = try database.prepare(
      "SELECT root, key, ent FROM temp.\(table) ORDER BY root, key", at: "temp.\(table)")
    var objects: [StoreBatchOutcome.Object] = []
    while try statement.step() {
      guard let entity = schema.entity(number: Int(statement.int64(2))) else { continue }
      objects.append(
        StoreBatchOutcome.Object(
          entityName: entity.name,
          id: StoreKeySpace.id(space: Int(statement.int64(0)), key: statement.int64(1))))
    }
    return objects
  }

  /// The records, as the store holds them now, of the objects listed in the temporary tables
  /// `tables`, each giving the relationships the store's reader gives.
  func records(listedIn tables: [String]) throws(StoreError) -> [StoreRecord] {
    try database.execute("DELETE FROM temp.folio_keys", at: "temp.folio_keys")
    for table in tables {
      try database.execute(
        "INSERT INTO temp.folio_keys (root, key) SELECT root, key FROM temp.\(table)",
        at: "temp.folio_keys")
    }
    var reader = SQLiteRecordReader(
      database: database, binding: binding, externalData: externalData)
    reader.readsListedKeysOnly = true
    var collector = StoreContentsCollector()
    collector.begin(metadata: StoreMetadata(storeType: "SQLite"), nextObjectID: 1, recordCount: nil)
    try reader.read(into: &collector)
    return collector.records
  }

  /// The next object ID the store gives: past every `Z_MAX`.
  func nextObjectID() throws(StoreError) -> Int64 {
    let largest = try database.integer(
      "SELECT max(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT < 16000", at: "Z_PRIMARYKEY")
    return min(max(largest ?? 0, 0), StoreKeySpace.maximumKey) + 1
  }

  /// The changes a coordinator takes in: the records of the objects listed in `tables` as the
  /// store holds them now, and `deleted`.
  func changes(listedIn tables: [String], deleted: [Int64]) throws(StoreError)
    -> StoreChangesSince
  {
    var changes = StoreChangesSince()
    changes.records = try records(listedIn: tables)
    changes.deleted = deleted
    changes.nextObjectID = try nextObjectID()
    changes.givenRelationships = SQLiteStore.givenRelationships(schema: schema, binding: binding)
    return changes
  }

  /// Records `changes` in the store's persistent history, as one transaction.
  func recordHistory(_ changes: StoreChanges) throws(StoreError) {
    guard isTracked else { return }
    try SQLiteHistory.record(
      changes, origin: SQLiteHistory.Origin(author: batch.author, contextName: batch.contextName),
      schema: schema, model: model, in: database)
  }

  // MARK: Updating

  private func update(_ values: [String: StoreBatch.Value], outcome: inout StoreBatchOutcome)
    throws(StoreError)
  {
    let before = isTracked ? try records(listedIn: ["folio_batch"]) : []
    if let constants = batch.constantValues {
      try updateColumns(constants)
    } else {
      let graph = try wholeGraph()
      let keys = Set(try listed(in: "folio_batch").map(\.id))
      var rows: [(id: Int64, values: [String: AttributeValue?])] = []
      for (position, record) in graph.records.enumerated() where keys.contains(record.id) {
        var given: [String: AttributeValue?] = [:]
        for (key, value) in values {
          switch value {
          case .constant(let constant): given[key] = constant
          case .expression(let expression):
            switch StoreBatch.evaluate(
              expression, on: graph.object(at: position), key: key, graph: graph)
            {
            case .success(let computed): given[key] = computed
            case .failure(let refusal):
              outcome.refusal = refusal
              return
            }
          }
        }
        rows.append((record.id, given))
      }
      for row in rows { try updateColumns(row.values, only: row.id) }
    }
    outcome.objects = try listed(in: "folio_batch")
    outcome.selectedCount = outcome.objects.count
    if isTracked {
      let after = Dictionary(
        try records(listedIn: ["folio_batch"]).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
      var changes = StoreChanges(nextObjectID: try nextObjectID()) { _ in nil }
      changes.updated = before.compactMap { old in after[old.id].map { (old, $0) } }
      try recordHistory(changes)
    }
    if batch.collectsChanges {
      outcome.changes = try changes(listedIn: ["folio_batch"], deleted: [])
    }
  }

  /// Sets the columns of `values` (attribute names) in the rows listed in `folio_batch`, or
  /// in the row of object `id` alone, each row one version on.
  private func updateColumns(_ values: [String: AttributeValue?], only id: Int64? = nil)
    throws(StoreError)
  {
    let columns = schema.attributes[entity.name] ?? []
    var assignments: [(column: String, attribute: AttributeDescription, value: AttributeValue?)] =
      []
    for (key, value) in values.sorted(by: { $0.key < $1.key }) {
      guard let column = columns.first(where: { $0.attribute.name == key }) else {
        throw StoreError(
          .modelMismatch, "\"\(entity.name)\" has no stored attribute \"\(key)\"",
          at: InputLocation(file: database.path, entity: entity.name, property: key))
      }
      if let value, !value.fits(column.attribute.attributeType) {
        throw StoreError(
          .typeMismatch,
          "\(value.modelText) is not of type \(column.attribute.attributeType.xcodeName)",
          at: InputLocation(file: database.path, entity: entity.name, property: key))
      }
      assignments.append((binding.column(column.column, of: entity.table), column.attribute, value))
    }
    let sets =
      assignments.map { "\(quote($0.column)) = ?" } + ["Z_OPT = \(SQLiteRowVersion.sql) + 1"]
    let rows =
      id == nil
      ? "(SELECT key FROM temp.folio_batch WHERE root = \(entity.rootNumber))" : "(?)"
    let statement = try database.prepare(
      "UPDATE \(table(of: entity)) SET \(sets.joined(separator: ", ")) WHERE Z_PK IN \(rows)",
      at: binding.table(entity.table))
    for (index, assignment) in assignments.enumerated() {
      SQLiteValues.bind(
        assignment.value, at: index + 1, to: statement, attribute: assignment.attribute)
    }
    if let id { statement.bind(StoreKeySpace.key(of: id), at: assignments.count + 1) }
    try statement.run(at: binding.table(entity.table))
  }

  // MARK: Inserting

  private func insert(_ objects: [[String: AttributeValue]], outcome: inout StoreBatchOutcome)
    throws(StoreError)
  {
    guard !entity.isAbstract else {
      throw StoreError(
        .modelMismatch, "\"\(entity.name)\" is abstract and cannot have objects of its own",
        at: InputLocation(file: database.path, entity: entity.name))
    }
    let largestKey = try database.integer("SELECT max(Z_PK) FROM \(table(of: entity))") ?? 0
    var key = max(try nextObjectID(), largestKey + 1)
    let columns = (schema.attributes[entity.name] ?? []).filter { !$0.attribute.isTransient }
    let names =
      ["Z_PK", "Z_ENT", "Z_OPT"] + columns.map { binding.column($0.column, of: entity.table) }
    let statement = try database.prepare(
      "INSERT INTO \(table(of: entity)) (" + names.map(quote).joined(separator: ", ")
        + ") VALUES (" + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")",
      at: binding.table(entity.table))
    var inserted: [StoreRecord] = []
    for values in objects {
      guard key <= StoreKeySpace.maximumKey else {
        throw StoreError(
          .limitExceeded, "the store has given out every key of \(entity.name)'s table",
          at: InputLocation(file: database.path, entity: entity.name))
      }
      statement.reset()
      statement.bind(key, at: 1)
      statement.bind(Int64(entity.number), at: 2)
      statement.bind(Int64(1), at: 3)
      for (index, column) in columns.enumerated() {
        SQLiteValues.bind(
          values[column.attribute.name], at: index + 4, to: statement, attribute: column.attribute)
      }
      try statement.run(at: "\(binding.table(entity.table)) row Z_PK \(key)")
      let id = StoreKeySpace.id(space: entity.rootNumber, key: key)
      outcome.objects.append(StoreBatchOutcome.Object(entityName: entity.name, id: id))
      if isTracked || batch.collectsChanges {
        inserted.append(StoreRecord(entityName: entity.name, id: id, attributes: values))
      }
      key += 1
    }
    outcome.selectedCount = objects.count
    guard !objects.isEmpty else { return }
    let raise = try database.prepare(
      "UPDATE Z_PRIMARYKEY SET Z_MAX = ?1 WHERE Z_ENT = ?2 AND (Z_MAX IS NULL OR Z_MAX < ?1)",
      at: "Z_PRIMARYKEY")
    raise.bind(key - 1, at: 1)
    raise.bind(Int64(entity.rootNumber), at: 2)
    try raise.run(at: "Z_PRIMARYKEY")
    var changes = StoreChanges(nextObjectID: key) { _ in nil }
    changes.inserted = inserted
    try recordHistory(changes)
    if batch.collectsChanges {
      try list(inserted, in: "folio_batch")
      outcome.changes = try self.changes(listedIn: ["folio_batch"], deleted: [])
    }
  }
}
