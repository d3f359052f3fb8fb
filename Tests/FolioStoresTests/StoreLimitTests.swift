import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioStores
@testable import FolioXMLStore

/// The limits of `StoreLimits`, reached with small inputs by lowering them for one task: a
/// value or object count at the limit is written and read back; one past it is refused on
/// writing (before the file is touched) and on reading, with `limitExceeded` naming the place.
@Suite("Store limits")
struct StoreLimitTests {
  static let formats: [any StoreFormat] = [XMLStore(), BinaryStore()]
  static let small = StoreLimits(maximumValueBytes: 64, maximumObjectCount: 3)

  /// Each variable-length attribute of the fixture model, with a value of `bytes` bytes.
  static func values(bytes: Int) -> [(key: String, value: AttributeValue)] {
    let text = String(repeating: "é", count: bytes / 2) + String(repeating: "x", count: bytes % 2)
    let url = "https://example.com/" + String(repeating: "a", count: bytes - 20)
    return [
      ("string", .string(text)),
      ("binary", .binaryData(Data(repeating: 7, count: bytes))),
      ("transformable", .transformable(Data(repeating: 1, count: bytes))),
      ("uri", URL(string: url).map { .uri($0) } ?? .string("not a URI")),
      ("objectID", .objectID(String(repeating: "o", count: bytes))),
      ("location", .composite(["label": .string(String(repeating: "<", count: bytes))])),
    ]
  }

  static func contents(_ key: String, _ value: AttributeValue) -> StoreContents {
    StoreContents(
      metadata: StoreMetadata(storeType: "Binary", identifier: "limits"),
      records: [StoreRecord(entityName: "Everything", id: 1, attributes: [key: value])],
      nextObjectID: 2)
  }

  static func fileName(_ format: any StoreFormat) -> String {
    format is XMLStore ? "limits.xml" : "limits.folio"
  }

  @Test("a value of exactly the limit is written and read back", arguments: 0..<2)
  func valueAtLimit(formatIndex: Int) throws {
    let format = Self.formats[formatIndex]
    let model = try BinaryFixtures.model()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent(Self.fileName(format))
    try StoreLimits.$current.withValue(Self.small) { () throws in
      for (key, value) in Self.values(bytes: 64) {
        try format.write(Self.contents(key, value), model: model, to: url)
        let read = try format.read(from: url, model: model)
        #expect(read.records.first?.attributes[key] == value, "\(key)")
      }
    }
  }

  @Test("saving a value past the limit is refused and leaves the old file", arguments: 0..<2)
  func valuePastLimitOnWrite(formatIndex: Int) throws {
    let format = Self.formats[formatIndex]
    let model = try BinaryFixtures.model()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent(Self.fileName(format))
    try format.write(Self.contents("string", .string("old")), model: model, to: url)
    let old = try Data(contentsOf: url)
    try StoreLimits.$current.withValue(Self.small) { () throws in
      for (key, value) in Self.values(bytes: 65) {
        do {
          try format.write(Self.contents(key, value), model: model, to: url)
          Issue.record("\(key): a 65-byte value was written")
        } catch let error as StoreError {
          #expect(error.code == .limitExceeded, "\(key)")
          #expect(error.location?.entity == "Everything", "\(key)")
          #expect(
            error.location?.property == (key == "location" ? "location.label" : key), "\(key)")
          #expect(
            error.message.contains("65 bytes is larger than the limit of 64 bytes"),
            "\(error.message)")
        }
      }
    }
    #expect(try Data(contentsOf: url) == old)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
  }

  @Test("reading a value past the limit is refused at its place", arguments: 0..<2)
  func valuePastLimitOnRead(formatIndex: Int) throws {
    let format = Self.formats[formatIndex]
    let model = try BinaryFixtures.model()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent(Self.fileName(format))
    for (key, value) in Self.values(bytes: 65) {
      try format.write(Self.contents(key, value), model: model, to: url)
      do {
        try StoreLimits.$current.withValue(Self.small) { () throws in
          _ = try format.read(from: url, model: model)
        }
        Issue.record("\(key): a 65-byte value was read")
      } catch let error as StoreError {
        #expect(error.code == .limitExceeded, "\(key): \(error)")
        #expect(error.location?.file == url.path, "\(key)")
        if format is XMLStore {
          #expect(error.location?.line != nil, "\(key): \(error)")
          #expect(error.location?.property != nil, "\(key): \(error)")
        } else {
          #expect(error.location?.byteOffset != nil, "\(key): \(error)")
        }
        #expect(error.message.contains("65 bytes is larger than the limit of 64"), "\(error)")
      }
      // The same file reads under the standard limits.
      #expect(try format.read(from: url, model: model).records.count == 1)
    }
  }

  /// `count` tags.
  static func tags(_ count: Int) -> StoreContents {
    StoreContents(
      metadata: StoreMetadata(storeType: "Binary", identifier: "limits"),
      records: (1...Int64(count)).map {
        StoreRecord(entityName: "Tag", id: $0, attributes: ["label": .string("t\($0)")])
      }, nextObjectID: Int64(count) + 1)
  }

  @Test("a store of more objects than the limit is neither written nor read", arguments: 0..<2)
  func objectCount(formatIndex: Int) throws {
    let format = Self.formats[formatIndex]
    let model = try BinaryFixtures.model()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent(Self.fileName(format))
    try StoreLimits.$current.withValue(Self.small) { () throws in
      try format.write(Self.tags(3), model: model, to: url)
      #expect(try format.read(from: url, model: model).records.count == 3)
      let atLimit = try Data(contentsOf: url)
      #expect {
        try format.write(Self.tags(4), model: model, to: url)
      } throws: { error in
        guard let error = error as? StoreError else { return false }
        return error.code == .limitExceeded
          && error.message == "4 objects are more than the limit of 3 objects"
      }
      #expect(try Data(contentsOf: url) == atLimit)
    }
    try format.write(Self.tags(4), model: model, to: url)
    do {
      try StoreLimits.$current.withValue(Self.small) { () throws in
        _ = try format.read(from: url, model: model)
      }
      Issue.record("a store of 4 objects was read under a limit of 3")
    } catch let error as StoreError {
      #expect(error.code == .limitExceeded)
      #expect(error.message.contains("more than the limit of 3 objects"), "\(error)")
      #expect(error.location?.line ?? error.location?.byteOffset != nil, "\(error)")
    }
  }

  @Test("the standard limits are 128 MiB per value and 2^32 - 2 objects")
  func standardLimits() {
    #expect(StoreLimits.current == .standard)
    #expect(StoreLimits.standard.maximumValueBytes == 134_217_728)
    #expect(StoreLimits.standard.maximumObjectCount == 4_294_967_294)
    // The XML text of the largest string, every character escaped in six bytes, fits in one
    // libxml2 text node (XML_MAX_HUGE_LENGTH).
    #expect(StoreLimits.standard.maximumValueBytes * 6 < 1_000_000_000)
  }
}

