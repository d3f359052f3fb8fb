import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

extension SQLiteStore {
  /// Runs `plan` on the SQLite store at `source` (written with `sourceModel`) in SQL, into a
  /// new database at `destination` in `destinationModel`'s schema, without reading a record
  /// into memory: every row keeps its key, so foreign keys and join rows are copied as they
  /// are; entity numbers are renumbered, defaults filled in. With `destination` nil, only checks
  /// and counts.
  ///
  /// The copy is declined, before anything is written, where its result could differ from a
  /// migration of the records: a value that needs converting, a required value the source
  /// lacks, rows of an entity no mapping takes, relationships whose storage changes shape,
  /// to-manys with count limits, entities of two source tables meeting in one.
  ///
  /// - Throws: `StoreError` when the source cannot be read or the new database written.
  package static func copy(
    _ plan: SQLiteCopyPlan, from source: URL, model sourceModel: ManagedObjectModel,
    to destination: URL?, model destinationModel: ManagedObjectModel,
    progress: ((_ done: Int, _ total: Int) -> Void)? = nil, isCancelled: (() -> Bool)? = nil
  ) throws(StoreError) -> SQLiteCopyOutcome {
    var copy = SQLiteCopy(plan: plan, source: sourceModel, destination: destinationModel)
    if let reason = copy.prepare() { return .declined(reason) }
    let database = try open(source)
    let binding = try SQLiteBinding(schema: copy.sourceSchema, database: database)
    if let reason = try copy.check(database, binding) { return .declined(reason) }
    let result = copy.result
    guard let destination else { return .copied(result) }
    let metadata = try SQLiteMetadata.read(from: database)
    database.close()
    do {
      try copy.write(
        to: destination, from: source, binding: binding, metadata: metadata, progress: progress,
        isCancelled: isCancelled)
    } catch {
      try? FileManager.default.removeItem(at: destination)
      if isCancelled?() == true { return .cancelled }
      throw error
    }
    return .copied(result)
  }

  /// Copies the database at `url`, what its write-ahead log holds included, into a new file
  /// at `destination`, which must not exist (`VACUUM INTO`).
  ///
  /// - Throws: `StoreError` when the store cannot be read or the copy written.
  package static func copyDatabase(at url: URL, to destination: URL) throws(StoreError) {
    let database = try open(url)
    let statement = try database.prepare("VACUUM INTO ?", at: url.path)
    statement.bind(destination.path, at: 1)
    try statement.run(at: url.path)
  }

  /// Replaces the store at `url` with the database at `database`, atomically, as a save of a
  /// whole store does; the database's file is left where it was.
  package static func replace(_ url: URL, withDatabaseAt database: URL) throws(StoreError) {
    try SQLiteWriter.replace(url, with: database)
  }

  /// For each pair of entity and property, how many objects of exactly that entity hold a
  /// value in the property: an attribute not nil, a relationship naming an object.
  package static func countValues(
    of properties: [(entity: String, property: String)], at url: URL,
    model: ManagedObjectModel
  ) throws(StoreError) -> [Int] {
    let database = try open(url)
    let schema = SQLiteSchema(model: model)
    let binding = try SQLiteBinding(schema: schema, database: database)
    let q = Quoting.sqlIdentifier
    var counts: [Int] = []
    for (entityName, property) in properties {
      guard let entity = schema.entity(entityName),
        let description = model.entity(named: entityName)?.properties.first(where: {
          $0.name == property
        })
      else {
        counts.append(0)
        continue
      }
      let table = binding.table(entity.table)
      var condition: String?
      if let column = schema.attributes[entityName]?.first(where: {
        $0.attribute.name == property
      }) {
        condition = "o.\(q(binding.column(column.column, of: entity.table))) IS NOT NULL"
      } else if let toOne = schema.toOnes[entityName]?.first(where: {
        $0.relationship.name == property
      }) {
        condition = "o.\(q(binding.column(toOne.column, of: entity.table))) IS NOT NULL"
      } else if case .relationship(let relationship) = description,
        let inverse = model.inverse(of: relationship),
        let target = schema.entity(
          relationship.destinationEntityName)
      {
        if !inverse.isToMany,
          let foreignKey = schema.toOnes[target.name]?.first(where: {
            $0.relationship.name == inverse.name
          })
        {
          let members = binding.table(target.table)
          condition =
            "EXISTS (SELECT 1 FROM \(q(members)) AS m WHERE m.\(q(binding.column(foreignKey.column, of: target.table))) = o.Z_PK)"
        } else if let join = binding.joinTables.first(where: { join in
          join.sides.contains {
            $0.relationship.name == property
              && schema.entity($0.entity)?.kindNumbers.contains(
                entity.number) == true
          }
        }), let side = join.sides.first(where: { $0.relationship.name == property }) {
          condition =
            "EXISTS (SELECT 1 FROM \(q(join.name)) AS j WHERE j.\(q(side.ownerColumn)) = o.Z_PK)"
        }
      }
      guard let condition else {
        counts.append(0)
        continue
      }
      let statement = try database.prepare(
        "SELECT count(*) FROM \(q(table)) AS o WHERE o.Z_ENT = ? AND \(condition)", at: table)
      statement.bind(Int64(entity.number), at: 1)
      _ = try statement.step(at: table)
      counts.append(Int(statement.int64(0)))
    }
    return counts
  }
}
