import Folio
import FolioTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Permanent IDs given before a save (`obtainPermanentIDs(for:)`): the URI an unsaved object
/// gets is the one the save keeps, in every store format, with another writer saving the same
/// file in between.
@Suite("Permanent IDs before saving")
struct PermanentIDTests {
  typealias Shared = OtherWriterTests

  static func newTrack(_ title: String, in document: Document) throws -> ManagedObject {
    let track = try document.context.insertNewObject(forEntityName: "Track")
    try track.setValue(title, forKey: "title")
    return track
  }

  @Test("a context without a store gives permanent IDs that the save keeps")
  func inMemory() throws {
    let context = ManagedObjectContext(model: try musicModel())
    let track = try context.insertNewObject(forEntityName: "Track")
    let temporary = track.objectID
    #expect(temporary.isTemporaryID)
    try context.obtainPermanentIDs(for: [track, track])
    let permanent = track.objectID
    #expect(!permanent.isTemporaryID)
    #expect(permanent.uriRepresentation.absoluteString.hasPrefix("x-coredata://"))
    #expect(track.isInserted && context.hasChanges)
    // Both IDs name the object; the URI reads back as the permanent one.
    #expect(context.object(with: permanent) === track)
    #expect(context.object(with: temporary) === track)
    #expect(context.managedObjectID(forURIRepresentation: permanent.uriRepresentation) == permanent)
    // The next new object does not take its key.
    let other = try context.insertNewObject(forEntityName: "Track")
    try context.save()
    #expect(track.objectID == permanent)
    #expect(other.objectID != permanent)
    try context.obtainPermanentIDs(for: [track])
    #expect(track.objectID == permanent)
  }

