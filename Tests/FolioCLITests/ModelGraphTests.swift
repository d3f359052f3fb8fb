import FolioTestSupport
import Foundation
import Testing

/// Graphviz's `dot` on this process's `PATH`, if it is installed.
let graphvizDot: URL? = (ProcessInfo.processInfo.environment["PATH"] ?? "")
  .split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("dot") }
  .first { FileManager.default.isExecutableFile(atPath: $0.path) }

/// The models of `Samples/`: each bundle (its current version) and each version in it.
let sampleModels: [String] = {
  let samples = packageRoot.appendingPathComponent("Samples")
  let bundles = (try? FileManager.default.contentsOfDirectory(atPath: samples.path)) ?? []
  var models: [String] = []
  for name in bundles.sorted() {
    let bundle = "Samples/\(name)/\(name).xcdatamodeld"
    let versions =
      (try? FileManager.default.contentsOfDirectory(
        atPath: packageRoot.appendingPathComponent(bundle).path)) ?? []
    guard !versions.isEmpty else { continue }
    models.append(bundle)
    models += versions.filter { $0.hasSuffix(".xcdatamodel") }.sorted().map { "\(bundle)/\($0)" }
  }
  return models
}()

/// The model with inheritance, uniqueness constraints, indexes, transient and derived
/// attributes that the golden files draw.
let catalogModel = "Tests/FolioCLITests/Fixtures/Catalog.xcdatamodel"

/// The model bundles of `../shared/corpus`, when it is beside the package.
let corpusBundles: [URL] = {
  let corpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
  guard let walker = FileManager.default.enumerator(atPath: corpus.path) else { return [] }
  return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".xcdatamodeld") }.sorted()
    .map { corpus.appendingPathComponent($0) }
}()

@Suite("folio model graph")
struct ModelGraphTests {
  @Test(
    "model graph draws DOT as the golden files show",
    arguments: [("Company", "Samples/Company/Company.xcdatamodeld"), ("Catalog", catalogModel)])
  func golden(model: (name: String, path: String)) throws {
    let result = try run(folio, ["model", "graph", model.path])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardError == "")
    assertSnapshot(result.standardOutput, named: "graph-\(model.name).dot", in: snapshots)
  }

  @Test(
    "Graphviz accepts the DOT of every sample model",
    .enabled(if: graphvizDot != nil, "Graphviz is not installed"),
    arguments: sampleModels + [catalogModel, "Tests/FolioCLITests/Fixtures/Warnings.xcdatamodel"])
  func samplesRender(model: String) throws {
    try expectGraphvizRenders(model)
  }

  @Test(
    "Graphviz accepts the DOT of every model bundle in the corpus",
    .enabled(if: !corpusBundles.isEmpty, "../shared/corpus is not beside the package"),
    .enabled(if: graphvizDot != nil, "Graphviz is not installed"))
  func corpusRenders() throws {
    var drawn = 0
    for bundle in corpusBundles {
      let versions = try FileManager.default.contentsOfDirectory(atPath: bundle.path)
      // Versions saved before Xcode 4 keep the model in binary files, not `contents`, and
      // Folio does not read them.
      let readable = versions.filter {
        FileManager.default.fileExists(
          atPath: bundle.appendingPathComponent("\($0)/contents").path)
      }
      guard !readable.isEmpty else { continue }
      try expectGraphvizRenders(bundle.path)
      drawn += 1
    }
    #expect(drawn >= corpusBundles.count - 1, "only \(drawn) of \(corpusBundles.count) drawn")
  }

  func expectGraphvizRenders(
    _ model: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) throws {
    let graph = try run(folio, ["model", "graph", model])
    #expect(graph.status == 0, "\(model): \(graph.standardError)", sourceLocation: sourceLocation)
    let dot = try #require(graphvizDot)
    let rendered = try run(dot, ["-Tsvg"], input: Data(graph.standardOutput.utf8))
    #expect(
      rendered.status == 0, "\(model): \(rendered.standardError)", sourceLocation: sourceLocation)
    // Graphviz also warns, without failing, about what it had to guess.
    #expect(rendered.standardError == "", "\(model)", sourceLocation: sourceLocation)
    #expect(rendered.standardOutput.contains("<svg"), sourceLocation: sourceLocation)
  }

  @Test("an inheritance edge is a hollow arrow to the parent")
  func inheritanceInGraph() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("contents")
    try Data(
      """
      <model><entity name="Item" isAbstract="YES"><attribute name="title" optional="YES" attributeType="String"/></entity>
      <entity name="Book" parentEntity="Item"><attribute name="pages" attributeType="Integer 32"/></entity></model>
      """.utf8
    ).write(to: file)
    let result = try run(folio, ["model", "graph", file.path])
    #expect(result.status == 0)
    #expect(result.standardOutput.contains("\"Book\" -> \"Item\" [arrowhead=empty, style=dashed];"))
    #expect(
      result.standardOutput.contains("\"Item\" [label=\"«abstract» Item|title : String?\\l\"];"))
  }
}
