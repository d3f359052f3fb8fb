import FolioModel
import Testing

@testable import FolioGraph

#if DEBUG
  /// An object reads its values from the committed row until its first change; a write through
  /// it into that row would change what every context sees as stored.
  @Suite("shared committed rows")
  struct SharedRowTests {
    static func context() throws -> (ManagedObjectContext, ManagedObject) {
      let model = try ManagedObjectModel {
        EntityDescription("Note") { AttributeDescription("text", .string) }
      }
      let context = ManagedObjectContext(model: model)
      let note = try context.insertNewObject(forEntityName: "Note")
      try note.setValue("saved", forKey: "text")
      try context.save()
      try context.refresh(note, mergeChanges: false)
      return (context, note)
    }

    @Test("a change made the usual way takes the object's own copy of the row first")
    func changeTakesOwnCopy() throws {
      let (context, note) = try Self.context()
      #expect(note.slots.isShared)
      try note.setValue("changed", forKey: "text")
      #expect(!note.slots.isShared)
      #expect(note.snapshot?.slots[0].attributeValue(as: .string) == .string("saved"))
      _ = context
    }

    @Test("a debug build stops a write into a committed row an object shares")
    func writeIntoSharedRowStops() async {
      await #expect(processExitsWith: .failure) {
        let (context, note) = try SharedRowTests.context()
        note.slots[0] = .null
        _ = context
      }
    }
  }
#endif
