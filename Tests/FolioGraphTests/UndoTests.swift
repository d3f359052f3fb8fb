import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel
@testable import FolioUndo

/// A context on the test model (or `model`, when a test makes many contexts on one) with an
/// undo manager on a manual loop.
func undoContext(
  model: ManagedObjectModel? = nil
) throws -> (ManagedObjectContext, UndoManager, ManualEventLoop) {
  let loop = ManualEventLoop()
  let undo = UndoManager(eventLoop: loop)
  return (ManagedObjectContext(model: try model ?? graphModel(), undoManager: undo), undo, loop)
}

@Suite("Undo in the context")
struct ContextUndoTests {
  @Test("a transient attribute's change undoes and redoes, as a stored one's does")
  func transientUndo() throws {
    let (context, undo, loop) = try undoContext()
    let employee = try context.insertNewObject(forEntityName: "Employee")
    try employee.setValue("first", forKey: "scratch")
    loop.endTurn()
    try employee.setValue("second", forKey: "scratch")
    loop.endTurn()
    try undo.undo()
    #expect(try employee.value(forKey: "scratch") as? String == "first")
    try undo.redo()
    #expect(try employee.value(forKey: "scratch") as? String == "second")
    // The first turn inserted the object and set its transient: undoing it removes both.
    try undo.undo()
    try undo.undo()
    #expect(context.insertedObjects.isEmpty)
    #expect(!undo.canUndo)
  }

  @Test("several sets of one key in a turn undo to the value before the turn")
  func coalescedSets() throws {
    let (context, undo, loop) = try undoContext()
    let track = try context.insertNewObject(forEntityName: "Track")
    try track.setValue("A", forKey: "title")
    try context.save()
    loop.endTurn()
    undo.removeAllActions()
    try track.setValue("B", forKey: "title")
    try track.setValue("C", forKey: "title")
    loop.endTurn()
    #expect(undo.undoCount == 1)
    try undo.undo()
    #expect(try track.value(forKey: "title", as: String.self) == "A")
    #expect(!context.hasChanges)
    try undo.redo()
    #expect(try track.value(forKey: "title", as: String.self) == "C")
    #expect(context.updatedObjects == [track])
  }

  @Test("undoing an insertion is not a deletion: the object's Deny rules do not stop a save")
  func undoneInsertionIsNotDenied() throws {
    let (context, undo, loop) = try undoContext()
    let ada = try context.insertNewObject(forEntityName: "Employee")
    loop.endTurn()
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    try acme.add(ada, toKey: "employees")
    loop.endTurn()
    try undo.undo()
    #expect(try ada.value(forKey: "company") == nil)
    try context.save()
  }

  @Test("redoing a deletion gives the deleted object back the relationships the change left it")
  func redoRestoresDeletedObjectsRelationships() throws {
    let (context, undo, loop) = try undoContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    let globex = try context.insertNewObject(forEntityName: "Company")
    try globex.setValue("Globex", forKey: "name")
    let ada = try context.insertNewObject(forEntityName: "Employee")
    try ada.setValue(acme, forKey: "company")
    try context.save()
    loop.endTurn()
    // Company.employees is Deny: Acme may go once Ada has moved to Globex.
    try context.delete(acme)
    try ada.setValue(globex, forKey: "company")
    loop.endTurn()
    try undo.undo()
    #expect(set(try acme.value(forKey: "employees")) == [ada])
    try undo.redo()
    #expect(set(try acme.value(forKey: "employees")).isEmpty)
    try context.save()
  }

  @Test("an object inserted and deleted in one turn leaves nothing to undo")
  func insertedAndDeleted() throws {
    let (context, undo, loop) = try undoContext()
    let track = try context.insertNewObject(forEntityName: "Track")
    try track.setValue("A", forKey: "title")
    try context.delete(track)
    loop.endTurn()
    #expect(!undo.canUndo)
  }

  @Test("edits to an object inserted in the turn fold into its insertion")
  func editsFoldIntoInsertion() throws {
    let (context, undo, loop) = try undoContext()
    let mix = try context.insertNewObject(forEntityName: "Playlist")
    let track = try context.insertNewObject(forEntityName: "Track")
    try track.setValue("Intro", forKey: "title")
    try mix.add(track, toKey: "tracks")
    loop.endTurn()
    #expect(undo.undoCount == 1)
    try undo.undo()
    #expect(context.insertedObjects.isEmpty)
    #expect(!context.hasChanges)
    #expect(try context.objects(ofEntity: "Track").isEmpty)
    try undo.redo()
    #expect(context.insertedObjects == [mix, track])
    #expect(try track.value(forKey: "title", as: String.self) == "Intro")
    #expect(try mix.value(forKey: "tracks") as? [ManagedObject] == [track])
  }

