import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Two documents open on one file, each with its own coordinator, as two processes would have
/// it: each save takes in what the other saved (a three-way merge), conflicts go to the merge
/// policy, and nothing one of them saved is lost.
@Suite("Other writers of one file")
struct OtherWriterTests {
  static let formats: [any StoreFormat] = [XMLStore(), BinaryStore(), SQLiteStore()]
  /// The formats two writers are tested on: the files', and a PostgreSQL document's when the
  /// tests have a server.
  static let writerFormats: [any StoreFormat] =
    formats + (PostgresTestServer.isAvailable ? [PostgresStore()] : [])

  /// What the store at `url` holds, to tell whether a save wrote to it: a file's bytes, or a
  /// PostgreSQL document's records.
  static func snapshot(_ url: URL) throws -> Data {
    guard !url.isFileURL else { return try Data(contentsOf: url) }
    let records = try PostgresStore().read(from: url, model: try musicModel()).records
    return Data(
      records.sorted { $0.id < $1.id }.map { record in
        "\(record.id) \(record.version) "
          + record.attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
          .joined(separator: " ")
      }.joined(separator: "\n").utf8)
  }

  /// A file of `format` holding the playlist "Morning" with the track "Sunrise" (120 s).
  static func sharedFile(_ format: any StoreFormat, in fixture: DocumentFixture) throws -> URL {
    let url =
      format is PostgresStore
      ? PostgresTestServer.document("writers") : fixture.url("music.\(format.fileExtension)")
    let setup = try Document(model: try musicModel(), eventLoop: fixture.loop)
    let playlist = try setup.context.insertNewObject(forEntityName: "Playlist")
    try playlist.setValue("Morning", forKey: "name")
    let track = try setup.context.insertNewObject(forEntityName: "Track")
    try track.setValue("Sunrise", forKey: "title")
    try track.setValue(120, forKey: "seconds")
    try track.setValue(playlist, forKey: "playlist")
    fixture.loop.endTurn()
    try setup.save(to: url, format: format)
    return url
  }

  static func open(_ url: URL, _ fixture: DocumentFixture) throws -> Document {
    try Document.open(
      url, model: try musicModel(), formats: formats + [PostgresStore()], eventLoop: fixture.loop)
  }

  static func titles(_ document: Document) throws -> [String] {
    try document.context.objects(ofEntity: "Track").compactMap {
      try $0.value(forKey: "title") as? String
    }.sorted()
  }

