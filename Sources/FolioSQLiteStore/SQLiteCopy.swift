import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

/// A migration whose every mapping is a plain copy, as SQLite can run it: each destination
/// entity takes the rows of one source entity, each attribute a source attribute's values or
/// its default, each relationship a source relationship's targets (the mappings Core Data
/// infers for renames, added and removed properties and entities).
package struct SQLiteCopyPlan: Sendable {
  package struct Entity: Sendable {
    package var source: String
    package var destination: String
    /// The source attribute each destination attribute copies; one not named takes its
    /// default. A required attribute whose source value is nil takes its default too.
    package var attributes: [String: String]
    /// The source relationship whose targets each destination relationship takes.
    package var relationships: [String: String]

    package init(
      source: String, destination: String, attributes: [String: String],
      relationships: [String: String]
    ) {
      self.source = source
      self.destination = destination
      self.attributes = attributes
      self.relationships = relationships
    }
  }

  package var entities: [Entity]

  package init(entities: [Entity]) { self.entities = entities }
}

/// What a copy found: the objects of each source entity, and of each destination entity.
package struct SQLiteCopyResult: Sendable {
  package var sourceObjects: [String: Int]
  package var destinationObjects: [String: Int]
}

/// How a copy ended: done, declined before anything was written (with the reason: the caller
/// migrates the records instead), or cancelled.
package enum SQLiteCopyOutcome: Sendable {
  case copied(SQLiteCopyResult)
  case declined(String)
  case cancelled
}

/// The work of ``SQLiteStore/copy(_:from:model:to:model:progress:isCancelled:)``: the plan
/// turned into one `INSERT … SELECT` per destination entity and join table.
struct SQLiteCopy {
  let plan: SQLiteCopyPlan
  let sourceModel: ManagedObjectModel
  let destinationModel: ManagedObjectModel
  let sourceSchema: SQLiteSchema
  let destinationSchema: SQLiteSchema
  private(set) var result = SQLiteCopyResult(sourceObjects: [:], destinationObjects: [:])

  /// What one destination column takes.
  private enum Value {
    /// A column of the source row, by its name in the source schema; with `real`, as REAL.
    case column(String, real: Bool = false)
    /// The order column of a source ordered relationship, by "Owner.relationship".
    case orderColumn(String)
    case constant(AttributeValue?, AttributeDescription)
    /// The source column, or the constant where it is NULL.
    case columnOr(String, AttributeValue, AttributeDescription, real: Bool)
    case integer(Int64)
    /// A source entity column with each source entity number replaced by its destination's.
    case entityNumber(String, [Int: Int])
    /// The destination entity number where the source column is not NULL.
    case entityWhere(String, Int)
  }

  /// One destination entity's rows: every destination column and what it takes.
  private struct Insert {
    let sourceTable: String
    let sourceNumber: Int
    let destinationTable: String
    var columns: [String] = []
    var values: [Value] = []
  }

  /// One join table's rows: each destination column and the source column it takes.
  private struct JoinCopy {
    let destination: String
    let sourceIndex: Int
    /// For each destination side, the source side it takes.
    let sideOfSource: [Int]
  }

  private var inserts: [Insert] = []
  private var joins: [JoinCopy] = []
  /// Required values to look for in the source: the table, the entity number, and the column
  /// that must not be NULL (nil: the entity must have no rows).
  private var requiredChecks: [(table: String, number: Int, column: String?, what: String)] = []
  /// The destination entity each source entity's rows become.
  private var destinationOf: [String: String] = [:]
  /// Each destination table's source table.
  private var sourceTableOf: [String: String] = [:]

  init(plan: SQLiteCopyPlan, source: ManagedObjectModel, destination: ManagedObjectModel) {
    self.plan = plan
    sourceModel = source
    destinationModel = destination
    sourceSchema = SQLiteSchema(model: source)
    destinationSchema = SQLiteSchema(model: destination)
  }

  // MARK: The plan in SQL

