import Foundation
import Testing

@testable import EditorCore

/// A copy of the Expenses sample in a fresh folder, and a hub on it.
struct SampleDocument {
  let folder: URL
  let file: URL
  let hub: DocumentHub
  /// The Expenses sample's folder, which the tests only read.
  static let samples = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Expenses")

  init() throws {
    let samples = Self.samples
    folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("EditorCoreTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    file = folder.appendingPathComponent("Expenses.xml")
    try FileManager.default.copyItem(
      at: samples.appendingPathComponent("Expenses.xml"), to: file)
    hub = try DocumentHub(
      storeAt: file, modelAt: samples.appendingPathComponent("Expenses.xcdatamodeld"))
  }

  func remove() { try? FileManager.default.removeItem(at: folder) }
}

@Suite("Document hub")
struct DocumentHubTests {
  @Test("an edit is one undo group named for the attribute, and undo and redo replay it")
  func editUndoRedo() async throws {
    let sample = try SampleDocument()
    defer { sample.remove() }
    let hub = sample.hub
    let tab = try await hub.openTab().tab
    let table = try await hub.table("Spending", tab: tab)
    let row = try #require(table.rows.first)
    let edited = try await hub.edit(object: row.id, key: "amount", value: .string("42.5"), tab: tab)
    #expect(edited.row?.values["amount"] == .number(42.5))
    #expect(
      edited.state
        == StatePayload(undo: "Edit Spending.amount", redo: nil, hasChanges: true, revision: 1))
    let undone = try await hub.undo(tab: tab)
    #expect(undone.undo == nil && undone.redo == "Edit Spending.amount")
    #expect(try await hub.table("Spending", tab: tab).rows.first?.values == row.values)
    let redone = try await hub.redo(tab: tab)
    #expect(redone.undo == "Edit Spending.amount" && redone.redo == nil)
  }

  @Test(
    "bad input is refused with the place it names",
    arguments: [
      ("amount", JSONValue.string("lots"), "typeMismatch", "Spending.amount"),
      ("colour", JSONValue.string("red"), "unknownKey", "Spending.colour"),
      ("person", JSONValue.string("Ada"), "readOnly", "Spending.person"),
    ])
  func badInput(key: String, value: JSONValue, code: String, place: String) async throws {
    let sample = try SampleDocument()
    defer { sample.remove() }
    let hub = sample.hub
    let tab = try await hub.openTab().tab
    let row = try #require(try await hub.table("Spending", tab: tab).rows.first)
    let error = await #expect(throws: EditorError.self) {
      try await hub.edit(object: row.id, key: key, value: value, tab: tab)
    }
    #expect(error?.code == code && error?.place == place)
    #expect(error.map { (400..<500).contains($0.status) } == true)
  }

  @Test("insert and delete are named undo groups; a save the model refuses changes nothing")
  func insertDeleteAndRefusedSave() async throws {
    let sample = try SampleDocument()
    defer { sample.remove() }
    let hub = sample.hub
    let tab = try await hub.openTab().tab
    let inserted = try await hub.insert("Spending", tab: tab)
    #expect(inserted.state.undo == "Insert Spending")
    let row = try #require(inserted.row)
    #expect(try await hub.delete(object: row.id, tab: tab).undo == "Delete Spending")
    _ = try await hub.undo(tab: tab)
    _ = try await hub.edit(object: row.id, key: "amount", value: .string(""), tab: tab)
    let before = try String(contentsOf: sample.file, encoding: .utf8)
    let error = await #expect(throws: EditorError.self) { try await hub.save(tab: tab) }
    #expect(error?.code == "validation" && error?.status == 409)
    #expect(error?.message.contains("Spending.amount") == true)
    #expect(try String(contentsOf: sample.file, encoding: .utf8) == before)
  }

  @Test(
    "a save in one tab reaches the other tab's table through its live channel",
    .timeLimit(.minutes(1)))
  func saveReachesOtherTab() async throws {
    let sample = try SampleDocument()
    defer { sample.remove() }
    let hub = sample.hub
    let first = try await hub.openTab().tab
    let second = try await hub.openTab().tab
    let row = try #require(try await hub.table("Spending", tab: first).rows.first)
    let live = try await hub.liveEvents(tab: first)
    _ = try await hub.edit(object: row.id, key: "amount", value: .integer(77), tab: second)
    _ = try await hub.save(tab: second)
    var updated: LiveEvent.Change?
    for await event in live {
      if let change = event.changes.first(where: { $0.id == row.id }) {
        updated = change
        break
      }
    }
    #expect(updated?.type == "update" && updated?.row?.values["amount"] == .number(77))
    let text = try String(contentsOf: sample.file, encoding: .utf8)
    #expect(text.contains("77"))
  }
}
