import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioStores
@testable import FolioXMLStore

/// Composite values and metadata property lists nest at most 32 levels in both formats,
/// written and read (`StoreLimits.maximumNestingLevels`): at the limit they round-trip, one
/// level more is refused with `limitExceeded` naming the place, on writing before the file is
/// touched and on reading.
@Suite("Store limits: nesting")
struct NestingLimitTests {
  static let formats: [any StoreFormat] = [XMLStore(), BinaryStore()]
  static let limit = StoreLimits.maximumNestingLevels

  static func fileName(_ format: any StoreFormat) -> String {
    format is XMLStore ? "nesting.xml" : "nesting.folio"
  }

  /// `leaf` inside `arrays` arrays.
  static func arrays(_ arrays: Int, around leaf: PropertyListValue = .string("leaf"))
    -> PropertyListValue
  {
    (0..<arrays).reduce(leaf) { value, _ in .array([value]) }
  }

  static func metadata(arrays: Int) -> StoreContents {
    var metadata = StoreMetadata(storeType: "Binary", identifier: "nesting")
    metadata.userInfo = ["deep": Self.arrays(arrays), "flat": .integer(1)]
    return StoreContents(metadata: metadata, records: [], nextObjectID: 1)
  }

  @Test("metadata nested 32 levels is written and read back", arguments: 0..<2)
  func metadataAtLimit(formatIndex: Int) throws {
    let format = Self.formats[formatIndex]
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent(Self.fileName(format))
    // The metadata dictionary is level 1, so 31 arrays reach level 32.
    let contents = Self.metadata(arrays: Self.limit - 1)
    try format.write(contents, model: try BinaryFixtures.model(), to: url)
    let read = try format.readMetadata(from: url)
    // The XML store adds its checksum of the version hashes; the rest reads back as written.
    #expect(read.userInfo["deep"] == contents.metadata.userInfo["deep"])
    #expect(read.userInfo["flat"] == .integer(1))
  }