  /// Turns the plan into statements; the reason it cannot be, if so.
  mutating func prepare() -> String? {
    guard sourceSchema.unsupported.isEmpty, destinationSchema.unsupported.isEmpty else {
      return "a model has what a SQLite store cannot hold"
    }
    for entity in plan.entities {
      guard destinationOf.updateValue(entity.destination, forKey: entity.source) == nil else {
        return "two mappings take \(entity.source)"
      }
    }
    for entity in plan.entities {
      guard let source = sourceSchema.entity(entity.source),
        let destination = destinationSchema.entity(entity.destination), !destination.isAbstract
      else { return "\(entity.source) → \(entity.destination) is not a copy between tables" }
      if let other = sourceTableOf.updateValue(source.table, forKey: destination.table),
        other != source.table
      {
        return "\(destination.table) would take the rows of two tables"
      }
      var insert = Insert(
        sourceTable: source.table, sourceNumber: source.number,
        destinationTable: destination.table)
      insert.columns = ["Z_PK", "Z_ENT", "Z_OPT"]
      insert.values = [.column("Z_PK"), .integer(Int64(destination.number)), .integer(1)]
      if let reason = addAttributes(entity, into: &insert) { return reason }
      if let reason = addToOnes(entity, into: &insert) { return reason }
      if let reason = checkRelationships(entity) { return reason }
      inserts.append(insert)
    }
    return addJoins()
  }

  private mutating func addAttributes(_ entity: SQLiteCopyPlan.Entity, into insert: inout Insert)
    -> String?
  {
    let sourceColumns = Dictionary(
      (sourceSchema.attributes[entity.source] ?? []).map { ($0.attribute.name, $0) },
      uniquingKeysWith: { a, _ in a })
    for column in destinationSchema.attributes[entity.destination] ?? [] {
      let attribute = column.attribute
      let what = "\(entity.destination).\(attribute.name)"
      let required = !attribute.isOptional
      guard let name = entity.attributes[attribute.name] else {
        if attribute.defaultValue == nil {
          if required {
            requiredChecks.append((insert.sourceTable, insert.sourceNumber, nil, what))
          }
          continue
        }
        insert.columns.append(column.column)
        insert.values.append(.constant(attribute.defaultValue, attribute))
        continue
      }
      guard let source = sourceColumns[name] else {
        return "\(entity.source).\(name) is not a stored attribute"
      }
      let real = Self.becomesReal(source.attribute, attribute)
      guard real || Self.copiesAsStored(source.attribute, attribute) else {
        return "\(entity.source).\(name) needs converting to \(what)"
      }
      insert.columns.append(column.column)
      if required, let value = attribute.defaultValue {
        insert.values.append(.columnOr(source.column, value, attribute, real: real))
      } else {
        insert.values.append(.column(source.column, real: real))
        if required {
          requiredChecks.append((insert.sourceTable, insert.sourceNumber, source.column, what))
        }
      }
    }
    return nil
  }

  /// Whether an integer of `source` becomes a Double or Decimal of `destination`: the same
  /// number as REAL, as converting the value and storing it gives.
  static func becomesReal(_ source: AttributeDescription, _ destination: AttributeDescription)
    -> Bool
  {
    [.integer16, .integer32, .integer64].contains(source.attributeType)
      && [.double, .decimal].contains(destination.attributeType)
  }

  /// Whether a value of `source` is stored as `destination` stores it: the same type (and,
  /// for binary data, the same choice of external storage), or an integer widened.
  static func copiesAsStored(_ source: AttributeDescription, _ destination: AttributeDescription)
    -> Bool
  {
    func width(_ type: AttributeType) -> Int? {
      switch type {
      case .integer16: 16
      case .integer32: 32
      case .integer64: 64
      default: nil
      }
    }
    if let from = width(source.attributeType), let to = width(destination.attributeType) {
      return from <= to
    }
    guard source.attributeType == destination.attributeType else { return false }
    return source.attributeType != .binaryData
      || source.allowsExternalBinaryDataStorage == destination.allowsExternalBinaryDataStorage
  }

