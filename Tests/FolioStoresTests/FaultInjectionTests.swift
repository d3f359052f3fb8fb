import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioStores
@testable import FolioXMLStore

#if canImport(Glibc)
  import Glibc
#endif

/// Saves under injected faults (`AtomicFile.$faults`): every `write(2)` call of a save failing
/// in turn with `ENOSPC` and `EIO`, cut short, or cut short and then failing; `fsync`, rename
/// and temporary-file creation failing; a read-only folder. Each failure leaves the old file
/// byte for byte and no temporary file, and says which step failed and why; a short write is
/// continued, so the save succeeds. RELIABILITY.md §4 is the matrix these tests back.
@Suite("Saves under injected faults")
struct FaultInjectionTests {
  private static let captureLock = NSLock()
  static let formats: [any StoreFormat] = [XMLStore(), BinaryStore()]
  /// The largest `write(2)` call: 4 KiB, libxml2's own buffer size, so that the binary store's
  /// single buffer is written in many calls too.
  static let chunkSize = 4096

  /// The old graph: a few tags.
  static func oldContents() -> StoreContents {
    StoreContents(
      metadata: StoreMetadata(storeType: "Binary", identifier: "faults"),
      records: (1...3).map {
        StoreRecord(entityName: "Tag", id: Int64($0), attributes: ["label": .string("old \($0)")])
      }, nextObjectID: 4)
  }

  /// The new graph: every attribute type and relationship kind, and enough tags (about 60 KB
  /// of XML, 20 KB of `.folio`) that a save makes dozens of `write(2)` calls of 4 KiB or less.
  static func newContents() -> StoreContents {
    var contents = BinaryFixtures.contents()
    let first = (contents.records.map(\.id).max() ?? 0) + 1
    var generator = SeededGenerator(seed: 11)
    for id in first..<first + 200 {
      let noise = (0..<100).map { _ in UInt8.random(in: 0...255, using: &generator) }
      contents.records.append(
        StoreRecord(
          entityName: "Tag", id: id,
          attributes: ["label": .string("tag \(id) " + noise.map { String($0) }.joined())]))
    }
    contents.nextObjectID = first + 200
    return contents
  }

  struct Setup {
    let folder: URL
    let url: URL
    let format: any StoreFormat
    let model: ManagedObjectModel
    let old: Data
    /// The new graph, built once for every save of a test.
    let new = FaultInjectionTests.newContents()
    /// The bytes a save of the new graph without faults writes.
    let clean: Data