  @Test("saving metadata nested 33 levels is refused and leaves the old file", arguments: 0..<2)
  func metadataPastLimitOnWrite(formatIndex: Int) throws {
    let format = Self.formats[formatIndex]
    let model = try BinaryFixtures.model()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent(Self.fileName(format))
    try format.write(Self.metadata(arrays: 1), model: model, to: url)
    let old = try Data(contentsOf: url)
    for arrays in [Self.limit, 1_000] {
      let error = try #require(throws: StoreError.self) {
        try format.write(Self.metadata(arrays: arrays), model: model, to: url)
      }
      #expect(error.code == .limitExceeded)
      #expect(error.description == "metadata.deep: property lists nest more than 32 levels deep")
      #expect(try Data(contentsOf: url) == old)
    }
    var rewritten = Self.metadata(arrays: Self.limit).metadata
    rewritten.storeType = format is XMLStore ? "XML" : "Binary"
    let error = try #require(throws: StoreError.self) {
      try format.writeMetadata(rewritten, to: url)
    }
    #expect(error.code == .limitExceeded)
    #expect(try Data(contentsOf: url) == old)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
  }

  @Test("an XML store whose metadata nests 33 levels is refused at the line")
  func xmlMetadataPastLimitOnRead() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("deep.xml")
    let model = try BinaryFixtures.model()
    try XMLStore().write(Self.metadata(arrays: Self.limit - 1), model: model, to: url)
    let text = try String(contentsOf: url, encoding: .utf8)
    let leaf = "<string>leaf</string>"
    #expect(text.components(separatedBy: leaf).count == 2)
    try text.replacingOccurrences(of: leaf, with: "<array>\(leaf)</array>")
      .write(to: url, atomically: false, encoding: .utf8)
    let line =
      try #require(
        text.components(separatedBy: "\n").firstIndex { $0.contains(leaf) }) + 1
    for whole in [false, true] {
      let error = try #require(throws: StoreError.self) {
        if whole {
          _ = try XMLStore().read(from: url, model: model)
        } else {
          _ = try XMLStore().readMetadata(from: url)
        }
      }
      #expect(error.code == .limitExceeded)
      #expect(error.location?.line == line, "\(error)")
      #expect(error.message == "property lists nest more than 32 levels deep")
    }
  }

  @Test("a .folio file whose metadata nests 33 levels is refused at the byte")
  func binaryMetadataPastLimitOnRead() throws {
    let model = try BinaryFixtures.model()
    let meta = try BinaryMetadataCoding.encode(
      Self.metadata(arrays: Self.limit - 1).metadata, entityHashes: [:], nextObjectID: 1)
    // The innermost value, a string, becomes an array holding it: one level more.
    let leaf: [UInt8] = [1, 4, 0, 0, 0] + Array("leaf".utf8)
    let start = try #require(
      (0...(meta.count - leaf.count)).first { Array(meta[$0..<($0 + leaf.count)]) == leaf })
    let deeper = Array(meta[..<start]) + [8, 1, 0, 0, 0] + leaf + meta[(start + leaf.count)...]
    let bytes = BinaryContainer.assemble(
      [
        (SectionKind.metadata, [.required], deeper),
        (SectionKind.body, [.required, .deflated], try BinaryBodyWriter.encode([], model: model)),
      ],
      modelHash: model.versionHash)
    let error = try #require(throws: StoreError.self) {
      try BinaryStore().decode(Data(bytes), model: model, file: "deep.folio")
    }
    #expect(error.code == .limitExceeded)
    #expect(error.message == "property lists nest more than 32 levels deep (META section)")
    // The META section starts after the header and two section entries.
    #expect(error.location?.byteOffset == 56 + 2 * 36 + start, "\(error)")
  }

  /// A composite value `levels` deep: members named `x` the model does not describe, down to
  /// a string.
  static func undescribed(levels: Int) -> AttributeValue {
    (1..<levels).reduce(.composite(["x": .string("leaf")])) { value, _ in
      .composite(["x": value])
    }
  }

  static func record(_ value: AttributeValue) -> StoreContents {
    StoreContents(
      metadata: StoreMetadata(storeType: "Binary", identifier: "nesting"),
      records: [StoreRecord(entityName: "Everything", id: 1, attributes: ["location": value])],
      nextObjectID: 2)
  }

  /// Composite members the model does not describe are kept by the binary store (with their
  /// own types), so only they can nest past what a model allows.
  @Test("a .folio composite of undescribed members 32 deep round-trips; 33 is refused")
  func undescribedComposites() throws {
    let model = try BinaryFixtures.model()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("nesting.folio")
    let atLimit = Self.record(Self.undescribed(levels: Self.limit))
    try BinaryStore().write(atLimit, model: model, to: url)
    let old = try Data(contentsOf: url)
    #expect(try BinaryStore().read(from: url, model: model).records == atLimit.records)
    for levels in [Self.limit + 1, 1_000] {
      let error = try #require(throws: StoreError.self) {
        try BinaryStore().write(
          Self.record(Self.undescribed(levels: levels)), model: model, to: url)
      }
      #expect(error.code == .limitExceeded)
      let path = "location" + String(repeating: ".x", count: Self.limit)
      #expect(error.description == "Everything.\(path): composites nest more than 32 levels deep")
      #expect(try Data(contentsOf: url) == old)
    }
  }

  @Test("reading a composite 33 levels deep is refused at its byte")
  func compositePastLimitOnRead() throws {
    let model = try BinaryFixtures.model()
    let compositeTag = try #require(AttributeType.composite.binaryTag)
    let stringTag = try #require(AttributeType.string.binaryTag)
    // Strings: 0 "x", 1 "leaf". Each level: one member, named "x", a composite; then the leaf.
    func level(_ tag: UInt8) -> [UInt8] { [1, 0, 0, 0, 0, 0, 0, 0, tag] }
    for levels in [Self.limit, Self.limit + 1] {
      let bytes =
        (1..<levels).flatMap { _ in level(compositeTag) } + level(stringTag) + [1, 0, 0, 0]
      let decoder = BinaryValueDecoder(model: model, strings: ["x", "leaf"])
      let place = BinaryPlace(file: "c", section: "BODY", fileOffset: 0, isInflated: true)
      let result = bytes.withUnsafeBytes { raw -> Result<AttributeValue, StoreError> in
        var reader = ByteReader(raw, place: place)
        do throws(StoreError) {
          return .success(try decoder.decode(&reader, as: .composite, composite: nil))
        } catch {
          return .failure(error)
        }
      }
      if levels == Self.limit {
        #expect(try result.get() == Self.undescribed(levels: levels))
      } else {
        let error = try #require(throws: StoreError.self) { try result.get() }
        #expect(error.code == .limitExceeded)
        #expect(error.message.hasPrefix("composites nest more than 32 levels deep"), "\(error)")
        // The 33rd level's member count.
        #expect(error.location?.byteOffset == 0, "\(error)")
        #expect(error.description.contains("byte \(9 * Self.limit) of its inflated"), "\(error)")
      }
    }
  }

  /// The XML store reads and writes composites by the model's members: every level a model
  /// allows, each composite's members mapped once however many paths lead to it (mapped per
  /// path, 24 levels of three members took more than a minute; levels past 16 were not mapped
  /// at all).
  @Test(
    "composites nested as deep as a model allows round-trip in both formats",
    .timeLimit(.minutes(1)), arguments: 0..<2)
  func modelComposites(formatIndex: Int) throws {
    let format = Self.formats[formatIndex]
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent(Self.fileName(format))
    for (levels, width) in [(Self.limit, 1), (30, 3)] {
      let model = try CompositeModels.nested(levels: levels, width: width)
      let contents = StoreContents(
        metadata: StoreMetadata(storeType: "Binary", identifier: "nesting"),
        records: [
          StoreRecord(
            entityName: "Thing", id: 1,
            attributes: ["c": CompositeModels.value(levels: levels, leaf: "<deep> & \(levels)")])
        ], nextObjectID: 2)
      try format.write(contents, model: model, to: url)
      #expect(try format.read(from: url, model: model).records == contents.records, "\(levels)")
    }
  }
}