  static func track(_ title: String, in document: Document) throws -> ManagedObject {
    try #require(
      try document.context.objects(ofEntity: "Track").first {
        try $0.value(forKey: "title") as? String == title
      })
  }

  /// Two documents open on one shared file (``sharedFile(_:in:)``), and the fixture it is in.
  struct Writers {
    let fixture: DocumentFixture
    let url: URL
    let first: Document
    let second: Document

    var parts: (DocumentFixture, URL, Document, Document) { (fixture, url, first, second) }
  }

  /// Runs `body` with two documents on a shared file of each format in turn.
  static func withTwoWriters(_ body: (any StoreFormat, Writers) throws -> Void) throws {
    for format in writerFormats {
      let fixture = try DocumentFixture()
      defer { fixture.remove() }
      let url = try sharedFile(format, in: fixture)
      defer { if !url.isFileURL { try? PostgresStore.dropSchema(at: url) } }
      try body(
        format,
        Writers(
          fixture: fixture, url: url, first: try open(url, fixture),
          second: try open(url, fixture)))
    }
  }

  @Test("two documents that each insert and save keep both objects, with distinct IDs")
  func bothInserts() throws {
    try Self.withTwoWriters { format, writers in
      let (fixture, url, first, second) = writers.parts
      let a = try first.context.insertNewObject(forEntityName: "Track")
      try a.setValue("A", forKey: "title")
      let b = try second.context.insertNewObject(forEntityName: "Track")
      try b.setValue("B", forKey: "title")
      fixture.loop.endTurn()
      try first.save()
      try second.save()
      #expect(a.objectID != b.objectID, "\(format)")
      // The second save took the first one's object in.
      #expect(try Self.titles(second) == ["A", "B", "Sunrise"], "\(format)")
      #expect(try Self.titles(Self.open(url, fixture)) == ["A", "B", "Sunrise"], "\(format)")
      // The first takes the second's in when it merges, and its next save keeps it.
      let merged = try first.mergeChangesFromOtherWriters()
      #expect(merged.inserted.count == 1 && merged.updated.isEmpty, "\(format)")
      #expect(try Self.titles(first) == ["A", "B", "Sunrise"], "\(format)")
      try a.setValue("A2", forKey: "title")
      fixture.loop.endTurn()
      try first.save()
      let reopened = try Self.open(url, fixture)
      #expect(try Self.titles(reopened) == ["A2", "B", "Sunrise"], "\(format)")
      let ids = try reopened.context.objects(ofEntity: "Track").map(\.objectID)
      #expect(Set(ids).count == 3, "\(format)")
      #expect(reopened.context.brokenInvariants() == [], "\(format)")
    }
  }

  @Test("edits of different properties of one object are both kept")
  func differentProperties() throws {
    try Self.withTwoWriters { format, writers in
      let (fixture, url, first, second) = writers.parts
      try Self.track("Sunrise", in: first).setValue("Dawn", forKey: "title")
      try Self.track("Sunrise", in: second).setValue(300, forKey: "seconds")
      fixture.loop.endTurn()
      try first.save()
      try second.save()
      let reopened = try Self.open(url, fixture)
      let track = try Self.track("Dawn", in: reopened)
      #expect(try track.value(forKey: "seconds") as? Int == 300, "\(format)")
      // The second document's object shows both too.
      let own = try Self.track("Dawn", in: second)
      #expect(try own.value(forKey: "seconds") as? Int == 300, "\(format)")
    }
  }

  @Test("to-many additions and removals from both documents are both kept")
  func toManyBothSides() throws {
    try Self.withTwoWriters { format, writers in
      let (fixture, url, first, second) = writers.parts
      let playlist = try #require(first.context.objects(ofEntity: "Playlist").first)
      let added = try first.context.insertNewObject(forEntityName: "Track")
      try added.setValue("Noon", forKey: "title")
      try added.setValue(playlist, forKey: "playlist")
      // The second moves Sunrise out of the playlist.
      try Self.track("Sunrise", in: second).setValue(nil, forKey: "playlist")
      fixture.loop.endTurn()
      try second.save()
      // Both changed the playlist's tracks: the additions and removals merge, no conflict.
      try first.save()
      let reopened = try Self.open(url, fixture)
      let tracks = try #require(
        reopened.context.objects(ofEntity: "Playlist").first?.value(forKey: "tracks")
          as? [ManagedObject])
      #expect(try tracks.map { try $0.value(forKey: "title") as? String } == ["Noon"])
      #expect(try Self.titles(reopened) == ["Noon", "Sunrise"], "\(format)")
      #expect(reopened.context.brokenInvariants() == [], "\(format)")
      // The first document shows the merged playlist too.
      #expect(try (playlist.value(forKey: "tracks") as? [ManagedObject])?.count == 1)
      #expect(try Self.track("Sunrise", in: first).value(forKey: "playlist") == nil)
      #expect(first.context.brokenInvariants() == [], "\(format)")
    }
  }

  @Test("a property both documents changed is a conflict, resolved as the policy says")
  func sameProperty() throws {
    let expected: [MergePolicy: String] = [
      .mergeByPropertyStoreTrump: "Theirs", .mergeByPropertyObjectTrump: "Mine",
      .overwrite: "Mine", .rollback: "Theirs",
    ]
    for format in Self.writerFormats {
      for policy in MergePolicy.allCases {
        let fixture = try DocumentFixture()
        defer { fixture.remove() }
        let url = try Self.sharedFile(format, in: fixture)
        defer { if !url.isFileURL { try? PostgresStore.dropSchema(at: url) } }
        let first = try Self.open(url, fixture)
        let second = try Self.open(url, fixture)
        try Self.track("Sunrise", in: second).setValue("Theirs", forKey: "title")
        let mine = try Self.track("Sunrise", in: first)
        try mine.setValue("Mine", forKey: "title")
        fixture.loop.endTurn()
        try second.save()
        let theirBytes = try Self.snapshot(url)
        first.context.mergePolicy = policy
        guard let title = expected[policy] else {
          let error = try #require(throws: GraphError.self) { try first.save() }
          #expect(error.code == .mergeConflict)
          let conflict = try #require(error.conflicts.first)
          #expect(conflict.objectID == mine.objectID)
          #expect(conflict.committed?["title"] == .attribute(.string("Theirs")))
          #expect(conflict.pending?["title"] == .attribute(.string("Mine")))
          #expect(error.description.contains("Track"), "\(error)")
          // Nothing was written, and the document keeps its change to save later.
          #expect(try Self.snapshot(url) == theirBytes)
          #expect(first.isEdited && mine.isUpdated)
          continue
        }
        try first.save()
        let reopened = try Self.open(url, fixture)
        #expect(
          try Self.track(title, in: reopened).value(forKey: "seconds") as? Int == 120,
          "\(format) \(policy)")
        #expect(try mine.value(forKey: "title") as? String == title, "\(format) \(policy)")
      }
    }
  }

  @Test("an object one document deleted and the other edited is a conflict")
  func deleteAndEdit() throws {
    try Self.withTwoWriters { format, writers in
      let (fixture, url, first, second) = writers.parts
      try second.context.delete(Self.track("Sunrise", in: second))
      try Self.track("Sunrise", in: first).setValue(5, forKey: "seconds")
      fixture.loop.endTurn()
      try second.save()
      let error = try #require(throws: GraphError.self) { try first.save() }
      #expect(error.code == .mergeConflict)
      #expect(error.conflicts.first?.committed == nil)
      first.context.mergePolicy = .mergeByPropertyObjectTrump
      try first.save()
      // The deletion stands, as it does between contexts.
      #expect(try Self.titles(Self.open(url, fixture)) == [], "\(format)")
      #expect(try Self.titles(first) == [], "\(format)")
    }
  }

  @Test("a merge brings in another document's save without registering undo")
  func liveMerge() throws {
    try Self.withTwoWriters { format, writers in
      let (fixture, url, first, second) = writers.parts
      #expect(try first.mergeChangesFromOtherWriters().isEmpty)
      // The first has an unsaved change of its own.
      let morning = try #require(first.context.objects(ofEntity: "Playlist").first)
      try morning.setValue("Early", forKey: "name")
      fixture.loop.endTurn()
      let undoCount = first.undoManager?.history.undo.count
      try Self.track("Sunrise", in: second).setValue(99, forKey: "seconds")
      try second.context.insertNewObject(forEntityName: "Track").setValue("Late", forKey: "title")
      fixture.loop.endTurn()
      try second.save()
      let merged = try first.mergeChangesFromOtherWriters()
      #expect(merged.inserted.count == 1 && merged.updated.count == 1 && merged.deleted.isEmpty)
      #expect(try Self.track("Sunrise", in: first).value(forKey: "seconds") as? Int == 99)
      #expect(try Self.titles(first) == ["Late", "Sunrise"])
      #expect(try morning.value(forKey: "name") as? String == "Early" && morning.isUpdated)
      #expect(first.undoManager?.history.undo.count == undoCount)
      #expect(try first.mergeChangesFromOtherWriters().isEmpty)
      try first.save()
      let reopened = try Self.open(url, fixture)
      #expect(try Self.titles(reopened) == ["Late", "Sunrise"])
      #expect(
        try reopened.context.objects(ofEntity: "Playlist").first?.value(forKey: "name")
          as? String == "Early")
    }
  }

  @Test("a file replaced by another store, or damaged, is refused and left as it is")
  func replacedByAnotherStore() throws {
    for format in Self.formats {
      let fixture = try DocumentFixture()
      defer { fixture.remove() }
      let url = try Self.sharedFile(format, in: fixture)
      let document = try Self.open(url, fixture)
      try document.context.insertNewObject(forEntityName: "Track")
      fixture.loop.endTurn()
      // Another store, with its own identifier, written over the file.
      let other = try Self.sharedFile(format, in: DocumentFixture())
      try FileManager.default.removeItem(at: url)
      try FileManager.default.copyItem(at: other, to: url)
      let bytes = try Data(contentsOf: url)
      let error = try #require(throws: GraphError.self) { try document.save() }
      let storeError = try #require(error.underlying as? StoreError)
      #expect(storeError.code == .modifiedOnDisk)
      #expect(storeError.message.contains("replaced"), "\(storeError)")
      #expect(try Data(contentsOf: url) == bytes)
      #expect(document.isEdited)
      try? FileManager.default.removeItem(at: other.deletingLastPathComponent())
    }
  }

  @Test("a save waits for another writer's lock, and says so when it is held too long")
  func lockHeld() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let url = try Self.sharedFile(XMLStore(), in: fixture)
    let document = try Self.open(url, fixture)
    try document.context.insertNewObject(forEntityName: "Track")
    fixture.loop.endTurn()
    let held = try StoreLock.acquire(for: url)
    #expect(throws: StoreError.self) { try StoreLock.acquire(for: url, timeout: .milliseconds(20)) }
    do {
      let error = try StoreLock.acquire(for: url, timeout: .milliseconds(20))
      Issue.record("a second lock was granted: \(error.path)")
    } catch {
      #expect(error.code == .busy)
      #expect(error.message.contains(held.path), "\(error)")
    }
    held.release()
    // Released, the lock file is gone, and a save takes the lock again.
    #expect(!FileManager.default.fileExists(atPath: held.path))
    try document.save()
    #expect(!FileManager.default.fileExists(atPath: held.path))
    // What stays beside the store is the change journal, for other writers to follow.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: fixture.folder.path).sorted() == [
        ".music.xml.folio-journal", "music.xml",
      ])
  }

  @Test("a file touched but unchanged, or a save that failed, leaves the next save free to write")
  func recovery() throws {
    for format in Self.formats {
      let fixture = try DocumentFixture()
      defer { fixture.remove() }
      let url = try Self.sharedFile(format, in: fixture)
      let document = try Self.open(url, fixture)
      try document.context.insertNewObject(forEntityName: "Track").setValue("A", forKey: "title")
      fixture.loop.endTurn()
      // Touched: its time changes, its content does not.
      try FileManager.default.setAttributes(
        [.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: url.path)
      try document.save()
      guard !(format is SQLiteStore) else { continue }
      // A save that fails on a full disk, then another writer's save, then this one again.
      try document.context.insertNewObject(forEntityName: "Track").setValue("B", forKey: "title")
      fixture.loop.endTurn()
      var failure: (any Error)?
      AtomicFile.$faults.withValue(FaultPlan(failingWriteCall: 1, writeError: ENOSPC)) {
        do { try document.save() } catch { failure = error }
      }
      #expect(((failure as? GraphError)?.underlying as? StoreError)?.code == .writeFailed)
      let other = try Self.open(url, fixture)
      try other.context.insertNewObject(forEntityName: "Track").setValue("C", forKey: "title")
      fixture.loop.endTurn()
      try other.save()
      try document.save()
      let reopened = try Self.open(url, fixture)
      #expect(try Self.titles(reopened) == ["A", "B", "C", "Sunrise"], "\(format)")
    }
  }

  @Test("a watching document merges another writer's save by itself, on its own queue")
  func watching() throws {
    for format in Self.formats {
      let fixture = try DocumentFixture()
      defer { fixture.remove() }
      let url = try Self.sharedFile(format, in: fixture)
      let queue = DispatchQueue(label: "document")
      // The watched document and what it was told live on `queue`, and are used there only.
      nonisolated(unsafe) var watched: Document?
      nonisolated(unsafe) var merges: [ObjectIDChanges] = []
      try queue.sync {
        let document = try Document.open(
          url, model: try musicModel(), formats: Self.formats, eventLoop: ManualEventLoop())
        document.watchForChangesFromOtherWriters(every: .milliseconds(5), on: queue) {
          merges.append($0)
        }
        watched = document
      }
      let other = try Self.open(url, fixture)
      try other.context.insertNewObject(forEntityName: "Track").setValue("Late", forKey: "title")
      fixture.loop.endTurn()
      try other.save()
      var titles: [String] = []
      for _ in 0..<1_000 where titles.count < 2 {
        usleep(5_000)
        titles = try queue.sync { try watched.map(Self.titles) ?? [] }
      }
      #expect(titles == ["Late", "Sunrise"], "\(format)")
      queue.sync {
        #expect(merges.count == 1 && merges.first?.inserted.count == 1, "\(format)")
        #expect(watched?.otherWritersProblem == nil)
        watched?.stopWatchingForChangesFromOtherWriters()
        watched = nil
      }
    }
  }
}