    init(_ format: any StoreFormat) throws {
      self.format = format
      folder = try makeTemporaryFolder()
      url = folder.appendingPathComponent(format is XMLStore ? "doc.xml" : "doc.folio")
      model = try BinaryFixtures.model()
      let scratch = folder.appendingPathComponent("clean-" + url.lastPathComponent)
      try format.write(new, model: model, to: scratch)
      clean = try Data(contentsOf: scratch)
      try FileManager.default.removeItem(at: scratch)
      try format.write(FaultInjectionTests.oldContents(), model: model, to: url)
      old = try Data(contentsOf: url)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    /// Saves the new graph under `plan`.
    func save(_ plan: FaultPlan) throws(StoreError) {
      var plan = plan
      plan.chunkSize = FaultInjectionTests.chunkSize
      let contents = new
      var failure: StoreError?
      AtomicFile.$faults.withValue(plan) {
        do throws(StoreError) {
          try format.write(contents, model: model, to: url)
        } catch {
          failure = error
        }
      }
      if let failure { throw failure }
    }

    /// The `write(2)` calls a clean save of the new graph makes, checked at 1 MiB or less.
    func writeCalls() throws -> Int {
      let scratch = folder.appendingPathComponent("count-" + url.lastPathComponent)
      let log = FaultLog()
      try AtomicFile.$faults.withValue(
        FaultPlan(log: log, chunkSize: FaultInjectionTests.chunkSize)
      ) {
        try format.write(new, model: model, to: scratch)
      }
      try FileManager.default.removeItem(at: scratch)
      return log.writeCalls
    }

    /// Expects `error` to be a failed write that leaves the old file alone.
    func expectIntact(
      _ error: StoreError, saying words: String, _ comment: Comment? = nil,
      sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
      #expect(error.code == .writeFailed, comment, sourceLocation: sourceLocation)
      #expect(error.location?.file == url.path, comment, sourceLocation: sourceLocation)
      #expect(
        error.message.contains(words), "\(error.message) \(comment?.description ?? "")",
        sourceLocation: sourceLocation)
      #expect(try Data(contentsOf: url) == old, comment, sourceLocation: sourceLocation)
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: folder.path) == [url.lastPathComponent],
        comment, sourceLocation: sourceLocation)
    }

    /// Expects the file to hold the new graph: the bytes a save without faults writes (both
    /// formats write the same records as the same bytes).
    func expectNew(_ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation)
      throws
    {
      #expect(try Data(contentsOf: url) == clean, comment, sourceLocation: sourceLocation)
      #expect(
        try format.read(from: url, model: model).records.count
          == new.records.count, comment,
        sourceLocation: sourceLocation)
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: folder.path) == [url.lastPathComponent],
        comment, sourceLocation: sourceLocation)
    }
  }

  static func text(_ code: Int32) -> String { String(cString: strerror(code)) }

  @Test("ENOSPC or EIO at every write call leaves the old file", arguments: 0..<2)
  func failingWrites(formatIndex: Int) throws {
    let setup = try Setup(Self.formats[formatIndex])
    defer { setup.remove() }
    let calls = try setup.writeCalls()
    #expect(calls >= 5, "\(calls) write calls")
    for call in 1...calls {
      for code in [ENOSPC, EIO] {
        let error = try #require(throws: StoreError.self, "call \(call)") {
          try setup.save(FaultPlan(failingWriteCall: call, writeError: code))
        }
        try setup.expectIntact(
          error, saying: "cannot write the new file (\(Self.text(code)))", "call \(call)")
      }
    }
  }

  /// What `body` prints to standard error. The capture redirects the process's descriptor 2,
  /// so it also holds whatever tests running beside it print (Swift Testing's own progress
  /// lines among them): callers look for libxml2's message shapes (`"<domain> error : "`,
  /// `"<function>: encoder error"`), not for a word. One capture runs at a time.
  static func standardError(during body: () throws -> Void) throws -> String {
    captureLock.lock()
    defer { captureLock.unlock() }
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("stderr.txt").path
    let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    try #require(file >= 0)
    let saved = dup(2)
    try #require(saved >= 0)
    dup2(file, 2)
    defer {
      dup2(saved, 2)
      close(saved)
      close(file)
    }
    try body()
    // Foundation loses a 4 KiB buffer reading an empty file, which LeakSanitizer reports.
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    return size == 0 ? "" : (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
  }

  @Test("a failed XML save prints nothing: libxml2's report of it stays off standard error")
  func silentFailure() throws {
    let setup = try Setup(XMLStore())
    defer { setup.remove() }
    var error: StoreError?
    let printed = try Self.standardError {
      for call in 1...3 {
        do throws(StoreError) {
          try setup.save(FaultPlan(failingWriteCall: call, writeError: ENOSPC))
        } catch let failure {
          error = failure
        }
      }
    }
    try setup.expectIntact(try #require(error), saying: Self.text(ENOSPC))
    #expect(!printed.contains(" error : "), "\(printed)")
  }

  @Test("a short write at any call is continued and the save completes", arguments: 0..<2)
  func shortWrites(formatIndex: Int) throws {
    let setup = try Setup(Self.formats[formatIndex])
    defer { setup.remove() }
    let calls = try setup.writeCalls()
    for call in 1...calls {
      try setup.format.write(oldContentsAgain(), model: setup.model, to: setup.url)
      try setup.save(FaultPlan(shortWriteCall: call))
      try setup.expectNew("short write at call \(call)")
    }
  }

  @Test("a short write then ENOSPC (a disk filling up) leaves the old file", arguments: 0..<2)
  func shortWriteThenFull(formatIndex: Int) throws {
    let setup = try Setup(Self.formats[formatIndex])
    defer { setup.remove() }
    let calls = try setup.writeCalls()
    for call in 1...calls {
      let error = try #require(throws: StoreError.self, "call \(call)") {
        try setup.save(
          FaultPlan(failingWriteCall: call + 1, writeError: ENOSPC, shortWriteCall: call))
      }
      try setup.expectIntact(error, saying: Self.text(ENOSPC), "call \(call)")
    }
  }

  @Test("fsync, rename and temporary-file failures leave the old file", arguments: 0..<2)
  func otherSteps(formatIndex: Int) throws {
    let setup = try Setup(Self.formats[formatIndex])
    defer { setup.remove() }
    let cases: [(FaultPlan, String)] = [
      (FaultPlan(fsyncError: EIO), "cannot flush the new file to disk (\(Self.text(EIO)))"),
      (FaultPlan(fsyncError: ENOSPC), "cannot flush the new file to disk (\(Self.text(ENOSPC)))"),
      (FaultPlan(renameError: EIO), "cannot replace the file (\(Self.text(EIO)))"),
      (FaultPlan(renameError: EACCES), "cannot replace the file (\(Self.text(EACCES)))"),
      (FaultPlan(renameError: EXDEV), "cannot replace the file (\(Self.text(EXDEV)))"),
      (
        FaultPlan(failsCreation: EACCES),
        "cannot create a temporary file in \(setup.folder.path) (\(Self.text(EACCES)))"
      ),
      (
        FaultPlan(failsCreation: ENOSPC),
        "cannot create a temporary file in \(setup.folder.path) (\(Self.text(ENOSPC)))"
      ),
    ]
    for (plan, words) in cases {
      let error = try #require(throws: StoreError.self, "\(words)") { try setup.save(plan) }
      try setup.expectIntact(error, saying: words, "\(words)")
    }
    // With the faults gone, the same save goes through.
    try setup.save(FaultPlan())
    try setup.expectNew()
  }

  @Test("a read-only folder refuses the save and keeps the old file", arguments: 0..<2)
  func readOnlyFolder(formatIndex: Int) throws {
    let setup = try Setup(Self.formats[formatIndex])
    defer {
      _ = chmod(setup.folder.path, 0o755)
      setup.remove()
    }
    #expect(chmod(setup.folder.path, 0o555) == 0)
    let expected = "cannot create a temporary file in \(setup.folder.path) (\(Self.text(EACCES)))"
    if geteuid() == 0 {
      // Root writes into a read-only folder anyway, so the refusal it would meet is injected
      // at the same step, creating the temporary file.
      let error = try #require(throws: StoreError.self) {
        try setup.save(FaultPlan(failsCreation: EACCES))
      }
      try setup.expectIntact(error, saying: expected)
    } else {
      let error = try #require(throws: StoreError.self) { try setup.save(FaultPlan()) }
      try setup.expectIntact(error, saying: expected)
    }
  }

  @Test("rewriting only the metadata under a write fault leaves the old file", arguments: 0..<2)
  func metadataRewrite(formatIndex: Int) throws {
    let setup = try Setup(Self.formats[formatIndex])
    defer { setup.remove() }
    var metadata = try setup.format.readMetadata(from: setup.url)
    metadata.userInfo["note"] = .string("changed")
    for code in [ENOSPC, EIO] {
      var failure: StoreError?
      AtomicFile.$faults.withValue(FaultPlan(failingWriteCall: 1, writeError: code)) {
        do throws(StoreError) {
          try setup.format.writeMetadata(metadata, to: setup.url)
        } catch {
          failure = error
        }
      }
      let error = try #require(failure)
      try setup.expectIntact(error, saying: Self.text(code))
    }
    try setup.format.writeMetadata(metadata, to: setup.url)
    #expect(try setup.format.readMetadata(from: setup.url).userInfo["note"] == .string("changed"))
  }

  func oldContentsAgain() -> StoreContents { Self.oldContents() }
}