  /// The sources given for relationship `name` by the mappings whose destination is a kind
  /// of `entity`.
  private func sources(of name: String, onKindsOf entity: String) -> Set<String> {
    Set(mappings(of: name, onKindsOf: entity).compactMap { $0.relationships[name] })
  }

  /// The mappings whose destination is a kind of `entity` and that map its relationship
  /// `name`.
  private func mappings(of name: String, onKindsOf entity: String) -> [SQLiteCopyPlan.Entity] {
    guard let kinds = destinationSchema.entity(entity)?.kindNumbers else { return [] }
    return plan.entities.filter { mapping in
      guard let number = destinationSchema.entity(mapping.destination)?.number else {
        return false
      }
      return kinds.contains(number) && mapping.relationships[name] != nil
    }
  }

  private mutating func addToOnes(_ entity: SQLiteCopyPlan.Entity, into insert: inout Insert)
    -> String?
  {
    for toOne in destinationSchema.toOnes[entity.destination] ?? [] {
      let relationship = toOne.relationship
      let what = "\(entity.destination).\(relationship.name)"
      guard let name = entity.relationships[relationship.name] else {
        if let inverse = destinationModel.inverse(of: relationship),
          !sources(of: inverse.name, onKindsOf: relationship.destinationEntityName).isEmpty
        {
          return "\(what) is left to its inverse's mapping"
        }
        if !relationship.isOptional {
          requiredChecks.append((insert.sourceTable, insert.sourceNumber, nil, what))
        }
        continue
      }
      guard
        let source = sourceSchema.toOnes[entity.source]?.first(where: {
          $0.relationship.name == name
        })
      else { return "\(entity.source).\(name) is not a to-one stored with \(what)" }
      insert.columns.append(toOne.column)
      insert.values.append(.column(source.column))
      if !relationship.isOptional {
        requiredChecks.append((insert.sourceTable, insert.sourceNumber, source.column, what))
      }
      if let entityColumn = toOne.entityColumn {
        let kinds =
          sourceSchema.entity(source.relationship.destinationEntityName)?.kindNumbers
          ?? []
        var numbers: [Int: Int] = [:]
        for number in kinds {
          guard let name = sourceSchema.entity(number: number)?.name,
            let mapped = destinationOf[name], let target = destinationSchema.entity(mapped)
          else { continue }
          numbers[number] = target.number
        }
        insert.columns.append(entityColumn)
        if let sourceColumn = source.entityColumn {
          insert.values.append(.entityNumber(sourceColumn, numbers))
        } else if kinds.count == 1, let only = kinds.first, let number = numbers[only] {
          insert.values.append(.entityWhere(source.column, number))
        } else {
          return "\(what) needs its targets' entity numbers"
        }
      }
      // The members of an ordered to-many keep their places.
      let ordered = destinationSchema.orderedToManys.values.joined().first {
        $0.memberTable == insert.destinationTable && $0.foreignKey == toOne.column
      }
      if let ordered {
        let owners = sourceSchema.orderedToManys.first { _, list in
          list.contains { $0.memberTable == insert.sourceTable && $0.foreignKey == source.column }
        }
        guard let (owner, list) = owners,
          let sourceOrdered = list.first(where: {
            $0.memberTable == insert.sourceTable && $0.foreignKey == source.column
          })
        else { return "\(what) becomes the inverse of an ordered relationship" }
        insert.columns.append(ordered.orderColumn)
        insert.values.append(.orderColumn(owner + "." + sourceOrdered.relationship.name))
      }
    }
    return nil
  }

