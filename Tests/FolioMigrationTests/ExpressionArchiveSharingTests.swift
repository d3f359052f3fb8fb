import FolioStores
import FolioTestSupport
import Foundation
import Testing

@testable import FolioMigration

/// Archived value expressions whose objects are referred to from many places: a keyed archive
/// names an object once and refers to it by number, so a reader that reads a shared object
/// again at each reference can be made to do work far beyond the archive's size.
@Suite("Mapping expressions: shared objects in keyed archives")
struct ExpressionArchiveSharingTests {
  /// `add:to:` calls `links` deep, each adding the next call to itself, then 1: an expression
  /// of 2^links ones.
  static func doublingChain(_ links: Int) -> Data {
    var archive = ArchiveBuilder()
    let operand = archive.builtinsClass()
    var next = archive.constant(.integer(1))
    for _ in 0..<links { next = archive.function(operand, "add:to:", [next, next]) }
    return archive.data(root: next)
  }

  /// The expression `doublingChain(links)` holds, built as it reads.
  static func doubled(_ links: Int) -> MappingExpression {
    var expression = MappingExpression.constant(.integer(1))
    for _ in 0..<links { expression = .builtin("add:to:", arguments: [expression, expression]) }
    return expression
  }

  @Test("an expression referred to twice at each of 6 levels reads as the tree it stands for")
  func sharedExpressionsRead() throws {
    let archive = try ExpressionArchive(Self.doublingChain(6))
    #expect(try archive.expression() == Self.doubled(6))
    // Each of the 7 expressions is read once; the 126 references after the first read the
    // expression already read.
    #expect(archive.expressionsRead == 7)
  }

  @Test("a chain of 40 expressions, each referring to the next twice, is refused at once")
  func doublingChainRefused() throws {
    let data = Self.doublingChain(40)
    // `make fuzz-replay` runs it through `FuzzMappingModel` (mode 2, an archived expression).
    #expect(try FuzzRegressionTests.fixture("mapping-model-doubling-chain.bplist") == data)
    let url = try MappingFixtures.write(MappingFixtures.storeWithArchive(data))
    let error = try #require(throws: MappingModelError.self) { try MappingModel(contentsOf: url) }
    #expect(error.code == .malformedExpression)
    #expect(error.location?.file == url.path)
    // Object 40 is the 11th call from the bottom, 18,424 values; used again as the second
    // argument of the 12th, it passes the limit.
    #expect(
      error.message
        == "object z103: the value expression expands to more than \(4 * data.count) values"
        + " (an expression or a byte of its text each) at object 40: it refers to the"
        + " same expressions from too many places")
  }

  @Test("a shared expression nests as deep where it is used again as where it was read")
  func sharedDepth() throws {
    // The root calls `f:` on X and on a chain of 97 calls ending in X, 98 levels down. X is
    // a call on a variable, which fits in 100 levels, or a call on a call on a variable, which
    // does not.
    func archive(deep: Bool) -> Data {
      var archive = ArchiveBuilder()
      let operand = archive.builtinsClass()
      var shared = archive.variable("source")
      for _ in 0..<(deep ? 2 : 1) { shared = archive.function(operand, "uppercase:", [shared]) }
      var chain = shared
      for _ in 0..<97 { chain = archive.function(operand, "lowercase:", [chain]) }
      let root = archive.function(operand, "f:", [shared, chain])
      return archive.data(root: root)
    }
    #expect(throws: Never.self) { try ExpressionArchive(archive(deep: false)).expression() }
    let error = try #require(throws: ExpressionArchiveProblem.self) {
      try ExpressionArchive(archive(deep: true)).expression()
    }
    guard case .malformed(let detail, _) = error else {
      Issue.record("unexpected \(error)")
      return
    }
    #expect(detail == "nests more than 100 expressions deep")
  }

  @Test("a long key path shared by nested key paths counts its text at each level")
  func sharedKeyPath() throws {
    // 100 key paths, each from the next, all naming one 5,000-character step: a path of
    // 500,000 characters, built by copying 25 MB, from an archive of about 7 KB.
    var archive = ArchiveBuilder()
    let step = archive.add(.string(String(repeating: "k", count: 5_000)))
    var path = archive.variable("source")
    for _ in 0..<99 {
      let specifier = archive.object("NSKeyPathSpecifierExpression", ["NSKeyPath": step])
      let arguments = archive.object("NSArray", ["NS.objects": .array([specifier])])
      path = archive.object(
        "NSKeyPathExpression", ["NSOperand": path, "NSArguments": arguments])
    }
    let data = archive.data(root: path)
    let error = try #require(throws: ExpressionArchiveProblem.self) {
      try ExpressionArchive(data).expression()
    }
    guard case .malformed(let detail, _) = error else {
      Issue.record("unexpected \(error)")
      return
    }
    #expect(detail.hasPrefix("expands to more than \(4 * data.count) values"), "\(detail)")
  }

  @Test("the expressions Xcode archived in the mapping fixtures read well within the limit")
  func fixturesWithinLimit() throws {
    var archives = 0
    for name in try FileManager.default.contentsOfDirectory(atPath: MappingFixtures.folder.path)
    where name.hasSuffix(".xcmapping.xml") {
      let text = try String(contentsOf: MappingFixtures.fixture(name), encoding: .utf8)
      let opening = "<attribute name=\"valueexpressiondata\" type=\"binary\">"
      for part in text.components(separatedBy: opening).dropFirst() {
        let encoded = try #require(part.components(separatedBy: "<").first)
        let data = try #require(
          Data(base64Encoded: encoded, options: .ignoreUnknownCharacters), "\(name)")
        let archive = try ExpressionArchive(data)
        _ = try archive.expression()
        // A quarter of the limit at most: Xcode refers to an expression from one place.
        #expect(
          archive.valuesRead * 4 <= ExpressionArchive.maximumValuesPerByte * data.count,
          "\(name): \(archive.valuesRead) values from \(data.count) bytes")
        archives += 1
      }
    }
    // Four in CoreDataPlus's mapping, three in JSQCoreDataKit's; Moody's has none.
    #expect(archives == 7)
  }
}
