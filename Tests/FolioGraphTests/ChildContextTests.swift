import FolioQuery
import FolioStores
import FolioTestSupport
import FolioUndo
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

/// Child contexts read through their parent and save into it, never to the file.
@Suite("Child contexts")
struct ChildContextTests {
  let shared = SharedStoreTests()

  func title(_ object: ManagedObject) throws -> String? {
    try object.value(forKey: "title", as: String.self)
  }

  @Test("a child reads through its parent, pending changes included")
  func readsThroughParent() throws {
    let (folder, url) = try shared.savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let parent = try ManagedObjectContext(coordinator: try shared.coordinator(url))
    try shared.track("A", in: parent).setValue("A (parent)", forKey: "title")
    let fresh = try parent.insertNewObject(forEntityName: "Track")
    try fresh.setValue("C", forKey: "title")
    let child = ManagedObjectContext(parent: parent)
    #expect(child.parent === parent && child.registeredObjects.isEmpty)
    let titles = Set(try child.fetch(FetchRequest(entityName: "Track")).compactMap(title))
    #expect(titles == ["A (parent)", "B", "C"])
    let same = try #require(child.object(with: fresh.objectID))
    #expect(same !== fresh && same.objectID == fresh.objectID && same.objectID.isTemporaryID)
    #expect(!child.hasChanges)
  }

  @Test("a child discarded leaves the parent and the file as they were")
  func discardedChild() throws {
    let (folder, url) = try shared.savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let parent = try ManagedObjectContext(coordinator: try shared.coordinator(url))
    let bytes = try Data(contentsOf: url)
    do {
      let child = ManagedObjectContext(parent: parent)
      try shared.track("A", in: child).setValue("edited", forKey: "title")
      try child.delete(try shared.track("B", in: child))
      try child.insertNewObject(forEntityName: "Track").setValue("new", forKey: "title")
      child.processPendingChanges()
      #expect(child.undoManager?.canUndo == true)
    }
    #expect(!parent.hasChanges && parent.undoManager?.canUndo == false)
    #expect(
      Set(try parent.fetch(FetchRequest(entityName: "Track")).compactMap(title)) == ["A", "B"])
    try parent.save()
    #expect(try Data(contentsOf: url) == bytes)
  }

  @Test("a child's save pushes into the parent, undoably there; the parent's save writes it")
  func savedChild() throws {
    let (folder, url) = try shared.savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let parent = try ManagedObjectContext(coordinator: try shared.coordinator(url))
    let parentA = try shared.track("A", in: parent)
    let bytes = try Data(contentsOf: url)
    let child = ManagedObjectContext(parent: parent)
    let a = try shared.track("A", in: child)
    try a.setValue("edited", forKey: "title")
    let mix = try shared.playlist(in: child)
    let fresh = try child.insertNewObject(forEntityName: "Track")
    try fresh.setValue("C", forKey: "title")
    try mix.add(fresh, toKey: "tracks")
    try child.delete(try shared.track("B", in: child))
    try child.save()
    #expect(!child.hasChanges)
    #expect(try Data(contentsOf: url) == bytes)
    // In the parent: pending, with both sides of the new relationship, under the same ID.
    #expect(parent.hasChanges)
    let pushed = try #require(parent.object(with: fresh.objectID))
    #expect(pushed.isInserted && pushed.objectID.isTemporaryID)
    #expect(try pushed.value(forKeyPath: "playlist.name") as? String == "Mix")
    #expect(try title(parentA) == "edited")
    #expect(try parent.fetch(FetchRequest(entityName: "Track")).count == 2)
    #expect(parent.brokenInvariants().isEmpty)
    // The parent's undo manager took the push as one change of its turn.
    parent.processPendingChanges()
    try parent.undoManager?.undo()
    #expect(!parent.hasChanges)
    try parent.undoManager?.redo()
    try parent.save()
    let titles = Set(try shared.fileRecords(url).values.compactMap { $0.attributes["title"] })
    #expect(titles == [.string("edited"), .string("C")])
    // After the root's save the object has its permanent ID, and the child finds it by it.
    #expect(!pushed.objectID.isTemporaryID)
    #expect(child.object(with: pushed.objectID) === fresh)
  }

  @Test("a child's undo stack is its own, and a grandchild saves into the child")
  func nestedChildren() throws {
    let (folder, url) = try shared.savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let parent = try ManagedObjectContext(coordinator: try shared.coordinator(url))
    let parentA = try shared.track("A", in: parent)
    let child = ManagedObjectContext(parent: parent)
    let childA = try shared.track("A", in: child)
    let grandchild = ManagedObjectContext(parent: child)
    try shared.track("A", in: grandchild).setValue("deep", forKey: "title")
    grandchild.processPendingChanges()
    #expect(grandchild.undoManager?.canUndo == true && child.undoManager?.canUndo == false)
    try grandchild.save()
    #expect(try title(childA) == "deep")
    #expect(try title(parentA) == "A")
    try child.save()
    #expect(try title(parentA) == "deep")
    try parent.save()
    #expect(
      try shared.fileRecords(url).values.contains { $0.attributes["title"] == .string("deep") })
  }

  @Test("a child refreshed reads the parent's values again")
  func refreshChild() throws {
    let (folder, url) = try shared.savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let parent = try ManagedObjectContext(coordinator: try shared.coordinator(url))
    let child = ManagedObjectContext(parent: parent)
    let a = try shared.track("A", in: child)
    try shared.track("A", in: parent).setValue("parent's", forKey: "title")
    #expect(try title(a) == "A")
    try child.refresh(a, mergeChanges: false)
    #expect(try title(a) == "parent's")
    child.reset()
    #expect(try title(try shared.track("parent's", in: child)) == "parent's")
  }
}