  /// Checks each relationship the entity's mapping copies: the same shape in both models,
  /// its inverse mapped from the source's inverse, and its targets' entities ones it accepts.
  private func checkRelationships(_ entity: SQLiteCopyPlan.Entity) -> String? {
    guard let destination = destinationModel.entity(named: entity.destination),
      let source = sourceModel.entity(named: entity.source)
    else { return "\(entity.destination) is not in the model" }
    for relationship in destination.allRelationships where !relationship.isTransient {
      let what = "\(entity.destination).\(relationship.name)"
      if relationship.isToMany,
        (!relationship.isOptional && relationship.minCount > 0)
          || (relationship.maxCount ?? 0) > 0
      {
        return "\(what) has a count limit to check"
      }
      guard let name = entity.relationships[relationship.name] else { continue }
      guard
        let from = source.allRelationships.first(where: { $0.name == name && !$0.isTransient })
      else { return "\(entity.source).\(name) is not a stored relationship" }
      let inverse = destinationModel.inverse(of: relationship)
      let sourceInverse = sourceModel.inverse(of: from)
      guard from.isToMany == relationship.isToMany,
        (inverse?.isToMany ?? false) == (sourceInverse?.isToMany ?? false),
        (inverse == nil) == (sourceInverse == nil)
      else { return "\(entity.source).\(name) changes shape as \(what)" }
      if let inverse, let sourceInverse {
        let given = sources(of: inverse.name, onKindsOf: relationship.destinationEntityName)
        guard given.isSubset(of: [sourceInverse.name]) else {
          return "\(what) and its inverse are mapped from relationships that are not inverses"
        }
      }
      // Every source target, once migrated, must be an object the relationship accepts.
      let accepted =
        destinationSchema.entity(relationship.destinationEntityName)?.kindNumbers
        ?? []
      for number in sourceSchema.entity(from.destinationEntityName)?.kindNumbers ?? [] {
        guard let name = sourceSchema.entity(number: number)?.name,
          let mapped = destinationOf[name]
        else { continue }
        guard let target = destinationSchema.entity(mapped), accepted.contains(target.number)
        else { return "\(what) would name \(mapped) objects" }
      }
    }
    return nil
  }

  private mutating func addJoins() -> String? {
    for join in destinationSchema.joinTables {
      var given: [Set<String>] = []
      for side in join.sides {
        given.append(sources(of: side.relationship.name, onKindsOf: side.entity))
      }
      guard given.allSatisfy({ $0.count <= 1 }) else {
        return "\(join.name) is mapped from several relationships"
      }
      guard let known = given.firstIndex(where: { !$0.isEmpty }), let name = given[known].first
      else { continue }
      // The source join table with a side of that relationship for the mapped entities.
      let side = join.sides[known]
      let owners = Set(mappings(of: side.relationship.name, onKindsOf: side.entity).map(\.source))
      var found: (index: Int, side: Int)?
      for (index, candidate) in sourceSchema.joinTables.enumerated() {
        for (sideIndex, side) in candidate.sides.enumerated()
        where side.relationship.name == name {
          let kinds = sourceSchema.entity(side.entity)?.kindNumbers ?? []
          if owners.allSatisfy({
            sourceSchema.entity($0).map { kinds.contains($0.number) } ?? false
          }) {
            found = (index, sideIndex)
          }
        }
      }
      guard let found else { return "\(join.name) has no join table to copy from" }
      let sideOfSource = known == 0 ? [found.side, 1 - found.side] : [1 - found.side, found.side]
      let source = sourceSchema.joinTables[found.index]
      for (index, side) in join.sides.enumerated() where side.orderColumn != nil {
        guard source.sides[sideOfSource[index]].orderColumn != nil else {
          return "\(side.entity).\(side.relationship.name) becomes ordered"
        }
      }
      joins.append(
        JoinCopy(destination: join.name, sourceIndex: found.index, sideOfSource: sideOfSource))
    }
    return nil
  }

  // MARK: The source checked