  @Test("an object's permanent ID, given before the save, is kept by the save in every format")
  func keptBySave() throws {
    for format in Shared.formats {
      let fixture = try DocumentFixture()
      defer { fixture.remove() }
      let url = try Shared.sharedFile(format, in: fixture)
      let document = try Shared.open(url, fixture)
      let track = try Self.newTrack("Noon", in: document)
      try document.context.obtainPermanentIDs(for: [track])
      let uri = track.objectID.uriRepresentation
      #expect(!track.objectID.isTemporaryID, "\(format)")
      #expect(document.context.object(with: track.objectID) === track, "\(format)")
      fixture.loop.endTurn()
      try document.save()
      #expect(track.objectID.uriRepresentation == uri, "\(format)")
      let reopened = try Shared.open(url, fixture)
      let id = try #require(reopened.context.managedObjectID(forURIRepresentation: uri))
      let found = try reopened.context.existingObject(with: id)
      #expect(try found.value(forKey: "title") as? String == "Noon", "\(format)")
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.folder.path)
        .filter { $0.hasPrefix(".") && !$0.hasSuffix(".folio-journal") }
      #expect(leftovers.isEmpty, "\(format): \(leftovers)")
    }
  }

  @Test(
    "keys reserved by one document are never given by another that saves first, in every format")
  func reservedAcrossWriters() throws {
    try Shared.withTwoWriters { format, writers in
      let (fixture, url, first, second) = writers.parts
      let mine = try Self.newTrack("Mine", in: first)
      try first.context.obtainPermanentIDs(for: [mine])
      let uri = mine.objectID.uriRepresentation
      if url.isFileURL, !(format is SQLiteStore) {
        let reservation = try StoreKeyReservation.path(for: url)
        #expect(FileManager.default.fileExists(atPath: reservation), "\(format)")
      }
      // The other document numbers its new objects as it would have, and saves first.
      let theirs = try (0..<4).map { try Self.newTrack("Theirs \($0)", in: second) }
      try second.context.obtainPermanentIDs(for: [theirs[0]])
      fixture.loop.endTurn()
      try second.save()
      #expect(!theirs.contains { $0.objectID.uriRepresentation == uri }, "\(format)")
      try first.save()
      #expect(mine.objectID.uriRepresentation == uri, "\(format)")
      let reopened = try Shared.open(url, fixture)
      #expect(
        try Shared.titles(reopened) == [
          "Mine", "Sunrise", "Theirs 0", "Theirs 1", "Theirs 2", "Theirs 3",
        ], "\(format)")
      let ids = try reopened.context.objects(ofEntity: "Track").map(\.objectID)
      #expect(Set(ids).count == 6, "\(format)")
      let id = try #require(reopened.context.managedObjectID(forURIRepresentation: uri))
      #expect(
        try reopened.context.existingObject(with: id).value(forKey: "title") as? String == "Mine",
        "\(format)")
      #expect(reopened.context.brokenInvariants() == [], "\(format)")
      // Every reservation is folded into the file by the saves.
      if !(format is SQLiteStore) {
        #expect(
          !FileManager.default.fileExists(atPath: try StoreKeyReservation.path(for: url)),
          "\(format)")
      }
    }
  }

  @Test("a child context's permanent ID is its parent's, and the store's after both save")
  func childContext() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let url = try Shared.sharedFile(SQLiteStore(), in: fixture)
    let document = try Shared.open(url, fixture)
    let child = ManagedObjectContext(parent: document.context)
    let track = try child.insertNewObject(forEntityName: "Track")
    try track.setValue("Child", forKey: "title")
    try child.obtainPermanentIDs(for: [track])
    let id = track.objectID
    #expect(!id.isTemporaryID)
    try child.save()
    let inParent = try #require(document.context.object(with: id))
    #expect(inParent.objectID == id)
    #expect(try inParent.value(forKey: "title") as? String == "Child")
    fixture.loop.endTurn()
    try document.save()
    #expect(inParent.objectID == id && track.objectID == id)
    let reopened = try Shared.open(url, fixture)
    let reread = try #require(
      reopened.context.managedObjectID(forURIRepresentation: id.uriRepresentation))
    #expect(
      try reopened.context.existingObject(with: reread).value(forKey: "title") as? String == "Child"
    )
  }

  @Test("undoing and redoing the insert keeps the permanent ID")
  func undoRedo() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let url = try Shared.sharedFile(XMLStore(), in: fixture)
    let document = try Shared.open(url, fixture)
    let track = try Self.newTrack("Again", in: document)
    fixture.loop.endTurn()
    try document.context.obtainPermanentIDs(for: [track])
    let id = track.objectID
    try document.undoManager?.undo()
    #expect(document.context.object(with: id) == nil)
    try document.undoManager?.redo()
    let back = try #require(document.context.object(with: id))
    #expect(back.objectID == id)
    try document.save()
    let reopened = try Shared.open(url, fixture)
    #expect(reopened.context.managedObjectID(forURIRepresentation: id.uriRepresentation) != nil)
    #expect(try Shared.titles(reopened) == ["Again", "Sunrise"])
  }

  @Test("an object of another context, or no longer in the graph, is refused")
  func misuse() throws {
    let model = try musicModel()
    let context = ManagedObjectContext(model: model)
    let other = ManagedObjectContext(model: model)
    let stranger = try other.insertNewObject(forEntityName: "Track")
    let error = try #require(throws: GraphError.self) {
      try context.obtainPermanentIDs(for: [stranger])
    }
    #expect(error.code == .objectNotFound)
    #expect(error.location?.entity == "Track")
    #expect(stranger.objectID.isTemporaryID)
  }

  @Test("a store that cannot be written refuses to reserve, naming why, and the IDs stay temporary")
  func unwritableStore() throws {
    for format in Shared.formats {
      let fixture = try DocumentFixture()
      defer {
        chmod(fixture.folder.path, 0o755)
        fixture.remove()
      }
      let url = try Shared.sharedFile(format, in: fixture)
      let document = try Shared.open(url, fixture)
      if format is SQLiteStore {
        // A file and folder the user cannot write: no connection to write the reservation.
        chmod(url.path, 0o444)
        chmod(fixture.folder.path, 0o555)
        guard access(url.path, W_OK) != 0 else { continue }  // the superuser writes anyway
      } else {
        // A folder in the lock file's place: the lock cannot be taken, even by the superuser.
        try FileManager.default.createDirectory(
          atPath: try StoreLock.lockPath(for: url), withIntermediateDirectories: false)
      }
      let before = try Data(contentsOf: url)
      let track = try Self.newTrack("Nope", in: document)
      let error = try #require(throws: GraphError.self) {
        try document.context.obtainPermanentIDs(for: [track])
      }
      #expect(error.code == .store, "\(format)")
      #expect((error.underlying as? StoreError)?.code == .writeFailed, "\(format): \(error)")
      #expect(track.objectID.isTemporaryID, "\(format)")
      #expect(try Data(contentsOf: url) == before, "\(format)")
      #expect(
        !FileManager.default.fileExists(atPath: try StoreKeyReservation.path(for: url)),
        "\(format)")
    }
  }

  @Test("a damaged key reservation stops the save, naming the file, and the store stays as it was")
  func damagedReservation() throws {
    for format in [XMLStore(), BinaryStore()] as [any StoreFormat] {
      let fixture = try DocumentFixture()
      defer { fixture.remove() }
      let url = try Shared.sharedFile(format, in: fixture)
      let document = try Shared.open(url, fixture)
      let reservation = try StoreKeyReservation.path(for: url)
      for damage in ["", "12", "twelve\n", "-4\n", String(repeating: "9", count: 80) + "\n"] {
        try Data(damage.utf8).write(to: URL(fileURLWithPath: reservation))
        let before = try Data(contentsOf: url)
        _ = try Self.newTrack("Blocked", in: document)
        fixture.loop.endTurn()
        let error = try #require(throws: GraphError.self) { try document.save() }
        let store = try #require(error.underlying as? StoreError)
        #expect(store.code == .malformedStore, "\(format) \(damage)")
        #expect(store.location?.file == reservation, "\(format) \(damage)")
        #expect(try Data(contentsOf: url) == before, "\(format) \(damage)")
      }
      // A FIFO in its place is refused without waiting for a writer.
      unlink(reservation)
      #expect(mkfifo(reservation, 0o644) == 0)
      #expect(throws: StoreError.self) { try StoreKeyReservation.nextKey(for: url) }
      unlink(reservation)
      try document.save()
      #expect(try Shared.titles(Shared.open(url, fixture)).filter { $0 == "Blocked" }.count == 5)
    }
  }

  @Test("a reservation only grows, and a save removes it only once its file records the keys")
  func reservationFile() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let url = fixture.url("store.xml")
    #expect(try StoreKeyReservation.nextKey(for: url) == nil)
    try StoreKeyReservation.reserve(below: 40, for: url)
    try StoreKeyReservation.reserve(below: 12, for: url)
    #expect(try StoreKeyReservation.nextKey(for: url) == 40)
    StoreKeyReservation.release(below: 39, for: url)
    #expect(try StoreKeyReservation.nextKey(for: url) == 40)
    StoreKeyReservation.release(below: 40, for: url)
    #expect(try StoreKeyReservation.nextKey(for: url) == nil)
  }
}
