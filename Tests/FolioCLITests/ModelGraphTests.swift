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
    "model graph draws DOT and Mermaid as the golden files show",
    arguments: [
      ("Company", "Samples/Company/Company.xcdatamodeld"), ("Catalog", catalogModel),
    ], [("dot", "dot"), ("mermaid", "mmd")])
  func golden(model: (name: String, path: String), format: (name: String, suffix: String)) throws {
    let result = try run(folio, ["model", "graph", "--format", format.name, model.path])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardError == "")
    assertSnapshot(
      result.standardOutput, named: "graph-\(model.name).\(format.suffix)", in: snapshots)
  }

  @Test("DOT is the default format")
  func dotByDefault() throws {
    let plain = try run(folio, ["model", "graph", catalogModel])
    let dot = try run(folio, ["model", "graph", "--format", "dot", catalogModel])
    #expect(plain.status == 0)
    #expect(plain.standardOutput == dot.standardOutput)
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

  @Test(
    "--format svg draws the graph with Graphviz, to standard output or --output",
    .enabled(if: graphvizDot != nil, "Graphviz is not installed"))
  func svg() throws {
    let result = try run(folio, ["model", "graph", "--format", "svg", catalogModel])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput.contains("<svg"))
    #expect(result.standardOutput.contains("«abstract» Item"))
    #expect(result.standardOutput.hasSuffix("</svg>\n"))
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("catalog.svg")
    let written = try run(
      folio, ["model", "graph", "--format", "svg", "--output", file.path, catalogModel])
    #expect(written.status == 0, "\(written.standardError)")
    #expect(written.standardOutput == "")
    #expect(try String(contentsOf: file, encoding: .utf8) == result.standardOutput)
  }

  @Test("--output writes DOT and Mermaid to a file too")
  func output() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    for format in ["dot", "mermaid"] {
      let file = folder.appendingPathComponent("graph.\(format)")
      let written = try run(
        folio, ["model", "graph", "--format", format, "--output", file.path, catalogModel])
      #expect(written.status == 0, "\(written.standardError)")
      #expect(written.standardOutput == "")
      let printed = try run(folio, ["model", "graph", "--format", format, catalogModel])
      #expect(try String(contentsOf: file, encoding: .utf8) == printed.standardOutput)
    }
  }

  @Test("without Graphviz, --format svg says what to install and exits 1 before reading the model")
  func svgWithoutGraphviz() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    // A model that does not exist: the missing Graphviz is found first.
    let result = try run(
      folio, ["model", "graph", "--format", "svg", "--output", "out.svg", "Nope.xcdatamodeld"],
      in: folder, environment: ["PATH": folder.path])
    #expect(result.status == 1)
    #expect(result.standardOutput == "")
    #expect(
      result.standardError
        == "Error: --format svg needs Graphviz's dot, which is not on PATH: install Graphviz (apt-get install graphviz) or use --format dot\n"
    )
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    // DOT and Mermaid need no Graphviz.
    let dot = try run(
      folio, ["model", "graph", catalogModel], environment: ["PATH": folder.path])
    #expect(dot.status == 0, "\(dot.standardError)")
  }

  @Test("a Graphviz that fails is an error with its message and exit status 1")
  func failingGraphviz() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let fake = folder.appendingPathComponent("dot")
    try Data("#!/bin/sh\necho 'Error: cannot draw' >&2\nexit 2\n".utf8).write(to: fake)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
    let result = try run(
      folio, ["model", "graph", "--format", "svg", catalogModel],
      environment: ["PATH": "\(folder.path):/usr/bin:/bin"])
    #expect(result.status == 1)
    #expect(result.standardOutput == "")
    #expect(
      result.standardError
        == "Error: \(fake.path) -Tsvg exited with status 2: Error: cannot draw\n")
  }

  @Test("an unknown format is bad usage, exit status 64")
  func unknownFormat() throws {
    let result = try run(folio, ["model", "graph", "--format", "png", catalogModel])
    #expect(result.status == 64)
    #expect(result.standardError.hasPrefix("Error: The value 'png' is invalid for '--format"))
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
    let mermaid = try run(folio, ["model", "graph", "--format", "mermaid", file.path])
    #expect(mermaid.standardOutput.contains("  \"Book\" |o--|| \"Item\" : \"is a\"\n"))
    #expect(mermaid.standardOutput.contains("  \"Item\"[\"«abstract» Item\"] {\n"))
  }

  @Test("names Mermaid cannot take are quoted, or made words with the real name in a comment")
  func mermaidNames() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("contents")
    try Data(
      """
      <model><entity name="u"><attribute name="a b" optional="YES" attributeType="String"/>\
      <attribute name="pk" attributeType="String"/><attribute name="fké" attributeType="String"/>\
      <attribute name="2fa" attributeType="Boolean"/><attribute name="ok-name" attributeType="Binary"/>\
      <relationship name="back" optional="YES" toMany="YES" deletionRule="Nullify" \
      destinationEntity="end&quot;%" inverseName="r" inverseEntity="end&quot;%"/></entity>
      <entity name="end&quot;%"><relationship name="r" optional="YES" maxCount="1" \
      deletionRule="Nullify" destinationEntity="u" inverseName="back" inverseEntity="u"/></entity>
      <entity name="end__"><relationship name="x" minCount="2" maxCount="5" toMany="YES" \
      deletionRule="Nullify" destinationEntity="u"/></entity></model>
      """.utf8
    ).write(to: file)
    let result = try run(folio, ["model", "graph", "--format", "mermaid", file.path])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(
      result.standardOutput == """
        erDiagram
          "u" {
            String a_b "name: a b, optional"
            String pk_ "name: pk"
            String fk_é "name: fké"
            Boolean _2fa "name: 2fa"
            BinaryData ok-name
          }
          "end__"
          "end___2"
          "u" |o..o{ "end__" : "back / r"
          "end___2" }o..|{ "u" : "x (2..5, no inverse)"

        """)
  }
}
