import Folio
import FolioTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A document saved under injected faults, and over a file someone else replaced: the file on
/// disk and the document's graph, change sets, undo stack and edited state stay exactly as
/// they were, the error says what happened, and a later save writes everything.
@Suite("Documents under faults")
struct DocumentFaultTests {
  static let formats: [any StoreFormat] = [XMLStore(), BinaryStore()]

  /// A document of two playlists opened from `format`'s file in `fixture`, then edited in
  /// one turn: a track inserted, a name changed, a playlist deleted (its tracks cascade).
  static func editedDocument(_ format: any StoreFormat, in fixture: DocumentFixture) throws
    -> Document
  {
    let url = fixture.url(format is XMLStore ? "music.xml" : "music.folio")
    let setup = try Document(model: try musicModel(), eventLoop: fixture.loop)
    for name in ["Morning", "Evening"] {
      let playlist = try setup.context.insertNewObject(forEntityName: "Playlist")
      try playlist.setValue(name, forKey: "name")
      let track = try setup.context.insertNewObject(forEntityName: "Track")
      try track.setValue("\(name) song", forKey: "title")
      try track.setValue(playlist, forKey: "playlist")
    }
    fixture.loop.endTurn()
    try setup.save(to: url, format: format)
    let document = try Document.open(
      url, model: try musicModel(), formats: formats, eventLoop: fixture.loop)
    let playlists = try document.context.fetch(
      FetchRequest(
        entityName: "Playlist", sortDescriptors: [QuerySortDescriptor(keyPath: "name")]))
    let track = try document.context.insertNewObject(forEntityName: "Track")
    try track.setValue("New song", forKey: "title")
    try track.setValue(playlists[1], forKey: "playlist")
    try playlists[1].setValue("Dawn", forKey: "name")
    try document.context.delete(playlists[0])
    fixture.loop.endTurn()
    return document
  }

  /// Everything a failed save must leave alone.
  struct State: Equatable {
    var graph: [String]
    var inserted: [String]
    var updated: [String]
    var deleted: [String]
    var temporaryIDs: Int
    var undoCount: Int
    var isEdited: Bool
    var file: Data

    init(_ document: Document) throws {
      let context = document.context
      func describe(_ objects: some Collection<ManagedObject>) throws -> [String] {
        try objects.map { object in
          let keys = object.entity.name == "Playlist" ? ["name"] : ["title", "seconds"]
          return object.entity.name + ": "
            + (try keys.map { "\($0)=\(String(describing: try object.value(forKey: $0)))" })
            .joined(separator: ", ")
        }.sorted()
      }
      graph = try describe(context.registeredObjects.filter { !$0.isDeleted })
      inserted = try describe(context.insertedObjects)
      updated = try describe(context.updatedObjects)
      deleted = try describe(context.deletedObjects)
      temporaryIDs = context.registeredObjects.filter { $0.objectID.isTemporaryID }.count
      undoCount = document.undoManager?.undoCount ?? -1
      isEdited = document.isEdited
      file = try Data(contentsOf: try #require(document.fileURL))
    }
  }

