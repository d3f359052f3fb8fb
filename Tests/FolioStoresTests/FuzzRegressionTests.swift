import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioSQLiteStore
@testable import FolioStores
@testable import FolioXMLStore

/// Inputs that fuzzing (`make fuzz`, RELIABILITY.md) found, minimised, in
/// `Fixtures/fuzz/`. Each must keep failing cleanly; `make test-asan` also checks that reading
/// them leaks nothing.
@Suite("Fuzz findings: stores")
struct FuzzRegressionTests {
  static func fixture(_ name: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/fuzz/\(name)")
  }

  @Test("an empty binary store is refused as truncated, in every reading")
  func emptyBinaryStore() throws {
    let url = Self.fixture("binary-store-empty.folio")
    let model = try BinaryFixtures.model()
    let message = "\(url.path)@0: the magic needs 10 bytes but only 0 remain (header)"
    let reads: [() throws -> Void] = [
      { _ = try BinaryStore().read(from: url, model: model) },
      { _ = try BinaryStore().readMetadata(from: url) },
      { _ = try BinaryStore().readModel(from: url) },
    ]
    for read in reads {
      let error = try #require(throws: StoreError.self) { try read() }
      #expect(error.code == .truncated)
      #expect(error.description == message)
    }
  }

  /// Found by fuzzing (`FuzzSQLiteStore`): a model cache whose property name holds a NUL.
  /// The model loaded, and writing a store for it failed in SQL, where the NUL ended the
  /// statement's text inside a quoted column name.
  @Test("a model cache naming a property with a NUL is refused, naming it")
  func nulInCachedName() throws {
    let input = try Data(contentsOf: Self.fixture("sqlite-store-nul-in-property-name.bin"))
    let error = try #require(throws: StoreError.self) {
      try SQLiteModelCache.decode(input.dropFirst(), file: "cache")
    }
    #expect(error.code == .malformedStore)
    #expect(error.message.contains(#"names a property of Label "mark\0i"#))
    // A model built in code with such a name is refused by the SQLite store, not written.
    let model = try ManagedObjectModel {
      EntityDescription("Label") { AttributeDescription("mark\0x", .string) }
    }
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("labels.sqlite")
    let refused = try #require(throws: StoreError.self) {
      try SQLiteStore().write(
        StoreContents(metadata: StoreMetadata(storeType: "SQLite"), records: []), model: model,
        to: url)
    }
    #expect(refused.code == .modelMismatch)
    #expect(!FileManager.default.fileExists(atPath: url.path))
  }

  @Test("inferring a model from a store with a composite value names the cause")
  func compositeInference() throws {
    let url = Self.fixture("xml-store-composite-inference.xml")
    let error = try #require(throws: StoreError.self) { try XMLStore.inferModel(from: url) }
    #expect(error.code == .malformedStore)
    #expect(
      error.description
        == "\(url.path):4:9: a composite value cannot be inferred: its members' types need the "
        + "model it was written with")
  }

  /// Found by fuzzing (`FuzzBinaryBody`): a body whose spending's amount is a NaN, read in
  /// halves and in one run. The two reads agreed to the bit; the harness compared them with
  /// `==`, which finds a NaN unequal to itself, and trapped.
  @Test("a body holding a NaN reads the same in halves as in one run")
  func nanAcrossHalves() throws {
    let body = try [UInt8](Data(contentsOf: Self.fixture("binary-body-nan-halves.bin")))
    let model = try ManagedObjectModel(
      contentsOf: packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld"))
    let whole = try BinaryParallelReadTests.read(body, model: model, parallelRows: .max).get()
    let halves = try BinaryParallelReadTests.read(body, model: model, parallelRows: 2).get()
    #expect(whole.count == 10)
    #expect(halves.elementsEqual(whole) { $0.isIdentical(to: $1) })
    let nan = try #require(
      whole.first { record in
        if case .double(let amount) = record.attribute("amount") { amount.isNaN } else { false }
      })
    #expect(nan != nan)
    #expect(nan.isIdentical(to: nan))
  }
}
