import FolioModel
import FolioStores
internal import FolioSupport

/// Where each entity and property of a model lives in a Core Data SQLite store, by Core Data's
/// naming rules (`Formats/sqlite-store.md`): entity numbers, one table per entity hierarchy,
/// a column per attribute and to-one relationship, join tables for many-to-many relationships
/// and order columns for ordered ones.
///
/// The schema is computed from the model alone, as Core Data does; ``SQLiteSchema/bind(to:)``
/// then finds the names a real file uses where Core Data's choice is not derivable (which side
/// names a join table, numeric suffixes of join columns).
package struct SQLiteSchema {
  /// One entity: its number, its hierarchy's table and where its properties are stored.
  package struct Entity {
    package let name: String
    /// `Z_ENT`: the entity's number, from 1.
    package let number: Int
    /// The parent's number, 0 for a root (`Z_SUPER`).
    package let superNumber: Int
    /// The number of the hierarchy's root: the key space of its objects.
    package let rootNumber: Int
    /// The hierarchy's table, `Z` + the root's name in upper case.
    package let table: String
    package let isAbstract: Bool
    /// The numbers of the entity and every entity below it.
    package var kindNumbers: Set<Int> = []
  }

  /// A stored attribute of an entity, declared or inherited, and its column.
  package struct AttributeColumn {
    package let attribute: AttributeDescription
    package let column: String
  }

  /// A to-one relationship's foreign key, and the destination's entity column when the
  /// destination has subentities.
  package struct ToOneColumn {
    package let relationship: RelationshipDescription
    package let column: String
    package let entityColumn: String?
    /// The number of the destination's root: the key space of the targets.
    package let targetRoot: Int
  }

  /// An ordered one-to-many relationship, stored as the order column `Z_FOK_<INVERSE>` in the
  /// members' table beside their foreign key.
  package struct OrderedToMany {
    package let relationship: RelationshipDescription
    /// The members' table and their foreign-key column (the inverse's).
    package let memberTable: String
    package let foreignKey: String
    package let orderColumn: String
    package let memberRoot: Int
  }

  /// An unordered one-to-many relationship: its members are the rows of the members' table
  /// whose foreign key (the inverse's) names the owner.
  package struct UnorderedToMany {
    package let relationship: RelationshipDescription
    package let memberTable: String
    package let foreignKey: String
    package let memberRoot: Int
  }

  /// A many-to-many pair, stored in one join table.
  package struct JoinTable {
    /// The table's name as Core Data would choose it for a new store.
    package var name: String
    /// The other name Core Data may have given it: readers accept either.
    package var alternativeName: String
    /// One side per relationship: the column holding its owners' keys, the column holding
    /// its members' keys, and the order column when it is ordered.
    package var sides: [Side]

    package struct Side {
      package let entity: String
      package let relationship: RelationshipDescription
      package var ownerColumn: String
      package var memberColumn: String
      package var orderColumn: String?
      /// The owner and member columns' names before any clash suffix: a file's columns are
      /// these, or these followed by digits.
      package let ownerBase: String
      package let memberBase: String
      package let ownerRoot: Int
      package let memberRoot: Int
    }
  }

  /// Every entity, by number order.
  package private(set) var entities: [Entity] = []
  package private(set) var entityByName: [String: Int] = [:]
  /// Per entity (by name): its stored attributes, with inherited ones.
  package private(set) var attributes: [String: [AttributeColumn]] = [:]
  /// Per entity (by name): its to-one relationships' columns, with inherited ones.
  package private(set) var toOnes: [String: [ToOneColumn]] = [:]
  /// Ordered one-to-many relationships, by the owner's entity name.
  package private(set) var orderedToManys: [String: [OrderedToMany]] = [:]
  /// The unordered one-to-many relationships declared by each entity: stored only as their
  /// inverses' foreign keys in the members' table.
  package private(set) var unorderedToManys: [String: [UnorderedToMany]] = [:]
  package private(set) var joinTables: [JoinTable] = []
  /// Every table: its name and its columns with their SQL types, in order.
  package private(set) var tables: [(name: String, columns: [(name: String, type: String)])] = []
  /// The indexes Core Data creates with a new store's tables, as SQL.
  package private(set) var indexes: [String] = []
  /// What the model holds that no store can: to-many relationships without an inverse, and
  /// composite attributes.
  package private(set) var unsupported: [String] = []

  /// The entity `name`.
  package func entity(_ name: String) -> Entity? { entityByName[name].map { entities[$0] } }

  /// The key space (``StoreKeySpace``) of each entity's objects: its hierarchy root's number.
  package var keySpaces: [String: Int] {
    Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.rootNumber) })
  }

  /// The largest of `keys` in each hierarchy's key space, by root entity number, in order:
  /// what `Z_PRIMARYKEY.Z_MAX` must reach for the keys to stay given.
  ///
  /// - Throws: `StoreError.malformedStore`, naming `place`, for an entity the schema has not
  ///   or cannot give keys to.
  package func largestKeys(_ keys: [(entityName: String, key: Int64)], place: String)
    throws(StoreError) -> [(root: Int, key: Int64)]
  {
    var largest: [Int: Int64] = [:]
    for (name, key) in keys {
      guard let entity = entity(name), !entity.isAbstract else {
        throw StoreError(
          .malformedStore, "\(name) is not a concrete entity of the store's model",
          at: InputLocation(file: place, entity: name))
      }
      largest[entity.rootNumber] = max(largest[entity.rootNumber] ?? 0, StoreKeySpace.key(of: key))
    }
    return largest.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
  }

  /// The entity numbered `number`.
  package func entity(number: Int) -> Entity? {
    number >= 1 && number <= entities.count ? entities[number - 1] : nil
  }

  /// Relationships whose targets may be deleted while they still name them: those without an
  /// inverse, and those whose inverse's delete rule is No Action or Deny (a Deny a save could
  /// not see: another context's save added the reference after the deletion was checked).
  /// Such a reference stays in the file when the target's row goes. Keyed by
  /// ``outlivingKey(_:)``.
  private(set) var mayOutliveTargets: Set<String> = []

  /// Whether `relationship` may name a row that is gone (see `mayOutliveTargets`).
  func mayOutliveTarget(_ relationship: RelationshipDescription) -> Bool {
    mayOutliveTargets.contains(Self.outlivingKey(relationship))
  }

  private static func outlivingKey(_ relationship: RelationshipDescription) -> String {
    relationship.name + "\u{0}" + relationship.destinationEntityName + "\u{0}"
      + (relationship.inverseName ?? "")
  }

  package init(model: ManagedObjectModel) {
    let byName = Dictionary(model.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    for entity in model.entities {
      for relationship in entity.relationships {
        guard let inverse = relationship.inverseName else {
          mayOutliveTargets.insert(Self.outlivingKey(relationship))
          continue
        }
        // The inverse is declared on the destination or on one of its ancestors.
        var holder = byName[relationship.destinationEntityName]
        var seen: Set<String> = []
        while let current = holder, seen.insert(current.name).inserted {
          if let found = current.relationships.first(where: { $0.name == inverse }) {
            if found.deleteRule == .noAction || found.deleteRule == .deny {
              mayOutliveTargets.insert(Self.outlivingKey(relationship))
            }
            break
          }
          holder = current.parentEntityName.flatMap { byName[$0] }
        }
      }
    }
    // Entity numbers: roots by name, each hierarchy depth-first in pre-order, subentities by
    // name (code point order, as Core Data compares).
    var ordered: [(EntityDescription, Int, Int)] = []
    func visit(_ entity: EntityDescription, parent: Int, root: Int) {
      let number = ordered.count + 1
      ordered.append((entity, parent, root == 0 ? number : root))
      for child in entity.subentityNames.sorted(by: Self.codePointOrder) {
        if let sub = byName[child] { visit(sub, parent: number, root: root == 0 ? number : root) }
      }
    }
    let roots = model.entities.filter { $0.parentEntityName == nil }
    for root in roots.sorted(by: { Self.codePointOrder($0.name, $1.name) }) {
      visit(root, parent: 0, root: 0)
    }
    for (index, (entity, parent, root)) in ordered.enumerated() {
      let rootName = ordered[root - 1].0.name
      entities.append(
        Entity(
          name: entity.name, number: index + 1, superNumber: parent, rootNumber: root,
          table: "Z" + rootName.uppercased(), isAbstract: entity.isAbstract))
      entityByName[entity.name] = index
    }
    for index in entities.indices.reversed() {
      entities[index].kindNumbers.insert(entities[index].number)
      let parent = entities[index].superNumber
      if parent > 0 { entities[parent - 1].kindNumbers.formUnion(entities[index].kindNumbers) }
    }
    // SQL takes any name in quotes but one with a NUL, where the statement's text ends.
    for entity in model.entities {
      for name in [entity.name] + entity.properties.map(\.name) where name.contains("\0") {
        unsupported.append("\(entity.name).\(name) (a name with a NUL character)")
      }
    }
    layOutTables(model: model, ordered: ordered.map(\.0))
  }

  static func codePointOrder(_ a: String, _ b: String) -> Bool {
    a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
  }

  // MARK: Tables and columns

  /// The columns of the hierarchy tables as they are laid out, in the order Core Data's fresh
  /// tables have them (informative only: readers look columns up by name).
  private struct TableColumns {
    var byTable: [String: [(name: String, type: String)]] = [:]
    var tableOrder: [String] = []
    var usedNames: [String: Set<String>] = [:]
    /// The column of each declared property, by "Entity.property" (and a to-one's entity
    /// column by "Entity.property#entity").
    var declared: [String: String] = [:]

    /// `base`, or `base` followed by the first number that makes it new in `table`.
    mutating func claim(_ base: String, in table: String) -> String {
      var name = base
      var suffix = 1
      while usedNames[table, default: []].contains(name) {
        name = base + String(suffix)
        suffix += 1
      }
      usedNames[table, default: []].insert(name)
      return name
    }
  }

  private mutating func layOutTables(model: ManagedObjectModel, ordered: [EntityDescription]) {
    var columns = TableColumns()
    for entity in ordered { declareColumns(of: entity, in: &columns) }
    for entity in ordered { collectColumns(of: entity, model: model, declared: columns.declared) }
    for entity in ordered { layOutToManys(of: entity, model: model, columns: &columns) }
    layOutJoinTables(model: model, ordered: ordered)
    tables = columns.tableOrder.map { ($0, columns.byTable[$0] ?? []) }
    layOutIndexes(model: model, ordered: ordered)
    for join in joinTables {
      var joinColumns = join.sides.map { ($0.ownerColumn, "INTEGER") }
      // The order columns come in the other order: the second side's first.
      joinColumns += join.sides.reversed().compactMap { side in
        side.orderColumn.map { ($0, "INTEGER") }
      }
      tables.append((join.name, joinColumns))
    }
  }

  /// The columns `entity` declares in its hierarchy's table: its to-ones' (and their entity
  /// columns, into a hierarchy), then its attributes'.
  private mutating func declareColumns(of entity: EntityDescription, in columns: inout TableColumns)
  {
    guard let info = self.entity(entity.name) else { return }
    if columns.byTable[info.table] == nil {
      columns.tableOrder.append(info.table)
      columns.byTable[info.table] = [
        ("Z_PK", "INTEGER PRIMARY KEY"), ("Z_ENT", "INTEGER"), ("Z_OPT", "INTEGER"),
      ]
      columns.usedNames[info.table] = ["Z_PK", "Z_ENT", "Z_OPT"]
    }
    for relationship in entity.relationships
    where !relationship.isToMany && !relationship.isTransient {
      let column = columns.claim("Z" + relationship.name.uppercased(), in: info.table)
      columns.declared[entity.name + "." + relationship.name] = column
      columns.byTable[info.table, default: []].append((column, "INTEGER"))
      if let destination = self.entity(relationship.destinationEntityName),
        destination.kindNumbers.count > 1
      {
        let entityColumn = columns.claim(
          "Z\(destination.number)_" + relationship.name.uppercased(), in: info.table)
        columns.declared[entity.name + "." + relationship.name + "#entity"] = entityColumn
        columns.byTable[info.table, default: []].append((entityColumn, "INTEGER"))
      }
    }
    for attribute in entity.attributes where !attribute.isTransient {
      if attribute.attributeType == .composite || attribute.attributeType == .objectID
        || attribute.attributeType == .undefined
      {
        if attribute.attributeType == .composite {
          unsupported.append("\(entity.name).\(attribute.name) (a composite attribute)")
        }
        continue
      }
      let column = columns.claim("Z" + attribute.name.uppercased(), in: info.table)
      columns.declared[entity.name + "." + attribute.name] = column
      columns.byTable[info.table, default: []].append(
        (column, Self.sqlType(of: attribute.attributeType)))
    }
  }

  /// `entity`'s attribute and to-one columns, its ancestors' included.
  private mutating func collectColumns(
    of entity: EntityDescription, model: ManagedObjectModel, declared: [String: String]
  ) {
    var attributeColumns: [AttributeColumn] = []
    var toOneColumns: [ToOneColumn] = []
    for property in entity.properties {
      let owner = declaringEntity(of: property.name, in: entity, model: model)
      switch property {
      case .attribute(let attribute):
        if let column = declared[owner + "." + attribute.name] {
          attributeColumns.append(AttributeColumn(attribute: attribute, column: column))
        }
      case .relationship(let relationship):
        guard !relationship.isToMany,
          let column = declared[owner + "." + relationship.name],
          let destination = self.entity(relationship.destinationEntityName)
        else { continue }
        toOneColumns.append(
          ToOneColumn(
            relationship: relationship, column: column,
            entityColumn: declared[owner + "." + relationship.name + "#entity"],
            targetRoot: destination.rootNumber))
      default:
        continue
      }
    }
    attributes[entity.name] = attributeColumns
    toOnes[entity.name] = toOneColumns
  }

  /// `entity`'s one-to-many relationships: an ordered one's order column goes beside the
  /// inverse's foreign key; an unordered one is read from that key.
  private mutating func layOutToManys(
    of entity: EntityDescription, model: ManagedObjectModel, columns: inout TableColumns
  ) {
    for relationship in entity.relationships
    where relationship.isToMany && !relationship.isTransient {
      guard let inverse = model.inverse(of: relationship), !inverse.isToMany,
        let inverseOwner = relationship.inverseEntityName
          ?? Optional(relationship.destinationEntityName),
        let foreignKey = columns.declared[
          declaringEntity(of: inverse.name, in: model.entity(named: inverseOwner), model: model)
            + "." + inverse.name],
        let member = self.entity(relationship.destinationEntityName)
      else { continue }
      guard relationship.isOrdered else {
        unorderedToManys[entity.name, default: []].append(
          UnorderedToMany(
            relationship: relationship, memberTable: member.table, foreignKey: foreignKey,
            memberRoot: member.rootNumber))
        continue
      }
      let orderColumn = columns.claim("Z_FOK_" + inverse.name.uppercased(), in: member.table)
      columns.byTable[member.table, default: []].append((orderColumn, "INTEGER"))
      orderedToManys[entity.name, default: []].append(
        OrderedToMany(
          relationship: relationship, memberTable: member.table, foreignKey: foreignKey,
          orderColumn: orderColumn, memberRoot: member.rootNumber))
    }
  }

  /// The entity among `entity` and its ancestors that declares property `name`.
  private func declaringEntity(
    of name: String, in entity: EntityDescription?, model: ManagedObjectModel
  ) -> String {
    var current = entity
    var found = entity?.name ?? ""
    while let candidate = current {
      if candidate.attributes.contains(where: { $0.name == name })
        || candidate.relationships.contains(where: { $0.name == name })
      {
        found = candidate.name
      }
      current = candidate.parentEntityName.flatMap { model.entity(named: $0) }
    }
    return found
  }

  private mutating func layOutJoinTables(
    model: ManagedObjectModel, ordered: [EntityDescription]
  ) {
    var usedJoinColumns: Set<String> = []
    func claim(_ base: String) -> String {
      var name = base
      var suffix = 1
      while usedJoinColumns.contains(name) {
        name = base + String(suffix)
        suffix += 1
      }
      usedJoinColumns.insert(name)
      return name
    }
    var done: Set<String> = []
    for entity in ordered {
      for relationship in entity.relationships.sorted(by: { Self.codePointOrder($0.name, $1.name) })
      where relationship.isToMany && !relationship.isTransient {
        guard let inverse = model.inverse(of: relationship) else {
          unsupported.append(
            "\(entity.name).\(relationship.name) (a to-many relationship without an inverse)")
          continue
        }
        guard inverse.isToMany else { continue }
        let key = entity.name + "." + relationship.name
        guard !done.contains(key), let a = self.entity(entity.name),
          let inverseOwnerName = relationship.inverseEntityName
            ?? Optional(relationship.destinationEntityName),
          let b = self.entity(
            declaringEntity(
              of: inverse.name, in: model.entity(named: inverseOwnerName), model: model))
        else { continue }
        done.insert(key)
        done.insert(b.name + "." + inverse.name)
        // A.R ↔ B.S is stored in Z_<a><R> (Z_<a><S>, Z_<b><R>): each column is named after
        // the relationship whose members it holds, prefixed with their entity's number.
        let r = relationship.name.uppercased()
        let s = inverse.name.uppercased()
        let nameByA = "Z_\(a.number)\(r)"
        let nameByB = "Z_\(b.number)\(s)"
        // Core Data lets the entity with the lower number name the table; between the two
        // sides of one entity, the later name.
        let aNames: Bool = a.number == b.number ? r > s : a.number < b.number
        let ownersOfR = claim("Z_\(a.number)\(s)")
        let membersOfR = claim("Z_\(b.number)\(r)")
        // Side R: owners are A's keys (column named after S), members B's (named after R).
        var sideR = JoinTable.Side(
          entity: a.name, relationship: relationship, ownerColumn: ownersOfR,
          memberColumn: membersOfR, orderColumn: nil, ownerBase: "Z_\(a.number)\(s)",
          memberBase: "Z_\(b.number)\(r)", ownerRoot: a.rootNumber, memberRoot: b.rootNumber)
        var sideS = JoinTable.Side(
          entity: b.name, relationship: inverse, ownerColumn: membersOfR,
          memberColumn: ownersOfR, orderColumn: nil, ownerBase: "Z_\(b.number)\(r)",
          memberBase: "Z_\(a.number)\(s)", ownerRoot: b.rootNumber, memberRoot: a.rootNumber)
        if relationship.isOrdered { sideR.orderColumn = "Z_FOK_" + membersOfR.dropFirst(2) }
        if inverse.isOrdered { sideS.orderColumn = "Z_FOK_" + ownersOfR.dropFirst(2) }
        joinTables.append(
          JoinTable(
            name: aNames ? nameByA : nameByB, alternativeName: aNames ? nameByB : nameByA,
            sides: aNames ? [sideR, sideS] : [sideS, sideR]))
      }
    }
  }

  /// One index per to-one foreign key, one on `Z_ENT` of each table with subentities, one per
  /// join table, and a unique index per uniqueness constraint, named as Core Data names them.
  private mutating func layOutIndexes(model: ManagedObjectModel, ordered: [EntityDescription]) {
    let q = Quoting.sqlIdentifier
    var seen: Set<String> = []
    for entity in ordered {
      guard let info = self.entity(entity.name) else { continue }
      if info.number == info.rootNumber, info.kindNumbers.count > 1 {
        indexes.append(
          "CREATE INDEX \(q(info.table + "_Z_ENT_INDEX")) ON \(q(info.table)) (Z_ENT)")
      }
      for toOne in toOnes[entity.name] ?? [] where seen.insert(info.table + toOne.column).inserted {
        indexes.append(
          "CREATE INDEX \(q(info.table + "_" + toOne.column + "_INDEX")) ON \(q(info.table)) "
            + "(\(q(toOne.column)))")
      }
      let columns = Dictionary(
        (attributes[entity.name] ?? []).map { ($0.attribute.name, $0.column) },
        uniquingKeysWith: { a, _ in a })
      for constraint in entity.uniquenessConstraints {
        let found = constraint.compactMap { columns[$0] }
        guard found.count == constraint.count, !found.isEmpty else { continue }
        let name = "Z_\(entity.name)_UNIQUE_" + constraint.joined(separator: "_")
        indexes.append(
          "CREATE UNIQUE INDEX \(q(name)) ON \(q(info.table)) ("
            + found.map { "\(q($0)) COLLATE BINARY ASC" }.joined(separator: ", ") + ")")
      }
    }
    for join in joinTables {
      // Named after the column of the table's own relationship: the second side's owners.
      let first = join.sides[1].ownerColumn
      let second = join.sides[0].ownerColumn
      indexes.append(
        "CREATE INDEX \(q(join.name + "_" + first + "_INDEX")) ON \(q(join.name)) "
          + "(\(q(first)), \(q(second)))")
    }
  }

  /// The SQL type Core Data declares for an attribute type's column.
  static func sqlType(of type: AttributeType) -> String {
    switch type {
    case .integer16, .integer32, .integer64, .boolean: "INTEGER"
    case .double, .float: "FLOAT"
    case .date: "TIMESTAMP"
    case .decimal: "DECIMAL"
    case .string, .uri: "VARCHAR"
    case .uuid, .binaryData, .transformable: "BLOB"
    case .objectID, .composite, .undefined: "BLOB"
    }
  }
}