  /// Counts the source's objects and looks for what the plan cannot take: rows of an entity
  /// no mapping takes, rows of an unknown entity, required values missing.
  mutating func check(_ database: SQLiteDatabase, _ binding: SQLiteBinding) throws(StoreError)
    -> String?
  {
    let q = Quoting.sqlIdentifier
    var counts: [String: Int] = [:]
    for root in sourceSchema.entities where root.number == root.rootNumber {
      let table = binding.table(root.table)
      let statement = try database.prepare(
        "SELECT Z_ENT, count(*) FROM \(q(table)) GROUP BY Z_ENT", at: table)
      while try statement.step(at: table) {
        let number = Int(statement.int64(0))
        guard root.kindNumbers.contains(number), let entity = sourceSchema.entity(number: number)
        else { return "\(table) holds rows of entity number \(number)" }
        let count = Int(statement.int64(1))
        counts[entity.name] = count
        guard destinationOf[entity.name] != nil else {
          return "no mapping takes the \(count) objects of \(entity.name)"
        }
      }
    }
    for check in requiredChecks {
      let table = binding.table(check.table)
      var sql = "SELECT count(*) FROM \(q(table)) WHERE Z_ENT = ?"
      if let column = check.column {
        sql += " AND \(q(binding.column(column, of: check.table))) IS NULL"
      }
      let statement = try database.prepare(sql, at: table)
      statement.bind(Int64(check.number), at: 1)
      _ = try statement.step(at: table)
      if statement.int64(0) > 0 { return "\(check.what) would lack a required value" }
    }
    var destinations: [String: Int] = [:]
    for (source, count) in counts {
      if let destination = destinationOf[source] { destinations[destination, default: 0] += count }
    }
    result = SQLiteCopyResult(sourceObjects: counts, destinationObjects: destinations)
    return nil
  }

  // MARK: The copy

  func write(
    to url: URL, from source: URL, binding: SQLiteBinding, metadata: StoreMetadata,
    progress: ((Int, Int) -> Void)?, isCancelled: (() -> Bool)?
  ) throws(StoreError) {
    // Emptied, not removed: the file is a scratch file whose lock keeps it from cleanups.
    _ = truncate(url.path, 0)
    let database = try SQLiteDatabase(path: url.path, readOnly: false, create: true, uri: true)
    defer { database.close() }
    try database.execute(
      "PRAGMA auto_vacuum = 2; PRAGMA page_size = 4096; PRAGMA journal_mode = OFF; "
        + "PRAGMA synchronous = OFF")
    try SQLiteWriter.createTables(destinationSchema, in: database)
    let attach = try database.prepare("ATTACH DATABASE ? AS source", at: source.path)
    // Read-only: the source is never written, not even a checkpoint of its log.
    attach.bind(SQLiteDatabase.uri(readingOnly: source.path), at: 1)
    try attach.run(at: source.path)
    let total = result.sourceObjects.values.reduce(0, +)
    var done = 0
    try database.interruptible(when: isCancelled) { () throws(StoreError) in
      try database.execute("BEGIN")
      for insert in inserts {
        try run(insert, binding: binding, in: database)
        done +=
          result.sourceObjects[sourceSchema.entity(number: insert.sourceNumber)?.name ?? ""]
          ?? 0
        progress?(done, total)
      }
      for join in joins { try run(join, binding: binding, in: database) }
      try SQLiteWriter.writePrimaryKeys(
        destinationSchema, largestKeys: try largestKeys(binding, in: database), in: database)
      try SQLiteMetadata.write(SQLiteWriter.metadata(metadata, of: destinationModel), to: database)
      try SQLiteWriter.writeModelCache(destinationModel, in: database)
      for sql in destinationSchema.indexes { try database.execute(sql) }
      try SQLiteCommitLog.create(in: database)
      try database.execute("COMMIT")
    }
    try database.execute("DETACH DATABASE source")
    try SQLiteCommitLog.recordFirstCommit(in: database)
    try database.execute("PRAGMA journal_mode = DELETE")
  }

