import FolioTestSupport
import Foundation
import Testing

@testable import Folio

/// A document's undo history kept beside its file across sessions.
@Suite("Kept undo history")
struct KeptUndoHistoryTests {
  static let formats: [any StoreFormat] = [XMLStore(), BinaryStore(), SQLiteStore()]

  /// One editing session: the document at `url`, opened keeping its history.
  struct Session {
    let loop = ManualEventLoop()
    let document: Document
    let restoration: Document.UndoHistoryRestoration

    init(_ url: URL) throws {
      document = try Document.open(
        url, model: try musicModel(), formats: KeptUndoHistoryTests.formats, eventLoop: loop)
      restoration = document.keepUndoHistory()
    }

    var context: ManagedObjectContext { document.context }

    func playlists() throws -> [ManagedObject] {
      try context.fetch(FetchRequest<ManagedObject>(entityName: "Playlist"))
    }

    func tracks() throws -> [String] {
      try context.fetch(FetchRequest<ManagedObject>(entityName: "Track"))
        .compactMap { try $0.value(forKey: "title") as? String }.sorted()
    }

    func undo() throws {
      try document.undoManager?.undo()
      #expect(context.brokenInvariants().isEmpty)
    }

    func redo() throws {
      try document.undoManager?.redo()
      #expect(context.brokenInvariants().isEmpty)
    }

    var restoredCounts: (undo: Int, redo: Int)? {
      if case .restored(let undo, let redo) = restoration { return (undo, redo) }
      return nil
    }
  }

  /// A first session: a playlist "Mix" with two tracks, renamed "Mix 2", then "b" deleted,
  /// each a turn, saved after each: three steps to undo.
  func firstSession(_ url: URL, format: any StoreFormat) throws {
    let loop = ManualEventLoop()
    let document = try Document(model: try musicModel(), eventLoop: loop)
    document.keepsUndoHistory = true
    let context = document.context
    let mix = try context.insertNewObject(forEntityName: "Playlist")
    try mix.setValue("Mix", forKey: "name")
    for (title, seconds) in [("a", 60), ("b", 90)] {
      let track = try context.insertNewObject(forEntityName: "Track")
      try track.setValue(title, forKey: "title")
      try track.setValue(seconds, forKey: "seconds")
      try track.setValue(mix, forKey: "playlist")
    }
    loop.endTurn()
    try document.save(to: url, format: format)
    try mix.setValue("Mix 2", forKey: "name")
    loop.endTurn()
    try document.save()
    let b = try context.fetch(FetchRequest<ManagedObject>(entityName: "Track")).first {
      try $0.value(forKey: "title") as? String == "b"
    }
    try context.delete(try #require(b))
    loop.endTurn()
    try document.save()
    #expect(document.undoHistoryProblem == nil)
  }

  @Test(
    "undo after reopening restores the state before each edit, across sessions",
    arguments: ["xml", "folio", "sqlite"])
  func undoAcrossSessions(_ fileExtension: String) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("music.\(fileExtension)")
    let format = try #require(Self.formats.first { $0.fileExtension == fileExtension })
    try firstSession(url, format: format)
    #expect(FileManager.default.fileExists(atPath: url.path + ".folio-undo"))

    let second = try Session(url)
    #expect(second.restoredCounts?.undo == 3 && second.restoredCounts?.redo == 0)
    #expect(!second.document.isEdited)
    #expect(second.document.undoManager?.undoActionName == "")
    #expect(try second.tracks() == ["a"])
    // The deleted track comes back, with its values and in its playlist.
    try second.undo()
    #expect(second.document.isEdited)
    #expect(try second.tracks() == ["a", "b"])
    let mix = try #require(try second.playlists().first)
    let tracks = try #require(try mix.value(forKey: "tracks") as? [ManagedObject])
    #expect(Set(try tracks.map { try $0.value(forKey: "title") as? String }) == ["a", "b"])
    let b = try #require(tracks.first { try $0.value(forKey: "title") as? String == "b" })
    #expect(try b.value(forKey: "seconds") as? Int == 90)
    try second.undo()
    #expect(try mix.value(forKey: "name") as? String == "Mix")
    try second.document.save()
    #expect(second.document.undoHistoryProblem == nil)

    // The third session starts where the second saved: one to undo, two to redo.
    let third = try Session(url)
    #expect(third.restoredCounts?.undo == 1 && third.restoredCounts?.redo == 2)
    #expect(try third.tracks() == ["a", "b"])
    try third.redo()
    try third.redo()
    #expect(try third.playlists().first?.value(forKey: "name") as? String == "Mix 2")
    #expect(try third.tracks() == ["a"])
    // Back to before the first edit: nothing at all; redo brings the inserts back.
    try third.undo()
    try third.undo()
    try third.undo()
    #expect(try third.playlists().isEmpty && third.tracks().isEmpty)
    try third.redo()
    #expect(try third.tracks() == ["a", "b"])
    // What undo brought back saves as new objects, and the file reads back.
    try third.document.save()
    let fourth = try Session(url)
    #expect(try fourth.tracks() == ["a", "b"])
    #expect(try fourth.playlists().first?.value(forKey: "name") as? String == "Mix")
    #expect(fourth.restoredCounts?.undo == 1 && fourth.restoredCounts?.redo == 2)
  }

  @Test("a history whose document was saved elsewhere since is discarded, never applied")
  func outsideEdit() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("music.xml")
    try firstSession(url, format: XMLStore())
    // Someone without the history saves a change.
    let other = try Document.open(url, model: try musicModel(), formats: Self.formats)
    try other.context.fetch(FetchRequest<ManagedObject>(entityName: "Playlist")).first?
      .setValue("Theirs", forKey: "name")
    try other.save()

