import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores

@Suite("Atomic files")
struct AtomicFileTests {
  @Test("a write replaces the whole file and keeps its permissions")
  func replaces() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("doc.xml")
    try Data("old".utf8).write(to: file)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    try AtomicFile.write(Data("new content".utf8), to: file)
    #expect(try String(contentsOf: file, encoding: .utf8) == "new content")
    let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions]
    #expect(permissions as? Int == 0o600)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["doc.xml"])
  }

  @Test("a write that fails midway leaves the old file and no temporary file")
  func failureKeepsOldFile() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("doc.xml")
    try Data("old".utf8).write(to: file)
    #expect(throws: StoreError.self) {
      try AtomicFile.write(to: file) { output throws(StoreError) in
        try output.write(Data("partial".utf8))
        throw StoreError(.writeFailed, "simulated failure")
      }
    }
    #expect(try String(contentsOf: file, encoding: .utf8) == "old")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["doc.xml"])
  }

  @Test("a folder that cannot be written is a writeFailed error naming the file")
  func unwritableFolder() throws {
    let file = URL(fileURLWithPath: "/proc/folio-cannot-write-here/doc.xml")
    do {
      try AtomicFile.write(Data("x".utf8), to: file)
      Issue.record("the write should have failed")
    } catch {
      #expect(error.code == .writeFailed)
      #expect(error.location?.file == file.path)
    }
  }
}