  @Test(
    "a save that fails at any step leaves the file and the document as they were",
    arguments: 0..<2)
  func failedSaves(formatIndex: Int) throws {
    let format = Self.formats[formatIndex]
    let plans: [(FaultPlan, String)] = [
      (FaultPlan(failingWriteCall: 1, writeError: ENOSPC), "No space left on device"),
      (FaultPlan(failingWriteCall: 2, writeError: EIO, chunkSize: 64), "Input/output error"),
      (FaultPlan(fsyncError: EIO), "cannot flush the new file to disk"),
      (FaultPlan(renameError: EACCES), "cannot replace the file (Permission denied)"),
      (FaultPlan(failsCreation: EROFS), "Read-only file system"),
    ]
    for (plan, words) in plans {
      let fixture = try DocumentFixture()
      defer { fixture.remove() }
      let document = try Self.editedDocument(format, in: fixture)
      let before = try State(document)
      #expect(before.isEdited && before.inserted.count == 1 && before.deleted.count == 2)
      var failure: (any Error)?
      AtomicFile.$faults.withValue(plan) {
        do { try document.save() } catch { failure = error }
      }
      let error = try #require(failure as? GraphError, "\(words)")
      #expect(error.code == .store, "\(words)")
      let storeError = try #require(error.underlying as? StoreError)
      #expect(storeError.code == .writeFailed)
      #expect(storeError.message.contains(words), "\(storeError)")
      // The store's place is named once: the graph error takes the message and the place.
      #expect(error.description == storeError.description, "\(error)")
      #expect(try State(document) == before, "\(words)")
      // The undo stack still works, and a save without the fault writes the edits.
      try document.save()
      #expect(!document.isEdited)
      let reopened = try Document.open(
        try #require(document.fileURL), model: try musicModel(), formats: Self.formats)
      let names = try reopened.context.fetch(FetchRequest(entityName: "Playlist")).map {
        try $0.value(forKey: "name") as? String
      }
      #expect(names == ["Dawn"], "\(words)")
      #expect(try reopened.context.fetch(FetchRequest(entityName: "Track")).count == 2)
    }
  }

  /// Replaces the document's file the way another program would, keeping what a weaker check
  /// would look at.
  enum Replacement: CaseIterable {
    /// A new file (a new inode) of the same size, its modification date set back.
    case sameSizeAndDate
    /// The same file (same inode) rewritten in place.
    case inPlace
    /// A new file of another size.
    case otherSize
  }

  @Test(
    "a file changed since it was opened is noticed however it changed: merged when it reads, refused when it does not",
    arguments: Replacement.allCases)
  func replacedFile(replacement: Replacement) throws {
    for format in Self.formats {
      let fixture = try DocumentFixture()
      defer { fixture.remove() }
      let document = try Self.editedDocument(format, in: fixture)
      let url = try #require(document.fileURL)
      let original = try Data(contentsOf: url)
      let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
      let date = try #require(attributes[.modificationDate] as? Date)
      // Someone else's version, of the same size: in XML a track renamed ("Morning song" to
      // "Morning tune", which this document did not change), which merges; in the binary
      // store one byte changed, which its checksums refuse.
      var theirs = original
      if format is XMLStore {
        theirs = Data(
          String(decoding: original, as: UTF8.self)
            .replacingOccurrences(of: "Morning song", with: "Morning tune").utf8)
        #expect(theirs != original && theirs.count == original.count)
      } else {
        theirs[theirs.count / 2] ^= 0x01
      }
      switch replacement {
      case .sameSizeAndDate:
        let other = fixture.url("theirs")
        try theirs.write(to: other)
        #expect(rename(other.path, url.path) == 0)
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
      case .inPlace:
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: theirs)
        try handle.close()
      case .otherSize:
        try (theirs + Data("\n".utf8)).write(to: url)
      }
      #expect(document.isChangedOnDisk, "\(replacement) \(format)")
      guard format is XMLStore else {
        let onDisk = try Data(contentsOf: url)
        let before = try State(document)
        let error = try #require(throws: GraphError.self) { try document.save() }
        let storeError = try #require(error.underlying as? StoreError)
        #expect(storeError.code == .modifiedOnDisk, "\(replacement) \(format)")
        #expect(storeError.message.contains("no longer reads"), "\(storeError)")
        #expect(try Data(contentsOf: url) == onDisk, "\(replacement) \(format)")
        #expect(try State(document) == before, "\(replacement) \(format)")
        continue
      }
      try document.save()
      #expect(!document.isChangedOnDisk && !document.isEdited)
      let reopened = try Document.open(url, model: try musicModel(), formats: Self.formats)
      let titles = try reopened.context.fetch(FetchRequest(entityName: "Track")).map {
        try $0.value(forKey: "title") as? String
      }
      #expect(Set(titles) == ["Morning tune", "New song"], "\(replacement)")
      let names = try reopened.context.fetch(FetchRequest(entityName: "Playlist")).map {
        try $0.value(forKey: "name") as? String
      }
      #expect(names == ["Dawn"], "\(replacement)")
    }
  }
}