    let session = try Session(url)
    guard case .discarded(let error) = session.restoration else {
      Issue.record("the history was applied: \(session.restoration)")
      return
    }
    #expect(error.code == .mismatch)
    #expect(error.location?.file == url.path + ".folio-undo")
    #expect(session.document.undoManager?.canUndo == false)
    #expect(try session.playlists().first?.value(forKey: "name") as? String == "Theirs")
    // The next save keeps a history of its own again.
    try session.playlists().first?.setValue("Mine", forKey: "name")
    session.loop.endTurn()
    try session.document.save()
    let next = try Session(url)
    #expect(next.restoredCounts?.undo == 1)
    try next.undo()
    #expect(try next.playlists().first?.value(forKey: "name") as? String == "Theirs")
  }

  @Test("the history file stays within the undo manager's byte budget, keeping the newest steps")
  func byteBudget() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("music.folio")
    let loop = ManualEventLoop()
    let document = try Document(model: try musicModel(), eventLoop: loop)
    document.keepsUndoHistory = true
    let budget = 6_000
    document.undoManager?.maximumUndoBytes = 100_000
    let mix = try document.context.insertNewObject(forEntityName: "Playlist")
    loop.endTurn()
    try document.save(to: url, format: BinaryStore())
    for step in 0..<40 {
      try mix.setValue("name \(step) " + String(repeating: "x", count: 200), forKey: "name")
      loop.endTurn()
    }
    document.undoManager?.maximumUndoBytes = budget
    try document.save()
    let size = try #require(
      try FileManager.default.attributesOfItem(atPath: url.path + ".folio-undo")[.size] as? Int)
    #expect(size <= budget, "\(size) bytes")
    #expect(size > budget / 2, "\(size) bytes: the budget is for keeping as much as fits")

    let session = try Session(url)
    let kept = try #require(session.restoredCounts?.undo)
    #expect(kept > 5 && kept < 40, "\(kept) groups")
    try session.undo()
    #expect(
      try session.playlists().first?.value(forKey: "name") as? String == "name 38 "
        + String(repeating: "x", count: 200))
    for _ in 1..<kept { try session.undo() }
    #expect(session.document.undoManager?.canUndo == false)
    #expect(
      try session.playlists().first?.value(forKey: "name") as? String == "name \(39 - kept) "
        + String(repeating: "x", count: 200))
  }

  @Test("a damaged history file is refused with the byte where the damage is")
  func damaged() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("music.xml")
    try firstSession(url, format: XMLStore())
    let historyURL = URL(fileURLWithPath: url.path + ".folio-undo")
    let good = try Data(contentsOf: historyURL)
    let blocks = good[36..<40].reversed().reduce(0) { $0 << 8 | Int($1) }
    let payloadStart = 40 + 4 * blocks
    func refusal(_ bytes: Data) throws -> UndoHistoryError? {
      try bytes.write(to: historyURL)
      let session = try Session(url)
      #expect(session.document.undoManager?.canUndo == false)
      #expect(try session.tracks() == ["a"])
      if case .discarded(let error) = session.restoration { return error }
      return nil
    }
    // A byte of the JSON changed: the checksum of its block says where.
    var flipped = good
    flipped[good.count - 3] ^= 0x20
    let checksum = try #require(try refusal(flipped))
    #expect(checksum.code == .damaged)
    #expect(checksum.location?.file == historyURL.path)
    let lastBlock = (good.count - payloadStart - 1) / 4096
    #expect(checksum.location?.byteOffset == payloadStart + lastBlock * 4096, "\(checksum)")
    // Cut short, or not a history at all.
    let cut = try #require(try refusal(good.prefix(good.count - 10)))
    #expect(cut.code == .damaged && cut.location?.byteOffset == good.count - 10, "\(cut)")
    let header = try #require(try refusal(good.prefix(20)))
    #expect(header.code == .damaged && header.location?.byteOffset == 20)
    var foreign = good
    foreign[0] = UInt8(ascii: "X")
    let magic = try #require(try refusal(foreign))
    #expect(magic.code == .damaged && magic.location?.byteOffset == 0)
    // Well-formed bytes naming an entity the model does not have: refused by name.
    let fingerprint = try UndoHistoryFile.fingerprint(of: url)
    let json = Data(
      #"{"format":1,"objects":[{"entity":"Album","values":{}}],"undo":[],"redo":[]}"#.utf8)
    let unknown = try #require(try refusal(UndoHistoryFile.encode(json, for: fingerprint)))
    #expect(unknown.code == .mismatch && unknown.location?.entity == "Album", "\(unknown)")
    #expect(unknown.message.hasPrefix("objects[0]: "))
    // A value of the wrong shape, located by its JSON path.
    let shape = Data(
      #"{"format":1,"objects":[],"undo":[{"name":"x","changes":[{"inserted":[],"deleted":[],"values":[[0]]}]}],"redo":[]}"#
        .utf8)
    let bad = try #require(try refusal(UndoHistoryFile.encode(shape, for: fingerprint)))
    #expect(
      bad.code == .damaged && bad.message.hasPrefix("undo[0].changes[0].values[0]: "), "\(bad)")
    // The document itself was never touched, and the next save writes a good history.
    let session = try Session(url)
    try session.playlists().first?.setValue("Fresh", forKey: "name")
    session.loop.endTurn()
    try session.document.save()
    let next = try Session(url)
    #expect(next.restoredCounts?.undo == 1)
    try next.undo()
    #expect(try next.playlists().first?.value(forKey: "name") as? String == "Mix 2")
  }
}
