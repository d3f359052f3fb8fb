import Foundation
import Testing

@testable import FolioModel

/// One row of `Fixtures/corpus-counts.tsv`: what an independent XML parser counted in a corpus
/// model.
struct CorpusExpectation: CustomTestStringConvertible, Sendable {
  var file: String
  var entities: Int
  var relationships: Int
  var attributes: Int
  var abstractEntities: Int
  var entitiesWithParent: Int
  var testDescription: String { file }

  static func all() -> [CorpusExpectation] {
    guard let text = try? String(contentsOf: Paths.fixture("corpus-counts.tsv"), encoding: .utf8)
    else { return [] }
    return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
      let fields = line.split(separator: "\t").map(String.init)
      guard fields.count == 6, let numbers = Optional(fields[1...].compactMap { Int($0) }),
        numbers.count == 5
      else { return nil }
      return CorpusExpectation(
        file: fields[0], entities: numbers[0], relationships: numbers[1], attributes: numbers[2],
        abstractEntities: numbers[3], entitiesWithParent: numbers[4])
    }
  }
}

/// Corpus files that are genuinely malformed, with the error each must raise. The corpus
/// manifest says `phimage__MomXML__model2_xml` was edited by hand: its uniqueness constraints
/// name properties (`iD`, `comma`, `separated`) that its entity does not have.
let malformedCorpusFiles: [String: (ModelError.Code, String)] = [
  "phimage__MomXML__model2_xml.xcdatamodel.contents.xml": (
    .unknownReference,
    "55: SetLog: a uniqueness constraint names \"iD\", which is not a property of \"SetLog\""
  )
]

@Suite("Real-world corpus")
struct CorpusTests {
  @Test(
    "every corpus model loads with the counts an independent parser finds",
    .enabled(if: Paths.corpusModels != nil, "../shared/corpus is not beside the package"),
    arguments: CorpusExpectation.all())
  func loads(_ expected: CorpusExpectation) throws {
    let url = try #require(Paths.corpusModels).appendingPathComponent(expected.file)
    if let (code, message) = malformedCorpusFiles[expected.file] {
      let error = try #require(modelError { _ = try ManagedObjectModel(contentsOf: url) })
      #expect(error.code == code)
      #expect(error.description.hasSuffix(message))
      return
    }
    let model = try ManagedObjectModel(contentsOf: url)
    #expect(model.entities.count == expected.entities)
    #expect(model.entities.reduce(0) { $0 + $1.relationships.count } == expected.relationships)
    #expect(model.entities.reduce(0) { $0 + $1.attributes.count } == expected.attributes)
    #expect(model.entities.filter(\.isAbstract).count == expected.abstractEntities)
    #expect(
      model.entities.filter { $0.parentEntityName != nil }.count == expected.entitiesWithParent)
    for entity in model.entities {
      #expect(entity.versionHash.count == 32)
      for relationship in entity.relationships {
        #expect(model.destination(of: relationship) != nil)
        if relationship.inverseName != nil {
          #expect(model.inverse(of: relationship)?.inverseName == relationship.name)
        }
      }
    }
  }

  @Test(
    "the expectations cover every model in the corpus folder",
    .enabled(if: Paths.corpusModels != nil, "../shared/corpus is not beside the package"))
  func coversCorpus() throws {
    let folder = try #require(Paths.corpusModels)
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { $0.hasSuffix(".xml") }.sorted()
    #expect(files == CorpusExpectation.all().map(\.file).sorted())
    #expect(files.count == 85)
  }
}
