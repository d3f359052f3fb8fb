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

@Suite("Atomic files: early writeback")
struct AtomicFileWritebackTests {
  /// Writes `pieces` through one atomic write under a logging fault plan; returns the log.
  private func write(_ pieces: [Int], to file: URL) throws -> FaultLog {
    let log = FaultLog()
    var byte: UInt8 = 0
    try AtomicFile.$faults.withValue(FaultPlan(log: log)) {
      try AtomicFile.write(to: file) { output throws(StoreError) in
        for count in pieces {
          byte &+= 1
          try output.write([UInt8](repeating: byte, count: count))
        }
      }
    }
    return log
  }

  @Test(
    "each further MiB written is handed on for writing to disk, in order, the rest left to fsync")
  func startsWritebackPerMiB() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("big.folio")
    let mebibyte = 1 << 20
    // Pieces of 700 KiB: a range is handed on once 1 MiB has gathered since the last one.
    let pieces = Array(repeating: 700 << 10, count: 5) + [100]
    let log = try write(pieces, to: file)
    let total = pieces.reduce(0, +)
    #expect(try Data(contentsOf: file).count == total)
    #expect(log.writebackRanges == [0..<(1_400 << 10), (1_400 << 10)..<(2_800 << 10)])
    // One large piece is written in 1 MiB calls, each handed on as it is written.
    let large = try write([3 * mebibyte + 5], to: file)
    #expect(
      large.writebackRanges == [0..<mebibyte, mebibyte..<2 * mebibyte, 2 * mebibyte..<3 * mebibyte])
    #expect(try Data(contentsOf: file).count == 3 * mebibyte + 5)
    // A small file is left to fsync alone.
    #expect(try write([mebibyte - 1], to: file).writebackRanges.isEmpty)
    #expect(try Data(contentsOf: file).count == mebibyte - 1)
  }

  @Test("a file written with early writeback reads back byte for byte")
  func contentIntact() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("big.folio")
    var bytes = [UInt8](repeating: 0, count: (5 << 20) + 12_345)
    for index in bytes.indices {
      bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 9)
    }
    let log = FaultLog()
    try AtomicFile.$faults.withValue(FaultPlan(log: log)) {
      try AtomicFile.write(Data(bytes), to: file)
    }
    #expect(log.writebackRanges.count == 5)
    #expect(try [UInt8](Data(contentsOf: file)) == bytes)
  }
}
