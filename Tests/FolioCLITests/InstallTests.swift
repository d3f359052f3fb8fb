import FolioTestSupport
import Foundation
import Testing

/// The version, which `folio --version` prints and README.md describes.
@Suite("version")
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
}