  @Test("undoing a cascaded delete restores every attribute, both sides and ordered positions")
  func cascadeRestored() throws {
    let (context, undo, loop) = try undoContext()
    let mix = try context.insertNewObject(forEntityName: "Playlist")
    try mix.setValue("Mix", forKey: "name")
    let tracks = try (0..<3).map { index -> ManagedObject in
      let track = try context.insertNewObject(forEntityName: "Track")
      try track.setValue("T\(index)", forKey: "title")
      try track.setValue(60 * (index + 1), forKey: "seconds")
      try mix.add(track, toKey: "tracks")
      return track
    }
    let other = try context.insertNewObject(forEntityName: "Playlist")
    try context.save()
    loop.endTurn()
    undo.removeAllActions()
    try context.delete(mix)
    loop.endTurn()
    #expect(context.deletedObjects == Set([mix] + tracks))
    try undo.undo()
    #expect(context.deletedObjects.isEmpty && !context.hasChanges)
    #expect(try mix.value(forKey: "tracks") as? [ManagedObject] == tracks)
    #expect(try tracks[1].value(forKey: "playlist") as? ManagedObject === mix)
    #expect(try tracks[2].value(forKey: "seconds", as: Int.self) == 180)
    #expect(try other.value(forKey: "tracks") as? [ManagedObject] == [])
    try undo.redo()
    #expect(context.deletedObjects == Set([mix] + tracks))
  }

  @Test("undoing a Nullify delete relinks the inverse")
  func nullifyRelinked() throws {
    let (context, undo, loop) = try undoContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    let ada = try context.insertNewObject(forEntityName: "Employee")
    try ada.setValue(acme, forKey: "company")
    try context.save()
    loop.endTurn()
    try context.delete(ada)
    loop.endTurn()
    #expect(set(try acme.value(forKey: "employees")).isEmpty)
    try undo.undo()
    #expect(set(try acme.value(forKey: "employees")) == [ada])
    #expect(!context.hasChanges)
  }

  @Test("pending changes are processed at the end of the turn, into the turn's group")
  func endOfTurn() throws {
    let (context, undo, loop) = try undoContext()
    var notifications = 0
    let observation = context.addObserver { _ in notifications += 1 }
    defer { observation.cancel() }
    _ = try context.insertNewObject(forEntityName: "Track")
    #expect(undo.groupingLevel == 0)
    loop.endTurn()
    #expect(notifications == 1)
    #expect(undo.undoCount == 1)
    #expect(undo.groupingLevel == 0)
  }

  @Test("changes made while registration is disabled stay, but cannot be undone")
  func disabledRegistration() throws {
    let (context, undo, loop) = try undoContext()
    undo.disableUndoRegistration()
    let track = try context.insertNewObject(forEntityName: "Track")
    loop.endTurn()
    try undo.enableUndoRegistration()
    #expect(context.insertedObjects == [track])
    #expect(!undo.canUndo)
  }

  @Test(
    "undo after a change made with registration disabled keeps every relationship agreeing with its inverse"
  )
  func undoAcrossUnregisteredMove() throws {
    let (context, undo, loop) = try undoContext()
    let ada = try context.insertNewObject(forEntityName: "Employee")
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    let globex = try context.insertNewObject(forEntityName: "Company")
    try globex.setValue("Globex", forKey: "name")
    loop.endTurn()
    try ada.setValue(acme, forKey: "company")
    loop.endTurn()
    undo.disableUndoRegistration()
    try ada.setValue(globex, forKey: "company")
    loop.endTurn()
    try undo.enableUndoRegistration()
    // The undone change recorded ada.company and acme.employees, not globex.employees.
    try undo.undo()
    #expect(try ada.value(forKey: "company") == nil)
    #expect(try globex.value(forKey: "employees", as: Set<ManagedObject>.self)?.isEmpty == true)
    #expect(try acme.value(forKey: "employees", as: Set<ManagedObject>.self)?.isEmpty == true)
    #expect(context.brokenInvariants().isEmpty)
    // Redo undoes the undo, the inverse it set included.
    try undo.redo()
    #expect(try ada.value(forKey: "company") as? ManagedObject === globex)
    #expect(try globex.value(forKey: "employees", as: Set<ManagedObject>.self) == [ada])
    #expect(context.brokenInvariants().isEmpty)
  }

