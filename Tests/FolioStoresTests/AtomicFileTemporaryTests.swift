import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Atomic files: temporary files of killed saves")
struct AtomicFileTemporaryTests {
  /// A folder holding `doc.xml` ("old"); the caller removes it.
  private func folderWithDocument() throws -> (folder: URL, document: URL) {
    let folder = try makeTemporaryFolder()
    let document = folder.appendingPathComponent("doc.xml")
    try Data("old".utf8).write(to: document)
    return (folder, document)
  }

  /// The name a save of `document` gives its temporary file.
  private func temporaryName(of document: String) -> String {
    ".\(document).folio-\(UUID().uuidString).tmp"
  }

  /// Makes the file `name` in `folder` as a save killed midway leaves it: part of a document.
  @discardableResult
  private func leave(_ name: String, in folder: URL) throws -> URL {
    let url = folder.appendingPathComponent(name)
    try Data("<?xml version=\"1.0\"?><database><databaseIn".utf8).write(to: url)
    return url
  }

  private func names(in folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
  }

  @Test("the next save removes the temporary files a killed save left, and leaves the document")
  func nextSaveRemovesLeftovers() throws {
    let (folder, document) = try folderWithDocument()
    defer { try? FileManager.default.removeItem(at: folder) }
    try leave(temporaryName(of: "doc.xml"), in: folder)
    try leave(temporaryName(of: "doc.xml"), in: folder)
    try AtomicFile.write(Data("new".utf8), to: document)
    #expect(try names(in: folder) == ["doc.xml"])
    #expect(try String(contentsOf: document, encoding: .utf8) == "new")
  }

  @Test("a temporary file whose lock is held, by a save still writing, is left")
  func lockedTemporaryIsLeft() throws {
    let (folder, document) = try folderWithDocument()
    defer { try? FileManager.default.removeItem(at: folder) }
    let name = temporaryName(of: "doc.xml")
    let busy = try leave(name, in: folder)
    let descriptor = open(busy.path, O_WRONLY | O_CLOEXEC)
    try #require(descriptor >= 0)
    try #require(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
    try AtomicFile.write(Data("new".utf8), to: document)
    #expect(AtomicFile.removeStaleTemporaries(for: document).isEmpty)
    #expect(try names(in: folder) == [name, "doc.xml"].sorted())
    // Once the writer is gone, its lock goes with it.
    close(descriptor)
    #expect(AtomicFile.removeStaleTemporaries(for: document) == [busy])
    #expect(try names(in: folder) == ["doc.xml"])
  }

  @Test("other files' temporary files and every other file are left")
  func othersAreLeft() throws {
    let (folder, document) = try folderWithDocument()
    defer { try? FileManager.default.removeItem(at: folder) }
    let identifier = UUID().uuidString
    let others = [
      ".doc.folio-\(identifier).tmp",  // of "doc"
      ".adoc.xml.folio-\(identifier).tmp",  // of "adoc.xml"
      ".doc.xml.folio-\(identifier).tmp.old",
      ".doc.xml.folio-\(identifier)x.tmp",
      ".doc.xml.folio-not-a-uuid.tmp",
      "doc.xml.folio-\(identifier).tmp",
      ".doc.xml.swp",
      ".hidden",
    ]
    for name in others { try leave(name, in: folder) }
    // Named as a temporary file, but a folder and a link: left, as is the link's target.
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent(temporaryName(of: "doc.xml")),
      withIntermediateDirectories: false)
    let linkName = temporaryName(of: "doc.xml")
    try FileManager.default.createSymbolicLink(
      atPath: folder.appendingPathComponent(linkName).path, withDestinationPath: ".hidden")
    let before = try names(in: folder)
    let stale = try leave(temporaryName(of: "doc.xml"), in: folder)
    #expect(AtomicFile.removeStaleTemporaries(for: document) == [stale])
    #expect(try names(in: folder) == before)
    try AtomicFile.write(Data("new".utf8), to: document)
    #expect(try names(in: folder) == before)
  }

  /// A folder of thousands of entries fills `readdir`'s buffer, so some entry ends near the
  /// buffer's end: its name is read in place, not as a whole `d_name` array past that end
  /// (which AddressSanitizer reports).
  @Test("in a crowded folder, every stale temporary is found and removed, by its exact name")
  func crowdedFolder() throws {
    let (folder, document) = try folderWithDocument()
    defer { try? FileManager.default.removeItem(at: folder) }
    for index in 0..<3_000 {
      try Data().write(
        to: folder.appendingPathComponent(String(repeating: "n", count: index % 40) + "\(index)"))
    }
    var stale: [URL] = []
    for _ in 0..<20 { stale.append(try leave(temporaryName(of: "doc.xml"), in: folder)) }
    let removed = AtomicFile.removeStaleTemporaries(for: document)
    #expect(removed.map(\.lastPathComponent).sorted() == stale.map(\.lastPathComponent).sorted())
    #expect(try names(in: folder).count == 3_001)
  }

  @Test("a save through a link removes the temporary files beside the link's target")
  func leftoversOfTheTarget() throws {
    let (folder, document) = try folderWithDocument()
    defer { try? FileManager.default.removeItem(at: folder) }
    let links = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: links) }
    let link = links.appendingPathComponent("link.xml")
    try FileManager.default.createSymbolicLink(
      atPath: link.path, withDestinationPath: document.path)
    let stale = try leave(temporaryName(of: "doc.xml"), in: folder)
    // Named after the link, beside it: not a temporary file of the document.
    let besideLink = temporaryName(of: "link.xml")
    try leave(besideLink, in: links)
    #expect(
      AtomicFile.removeStaleTemporaries(for: link).map(\.standardizedFileURL)
        == [stale.standardizedFileURL])
    try leave(temporaryName(of: "doc.xml"), in: folder)
    try AtomicFile.write(Data("new".utf8), to: link)
    #expect(try names(in: folder) == ["doc.xml"])
    #expect(try names(in: links) == [besideLink, "link.xml"].sorted())
  }

  @Test("cleaning up beside a file that does not exist, or in a missing folder, removes nothing")
  func nothingToClean() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let stale = try leave(temporaryName(of: "new.xml"), in: folder)
    #expect(
      AtomicFile.removeStaleTemporaries(for: folder.appendingPathComponent("missing/new.xml"))
        .isEmpty)
    #expect(
      AtomicFile.removeStaleTemporaries(for: folder.appendingPathComponent("new.xml"))
        == [stale])
  }

  @Test("a save whose temporary file another save's cleanup removes before its lock makes another")
  func cleanupRace() throws {
    let (folder, document) = try folderWithDocument()
    defer { try? FileManager.default.removeItem(at: folder) }
    try AtomicFile.$faults.withValue(FaultPlan(temporariesTakenByCleanup: 2)) {
      try AtomicFile.write(Data("new".utf8), to: document)
    }
    #expect(try String(contentsOf: document, encoding: .utf8) == "new")
    #expect(try names(in: folder) == ["doc.xml"])
    do {
      try AtomicFile.$faults.withValue(FaultPlan(temporariesTakenByCleanup: 3)) {
        try AtomicFile.write(Data("newer".utf8), to: document)
      }
      Issue.record("the write should have failed")
    } catch let error as StoreError {
      #expect(error.code == .writeFailed)
      #expect(error.location?.file == document.path)
      #expect(
        error.message
          == "cannot keep a temporary file in \(folder.path) (another save's cleanup removed each)"
      )
    }
    #expect(try String(contentsOf: document, encoding: .utf8) == "new")
    #expect(try names(in: folder) == ["doc.xml"])
  }
}
