import Folio
import FolioGraph
import FolioStores
import Foundation

// Several writers on one store (`Formats/shared-writers.md`). Limits: a save's cost when nobody
// else writes stays within 1.1× of a save without the lock and the look for other writers; a
// merge of another process's 1,000-object save into an open 1,000,000-object document takes
// ≤ 50 ms.
//
// The save without the lock cannot be run from the same build, so it is counted as the save
// less what the lock and the look cost when measured alone, in the same run: for XML and binary
// stores taking and letting go of the lock file, the stamp of the file and the change journal's
// barrier and entry of a one-object save; for SQLite, the
// `BEGIN IMMEDIATE`, `PRAGMA data_version`, the commit log's look at the header and `ROLLBACK`
// of an empty transaction on the kept connection, and what recording a commit in the log adds
// (the same save on the store with its log removed).

/// `shared-writers FORMAT:N`: the save and the merge above, measured on a store of N objects.
func sharedWritersBenchmark(_ argument: String) throws -> (String, [Case]) {
  let parts = argument.split(separator: ":").map(String.init)
  guard parts.count == 2, let count = Int(parts[1]) else {
    throw BenchmarkFailure("shared-writers takes FORMAT:N")
  }
  let format = try storeFormat(named: parts[0])
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("folio-shared-\(ProcessInfo.processInfo.processIdentifier).\(parts[0])")
  // For SQLite, a copy of the store without the commit log, as a store Folio did not make has
  // none: the same one-object save on it, taken in turns with the save on the store, is what
  // the log adds.
  let plain = URL(fileURLWithPath: path.path + ".plain")
  defer {
    for file in [path, plain] {
      for suffix in ["", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: file.path + suffix)
      }
    }
  }
  try writeStore(parts[0], objects: count, to: path)
  let model = try documentExpensesModel()
  let request = FetchRequest<ManagedObject>(
    entityName: "Spending", predicate: try QueryPredicate(format: "content == 'spending 500'"))
  func opened(_ url: URL) throws -> (Document, ManagedObject) {
    let document = try Document.open(url, model: model, formats: [format])
    guard let spending = try document.context.fetch(request).first else {
      throw BenchmarkFailure("the store did not load")
    }
    return (document, spending)
  }
  var withoutLog: (Document, ManagedObject)?
  if format is SQLiteStore {
    try FileManager.default.copyItem(at: path, to: plain)
    _ = try sqliteToolTime(
      path: plain.path,
      statements: ["DROP TABLE IF EXISTS Z_FOLIOLOG"])
    withoutLog = try opened(plain)
  }
  let (document, spending) = try opened(path)
  // A one-object save, nobody else writing, on each store in turn: medians of 21, or of 5 for
  // a store written whole (seconds a save at a million objects, against a lock and a look of
  // a tenth of a millisecond).
  var (saves, plainSaves): ([Double], [Double]) = ([], [])
  for round in 0..<(withoutLog == nil ? 5 : 21) {
    for (target, object) in [(document, spending)] + (withoutLog.map { [$0] } ?? []) {
      try object.setValue(Double(round) + 0.5, forKey: "amount")
      let start = now()
      try target.save()
      let time = Double(now() - start) / 1e6
      if target === document { saves.append(time) } else { plainSaves.append(time) }
    }
  }
  let save = saves.sorted()[saves.count / 2]
  let saveWithoutLog = plainSaves.isEmpty ? save : plainSaves.sorted()[plainSaves.count / 2]
  // The copy is let go before the merges: two documents of a million objects would measure
  // the memory's caches as much as the merge.
  withoutLog = nil
  // What the lock, the look for other writers and (for a store written whole) the change
  // journal's barrier and entry of a one-object save cost alone: median of 101.
  var looks: [Double] = []
  let stamp = FileStamp(of: path)
  let entry = StoreRecord(entityName: "Spending", id: 1, attributes: ["amount": .double(1.5)])
  for _ in 0..<101 {
    let start = now()
    let lock = try document.coordinator.lockForSaving()
    try document.coordinator.takeInChangesOnDisk()
    if !(format is any IncrementalStoreFormat), let stamp,
      let store = document.coordinator.persistentStores.first
    {
      var changes = StoreChanges(nextObjectID: Int64(count) + 1) { _ in nil }
      changes.updated = [(entry, entry)]
      ChangeJournal.noteReplaced(
        journal: try ChangeJournal.path(for: path), from: stamp, to: stamp)
      ChangeJournal.record(
        changes, metadata: store.metadata, objectCount: count, from: stamp, to: stamp, for: path)
    }
    lock?.release()
    looks.append(Double(now() - start) / 1e6)
  }
  let look = looks.sorted()[looks.count / 2]
  // Another process's save of 1,000 new objects, then this document merges it.
  let other = try Document.open(path, model: model, formats: [format])
  func otherSavesAThousand(_ name: String) throws -> Double {
    let person = try other.context.insertNewObject(forEntityName: "Person")
    try person.setValue(name, forKey: "name")
    for index in 0..<999 {
      let new = try other.context.insertNewObject(forEntityName: "Spending")
      try new.setValue(Double(index), forKey: "amount")
      try new.setValue(person, forKey: "person")
    }
    try other.save()
    let start = now()
    let merged = try document.mergeChangesFromOtherWriters()
    let merge = Double(now() - start) / 1e6
    guard merged.inserted.count == 1000 else {
      throw BenchmarkFailure("the merge took in \(merged.inserted.count) objects, not 1,000")
    }
    return merge
  }
  let merge = try otherSavesAThousand("other writer")
  var historyCases: [Case] = []
  if format is SQLiteStore {
    // The first merge also indexes the committed rows by key; the next one does not.
    let next = try otherSavesAThousand("other writer, again")
    historyCases.append(
      Case(title: "the next such save merged", value: next, unit: "ms", limit: 50))
    guard document.coordinator.takeInsFromLog == 2 else {
      throw BenchmarkFailure("the merges did not follow the commit log")
    }
    _ = try sqliteToolTime(
      path: path.path,
      statements: ["DROP TABLE IF EXISTS Z_FOLIOLOG"])
    _ = try otherSavesAThousand("other writer, no log")
    let byVersions = try otherSavesAThousand("other writer, by row versions")
    historyCases.append(
      Case(
        title: "the same, a store without the log (row versions compared)", value: byVersions,
        unit: "ms", limit: 50))
    // With persistent history on, a merge reads only the objects the history names.
    try SQLiteStore().enableHistoryTracking(at: path, model: model)
    _ = try otherSavesAThousand("other writer, history on")
    let fromHistory = try otherSavesAThousand("other writer, from the history")
    historyCases.append(
      Case(
        title: "the same, with persistent history", value: fromHistory, unit: "ms", limit: 50))
    // Without history, a merge compares every row's version with the one it knows: no pass
    // over the rows is cheaper than SQLite's own visit of every row's `Z_OPT`, summed inside
    // SQLite (less the sqlite3 tool's start and open).
    let visit = try sqliteToolTime(
      path: path.path,
      statements: ["ZPERSON", "ZSPENDING"].map { "SELECT count(*), sum(Z_OPT) FROM \($0)" })
    let start = try sqliteToolTime(path: path.path, statements: ["SELECT 1"])
    historyCases.append(
      Case(
        title: "sqlite3 visiting every row's Z_OPT (floor without history)", value: visit - start,
        unit: "ms", limit: 50))
  }
  withExtendedLifetime(other) {}
  var cases = [
    Case(title: "one-object edit saved (median of \(saves.count))", value: save, unit: "ms"),
    Case(
      title: "lock, look for other writers and journal alone (median of 101)", value: look,
      unit: "ms"),
  ]
  if !plainSaves.isEmpty {
    cases.append(
      Case(
        title: "one-object edit saved without the commit log (median of 21, in turns)",
        value: saveWithoutLog, unit: "ms"))
  }
  cases += [
    Case(
      title: "save / save without them", value: save / max(saveWithoutLog - look, 1e-9),
      unit: "×", limit: 1.1),
    Case(title: "another process's 1,000-object save merged", value: merge, unit: "ms", limit: 50),
  ]
  return (
    "Several writers: a \(parts[0]) document of \(count.formatted()) objects", cases + historyCases
  )
}
