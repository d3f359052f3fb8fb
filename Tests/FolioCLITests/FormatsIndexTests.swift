import FolioTestSupport
import Foundation
import Testing

/// Formats/README.md indexes the specifications: each one it lists, with the version the
/// specification itself states.
@Suite("Formats/README.md")
struct FormatsIndexTests {
  @Test("every specification is listed with the version it states")
  func versions() throws {
    let folder = packageRoot.appendingPathComponent("Formats")
    let index = try String(contentsOf: folder.appendingPathComponent("README.md"), encoding: .utf8)
    let specifications = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { $0.hasSuffix(".md") && $0 != "README.md" }.sorted()
    #expect(specifications.count >= 9)
    for name in specifications {
      let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
      let stated = try #require(
        text.firstMatch(of: /Format description version (\d+)/)?.output.1, "\(name)")
      let row = index.split(separator: "\n").first { $0.hasPrefix("| [\(name)](\(name)) |") }
      let cells = try #require(row, "\(name) is not listed").split(separator: "|").map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      #expect(cells.count >= 4, "\(name)")
      #expect(cells[2] == String(stated), "\(name): the index says \(cells[2]), the file \(stated)")
    }
  }
}