/// The standard limits themselves, with values of 128 MiB: gigabytes of memory and a minute
/// of CPU, so run by `make test-limits` (which sets `FOLIO_HEAVY_TESTS`), not by `make test`.
@Suite(
  "Store limits at full size",
  .enabled(if: ProcessInfo.processInfo.environment["FOLIO_HEAVY_TESTS"] != nil))
struct StoreLimitFullSizeTests {
  static let model: ManagedObjectModel? = try? BinaryFixtures.model()

  @Test("a 128 MiB string that XML escapes to 768 MiB is written and read back")
  func largestXMLString() throws {
    let model = try #require(Self.model)
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("largest.xml")
    // Every "<" takes Core Data's six-byte escape, the worst case.
    let value = AttributeValue.string(String(repeating: "<", count: 1 << 27))
    try XMLStore().write(StoreLimitTests.contents("string", value), model: model, to: url)
    let size = try #require(
      FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    #expect(size > 6 << 27)
    let read = try XMLStore().read(from: url, model: model)
    #expect(read.records.first?.attributes["string"] == value)
  }

  @Test("128 MiB of binary data is written and read back in both formats", arguments: 0..<2)
  func largestData(formatIndex: Int) throws {
    let model = try #require(Self.model)
    let format = StoreLimitTests.formats[formatIndex]
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent(StoreLimitTests.fileName(format))
    var generator = SeededGenerator(seed: 7)
    let bytes = (0..<(1 << 27)).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let value = AttributeValue.binaryData(Data(bytes))
    try format.write(StoreLimitTests.contents("binary", value), model: model, to: url)
    let read = try format.read(from: url, model: model)
    #expect(read.records.first?.attributes["binary"] == value)
  }

  @Test("one byte past 128 MiB is refused on writing, before the file is touched")
  func pastTheLimit() throws {
    let model = try #require(Self.model)
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    for format in StoreLimitTests.formats {
      let url = folder.appendingPathComponent(StoreLimitTests.fileName(format))
      let value = AttributeValue.binaryData(Data(count: (1 << 27) + 1))
      let error = try #require(throws: StoreError.self) {
        try format.write(StoreLimitTests.contents("binary", value), model: model, to: url)
      }
      #expect(error.code == .limitExceeded)
      #expect(
        error.description
          == "Everything.binary: a value of 134217729 bytes is larger than the limit of"
          + " 134217728 bytes (128 MiB)")
      #expect(!FileManager.default.fileExists(atPath: url.path))
    }
  }
}
