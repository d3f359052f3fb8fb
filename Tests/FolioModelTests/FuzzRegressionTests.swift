import FolioModel
import Foundation
import Testing

/// Model inputs that take the reader's slow or deep paths, in `Fixtures/fuzz/`, which
/// `make fuzz-replay` also runs through `FuzzXcodeModel`.
@Suite("Fuzz findings: models")
struct ModelFuzzRegressionTests {
  /// 24 composites, each with three members of the next: 3^23 paths from the entity's
  /// attribute down to the leaf. Hashing and checking per path took more than a minute;
  /// per composite it is instant.
  @Test("composites that share a composite load at once", .timeLimit(.minutes(1)))
  func sharedComposites() throws {
    let model = try ManagedObjectModel(
      contentsOf: Paths.fixture("fuzz/xcode-model-shared-composites.xml"))
    #expect(model.composites.count == 24)
    let written = model.xcodeModelXML()
    #expect(try ManagedObjectModel(xcodeModelData: Data(written.utf8)) == model)
  }

  /// 500 composites, each a member of the one before: refused at the first, naming the
  /// chain, after at most 33 levels of the walk.
  @Test("a chain of 500 composites is refused at its 33rd level")
  func deepComposites() throws {
    let url = Paths.fixture("fuzz/xcode-model-deep-composites.xml")
    let error = try #require(throws: ModelError.self) {
      try ManagedObjectModel(contentsOf: url)
    }
    #expect(error.code == .invalidConstraint)
    #expect(
      error.description
        == "\(url.path):6: C0: composites nest more than 32 levels deep: C0 → C1 → C2 → … → C31 → C32"
    )
  }
}
