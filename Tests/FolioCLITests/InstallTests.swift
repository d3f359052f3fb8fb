import FolioTestSupport
import Foundation
import Testing

let make = executable(among: ["/usr/bin/make", "/bin/make", "/usr/local/bin/make"])

/// The version and the Makefile's toolchain check, which `make install` and README.md rely on.
@Suite("version and toolchain")
struct InstallTests {
  /// The top-level VERSION file's version: the source tree's.
  func version() throws -> String {
    try String(contentsOf: packageRoot.appendingPathComponent("VERSION"), encoding: .utf8)
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test("folio --version prints the VERSION file's version")
  func versionFromFile() throws {
    let result = try run(folio, ["--version"])
    #expect(result.status == 0)
    #expect(result.standardOutput == "\(try version())\n")
  }

  @Test("VERSION is a semantic version, MAJOR.MINOR.PATCH")
  func semanticVersion() throws {
    let parts = try version().split(separator: ".", omittingEmptySubsequences: false)
    #expect(parts.count == 3)
    #expect(
      parts.allSatisfy { part in
        !part.isEmpty && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
          && (part == "0" || !part.hasPrefix("0"))
      })
  }

  /// Package.swift's tools version: the oldest Swift the Makefile asks for.
  func minimumSwift() throws -> String {
    let manifest = try String(
      contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
    let first = try #require(manifest.split(separator: "\n").first)
    return try #require(first.split(separator: ":").last)
      .trimmingCharacters(in: .whitespaces)
  }

  /// `make TARGET` with `arguments`, in the package, with `path` as PATH; the Makefile of a
  /// `make test` run is not in the way (its flags would reach this one).
  func runMake(_ target: String, _ arguments: [String], path: String) throws -> ProcessResult {
    try run(
      URL(fileURLWithPath: "/usr/bin/env"),
      ["-u", "MAKEFLAGS", "-u", "MFLAGS", "-u", "MAKELEVEL", "PATH=\(path)"]
        + [try #require(make).path, "--no-print-directory", target] + arguments)
  }

  /// A folder holding links to the tools the Makefile uses before it runs Swift, and no Swift.
  func pathWithoutSwift(in folder: URL) throws -> String {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    let folders = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin"]
    for tool in ["sh", "cat", "sed", "sort", "head"] {
      let found = try #require(
        folders.map { "\($0)/\(tool)" }.first(where: {
          FileManager.default.isExecutableFile(atPath: $0)
        }))
      try FileManager.default.createSymbolicLink(
        atPath: folder.appendingPathComponent(tool).path, withDestinationPath: found)
    }
    return folder.path
  }

  @Test(
    "make without Swift says which Swift to get and how, and stops",
    .enabled(if: make != nil, "make is not installed"),
    arguments: ["build", "test", "demo", "install", "lint"])
  func noToolchain(target: String) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try runMake(target, [], path: try pathWithoutSwift(in: folder))
    #expect(result.status != 0)
    #expect(result.standardError.contains("Swift \(try minimumSwift()) or later"))
    #expect(result.standardError.contains("https://www.swift.org/install/linux/"))
    #expect(result.standardError.contains("swiftly init"))
    #expect(!result.standardError.contains("No such file or directory"))
    #expect(!result.standardOutput.contains("swift build"))
  }

  @Test("make with SWIFT naming no program says the same", .enabled(if: make != nil))
  func missingSwiftVariable() throws {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    let result = try runMake("build", ["SWIFT=/nonexistent/swift"], path: path)
    #expect(result.status != 0)
    #expect(
      result.standardError.contains(
        "Folio needs a Swift toolchain, Swift \(try minimumSwift()) or later, and there is no "
          + "'/nonexistent/swift' command here."))
  }

  @Test("make with a Swift older than Package.swift's says so", .enabled(if: make != nil))
  func oldToolchain() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let swift = folder.appendingPathComponent("swift")
    try Data("#!/bin/sh\necho 'Swift version 5.10.1 (swift-5.10.1-RELEASE)'\n".utf8).write(
      to: swift)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    let result = try runMake("build", ["SWIFT=\(swift.path)"], path: path)
    #expect(result.status != 0)
    #expect(
      result.standardError.contains(
        "Folio needs Swift \(try minimumSwift()) or later, and '\(swift.path)' is Swift 5.10.1"))
  }
}
