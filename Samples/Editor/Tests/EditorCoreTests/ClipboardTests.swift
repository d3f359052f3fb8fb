import Folio
import Foundation
import Testing

@testable import EditorCore

/// The row of `content` in the tab's Spending table.
private func spending(_ content: String, in hub: DocumentHub, tab: String) async throws
  -> RowPayload
{
  try #require(
    try await hub.table("Spending", tab: tab).rows.first {
      $0.values["content"] == .string(content)
    })
}

private func count(_ content: String, in hub: DocumentHub, tab: String) async throws -> Int {
  try await hub.table("Spending", tab: tab).rows.filter {
    $0.values["content"] == .string(content)
  }.count
}

@Suite("Clipboard")
struct ClipboardTests {
  @Test("copy in one tab, paste in another: one undo group, undone and redone")
  func copyInOneTabPasteInAnother() async throws {
    let sample = try SampleDocument()
    defer { sample.remove() }
    let hub = sample.hub
    let first = try await hub.openTab().tab
    let second = try await hub.openTab().tab
    let gears = try await spending("Brass gears", in: hub, tab: first)
    let tea = try await spending("Tea", in: hub, tab: first)
    #expect(try await hub.state(tab: second).clipboard == nil)
    let copied = try await hub.copy(objects: [gears.id, tea.id], tab: first)
    #expect(copied.clipboard == "2 Spending")
    #expect(copied.undo == nil && !copied.hasChanges)
    #expect(try await hub.state(tab: second).clipboard == "2 Spending")

    let pasted = try await hub.paste(tab: second)
    #expect(pasted.rows.map { $0.values["content"] } == [.string("Brass gears"), .string("Tea")])
    #expect(pasted.rows.allSatisfy { $0.id != gears.id && $0.id != tea.id })
    #expect(pasted.inserted == 2 && pasted.dropped.isEmpty)
    // Every tab is on the same store: each copy keeps its person.
    #expect(pasted.rows.map { $0.links["person"] } == [gears.links["person"], tea.links["person"]])
    #expect(pasted.state.undo == "Paste Spending" && pasted.state.hasChanges)
    #expect(try await count("Brass gears", in: hub, tab: second) == 2)
    #expect(try await count("Brass gears", in: hub, tab: first) == 1)

    let undone = try await hub.undo(tab: second)
    #expect(undone.redo == "Paste Spending" && !undone.hasChanges)
    #expect(try await count("Brass gears", in: hub, tab: second) == 1)
    _ = try await hub.redo(tab: second)
    #expect(try await count("Tea", in: hub, tab: second) == 2)
    _ = try await hub.save(tab: second)
    #expect(try await count("Tea", in: hub, tab: first) == 2)
    let text = try String(contentsOf: sample.file, encoding: .utf8)
    #expect(text.components(separatedBy: ">Brass gears<").count == 3)
  }

  @Test("the clipboard holds pasteboard JSON; pasting it twice makes two sets of copies")
  func pasteTwice() async throws {
    let sample = try SampleDocument()
    defer { sample.remove() }
    let hub = sample.hub
    let tab = try await hub.openTab().tab
    let notes = try await spending("Notes on the Analytical Engine", in: hub, tab: tab)
    _ = try await hub.copy(objects: [notes.id], tab: tab)
    let pasteboard = try Pasteboard(data: try await hub.clipboardData())
    #expect(pasteboard.objectCount == 1)
    let first = try await hub.paste(tab: tab)
    let second = try await hub.paste(tab: tab)
    #expect(first.rows.first?.id != second.rows.first?.id)
    #expect(try await count("Notes on the Analytical Engine", in: hub, tab: tab) == 3)
  }

  @Test("duplicate copies in place as its own undo group and leaves the clipboard alone")
  func duplicate() async throws {
    let sample = try SampleDocument()
    defer { sample.remove() }
    let hub = sample.hub
    let tab = try await hub.openTab().tab
    let tea = try await spending("Tea", in: hub, tab: tab)
    let gears = try await spending("Brass gears", in: hub, tab: tab)
    _ = try await hub.copy(objects: [tea.id], tab: tab)
    let duplicated = try await hub.duplicate(objects: [gears.id], tab: tab)
    #expect(duplicated.rows.first?.values == gears.values)
    #expect(duplicated.state.undo == "Duplicate Spending")
    #expect(duplicated.state.clipboard == "1 Spending")
    let pasted = try await hub.paste(tab: tab)
    #expect(pasted.rows.first?.values["content"] == .string("Tea"))
    _ = try await hub.undo(tab: tab)
    _ = try await hub.undo(tab: tab)
    #expect(try await count("Brass gears", in: hub, tab: tab) == 1)
  }

