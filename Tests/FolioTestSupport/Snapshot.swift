import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The package's root folder, found from this file's place in `Tests/FolioTestSupport`.
public let packageRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Compares `actual` with the golden file `name` in `folder`.
///
/// With `RECORD_SNAPSHOTS=1` in the environment the golden file is rewritten instead, and the
/// test fails so that a recording run can never pass by accident.
public func assertSnapshot(
  _ actual: String, named name: String, in folder: URL,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  let url = folder.appendingPathComponent(name)
  if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try Data(actual.utf8).write(to: url)
      Issue.record(
        "recorded snapshot \(name); run again without RECORD_SNAPSHOTS",
        sourceLocation: sourceLocation)
    } catch {
      Issue.record("cannot write snapshot \(name): \(error)", sourceLocation: sourceLocation)
    }
    return
  }
  guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
    Issue.record(
      "no snapshot \(name); record it with RECORD_SNAPSHOTS=1 make test",
      sourceLocation: sourceLocation)
    return
  }
  #expect(actual == expected, "snapshot \(name) differs", sourceLocation: sourceLocation)
}

/// What a finished process printed and how it exited.
public struct ProcessResult: Sendable {
  public var status: Int32
  public var standardOutput: String
  public var standardError: String

  public init(status: Int32, standardOutput: String, standardError: String) {
    self.status = status
    self.standardOutput = standardOutput
    self.standardError = standardError
  }
}

/// Runs `executable` with `arguments` in `directory`, with `environment` added to this
/// process's and `input` on its standard input, and waits for it.
public func run(
  _ executable: URL, _ arguments: [String], in directory: URL = packageRoot,
  environment: [String: String] = [:], input: Data? = nil
) throws -> ProcessResult {
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  process.currentDirectoryURL = directory
  if !environment.isEmpty {
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  }
  let standardInput = Pipe()
  if input != nil { process.standardInput = standardInput }
  let output = Pipe()
  let error = Pipe()
  process.standardOutput = output
  process.standardError = error
  try process.run()
  if let input {
    // Written from another thread: a child that writes before it reads cannot block this one.
    let writer = standardInput.fileHandleForWriting
    DispatchQueue.global().async {
      try? writer.write(contentsOf: input)
      try? writer.close()
    }
  }
  // Read both pipes to the end before waiting, so a full pipe cannot block the child.
  let group = DispatchGroup()
  nonisolated(unsafe) var errorData = Data()
  group.enter()
  DispatchQueue.global().async {
    errorData = error.fileHandleForReading.readDataToEndOfFile()
    group.leave()
  }
  let outputData = output.fileHandleForReading.readDataToEndOfFile()
  group.wait()
  process.waitUntilExit()
  return ProcessResult(
    status: process.terminationStatus,
    standardOutput: String(decoding: outputData, as: UTF8.self),
    standardError: String(decoding: errorData, as: UTF8.self))
}

/// The folder holding the built products (`.build/debug`), where `folio` is: the test
/// executable's own folder (`swift test` runs `FolioPackageTests.xctest`, an executable on
/// Linux, by its full path). Not found through `Bundle.allBundles`: swift-corelibs-foundation
/// loses the array it builds on every call (LeakSanitizer, RELIABILITY.md §2).
public let productsDirectory = URL(fileURLWithPath: CommandLine.arguments[0])
  .deletingLastPathComponent()

/// A fresh temporary folder. The caller may remove it; whatever is left of it goes when the
/// test process exits, so a run leaves no folders behind.
public func makeTemporaryFolder() throws -> URL {
  let url = FileManager.default.temporaryDirectory
    .appendingPathComponent("folio-tests-\(UUID().uuidString)", isDirectory: true)
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  TemporaryFolders.created.withLock { folders in
    if folders.isEmpty { atexit { TemporaryFolders.removeAll() } }
    folders.append(url.path)
  }
  return url
}

/// The temporary folders this process made, removed as it exits.
enum TemporaryFolders {
  static let created = Mutex<[String]>([])

  static func removeAll() {
    let folders = created.withLock { folders in
      defer { folders = [] }
      return folders
    }
    for folder in folders {
      // A test may have left it read-only.
      chmod(folder, 0o755)
      try? FileManager.default.removeItem(atPath: folder)
    }
  }
}
