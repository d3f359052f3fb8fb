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

  /// Found by fuzzing (`FuzzTransformer`): an archive whose root is `$null`. It read as
  /// `NSNull`, as a `$null` in an array or a dictionary does, and the transformer refused to
  /// archive `NSNull`, so a value it read could not be set back.
  @Test("NSNull, read from a $null, archives again and reads back")
  func secureArchiveNull() throws {
    let transformer = SecureUnarchiveTransformer()
    let value = try transformer.value(
      from: Data(contentsOf: Self.fixture("transformer-null-root.bplist")))
    #expect(value is NSNull)
    #expect(try transformer.value(from: transformer.data(from: value)) is NSNull)
    let array = try transformer.value(from: transformer.data(from: [1, NSNull()] as [Any]))
    #expect((array as? [Any])?.last is NSNull)
    let entries = try transformer.value(from: transformer.data(from: ["k": NSNull()]))
    #expect((entries as? [String: Any])?["k"] is NSNull)
    let set = try transformer.value(from: transformer.data(from: Set<AnyHashable>([NSNull()])))
    #expect((set as? Set<AnyHashable>)?.first?.base is NSNull)
  }

  /// Found by probing `FuzzTransformer`: a chain of arrays, each holding the next twice. Each
  /// reference was read again, so reading doubled at each link (30 links: never done); read
  /// once each, the value still expands to 2^links values, which writing it or walking it
  /// goes through. Such an archive is refused; this one has 20 links in 737 bytes. A chain of
  /// 62 links, which no reader that walked its expansion would ever finish, is refused too:
  /// the limit stops this test hanging if that came back.
  @Test(
    "an archive that refers to its collections from too many places is refused, at once",
    .timeLimit(.minutes(1)))
  func secureArchiveDoublingChain() throws {
    let transformer = SecureUnarchiveTransformer()
    let input = try Data(contentsOf: Self.fixture("transformer-doubling-chain.bplist"))
    let error = try #require(throws: TransformError.self) { try transformer.value(from: input) }
    #expect(error.description.contains("expands to more than 2948 values"))
    // An object referred to twice reads as two equal values.
    func reference(_ number: Int64) -> PropertyListValue {
      .dictionary(["CF$UID": .integer(number)])
    }
    func archive(_ objects: [PropertyListValue]) -> Data {
      BinaryPropertyList.encodeKeyedArchive(
        .dictionary([
          "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
          "$top": .dictionary(["root": reference(1)]), "$objects": .array(objects),
        ]))
    }
    func array(_ elements: [Int64], classAt number: Int64) -> PropertyListValue {
      .dictionary(["NS.objects": .array(elements.map(reference)), "$class": reference(number)])
    }
    let arrayClass = PropertyListValue.dictionary([
      "$classname": .string("NSArray"), "$classes": .array([.string("NSArray")]),
    ])
    let shared = try transformer.value(
      from: archive([
        .string("$null"), array([2, 2], classAt: 4), array([3], classAt: 4), .string("leaf"),
        arrayClass,
      ]))
    #expect(shared as? [[String]] == [["leaf"], ["leaf"]])
    let links: Int64 = 62
    let chain = archive(
      [.string("$null")]
        + (1...links).map { link in array([link + 1, link + 1], classAt: links + 2) }
        + [.string("leaf"), arrayClass])
    let long = try #require(throws: TransformError.self) { try transformer.value(from: chain) }
    #expect(long.description.contains("expands to more than"), "\(long)")
    // A value read again nests as deep as it did: the root holds an array X, then a chain of
    // 61 arrays ending in X again, 62 levels down. X holding the leaf fits in 64 levels; X
    // holding an array that holds the leaf does not.
    func nested(twoLevels: Bool) -> Data {
      let leaf: Int64 = 65
      var objects: [PropertyListValue] = [
        .string("$null"), array([2, 4], classAt: 66), array([twoLevels ? 3 : leaf], classAt: 66),
        array([leaf], classAt: 66),
      ]
      for number in Int64(4)..<leaf {
        objects.append(array([number == 64 ? 2 : number + 1], classAt: 66))
      }
      return archive(objects + [.string("leaf"), arrayClass])
    }
    #expect(try transformer.value(from: nested(twoLevels: false)) is [Any])
    let deep = try #require(throws: TransformError.self) {
      try transformer.value(from: nested(twoLevels: true))
    }
    #expect(deep.description == "the archive nests more than 64 deep")
  }
}