  @Test("a person copied comes with the spendings it owns")
  func ownedObjects() async throws {
    let sample = try SampleDocument()
    defer { sample.remove() }
    let hub = sample.hub
    let tab = try await hub.openTab().tab
    let ada = try #require(
      try await hub.table("Person", tab: tab).rows.first {
        $0.values["name"] == .string("Ada Lovelace")
      })
    let pasted = try await hub.duplicate(objects: [ada.id], tab: tab)
    #expect(pasted.inserted == 3)
    #expect(pasted.rows.first?.links["spendings"] == "2 Spending")
    #expect(pasted.state.undo == "Duplicate Person")
    #expect(try await count("Tea", in: hub, tab: tab) == 2)
  }

  @Test("a reference to an object the tab has deleted is dropped and reported")
  func droppedReference() async throws {
    let sample = try SampleDocument()
    defer { sample.remove() }
    let hub = sample.hub
    let first = try await hub.openTab().tab
    let second = try await hub.openTab().tab
    let tea = try await spending("Tea", in: hub, tab: first)
    _ = try await hub.copy(objects: [tea.id], tab: first)
    let ada = try #require(
      try await hub.table("Person", tab: second).rows.first {
        $0.values["name"] == .string("Ada Lovelace")
      })
    _ = try await hub.delete(object: ada.id, tab: second)
    let pasted = try await hub.paste(tab: second)
    let row = try #require(pasted.rows.first)
    #expect(row.links["person"] == "")
    #expect(
      pasted.dropped == [
        PastePayload.Dropped(
          id: row.id, place: "Spending.person", target: ada.id, reason: "notFound")
      ])
  }

  @Test("another tab hears the copy on its live channel", .timeLimit(.minutes(1)))
  func copyIsHeard() async throws {
    let sample = try SampleDocument()
    defer { sample.remove() }
    let hub = sample.hub
    let first = try await hub.openTab().tab
    let second = try await hub.openTab().tab
    let live = try await hub.liveEvents(tab: second)
    let tea = try await spending("Tea", in: hub, tab: first)
    _ = try await hub.copy(objects: [tea.id], tab: first)
    var heard: LiveEvent?
    for await event in live where event.kind == "copied" {
      heard = event
      break
    }
    #expect(heard?.tab == first && heard?.state.clipboard == "1 Spending")
  }

  @Test("a pasteboard from another server pastes into this document")
  func anotherServer() async throws {
    let source = try SampleDocument()
    let target = try SampleDocument()
    defer {
      source.remove()
      target.remove()
    }
    let from = try await source.hub.openTab().tab
    let into = try await target.hub.openTab().tab
    let gears = try await spending("Brass gears", in: source.hub, tab: from)
    _ = try await source.hub.copy(objects: [gears.id], tab: from)
    let label = try await target.hub.setClipboard(try await source.hub.clipboardData())
    #expect(label == "1 Spending")
    let pasted = try await target.hub.paste(tab: into)
    // A copy of the file is the same store: the person is found by the same URI.
    #expect(pasted.rows.first?.links["person"] == gears.links["person"])
    #expect(pasted.dropped.isEmpty)
    #expect(try await count("Brass gears", in: target.hub, tab: into) == 2)
  }

  @Test(
    "bad requests are refused with the place they name",
    arguments: [
      ("paste", "emptyClipboard", 409, "clipboard"),
      ("copy none", "badRequest", 400, "body.ids"),
      ("copy unknown", "objectNotFound", 404, "id"),
      ("duplicate unknown", "objectNotFound", 404, "id"),
      ("clipboard", "emptyClipboard", 409, "clipboard"),
      ("put", "malformedPasteboard", 400, "body"),
    ])
  func badRequests(request: String, code: String, status: Int, place: String) async throws {
    let sample = try SampleDocument()
    defer { sample.remove() }
    let hub = sample.hub
    let tab = try await hub.openTab().tab
    let error = await #expect(throws: EditorError.self) {
      switch request {
      case "paste": _ = try await hub.paste(tab: tab)
      case "copy none": _ = try await hub.copy(objects: [], tab: tab)
      case "copy unknown": _ = try await hub.copy(objects: ["x-coredata://nope"], tab: tab)
      case "duplicate unknown": _ = try await hub.duplicate(objects: ["nope"], tab: tab)
      case "clipboard": _ = try await hub.clipboardData()
      default: _ = try await hub.setClipboard(Data("{\"format\":\"folio-pasteboard\"}".utf8))
      }
    }
    #expect(error?.code == code && error?.status == status && error?.place == place)
  }
}
