import CSQLite
import FolioModel
import FolioStores
import Foundation

/// A batch deletion in SQL, as a context's deletion and save would leave the store
/// (`Formats/sqlite-store.md` §12b):
///
/// 1. Cascade: the targets of each Cascade relationship of the objects listed are added to
///    the list, round after round, until a round adds none.
/// 2. Deny: a Deny relationship of a listed object that names an object outside the list
///    refuses the batch.
/// 3. Inverses: each target outside the list of a Nullify (or Cascade) relationship whose
///    inverse it stores (a to-one's foreign key, a join table's rows) is *touched*: listed in
///    `folio_touched`, its foreign key to the deleted object set to NULL where that is how its
///    inverse is stored, and its row moved one version on (`Z_OPT`). A target whose inverse
///    is a to-many kept only as the deleted rows' foreign keys stores nothing that changes.
///    A No Action or Deny relationship leaves the target naming the deleted key, as a save
///    does (§5.5).
/// 4. Join rows naming a deleted object go, then the deleted rows themselves.
///
/// Each step is a statement over whole tables joined to the list: the targets of a relationship
/// declared by entity D are found, for the rows listed as D or below it, through the
/// relationship's storage — its foreign key in D's table (a to-one), its inverse's foreign key
/// in the destination's table (a one-to-many), or its join table (a many-to-many).
extension SQLiteBatch {
  /// The `FROM … WHERE` that joins each listed row `b` of an entity that declares or inherits
  /// `relationship` from `owner` to each of its targets `t` (a row of `target`'s table); `nil`
  /// when the relationship is not stored.
  func targetJoin(of relationship: RelationshipDescription, declaredBy owner: SQLiteSchema.Entity)
    -> (from: String, target: SQLiteSchema.Entity)?
  {
    guard let target = schema.entity(relationship.destinationEntityName) else { return nil }
    let listedRows =
      "b.root = \(owner.rootNumber) AND b.ent IN \(Self.list(owner.kindNumbers))"
    let targetTable = table(of: target)
    if !relationship.isToMany {
      guard
        let toOne = schema.toOnes[owner.name]?.first(where: {
          $0.relationship.name == relationship.name
        })
      else { return nil }
      let column = quote(binding.column(toOne.column, of: owner.table))
      return (
        "temp.folio_batch b JOIN \(table(of: owner)) x ON x.Z_PK = b.key JOIN \(targetTable) t "
          + "ON t.Z_PK = x.\(column) WHERE \(listedRows) AND t.Z_ENT IN "
          + Self.list(target.kindNumbers), target
      )
    }
    if let inverse = model.inverse(of: relationship), !inverse.isToMany {
      let foreignKey =
        schema.unorderedToManys[owner.name]?.first { $0.relationship.name == relationship.name }?
        .foreignKey
        ?? schema.orderedToManys[owner.name]?.first { $0.relationship.name == relationship.name }?
        .foreignKey
      guard let foreignKey else { return nil }
      let column = quote(binding.column(foreignKey, of: target.table))
      return (
        "temp.folio_batch b JOIN \(targetTable) t ON t.\(column) = b.key WHERE \(listedRows) "
          + "AND t.Z_ENT IN \(Self.list(target.kindNumbers))", target
      )
    }
    for join in binding.joinTables {
      for (index, side) in join.sides.enumerated()
      where side.entity == owner.name && side.relationship.name == relationship.name {
        let other = join.sides[1 - index]
        return (
          "temp.folio_batch b JOIN \(quote(join.name)) j ON j.\(quote(side.ownerColumn)) = b.key "
            + "JOIN \(targetTable) t ON t.Z_PK = j.\(quote(other.ownerColumn)) WHERE \(listedRows)",
          target
        )
      }
    }
    return nil
  }

  /// Each relationship of the model with the entity that declares it.
  private var declaredRelationships:
    [(owner: SQLiteSchema.Entity, relationship: RelationshipDescription)]
  {
    model.entities.flatMap { description in
      description.relationships.filter { !$0.isTransient }.compactMap { relationship in
        schema.entity(description.name).map { ($0, relationship) }
      }
    }
  }

  /// The condition that the target row `t` of `target`'s table is not listed for deletion.
  private func notListed(_ target: SQLiteSchema.Entity) -> String {
    "NOT EXISTS (SELECT 1 FROM temp.folio_batch g WHERE g.root = \(target.rootNumber) "
      + "AND g.key = t.Z_PK)"
  }

