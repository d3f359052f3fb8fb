import FolioQuery
import FolioStores
import FolioTestSupport
import FolioUndo
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

/// Contexts that share a store: the committed state lives in the coordinator, and reset,
/// refresh, saves from several contexts and merge policies work against it.
@Suite("Contexts sharing a store")
struct SharedStoreTests {
  /// A coordinator on a test store at `url` (created at the first save).
  func coordinator(_ url: URL) throws -> PersistentStoreCoordinator {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try graphModel())
    try coordinator.addPersistentStore(at: url, format: TestFormat())
    return coordinator
  }

  /// The records in the file at `url`, by ID.
  func fileRecords(_ url: URL) throws -> [Int64: StoreRecord] {
    let contents = try TestFormat().read(from: url, model: try graphModel())
    return Dictionary(uniqueKeysWithValues: contents.records.map { ($0.id, $0) })
  }

  /// A folder with a store holding a playlist "Mix" of tracks "A" (60 s) and "B" (90 s).
  func savedMix() throws -> (folder: URL, url: URL) {
    let folder = try makeTemporaryFolder()
    let url = folder.appendingPathComponent("music.test")
    let context = try ManagedObjectContext(coordinator: try coordinator(url))
    let mix = try context.insertNewObject(forEntityName: "Playlist")
    try mix.setValue("Mix", forKey: "name")
    for (title, seconds) in [("A", 60), ("B", 90)] {
      let track = try context.insertNewObject(forEntityName: "Track")
      try track.setValue(title, forKey: "title")
      try track.setValue(seconds, forKey: "seconds")
      try mix.add(track, toKey: "tracks")
    }
    try context.save()
    return (folder, url)
  }

  func track(_ title: String, in context: ManagedObjectContext) throws -> ManagedObject {
    let request = FetchRequest(
      entityName: "Track", predicate: try QueryPredicate(format: "title == %@", title))
    return try #require(try context.fetch(request).first)
  }

  func playlist(in context: ManagedObjectContext) throws -> ManagedObject {
    try #require(try context.fetch(FetchRequest(entityName: "Playlist")).first)
  }

  /// The file's identity and last change.
  func stamp(_ url: URL) throws -> (inode: Int, modified: Date) {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return (
      try #require((attributes[.systemFileNumber] as? NSNumber)?.intValue),
      try #require(attributes[.modificationDate] as? Date)
    )
  }

  // MARK: Reset

  @Test("reset forgets the context's objects, not the store's: a fetch brings them back")
  func resetKeepsTheStore() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let context = try ManagedObjectContext(coordinator: try coordinator(url))
    let a = try track("A", in: context)
    let id = a.objectID
    let uri = id.uriRepresentation
    try a.setValue("changed", forKey: "title")
    let scratch = try context.insertNewObject(forEntityName: "Track")
    let scratchID = scratch.objectID
    let before = try stamp(url)

    context.reset()
    #expect(context.registeredObjects.isEmpty && !context.hasChanges)
    #expect(a.managedObjectContext == nil && scratch.managedObjectContext == nil)
    #expect(context.undoManager?.canUndo == false)

    let again = try track("A", in: context)
    #expect(again !== a && again.objectID == id)
    #expect(try again.value(forKey: "seconds", as: Int.self) == 60)
    #expect(
      context.managedObjectID(forURIRepresentation: uri).flatMap(context.object(with:)) === again)
    #expect(context.object(with: scratchID) == nil)
    #expect(try context.fetch(FetchRequest(entityName: "Track")).count == 2)
    #expect(try context.count(for: FetchRequest(entityName: "Track")) == 2)

    try context.save()
    let after = try stamp(url)
    #expect(after.inode == before.inode && after.modified == before.modified)
    #expect(try fileRecords(url).count == 3)
  }

  @Test("an object inserted after a reset gets a new ID, never an old object's")
  func resetNeverReusesIDs() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let context = try ManagedObjectContext(coordinator: try coordinator(url))
    let oldIDs = Set(try context.fetch(FetchRequest(entityName: "Track")).map(\.objectID))
    let temporary = try context.insertNewObject(forEntityName: "Track").objectID
    context.reset()
    let fresh = try context.insertNewObject(forEntityName: "Track")
    #expect(fresh.objectID != temporary)
    try fresh.setValue("C", forKey: "title")
    try context.save()
    #expect(!oldIDs.contains(fresh.objectID))
    #expect(try fileRecords(url).count == 4)
  }

  // MARK: Saves with nothing to commit

  @Test("a save with no changes writes nothing: the file, its inode and its time stay")
  func noOpSave() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let context = try ManagedObjectContext(coordinator: try coordinator(url))
    var events: [ContextEvent] = []
    let observation = context.addEventObserver { events.append($0) }
    defer { observation.cancel() }
    let before = try stamp(url)
    let bytes = try Data(contentsOf: url)
    try context.save()
    // A change set back within the turn is no change either.
    let a = try track("A", in: context)
    try a.setValue("A2", forKey: "title")
    try a.setValue("A", forKey: "title")
    try context.save()
    let after = try stamp(url)
    #expect(after.inode == before.inode && after.modified == before.modified)
    #expect(try Data(contentsOf: url) == bytes)
    #expect(!events.contains(.willSave))
  }

  // MARK: Several contexts

  @Test("two contexts' inserts both reach the file, and each keeps the other's")
  func twoContextsInsert() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let shared = try coordinator(url)
    let first = try ManagedObjectContext(coordinator: shared)
    let second = try ManagedObjectContext(coordinator: shared)
    #expect(first.undoManager !== second.undoManager)
    try first.insertNewObject(forEntityName: "Track").setValue("C", forKey: "title")
    try second.insertNewObject(forEntityName: "Track").setValue("D", forKey: "title")
    try first.save()
    try second.save()
    let titles = try fileRecords(url).values.compactMap { $0.attributes["title"] }
    #expect(Set(titles) == [.string("A"), .string("B"), .string("C"), .string("D")])
    // Each sees the other's object once it fetches.
    #expect(try first.fetch(FetchRequest(entityName: "Track")).count == 4)
    #expect(try second.fetch(FetchRequest(entityName: "Track")).count == 4)
  }

  @Test("a row another context changed is a conflict even on other properties; merging keeps both")
  func nonConflictingUpdates() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let shared = try coordinator(url)
    let first = try ManagedObjectContext(coordinator: shared)
    let second = try ManagedObjectContext(coordinator: shared)
    try track("A", in: first).setValue("A1", forKey: "title")
    try track("A", in: second).setValue(61, forKey: "seconds")
    try first.save()
    // The second context's object changed only `seconds`; the first's title stays.
    let conflictFree = graphError { try second.save() }
    #expect(conflictFree?.code == .mergeConflict)
    second.mergePolicy = .mergeByPropertyObjectTrump
    try second.save()
    let a = try #require(
      try fileRecords(url).values.first { $0.attributes["seconds"] == .integer(61) })
    #expect(a.attributes["title"] == .string("A1"))
  }

  @Test(
    "a conflict under the error policy lists each object with its three values and keeps the changes"
  )
  func conflictError() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let shared = try coordinator(url)
    let first = try ManagedObjectContext(coordinator: shared)
    let second = try ManagedObjectContext(coordinator: shared)
    try track("A", in: first).setValue("first", forKey: "title")
    let mine = try track("A", in: second)
    try mine.setValue("second", forKey: "title")
    try first.save()
    let bytes = try Data(contentsOf: url)
    let error = try #require(graphError { try second.save() })
    #expect(error.code == .mergeConflict)
    let conflict = try #require(error.conflicts.first)
    #expect(error.conflicts.count == 1)
    #expect(conflict.objectID == mine.objectID)
    #expect(conflict.snapshot["title"] == .attribute(.string("A")))
    #expect(conflict.committed?["title"] == .attribute(.string("first")))
    #expect(conflict.pending?["title"] == .attribute(.string("second")))
    #expect(conflict.snapshotVersion == 1 && conflict.committedVersion == 2)
    #expect(error.description.contains("title: read A, committed first, pending second"))
    #expect(second.hasChanges && mine.isUpdated)
    #expect(try mine.value(forKey: "title", as: String.self) == "second")
    #expect(try Data(contentsOf: url) == bytes)
  }

  /// Both contexts change `title`; only the second changes `seconds`; the first changes the
  /// playlist's name.
  func conflictingSave(_ policy: MergePolicy) throws -> (
    context: ManagedObjectContext, folder: URL, object: ManagedObject, file: [Int64: StoreRecord]
  ) {
    let (folder, url) = try savedMix()
    let shared = try coordinator(url)
    let first = try ManagedObjectContext(coordinator: shared)
    let second = try ManagedObjectContext(coordinator: shared)
    try track("A", in: first).setValue("first", forKey: "title")
    try playlist(in: first).setValue("Renamed", forKey: "name")
    let mine = try track("A", in: second)
    try mine.setValue("second", forKey: "title")
    try mine.setValue(61, forKey: "seconds")
    try first.save()
    second.mergePolicy = policy
    try second.save()
    #expect(!second.hasChanges)
    return (second, folder, mine, try fileRecords(url))
  }

  func trackA(_ file: [Int64: StoreRecord], id: ManagedObjectID) throws -> StoreRecord {
    guard case .permanent(let key) = id.key else { throw GraphError(.objectNotFound, "") }
    return try #require(file[key])
  }

  @Test("store trump: the committed value wins where both changed; one-sided changes merge")
  func storeTrump() throws {
    let (context, folder, object, file) = try conflictingSave(.mergeByPropertyStoreTrump)
    defer { try? FileManager.default.removeItem(at: folder) }
    let a = try trackA(file, id: object.objectID)
    #expect(a.attributes["title"] == .string("first"))
    #expect(a.attributes["seconds"] == .integer(61))
    #expect(try object.value(forKey: "title", as: String.self) == "first")
    #expect(file.values.contains { $0.attributes["name"] == .string("Renamed") })
    withExtendedLifetime(context) {}
  }

  @Test("object trump: the context's value wins where both changed; one-sided changes merge")
  func objectTrump() throws {
    let (context, folder, object, file) = try conflictingSave(.mergeByPropertyObjectTrump)
    defer { try? FileManager.default.removeItem(at: folder) }
    let a = try trackA(file, id: object.objectID)
    #expect(a.attributes["title"] == .string("second"))
    #expect(a.attributes["seconds"] == .integer(61))
    #expect(file.values.contains { $0.attributes["name"] == .string("Renamed") })
    withExtendedLifetime(context) {}
  }

  @Test("overwrite: the context's object is saved whole; other objects keep their changes")
  func overwrite() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let shared = try coordinator(url)
    let first = try ManagedObjectContext(coordinator: shared)
    let second = try ManagedObjectContext(coordinator: shared)
    try track("A", in: first).setValue(30, forKey: "seconds")
    try playlist(in: first).setValue("Renamed", forKey: "name")
    let mine = try track("A", in: second)
    try mine.setValue("second", forKey: "title")
    try first.save()
    second.mergePolicy = .overwrite
    try second.save()
    let a = try trackA(try fileRecords(url), id: mine.objectID)
    // `seconds` was not changed in the second context, yet its value (60) overwrites 30.
    #expect(a.attributes["title"] == .string("second"))
    #expect(a.attributes["seconds"] == .integer(60))
    #expect(try fileRecords(url).values.contains { $0.attributes["name"] == .string("Renamed") })
  }

  @Test("rollback: the conflicting object's changes are dropped, the others' saved")
  func rollbackPolicy() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let shared = try coordinator(url)
    let first = try ManagedObjectContext(coordinator: shared)
    let second = try ManagedObjectContext(coordinator: shared)
    try track("A", in: first).setValue("first", forKey: "title")
    let mine = try track("A", in: second)
    try mine.setValue("second", forKey: "title")
    try mine.setValue(61, forKey: "seconds")
    try track("B", in: second).setValue("B2", forKey: "title")
    try first.save()
    second.mergePolicy = .rollback
    try second.save()
    let file = try fileRecords(url)
    let a = try trackA(file, id: mine.objectID)
    #expect(a.attributes["title"] == .string("first") && a.attributes["seconds"] == .integer(60))
    #expect(file.values.contains { $0.attributes["title"] == .string("B2") })
    #expect(try mine.value(forKey: "title", as: String.self) == "first")
  }

  @Test(
    "moving an object in one context while another moved it keeps both sides in step",
    arguments: [
      MergePolicy.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback,
    ])
  func relationshipConflict(policy: MergePolicy) throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let shared = try coordinator(url)
    let setup = try ManagedObjectContext(coordinator: shared)
    for name in ["P2", "P3"] {
      try setup.insertNewObject(forEntityName: "Playlist").setValue(name, forKey: "name")
    }
    try setup.save()
    func list(_ name: String, _ context: ManagedObjectContext) throws -> ManagedObject {
      let request = FetchRequest(
        entityName: "Playlist", predicate: try QueryPredicate(format: "name == %@", name))
      return try #require(try context.fetch(request).first)
    }
    let first = try ManagedObjectContext(coordinator: shared)
    let second = try ManagedObjectContext(coordinator: shared)
    try list("P3", first).add(try track("A", in: first), toKey: "tracks")
    try list("P2", second).add(try track("A", in: second), toKey: "tracks")
    try first.save()
    second.mergePolicy = policy
    try second.save()
    let reopened = try ManagedObjectContext(coordinator: try coordinator(url))
    #expect(reopened.brokenInvariants().isEmpty)
    let owner = try track("A", in: reopened).value(forKeyPath: "playlist.name") as? String
    let expected = policy == .mergeByPropertyStoreTrump || policy == .rollback ? "P3" : "P2"
    #expect(owner == expected)
    var holders = 0
    for list in try reopened.fetch(FetchRequest(entityName: "Playlist")) {
      let tracks = try #require(list.value(forKey: "tracks") as? [ManagedObject])
      for track in tracks where try track.value(forKey: "title", as: String.self) == "A" {
        holders += 1
      }
    }
    #expect(holders == 1)
  }

  @Test("an object another context deleted stays deleted; the error policy reports it")
  func deletedElsewhere() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let shared = try coordinator(url)
    let first = try ManagedObjectContext(coordinator: shared)
    let second = try ManagedObjectContext(coordinator: shared)
    let mine = try track("A", in: second)
    try first.delete(try track("A", in: first))
    try first.save()
    try mine.setValue("second", forKey: "title")
    let error = try #require(graphError { try second.save() })
    #expect(error.conflicts.first?.committed == nil)
    second.mergePolicy = .mergeByPropertyObjectTrump
    try second.save()
    #expect(mine.managedObjectContext == nil)
    #expect(try fileRecords(url).values.allSatisfy { $0.attributes["title"] != .string("second") })
  }

  @Test("a fetch no longer finds an object another context deleted; the object stays readable")
  func fetchAfterOtherDelete() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let shared = try coordinator(url)
    let first = try ManagedObjectContext(coordinator: shared)
    let second = try ManagedObjectContext(coordinator: shared)
    let stale = try track("A", in: second)
    try first.delete(try track("A", in: first))
    try first.save()
    let titles = try second.fetch(FetchRequest(entityName: "Track")).compactMap {
      try $0.value(forKey: "title", as: String.self)
    }
    #expect(titles == ["B"])
    #expect(try second.objects(ofEntity: "Track").count == 1)
    #expect(try stale.value(forKey: "title", as: String.self) == "A")
    try second.refresh(stale, mergeChanges: false)
    #expect(stale.managedObjectContext == nil)
  }

  @Test("did-save carries the IDs, and merging them brings another context up to date")
  func mergeDidSave() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (first, second, saves) = try twoContexts(url)
    defer { saves.token?.cancel() }
    let theirs = try track("A", in: second)
    let gone = try track("B", in: second)
    try track("A", in: first).setValue("A1", forKey: "title")
    try first.delete(try track("B", in: first))
    try first.insertNewObject(forEntityName: "Track").setValue("C", forKey: "title")
    try first.save()
    let changes = try #require(saves.changes)
    #expect(changes.updated.contains(theirs.objectID) && changes.deleted == [gone.objectID])
    #expect(changes.inserted.count == 1)
    // Stale until merged, as in Core Data.
    #expect(try theirs.value(forKey: "title", as: String.self) == "A")
    var merged: ObjectsDidChangeNotification?
    let mergeObservation = second.addObserver { merged = $0 }
    defer { mergeObservation.cancel() }
    second.mergeChanges(fromContextDidSave: changes)
    #expect(try theirs.value(forKey: "title", as: String.self) == "A1")
    #expect(gone.managedObjectContext == nil)
    #expect(merged?.refreshedObjects.contains(theirs) == true)
    #expect(merged?.deletedObjects.contains(gone) == true)
    #expect(try second.fetch(FetchRequest(entityName: "Track")).count == 2)
  }

  // MARK: Refresh

  @Test("refresh reads what another context saved; with merge it keeps the object's changes")
  func refreshAfterOtherSave() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let shared = try coordinator(url)
    let first = try ManagedObjectContext(coordinator: shared)
    let second = try ManagedObjectContext(coordinator: shared)
    try track("A", in: first).setValue("A1", forKey: "title")
    try track("B", in: first).setValue("B1", forKey: "title")
    try first.save()
    let a = try track("A", in: second)
    let b = try track("B", in: second)
    #expect(try a.value(forKey: "title", as: String.self) == "A")
    try a.setValue(61, forKey: "seconds")
    try b.setValue(91, forKey: "seconds")
    second.processPendingChanges()

    try second.refresh(a, mergeChanges: false)
    #expect(try a.value(forKey: "title", as: String.self) == "A1")
    #expect(try a.value(forKey: "seconds", as: Int.self) == 60 && !a.isUpdated)

    try second.refresh(b, mergeChanges: true)
    #expect(try b.value(forKey: "title", as: String.self) == "B1")
    #expect(try b.value(forKey: "seconds", as: Int.self) == 91 && b.isUpdated)
    // The refreshed snapshot is current: the save is no conflict.
    try second.save()
    let file = try fileRecords(url)
    #expect(
      file.values.contains {
        $0.attributes["title"] == .string("B1") && $0.attributes["seconds"] == .integer(91)
      })
  }

  @Test("refreshAllObjects reads every registered object again, keeping changes")
  func refreshAll() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let shared = try coordinator(url)
    let first = try ManagedObjectContext(coordinator: shared)
    let second = try ManagedObjectContext(coordinator: shared)
    let a = try track("A", in: second)
    let b = try track("B", in: second)
    try b.setValue(91, forKey: "seconds")
    try track("A", in: first).setValue("A1", forKey: "title")
    try track("B", in: first).setValue("B1", forKey: "title")
    try first.save()
    second.refreshAllObjects()
    #expect(try a.value(forKey: "title", as: String.self) == "A1")
    #expect(try b.value(forKey: "title", as: String.self) == "B1")
    #expect(try b.value(forKey: "seconds", as: Int.self) == 91)
  }

  @Test("refreshing one side of a changed relationship never saves a contradiction")
  func refreshOneSide() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let context = try ManagedObjectContext(coordinator: try coordinator(url))
    let other = try context.insertNewObject(forEntityName: "Playlist")
    try other.setValue("Other", forKey: "name")
    try context.save()
    let a = try track("A", in: context)
    try other.add(a, toKey: "tracks")
    context.processPendingChanges()
    try context.refresh(a, mergeChanges: false)
    try context.save()
    // The file reads back, with every track in exactly one playlist.
    let reopened = try ManagedObjectContext(coordinator: try coordinator(url))
    #expect(reopened.brokenInvariants().isEmpty)
    var owners: [String: Int] = [:]
    for list in try reopened.fetch(FetchRequest(entityName: "Playlist")) {
      for track in try #require(list.value(forKey: "tracks") as? [ManagedObject]) {
        let title = try track.value(forKey: "title", as: String.self)
        owners[try #require(title), default: 0] += 1
      }
    }
    #expect(owners == ["A": 1, "B": 1])
  }

  @Test(
    "after a refresh leaves a one-to-one's sides disagreeing, a save changes only the edges both sides agree on, whatever the objects' order",
    arguments: [true, false])
  func refreshDisagreeingSides(badgeFirst: Bool) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("badges.test")
    let context = try ManagedObjectContext(coordinator: try coordinator(url))
    // The rows follow the insertion order, and so did the order a save resolved edges in.
    var badge: ManagedObject?
    if badgeFirst { badge = try context.insertNewObject(forEntityName: "Badge") }
    let first = try context.insertNewObject(forEntityName: "Employee")
    let second = try context.insertNewObject(forEntityName: "Employee")
    if !badgeFirst { badge = try context.insertNewObject(forEntityName: "Badge") }
    let held = try #require(badge)
    try held.setValue(first, forKey: "holder")
    try context.save()
    // The badge moves to the second employee, is refreshed back to the first without merging
    // (the employees keep their sides: the second names the badge, the first does not), and
    // is then taken from its holder.
    try held.setValue(second, forKey: "holder")
    context.processPendingChanges()
    try context.refresh(held, mergeChanges: false)
    #expect(try held.value(forKey: "holder") as? ManagedObject === first)
    try held.setValue(nil, forKey: "holder")
    try context.save()
    // The badge's own change stands; the second employee's claim, which the badge does not
    // share, does not.
    #expect(try held.value(forKey: "holder") == nil)
    #expect(try second.value(forKey: "badge") == nil)
    #expect(try first.value(forKey: "badge") == nil)
    let reopened = try ManagedObjectContext(coordinator: try coordinator(url))
    #expect(reopened.brokenInvariants().isEmpty)
    let badges = try reopened.fetch(FetchRequest(entityName: "Badge"))
    #expect(badges.count == 1)
    #expect(try badges.first?.value(forKey: "holder") == nil)
  }

  // MARK: Files

  @Test("a file whose relationship sides disagree is refused, naming both objects")
  func contradictoryFile() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("bad.test")
    let records = [
      StoreRecord(
        entityName: "Playlist", id: 1, attributes: ["name": .string("P1")],
        relationships: ["tracks": [3]]),
      StoreRecord(
        entityName: "Playlist", id: 2, attributes: ["name": .string("P2")],
        relationships: ["tracks": [3]]),
      StoreRecord(
        entityName: "Track", id: 3, attributes: ["title": .string("T")], relationships: [:]),
    ]
    try TestFormat().write(
      StoreContents(metadata: StoreMetadata(storeType: "Test"), records: records, nextObjectID: 4),
      model: try graphModel(), to: url)
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try graphModel())
    do {
      try coordinator.addPersistentStore(at: url, format: TestFormat())
      Issue.record("the contradictory file opened")
    } catch {
      // Malformed, not dangling: every target is there, and leaving targets out cannot help.
      #expect(error.code == .malformedStore)
      #expect(error.description.contains("Playlist 2"))
      #expect(error.description.contains("Playlist 1"))
      #expect(error.description.contains("Track 3"))
    }
    // Both sides given and disagreeing: to-one names another owner.
    let second = [
      StoreRecord(entityName: "Playlist", id: 1, attributes: [:], relationships: ["tracks": [3]]),
      StoreRecord(entityName: "Playlist", id: 2, attributes: [:], relationships: [:]),
      StoreRecord(entityName: "Track", id: 3, attributes: [:], relationships: ["playlist": [2]]),
    ]
    let context = try makeContext()
    let error = try #require(
      graphError {
        try context.load(
          StoreContents(
            metadata: StoreMetadata(storeType: "Test"), records: second, nextObjectID: 4))
      })
    #expect(error.code == .objectNotFound)
    #expect(error.message.contains("disagree"))
    #expect(context.registeredObjects.isEmpty)
    // Both sides given, and the to-many side leaves out an object whose to-one names it.
    let third = [
      StoreRecord(entityName: "Playlist", id: 1, attributes: [:], relationships: ["tracks": [4]]),
      StoreRecord(entityName: "Track", id: 3, attributes: [:], relationships: ["playlist": [1]]),
      StoreRecord(entityName: "Track", id: 4, attributes: [:], relationships: ["playlist": [1]]),
    ]
    let left = try #require(
      graphError {
        try context.load(
          StoreContents(
            metadata: StoreMetadata(storeType: "Test"), records: third, nextObjectID: 5))
      })
    #expect(left.message.contains("Track 3 names Playlist 1 in playlist"), "\(left.message)")
    #expect(left.message.contains("does not name Track 3"), "\(left.message)")
    #expect(context.registeredObjects.isEmpty)
  }
}
