import Folio
import FolioTestSupport
import Foundation
import Testing

/// A small model of playlists and tracks: strings, integers and relationships, which the test
/// store format keeps.
func musicModel() throws -> ManagedObjectModel {
  try ManagedObjectModel {
    MusicEntities.playlist
    MusicEntities.track
  }
}

struct DocumentFixture {
  let folder: URL
  let loop = ManualEventLoop()
  init() throws { folder = try makeTemporaryFolder() }
  func url(_ name: String) -> URL { folder.appendingPathComponent(name) }
  func remove() { try? FileManager.default.removeItem(at: folder) }
}

@Suite("Documents")
struct DocumentTests {
  @Test("isEdited follows the save point through undo and redo")
  func savePoint() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let document = try Document(model: try musicModel(), eventLoop: fixture.loop)
    #expect(!document.isEdited)
    let mix = try document.context.insertNewObject(forEntityName: "Playlist")
    #expect(document.isEdited)
    fixture.loop.endTurn()
    try document.save(to: fixture.url("music.test"), format: TestFormat())
    #expect(!document.isEdited)
    try mix.setValue("Mix", forKey: "name")
    fixture.loop.endTurn()
    #expect(document.isEdited)
    try document.undoManager?.undo()
    #expect(!document.isEdited)
    try document.undoManager?.redo()
    #expect(document.isEdited)
    try document.save()
    #expect(!document.isEdited)
    // Undo past the save point, then a new change discards the branch that held it.
    try document.undoManager?.undo()
    #expect(document.isEdited)
    try mix.setValue("Other", forKey: "name")
    fixture.loop.endTurn()
    try document.undoManager?.undo()
    #expect(document.isEdited)
    #expect(try mix.value(forKey: "name") == nil)
  }

  @Test("undoing every group levelsOfUndo kept does not reach a save point it dropped")
  func savePointBelowDroppedGroups() throws {
    let document = try Document(model: try musicModel(), eventLoop: ManualEventLoop())
    let loop = try #require(document.undoManager?.eventLoop as? ManualEventLoop)
    document.undoManager?.levelsOfUndo = 1
    let mix = try document.context.insertNewObject(forEntityName: "Playlist")
    loop.endTurn()
    try mix.setValue("Mix", forKey: "name")
    loop.endTurn()
    try document.undoManager?.undo()
    // The insertion, dropped from the stack, still stands: not the empty start.
    #expect(document.context.insertedObjects == [mix])
    #expect(document.isEdited)
  }

  @Test("open, save, reopen; save as moves the document to the new file")
  func openSaveReopen() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let model = try musicModel()
    let document = try Document(model: model, eventLoop: fixture.loop)
    let mix = try document.context.insertNewObject(forEntityName: "Playlist")
    try mix.setValue("Mix", forKey: "name")
    let intro = try document.context.insertNewObject(forEntityName: "Track")
    try intro.setValue("Intro", forKey: "title")
    try mix.add(intro, toKey: "tracks")
    #expect(throws: (any Error).self) { try document.save() }
    try document.save(to: fixture.url("music.test"), formats: [TestFormat()])
    #expect(document.fileURL?.lastPathComponent == "music.test")

    let reopened = try Document.open(
      fixture.url("music.test"), model: model, formats: [TestFormat()])
    #expect(!reopened.isEdited)
    let again = try #require(reopened.context.object(with: intro.objectID))
    #expect(try again.value(forKeyPath: "playlist.name") as? String == "Mix")

    try again.setValue("Overture", forKey: "title")
    try reopened.save(to: fixture.url("copy.test"), format: TestFormat())
    #expect(reopened.fileURL?.lastPathComponent == "copy.test")
    let copy = try Document.open(fixture.url("copy.test"), model: model, formats: [TestFormat()])
    #expect(
      try copy.context.object(with: intro.objectID)?.value(forKey: "title") as? String == "Overture"
    )
    let original = try Document.open(
      fixture.url("music.test"), model: model, formats: [TestFormat()])
    #expect(
      try original.context.object(with: intro.objectID)?.value(forKey: "title") as? String
        == "Intro")
  }

  @Test("revert discards unsaved changes and the undo stack")
  func revert() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let model = try musicModel()
    let document = try Document(model: model, eventLoop: fixture.loop)
    try document.context.insertNewObject(forEntityName: "Track").setValue("Kept", forKey: "title")
    try document.save(to: fixture.url("music.test"), format: TestFormat())
    try document.context.insertNewObject(forEntityName: "Track").setValue(
      "Dropped", forKey: "title")
    fixture.loop.endTurn()
    try document.revert()
    #expect(document.coordinator === document.context.persistentStoreCoordinator)
    #expect(!document.isEdited)
    #expect(!(document.undoManager?.canUndo ?? true))
    let titles = try document.context.objects(ofEntity: "Track").map {
      try $0.value(forKey: "title") as? String
    }
    #expect(titles == ["Kept"])
  }

  @Test("autosave writes a sibling file with the unsaved changes and leaves the document edited")
  func autosave() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let model = try musicModel()
    let document = try Document(model: model, eventLoop: fixture.loop)
    try document.save(to: fixture.url("music.test"), format: TestFormat())
    let draft = try document.context.insertNewObject(forEntityName: "Track")
    try draft.setValue("Draft", forKey: "title")
    let sibling = try document.autosave()
    #expect(sibling.lastPathComponent == "music (Autosaved).test")
    #expect(document.isEdited)
    let autosaved = try Document.open(sibling, model: model, formats: [TestFormat()])
    let titles = try autosaved.context.objects(ofEntity: "Track").map {
      try $0.value(forKey: "title") as? String
    }
    #expect(titles == ["Draft"])
    let saved = try Document.open(fixture.url("music.test"), model: model, formats: [TestFormat()])
    #expect(try saved.context.objects(ofEntity: "Track").isEmpty)
  }

  @Test("a save as to an extension no format has is refused, and the document keeps its file")
  func unknownExtension() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let document = try Document(model: try musicModel(), eventLoop: fixture.loop)
    try document.save(to: fixture.url("music.test"), format: TestFormat())
    #expect(throws: StoreError.self) {
      try document.save(to: fixture.url("music.nope"), formats: [TestFormat()])
    }
    #expect(document.fileURL?.lastPathComponent == "music.test")
  }

  @Test("a save as that fails leaves the document saving to its old file")
  func failedSaveAsKeepsTheOldFile() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let model = try musicModel()
    let document = try Document(model: model, eventLoop: fixture.loop)
    try document.save(to: fixture.url("music.test"), format: TestFormat())
    #expect(throws: (any Error).self) {
      try document.save(to: fixture.url("missing/music.test"), format: TestFormat())
    }
    #expect(document.fileURL?.lastPathComponent == "music.test")
    let mix = try document.context.insertNewObject(forEntityName: "Playlist")
    try mix.setValue("Mix", forKey: "name")
    try document.save()
    let reopened = try Document.open(
      fixture.url("music.test"), model: model, formats: [TestFormat()])
    #expect(try reopened.context.objects(ofEntity: "Playlist").count == 1)
  }
}
