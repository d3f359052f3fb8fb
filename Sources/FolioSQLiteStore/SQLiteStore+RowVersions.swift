import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

extension SQLiteStore: RowVersionScanning {
  /// What changed in the store at `url` compared with the versions `known` gives: every row's
  /// `Z_PK` and `Z_OPT` is read, table by table, and the records of rows whose version `known`
  /// lacks or gives otherwise are read in full, all in one read transaction. A writer that
  /// moves `Z_OPT` one on whenever it changes a row (Core Data, Folio) is seen whole: a
  /// relationship change moves the version of the rows on both sides.
  package func changes(
    comparedWith known: (_ id: Int64, _ root: String) -> UInt32?, from url: URL,
    model: ManagedObjectModel
  ) throws(StoreError) -> StoreChangesSince {
    let database = try Self.beginReading(url)
    defer { try? database.execute("COMMIT") }
    let schema = SQLiteSchema(model: model)
    let binding = try SQLiteBinding(schema: schema, database: database)
    var result = StoreChangesSince()
    result.metadata = try SQLiteMetadata.read(from: database)
    let largest = try database.integer("SELECT max(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")
    result.nextObjectID = min(max(largest ?? 0, 0), StoreKeySpace.maximumKey) + 1
    var listed: [Int64] = []
    for root in schema.entities where root.number == root.rootNumber {
      let table = binding.table(root.table)
      let rows = try database.prepare(
        "SELECT Z_PK, Z_OPT FROM \(Quoting.sqlIdentifier(table))", at: table)
      let place = "\(table) row"
      while try rows.step(at: place) {
        let id = StoreKeySpace.id(space: root.rootNumber, key: rows.int64(0))
        let version = SQLiteRowVersion.read(rows.isNull(1) ? nil : rows.int64(1))
        if known(id, root.name) != version { listed.append(id) }
      }
    }
    result.records = try readRecords(listed, database: database, binding: binding, url: url)
    result.givenRelationships = Self.givenRelationships(schema: schema, binding: binding)
    return result
  }
}
