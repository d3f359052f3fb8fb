import FolioStores
import FolioTestSupport
import FolioUndo
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

// Documents on disk as a user keeps them (through links, after killed saves), and the undo
// manager's registration after clearing.
extension SharedStoreTests {
  @Test("a document opened through a symbolic link saves to the link's target and keeps the link")
  func symbolicLink() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let other = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: other) }
    let link = other.appendingPathComponent("link.test")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: url)
    let context = try ManagedObjectContext(coordinator: try coordinator(link))
    try track("A", in: context).setValue("via link", forKey: "title")
    try context.save()
    try track("B", in: context).setValue("again", forKey: "title")
    try context.save()
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == url.path)
    let titles = Set(try fileRecords(url).values.compactMap { $0.attributes["title"] })
    #expect(titles.contains(.string("via link")) && titles.contains(.string("again")))
    #expect(try FileManager.default.contentsOfDirectory(atPath: other.path) == ["link.test"])
  }

  @Test("opening a document removes the temporary files killed saves of it left, and only those")
  func staleTemporariesOnOpen() throws {
    let (folder, url) = try savedMix()
    defer { try? FileManager.default.removeItem(at: folder) }
    let stale = folder.appendingPathComponent(".music.test.folio-\(UUID().uuidString).tmp")
    let others = folder.appendingPathComponent(".other.test.folio-\(UUID().uuidString).tmp")
    try Data("half a save".utf8).write(to: stale)
    try Data("another document's".utf8).write(to: others)
    _ = try ManagedObjectContext(coordinator: try coordinator(url))
    let left = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
    #expect(left == ["music.test", others.lastPathComponent])
  }

  // MARK: Undo manager

  @Test("removeAllActions clears both stacks and enables registration again")
  func removeAllActionsEnables() throws {
    let undo = UndoManager()
    undo.disableUndoRegistration()
    undo.disableUndoRegistration()
    undo.removeAllActions()
    #expect(undo.isUndoRegistrationEnabled)
    let context = ManagedObjectContext(model: try graphModel())
    context.undoManager?.disableUndoRegistration()
    context.rollback()
    #expect(context.undoManager?.isUndoRegistrationEnabled == true)
    context.undoManager?.disableUndoRegistration()
    context.reset()
    #expect(context.undoManager?.isUndoRegistrationEnabled == true)
  }
}
