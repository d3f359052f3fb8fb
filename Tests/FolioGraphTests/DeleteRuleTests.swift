import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

@Suite("Delete rules")
struct DeleteRuleTests {
  @Test("Nullify removes the deleted object from the other side when changes are processed")
  func nullify() throws {
    let context = try makeContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    let ada = try context.insertNewObject(forEntityName: "Employee")
    try ada.setValue(acme, forKey: "company")
    try context.save()
    try context.delete(ada)
    #expect(ada.isDeleted)
    #expect(context.deletedObjects == [ada])
    #expect(set(try acme.value(forKey: "employees")) == [ada])
    context.processPendingChanges()
    #expect(set(try acme.value(forKey: "employees")).isEmpty)
    #expect(context.updatedObjects == [acme])
  }

  @Test("Cascade deletes along a chain")
  func cascadeChain() throws {
    let context = try makeContext()
    let nodes = try (0..<5).map { _ in try context.insertNewObject(forEntityName: "Node") }
    for index in 0..<4 { try nodes[index].add(nodes[index + 1], toKey: "children") }
    try context.save()
    try context.delete(nodes[0])
    context.processPendingChanges()
    #expect(context.deletedObjects == Set(nodes))
    #expect(try context.objects(ofEntity: "Node").isEmpty)
  }

  @Test("Cascade through a cycle deletes each object once and stops")
  func cascadeCycle() throws {
    let context = try makeContext()
    let nodes = try (0..<3).map { _ in try context.insertNewObject(forEntityName: "Node") }
    try nodes[0].add(nodes[1], toKey: "children")
    try nodes[1].add(nodes[2], toKey: "children")
    try nodes[2].add(nodes[0], toKey: "children")
    try context.save()
    var notifications: [ObjectsDidChangeNotification] = []
    let observation = context.addObserver { notifications.append($0) }
    defer { observation.cancel() }
    try context.delete(nodes[1])
    context.processPendingChanges()
    #expect(context.deletedObjects == Set(nodes))
    #expect(notifications.count == 1)
    #expect(notifications.first?.deletedObjects == Set(nodes))
  }

  @Test("Cascade through a diamond deletes the shared object once")
  func cascadeDiamond() throws {
    let context = try makeContext()
    let top = try context.insertNewObject(forEntityName: "Node")
    let left = try context.insertNewObject(forEntityName: "Node")
    let right = try context.insertNewObject(forEntityName: "Node")
    let bottom = try context.insertNewObject(forEntityName: "Node")
    try top.setValue(Set([left, right]), forKey: "children")
    try left.add(bottom, toKey: "children")
    try right.add(bottom, toKey: "children")
    let outside = try context.insertNewObject(forEntityName: "Node")
    try outside.add(bottom, toKey: "children")
    try context.save()
    try context.delete(top)
    context.processPendingChanges()
    #expect(context.deletedObjects == [top, left, right, bottom])
    #expect(!outside.isDeleted)
    #expect(set(try outside.value(forKey: "children")).isEmpty)  // bottom.parents nullifies
  }

  @Test("Cascade on a one-to-one deletes the badge with its holder")
  func cascadeOneToOne() throws {
    let context = try makeContext()
    let ada = try context.insertNewObject(forEntityName: "Employee")
    let badge = try context.insertNewObject(forEntityName: "Badge")
    try ada.setValue(badge, forKey: "badge")
    try context.delete(ada)
    context.processPendingChanges()
    #expect(try context.objects(ofEntity: "Badge").isEmpty)
    #expect(context.insertedObjects.isEmpty)
    #expect(context.deletedObjects.isEmpty)
  }

  @Test("Deny refuses the save while the relationship holds objects, and nothing changes")
  func deny() throws {
    let context = try makeContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    let ada = try context.insertNewObject(forEntityName: "Employee")
    try ada.setValue(acme, forKey: "company")
    try context.save()
    try context.delete(acme)
    let error = try #require(graphError { try context.save() })
    #expect(error.code == .deny)
    #expect(error.failures.map(\.rule) == [.deny])
    #expect(
      error.failures.first?.message
        == "cannot be deleted while \"employees\" holds 1 object (delete rule Deny)")
    #expect(acme.isDeleted)
    #expect(context.hasChanges)
    #expect(try ada.value(forKey: "company") as? ManagedObject === acme)
    #expect(graphError { try acme.validateForDelete() }?.code == .deny)
    try context.delete(ada)
    try context.save()
    #expect(!context.hasChanges)
    #expect(
      graphError { _ = try context.existingObject(with: acme.objectID) }?.code == .objectNotFound)
  }

  @Test("No Action leaves the other side pointing at the deleted object")
  func noAction() throws {
    let context = try makeContext()
    let ada = try context.insertNewObject(forEntityName: "Employee")
    let note = try context.insertNewObject(forEntityName: "Note")
    try note.setValue(ada, forKey: "about")
    try context.save()
    try context.delete(ada)
    context.processPendingChanges()
    #expect(try note.value(forKey: "about") as? ManagedObject === ada)
    #expect(!note.isUpdated)
  }

  @Test("an object inserted and deleted before a save leaves no trace")
  func insertedThenDeleted() throws {
    let context = try makeContext()
    let ada = try context.insertNewObject(forEntityName: "Employee")
    try context.delete(ada)
    context.processPendingChanges()
    #expect(context.insertedObjects.isEmpty)
    #expect(context.deletedObjects.isEmpty)
    #expect(!context.hasChanges)
    #expect(ada.managedObjectContext == nil)
    let error = try #require(graphError { try ada.setValue("x", forKey: "nickname") })
    #expect(error.code == .notRegistered)
    #expect(error.message == "the Employee object is no longer in the graph: it was deleted")
    #expect(try ada.value(forKey: "lastName", as: String.self) == "Doe")
  }
}

@Suite("Deny on new objects")
struct DenyOnNewObjectsTests {
  @Test("Deny holds for an object inserted and deleted before the save")
  func denyOnInserted() throws {
    let context = try makeContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    let ada = try context.insertNewObject(forEntityName: "Employee")
    try ada.setValue(acme, forKey: "company")
    try context.save()
    let startup = try context.insertNewObject(forEntityName: "Company")
    try startup.setValue("Startup", forKey: "name")
    try ada.setValue(startup, forKey: "company")
    try context.delete(startup)
    let error = try #require(graphError { try context.save() })
    #expect(error.code == .deny)
    try context.delete(ada)
    try context.save()
  }
}