  @Test("an undone edge whose other side moved unregistered takes that side from its new partner")
  func undoRelinksMovedOneToOne() throws {
    let (context, undo, loop) = try undoContext()
    let ada = try context.insertNewObject(forEntityName: "Employee")
    let bob = try context.insertNewObject(forEntityName: "Employee")
    let badge = try context.insertNewObject(forEntityName: "Badge")
    try ada.setValue(badge, forKey: "badge")
    loop.endTurn()
    try ada.setValue("Ada", forKey: "nickname")
    try ada.setValue(nil, forKey: "badge")
    loop.endTurn()
    undo.disableUndoRegistration()
    try bob.setValue(badge, forKey: "badge")
    loop.endTurn()
    try undo.enableUndoRegistration()
    // Undo gives ada her badge back: bob, whose link the undo never recorded, loses it.
    try undo.undo()
    #expect(try ada.value(forKey: "badge") as? ManagedObject === badge)
    #expect(try badge.value(forKey: "holder") as? ManagedObject === ada)
    #expect(try bob.value(forKey: "badge") == nil)
    #expect(context.brokenInvariants().isEmpty)
  }

  @Test("saving keeps the undo stack; undo after a save makes the context dirty again")
  func undoAfterSave() throws {
    let (context, undo, loop) = try undoContext()
    let track = try context.insertNewObject(forEntityName: "Track")
    loop.endTurn()
    try context.save()
    #expect(undo.canUndo && !context.hasChanges)
    try undo.undo()
    #expect(context.deletedObjects == [track])
    #expect(context.hasChanges)
    try undo.redo()
    #expect(context.insertedObjects.isEmpty && context.deletedObjects.isEmpty)
    #expect(!context.hasChanges)
  }

  @Test("undo of a deletion after a save inserts the object again")
  func undoDeletionAfterSave() throws {
    let (context, undo, loop) = try undoContext()
    let track = try context.insertNewObject(forEntityName: "Track")
    try context.save()
    loop.endTurn()
    try context.delete(track)
    loop.endTurn()
    try context.save()
    #expect(context.object(with: track.objectID) == nil)
    try undo.undo()
    #expect(context.insertedObjects == [track])
    #expect(context.object(with: track.objectID) === track)
  }

  @Test("rollback discards unsaved changes and clears the undo stack")
  func rollback() throws {
    let (context, undo, loop) = try undoContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    let ada = try context.insertNewObject(forEntityName: "Employee")
    try ada.setValue(acme, forKey: "company")
    try context.save()
    loop.endTurn()
    try acme.setValue("Acme Corp", forKey: "name")
    let bob = try context.insertNewObject(forEntityName: "Employee")
    try bob.setValue(acme, forKey: "company")
    try context.delete(ada)
    loop.endTurn()
    context.rollback()
    #expect(!context.hasChanges)
    #expect(!undo.canUndo && !undo.canRedo)
    #expect(try acme.value(forKey: "name", as: String.self) == "Acme")
    #expect(set(try acme.value(forKey: "employees")) == [ada])
    #expect(!ada.isDeleted)
    #expect(try context.objects(ofEntity: "Employee") == [ada])
  }

  @Test("reset forgets every object and clears the undo stack")
  func reset() throws {
    let (context, undo, loop) = try undoContext()
    let track = try context.insertNewObject(forEntityName: "Track")
    loop.endTurn()
    context.reset()
    #expect(context.registeredObjects.isEmpty && !context.hasChanges && !undo.canUndo)
    #expect(graphError { try track.setValue("x", forKey: "title") }?.code == .notRegistered)
  }

  @Test("refresh without merging drops the object's changes; with merging keeps them")
  func refresh() throws {
    let (context, _, loop) = try undoContext()
    let track = try context.insertNewObject(forEntityName: "Track")
    try track.setValue("Saved", forKey: "title")
    try context.save()
    loop.endTurn()
    try track.setValue("Edited", forKey: "title")
    try context.refresh(track, mergeChanges: true)
    #expect(try track.value(forKey: "title", as: String.self) == "Edited")
    try context.refresh(track, mergeChanges: false)
    #expect(try track.value(forKey: "title", as: String.self) == "Saved")
    #expect(!context.hasChanges)
  }

  @Test("a context without an undo manager registers nothing")
  func noUndoManager() throws {
    let context = try makeContext()
    context.undoManager = nil
    _ = try context.insertNewObject(forEntityName: "Track")
    context.processPendingChanges()
    #expect(context.insertedObjects.count == 1)
  }
}
