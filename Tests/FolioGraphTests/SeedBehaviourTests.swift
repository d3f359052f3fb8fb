import FolioQuery
import FolioTestSupport
import FolioUndo
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

/// Behaviours Core Data's documentation describes for managed objects: whole-object validation
/// overrides on insert and delete, a merging refresh of an object with transient values, and
/// composite attributes on objects.
@Suite("Managed objects as Core Data documents them")
struct SeedBehaviourTests {
  enum NoteError: Error, Equatable {
    case untitled
    case pinned
  }

  /// Notes: a title, a `pinned` flag, a transient `draft`, and a composite `place`.
  static func model() throws -> ManagedObjectModel {
    var draft = AttributeDescription("draft", .string)
    draft.isTransient = true
    var place = AttributeDescription("place", .composite)
    place.compositeName = "Place"
    let composites = [
      CompositeDescription(
        "Place",
        attributes: [
          AttributeDescription("room", .string), AttributeDescription("floor", .integer16),
        ])
    ]
    let note = EntityDescription("Note") {
      AttributeDescription("title", .string)
      AttributeDescription("pinned", .boolean)
      draft
      place
    }
    var model = try ManagedObjectModel(entities: [note], composites: composites)
    try model.register([Note.self])
    return model
  }

  final class Note: ManagedObject {
    nonisolated(unsafe) static var awakenings = 0
    var title: String? {
      get { attributeValue(forKey: "title") }
      set { setAttributeValue(newValue, forKey: "title") }
    }
    var pinned: Bool? {
      get { attributeValue(forKey: "pinned") }
      set { setAttributeValue(newValue, forKey: "pinned") }
    }
    var draft: String? {
      get { attributeValue(forKey: "draft") }
      set { setAttributeValue(newValue, forKey: "draft") }
    }

    /// A new note needs a title; an existing one may lose it.
    override func validateForInsert() throws {
      try super.validateForInsert()
      if title == nil { throw NoteError.untitled }
    }

    /// A pinned note cannot be deleted.
    override func validateForDelete() throws {
      try super.validateForDelete()
      if pinned == true { throw NoteError.pinned }
    }

    /// What a fetch sets: a transient value of its own.
    override func awakeFromFetch() {
      Self.awakenings += 1
      draft = "awake"
    }
  }

  @Test("validateForInsert and validateForDelete overrides fail the save with the app's errors")
  func insertAndDeleteOverrides() throws {
    let loop = ManualEventLoop()
    let context = ManagedObjectContext(
      model: try Self.model(), undoManager: UndoManager(eventLoop: loop))
    let note = Note(context: context)
    var error = try #require(throws: GraphError.self) { try context.save() }
    #expect(error.failures.compactMap { $0.underlying as? NoteError } == [.untitled])
    #expect(note.isInserted && note.objectID.isTemporaryID, "a failed save changes nothing")
    note.title = "Plan"
    note.pinned = true
    try context.save()
    // An update is not an insert: the title may go.
    note.title = nil
    try context.save()
    loop.endTurn()
    try context.delete(note)
    loop.endTurn()
    error = try #require(throws: GraphError.self) { try context.save() }
    #expect(error.failures.compactMap { $0.underlying as? NoteError } == [.pinned])
    #expect(error.failures.first?.entityName == "Note")
    #expect(note.isDeleted && context.deletedObjects == [note])
    try context.undoManager?.undo()
    #expect(!note.isDeleted)
    note.pinned = false
    try context.delete(note)
    try context.save()
    #expect(try context.objects(ofEntity: "Note").isEmpty)
  }

  @Test("a merging refresh keeps pending and transient values, restored after awakeFromFetch")
  func mergingRefreshWithTransients() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
    try coordinator.addPersistentStore(
      at: folder.appendingPathComponent("notes.test"), format: TestFormat())
    let writer = try ManagedObjectContext(coordinator: coordinator)
    let written = Note(context: writer)
    written.title = "Plan"
    written.pinned = false
    try writer.save()

    let reader = try ManagedObjectContext(coordinator: coordinator)
    let note = try #require(try reader.fetch(FetchRequest<Note>(entityName: "Note")).first)
    #expect(note.draft == "awake")
    let before = Note.awakenings
    note.draft = "my draft"
    note.pinned = true
    // Another context saves a new title.
    written.title = "Plan B"
    try writer.save()

    try reader.refresh(note, mergeChanges: true)
    #expect(Note.awakenings == before + 1, "a merging refresh calls awakeFromFetch")
    #expect(note.title == "Plan B", "the saved value comes in")
    #expect(note.pinned == true, "the pending change stays")
    #expect(note.draft == "my draft", "the transient value is restored after awakeFromFetch")
    #expect(note.hasChanges)

    try reader.refresh(note, mergeChanges: false)
    #expect(note.pinned == false && note.draft == "awake", "a plain refresh drops both")
    #expect(!note.hasChanges)
  }

  @Test("a composite attribute is set, read, undone, saved and compared on an object")
  func compositeOnObjects() throws {
    let loop = ManualEventLoop()
    let context = ManagedObjectContext(
      model: try Self.model(), undoManager: UndoManager(eventLoop: loop))
    let note = Note(context: context)
    note.title = "Plan"
    loop.endTurn()
    try context.save()
    let place = AttributeValue.composite(["room": .string("B12"), "floor": .integer(3)])
    try note.setValue(place, forKey: "place")
    loop.endTurn()
    let read = try #require(try note.value(forKey: "place") as? [String: Any])
    #expect(read["room"] as? String == "B12" && read["floor"] as? Int == 3)
    #expect(note.changedValues().keys.contains("place"))
    // A dictionary is not how a composite is set: the error says how.
    let wrong = try #require(throws: GraphError.self) {
      try note.setValue(["room": "C1"], forKey: "place")
    }
    #expect(wrong.code == .typeMismatch && wrong.message.contains("AttributeValue.composite"))
    try context.undoManager?.undo()
    #expect(try note.value(forKey: "place") == nil)
    try context.undoManager?.redo()
    #expect((try note.value(forKey: "place") as? [String: Any])?["room"] as? String == "B12")
    try context.save()
    let matches = try context.fetch(
      FetchRequest<Note>(
        entityName: "Note", predicate: QueryPredicate(format: "place.room == 'B12'")))
    #expect(matches == [note])
  }
}
