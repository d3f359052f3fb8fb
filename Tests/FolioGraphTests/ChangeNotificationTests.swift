import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

@Suite("Change notifications")
struct NotificationTests {
  @Test("one notification per processed turn, with old values of updated objects")
  func notification() throws {
    let context = try makeContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    try context.save()
    var notifications: [ObjectsDidChangeNotification] = []
    let observation = context.addObserver { notifications.append($0) }
    defer { observation.cancel() }
    try acme.setValue("Acme Corp", forKey: "name")
    try acme.setValue("Acme Inc", forKey: "name")
    let ada = try context.insertNewObject(forEntityName: "Employee")
    try ada.setValue(acme, forKey: "company")
    #expect(notifications.isEmpty)
    context.processPendingChanges()
    #expect(notifications.count == 1)
    let first = try #require(notifications.first)
    #expect(first.insertedObjects == [ada])
    let old = try #require(first.updatedObjects[acme])
    #expect(old["name"] as? String == "Acme")
    #expect(set(old["employees"] ?? nil).isEmpty)
    #expect(first.deletedObjects.isEmpty)
    context.processPendingChanges()
    #expect(notifications.count == 1)
  }

  @Test("a value set back to its old value in the turn is not reported")
  func revertedInTurn() throws {
    let context = try makeContext()
    let track = try context.insertNewObject(forEntityName: "Track")
    try track.setValue("A", forKey: "title")
    try context.save()
    var notifications: [ObjectsDidChangeNotification] = []
    let observation = context.addObserver { notifications.append($0) }
    defer { observation.cancel() }
    try track.setValue("B", forKey: "title")
    try track.setValue("A", forKey: "title")
    context.processPendingChanges()
    #expect(notifications.isEmpty)
  }
}