  private func run(_ insert: Insert, binding: SQLiteBinding, in database: SQLiteDatabase)
    throws(StoreError)
  {
    let q = Quoting.sqlIdentifier
    var bound: [(AttributeValue?, AttributeDescription)] = []
    var expressions: [String] = []
    func column(_ name: String, real: Bool = false) -> String {
      let text = "s." + q(binding.column(name, of: insert.sourceTable))
      return real ? "CAST(\(text) AS REAL)" : text
    }
    for value in insert.values {
      switch value {
      case .column(let name, let real): expressions.append(column(name, real: real))
      case .orderColumn(let key):
        expressions.append("s." + q(binding.orderColumns[key] ?? key))
      case .constant(let value, let attribute):
        bound.append((value, attribute))
        expressions.append("?\(bound.count)")
      case .columnOr(let name, let value, let attribute, let real):
        bound.append((value, attribute))
        expressions.append("coalesce(\(column(name, real: real)), ?\(bound.count))")
      case .integer(let number): expressions.append("\(number)")
      case .entityNumber(let name, let numbers):
        let cases = numbers.sorted { $0.key < $1.key }.map { "WHEN \($0.key) THEN \($0.value)" }
        expressions.append(
          cases.isEmpty ? "NULL" : "CASE \(column(name)) \(cases.joined(separator: " ")) END")
      case .entityWhere(let name, let number):
        expressions.append("CASE WHEN \(column(name)) IS NULL THEN NULL ELSE \(number) END")
      }
    }
    let table = binding.table(insert.sourceTable)
    let sql =
      "INSERT INTO main.\(q(insert.destinationTable)) ("
      + insert.columns.map(q).joined(separator: ", ") + ") SELECT "
      + expressions.joined(separator: ", ") + " FROM source.\(q(table)) AS s WHERE s.Z_ENT = "
      + "\(insert.sourceNumber)"
    let statement = try database.prepare(sql, at: insert.destinationTable)
    for (index, (value, attribute)) in bound.enumerated() {
      SQLiteValues.bind(value, at: index + 1, to: statement, attribute: attribute)
    }
    try statement.run(at: insert.destinationTable)
  }

  private func run(_ join: JoinCopy, binding: SQLiteBinding, in database: SQLiteDatabase)
    throws(StoreError)
  {
    let q = Quoting.sqlIdentifier
    guard
      let destination = destinationSchema.joinTables.first(where: { $0.name == join.destination })
    else { return }
    let source = binding.joinTables[join.sourceIndex]
    var columns: [String] = []
    var expressions: [String] = []
    for (index, side) in destination.sides.enumerated() {
      columns.append(side.ownerColumn)
      expressions.append("s." + q(source.sides[join.sideOfSource[index]].ownerColumn))
    }
    for (index, side) in destination.sides.enumerated() {
      guard let order = side.orderColumn,
        let sourceOrder = source.sides[join.sideOfSource[index]].orderColumn
      else { continue }
      columns.append(order)
      expressions.append("s." + q(sourceOrder))
    }
    try database.execute(
      "INSERT OR IGNORE INTO main.\(q(destination.name)) (" + columns.map(q).joined(separator: ", ")
        + ") SELECT " + expressions.joined(separator: ", ") + " FROM source.\(q(source.name)) AS s",
      at: destination.name)
  }

  /// For each destination root, the largest key given out: the source's `Z_MAX` of the table
  /// its rows came from, or the largest key copied.
  private func largestKeys(_ binding: SQLiteBinding, in database: SQLiteDatabase)
    throws(StoreError) -> [Int: Int64]
  {
    let q = Quoting.sqlIdentifier
    var largest: [Int: Int64] = [:]
    for root in destinationSchema.entities where root.number == root.rootNumber {
      var value =
        try database.integer("SELECT max(Z_PK) FROM main.\(q(root.table))", at: root.table) ?? 0
      if let table = sourceTableOf[root.table],
        let sourceRoot = sourceSchema.entities.first(where: {
          $0.table == table && $0.number == $0.rootNumber
        })
      {
        let statement = try database.prepare(
          "SELECT Z_MAX FROM source.Z_PRIMARYKEY WHERE Z_ENT = ?", at: "Z_PRIMARYKEY")
        statement.bind(Int64(sourceRoot.number), at: 1)
        if try statement.step(at: "Z_PRIMARYKEY"), !statement.isNull(0) {
          value = max(value, statement.int64(0))
        }
      }
      largest[root.number] = value
    }
    return largest
  }
}