  func delete(outcome: inout StoreBatchOutcome) throws(StoreError) {
    outcome.selectedCount = Int(
      try database.integer("SELECT count(*) FROM temp.folio_batch", at: "temp.folio_batch") ?? 0)
    let relationships = declaredRelationships
    // 1. Cascades, until a round adds nothing.
    let cascades = relationships.filter { $0.relationship.deleteRule == .cascade }
    var added = true
    while added {
      added = false
      for (owner, relationship) in cascades {
        guard let (from, target) = targetJoin(of: relationship, declaredBy: owner) else { continue }
        try database.execute(
          "INSERT OR IGNORE INTO temp.folio_batch SELECT \(target.rootNumber), t.Z_PK, t.Z_ENT "
            + "FROM \(from)", at: "temp.folio_batch")
        if sqlite3_changes(database.handle) > 0 { added = true }
      }
    }
    // 2. Deny.
    for (owner, relationship) in relationships where relationship.deleteRule == .deny {
      guard let (from, target) = targetJoin(of: relationship, declaredBy: owner) else { continue }
      let statement = try database.prepare(
        "SELECT b.key, b.ent, count(*) FROM \(from) AND \(notListed(target)) "
          + "GROUP BY b.key, b.ent ORDER BY b.key LIMIT 1", at: "temp.folio_batch")
      guard try statement.step(), let entity = schema.entity(number: Int(statement.int64(1)))
      else { continue }
      outcome.refusal = .denied(
        entityName: entity.name,
        id: StoreKeySpace.id(space: owner.rootNumber, key: statement.int64(0)),
        relationship: relationship.name, count: Int(statement.int64(2)))
      return
    }
    // 3. The targets whose stored inverse loses a deleted object: a to-one's foreign key, or
    // a join table's rows. An inverse to-many kept only as the deleted rows' own foreign keys
    // stores nothing that changes: its owner is not touched.
    var nullified:
      [(target: SQLiteSchema.Entity, owner: SQLiteSchema.Entity, inverse: RelationshipDescription)] =
        []
    for (owner, relationship) in relationships
    where relationship.deleteRule == .nullify || relationship.deleteRule == .cascade {
      guard let inverse = model.inverse(of: relationship),
        relationship.isToMany || !inverse.isToMany,
        let (from, target) = targetJoin(of: relationship, declaredBy: owner)
      else { continue }
      try database.execute(
        "INSERT OR IGNORE INTO temp.folio_touched SELECT \(target.rootNumber), t.Z_PK, t.Z_ENT "
          + "FROM \(from) AND \(notListed(target))", at: "temp.folio_touched")
      if !inverse.isToMany { nullified.append((target, owner, inverse)) }
    }
    let before = isTracked ? try records(listedIn: ["folio_batch", "folio_touched"]) : []
    for (target, owner, inverse) in nullified { try nullify(inverse, of: target, naming: owner) }
    // 4. Join rows, then the rows.
    for join in binding.joinTables {
      for side in join.sides {
        guard let owner = schema.entity(side.entity) else { continue }
        try database.execute(
          "DELETE FROM \(quote(join.name)) WHERE \(quote(side.ownerColumn)) IN (SELECT key FROM "
            + "temp.folio_batch WHERE root = \(owner.rootNumber) AND ent IN "
            + "\(Self.list(owner.kindNumbers)))", at: join.name)
      }
    }
    let roots = Set(schema.entities.map(\.rootNumber))
    for root in roots.sorted() {
      guard let rootEntity = schema.entity(number: root) else { continue }
      try database.execute(
        "DELETE FROM \(table(of: rootEntity)) WHERE Z_PK IN (SELECT key FROM temp.folio_batch "
          + "WHERE root = \(root))", at: binding.table(rootEntity.table))
      try database.execute(
        "UPDATE \(table(of: rootEntity)) SET Z_OPT = \(SQLiteRowVersion.sql) + 1 WHERE Z_PK IN "
          + "(SELECT key FROM temp.folio_touched WHERE root = \(root))",
        at: binding.table(rootEntity.table))
    }
    outcome.objects = try listed(in: "folio_batch")
    outcome.touched = try listed(in: "folio_touched")
    if isTracked {
      let gone = Set(outcome.objects.map(\.id))
      let after = Dictionary(
        try records(listedIn: ["folio_touched"]).map { ($0.id, $0) },
        uniquingKeysWith: { a, _ in a })
      var changes = StoreChanges(nextObjectID: try nextObjectID()) { _ in nil }
      changes.deleted = before.filter { gone.contains($0.id) }
      changes.updated = before.compactMap { old in after[old.id].map { (old, $0) } }
      try recordHistory(changes)
    }
    if batch.collectsChanges {
      outcome.changes = try changes(listedIn: ["folio_touched"], deleted: outcome.objects.map(\.id))
    }
  }

  /// Sets to NULL the foreign key of to-one `inverse` (and its entity column) in the touched
  /// rows of `target`'s table that name a listed object of `owner`'s kind.
  private func nullify(
    _ inverse: RelationshipDescription, of target: SQLiteSchema.Entity,
    naming owner: SQLiteSchema.Entity
  ) throws(StoreError) {
    // The inverse is declared by the target's entity or an entity above or below it; its
    // column is in the target's table either way.
    let declarer = schema.entities.first { candidate in
      candidate.rootNumber == target.rootNumber
        && (schema.toOnes[candidate.name] ?? []).contains { $0.relationship.name == inverse.name }
        && model.entity(named: candidate.name)?.relationships.contains { $0.name == inverse.name }
          == true
    }
    guard let declarer,
      let toOne = schema.toOnes[declarer.name]?.first(where: {
        $0.relationship.name == inverse.name
      })
    else { return }
    let column = quote(binding.column(toOne.column, of: target.table))
    var sets = ["\(column) = NULL"]
    if let entityColumn = toOne.entityColumn {
      sets.append("\(quote(binding.column(entityColumn, of: target.table))) = NULL")
    }
    try database.execute(
      "UPDATE \(table(of: target)) SET \(sets.joined(separator: ", ")) WHERE Z_PK IN (SELECT key "
        + "FROM temp.folio_touched WHERE root = \(target.rootNumber)) AND \(column) IN (SELECT key "
        + "FROM temp.folio_batch WHERE root = \(owner.rootNumber) AND ent IN "
        + "\(Self.list(owner.kindNumbers)))", at: binding.table(target.table))
  }
}
