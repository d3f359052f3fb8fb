import FolioModel
import FolioStores
import Foundation

extension SQLiteStore: CommitLogReading {
  /// The place of the store at `url` in its commit log now (``SQLiteCommitLog``); `nil` when it
  /// keeps no log, or keeps its changes in a write-ahead log.
  package func commitLogPosition(of url: URL) throws(StoreError) -> CommitLogPosition? {
    let database = try Self.beginReading(url)
    defer { try? database.execute("COMMIT") }
    return try SQLiteCommitLog.position(in: database)
  }

  /// What the commits after `position` changed, read in one read transaction of the store at
  /// `url`: the objects they inserted and changed, as the store holds them now, and those they
  /// deleted (``CommitLogReading``).
  package func changes(
    since position: CommitLogPosition, from url: URL, model: ManagedObjectModel
  ) throws(StoreError) -> CommitLogChanges {
    let database = try Self.beginReading(url)
    defer { try? database.execute("COMMIT") }
    let schema = SQLiteSchema(model: model)
    let last: [Int64: Int64]
    let after: CommitLogPosition?
    switch try SQLiteCommitLog.changes(since: position, in: database, schema: schema) {
    case .changes(let changes, let position): (last, after) = (changes, position)
    case .cannotTell: return .cannotTell
    case .otherHistory: return .otherHistory
    }
    let binding = try SQLiteBinding(schema: schema, database: database)
    var result = StoreChangesSince()
    result.logPosition = after
    result.metadata = try SQLiteMetadata.read(from: database)
    let largest = try database.integer("SELECT max(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")
    result.nextObjectID = min(max(largest ?? 0, 0), StoreKeySpace.maximumKey) + 1
    var listed: [Int64] = []
    for (id, type) in last {
      if type == SQLiteCommitLog.delete { result.deleted.append(id) } else { listed.append(id) }
    }
    result.records = try readRecords(listed, database: database, binding: binding, url: url)
    // A listed object the store does not have is gone.
    let read = Set(result.records.map(\.id))
    for id in listed where !read.contains(id) { result.deleted.append(id) }
    result.givenRelationships = Self.givenRelationships(schema: schema, binding: binding)
    return .changes(result)
  }
}
