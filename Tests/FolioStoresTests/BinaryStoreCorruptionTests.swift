import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioStores
@testable import FolioSupport

@Suite("Binary store: bad input")
struct BinaryStoreCorruptionTests {
  let store = BinaryStore()

  /// A small file with a few values of several types and some relationships.
  func smallFile() throws -> (bytes: [UInt8], model: ManagedObjectModel) {
    let model = try BinaryFixtures.model()
    let records = [
      StoreRecord(
        entityName: "Everything", id: 1,
        attributes: [
          "int16": .integer(-5), "string": .string("hi"), "double": .double(1.5),
          "binary": .binaryData(Data([1, 2, 3])), "decimal": .decimal(Decimal(7)),
          "location": .composite(["floor": .integer(3)]),
        ]),
      StoreRecord(
        entityName: "Person", id: 2, attributes: ["name": .string("Ada")],
        relationships: ["tags": [3], "spouse": [2]]),
      StoreRecord(
        entityName: "Tag", id: 3, attributes: ["label": .string("x")],
        relationships: ["people": [2]]),
    ]
    var metadata = StoreMetadata(storeType: "Binary", identifier: "S")
    metadata.userInfo = ["k": .integer(1)]
    let contents = StoreContents(metadata: metadata, records: records)
    return (try store.encode(contents, model: model), model)
  }

  @Test("every flipped byte of a small file is refused with a typed error")
  func everyFlippedByte() throws {
    let (bytes, model) = try smallFile()
    _ = try store.decode(Data(bytes), model: model, file: "s.folio")
    var codes: [StoreError.Code: Int] = [:]
    for position in bytes.indices {
      for mask: UInt8 in [0xFF, 0x01, 0x80] {
        var copy = bytes
        copy[position] ^= mask
        do {
          _ = try store.decode(Data(copy), model: model, file: "s.folio")
          Issue.record("flipping byte \(position) with \(mask) was not noticed")
        } catch {
          codes[error.code, default: 0] += 1
          #expect(error.location?.byteOffset != nil, "no byte offset: \(error)")
        }
      }
    }
    #expect(codes[.badChecksum, default: 0] > bytes.count, "\(codes)")
    #expect(codes[.badMagic, default: 0] == 30)
  }

  @Test("a file cut at every length is refused as truncated")
  func everyTruncation() throws {
    let (bytes, model) = try smallFile()
    for length in 0..<bytes.count {
      let error = try #require(throws: StoreError.self, "length \(length)") {
        try store.decode(Data(bytes.prefix(length)), model: model, file: "s.folio")
      }
      #expect(error.code == .truncated, "length \(length): \(error)")
    }
  }

  @Test("a truncated file's metadata is refused too")
  func truncatedMetadata() throws {
    let (bytes, _) = try smallFile()
    let (file, folder) = try BinaryFixtures.temporaryFile()
    defer { try? FileManager.default.removeItem(at: folder) }
    for length in [0, 5, 20, 60, 100, bytes.count - 1] {
      try Data(bytes.prefix(length)).write(to: file)
      let error = try #require(throws: StoreError.self) { try store.readMetadata(from: file) }
      #expect(error.code == .truncated, "length \(length): \(error)")
    }
  }

  @Test("text-mode and UTF-8 mangling break the magic")
  func mangling() throws {
    let (bytes, model) = try smallFile()
    var crlfToLF: [UInt8] = []
    for (index, byte) in bytes.enumerated()
    where !(byte == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A) {
      crlfToLF.append(byte)
    }
    var lfToCRLF: [UInt8] = []
    for byte in bytes {
      if byte == 0x0A { lfToCRLF.append(0x0D) }
      lfToCRLF.append(byte)
    }
    let latin1AsUTF8 = Array(String(bytes.map { Character(UnicodeScalar($0)) }).utf8)
    let lossyUTF8 = Array(String(decoding: bytes, as: UTF8.self).utf8)
    let sevenBit = bytes.map { $0 & 0x7F }
    for (name, mangled) in [
      ("CR LF to LF", crlfToLF), ("LF to CR LF", lfToCRLF), ("Latin-1 as UTF-8", latin1AsUTF8),
      ("lossy UTF-8", lossyUTF8), ("7-bit", sevenBit),
    ] {
      let error = try #require(throws: StoreError.self, "\(name)") {
        try store.decode(Data(mangled), model: model, file: "s.folio")
      }
      #expect(error.code == .badMagic, "\(name): \(error)")
    }
    let error = try #require(throws: StoreError.self) {
      try store.decode(Data(crlfToLF), model: model, file: "s.folio")
    }
    #expect(
      error.description
        == "s.folio@0: the file does not start with the binary store's magic 89 46 4F 4C 49 4F"
        + " 0D 0A 1A 0A (found 89 46 4F 4C 49 4F 0A 1A 0A 01); a text-mode transfer may have"
        + " changed it")
  }

  /// `bytes` with section `index`'s declared inflated length set to `length`, the header's
  /// checksum recomputed so only the lie remains.
  func declaring(_ bytes: [UInt8], section index: Int, length: UInt64) -> [UInt8] {
    var copy = bytes
    let field = BinaryFormat.headerLength + index * BinaryFormat.entryLength + 24
    withUnsafeBytes(of: length.littleEndian) { raw in
      for offset in 0..<8 { copy[field + offset] = raw[offset] }
    }
    let count = Int(copy[48]) | Int(copy[49]) << 8
    let tableEnd = BinaryContainer.prefixLength(sectionCount: count)
    let crc = copy.withUnsafeBytes { raw in
      Zlib.crc32(
        UnsafeRawBufferPointer(rebasing: raw[56..<tableEnd]),
        continuing: Zlib.crc32(UnsafeRawBufferPointer(rebasing: raw[0..<52])))
    }
    withUnsafeBytes(of: crc.littleEndian) { raw in
      for offset in 0..<4 { copy[52 + offset] = raw[offset] }
    }
    return copy
  }

  @Test("a file of 1,024 sections is read; one of 1,025 is refused at its section count")
  func sectionCount() throws {
    let model = try BinaryFixtures.model()
    let meta = try BinaryMetadataCoding.encode(
      StoreMetadata(storeType: "Binary"), entityHashes: [:], nextObjectID: 1)
    let body = try BinaryBodyWriter.encode([], model: model)
    func file(sections: Int) -> [UInt8] {
      // Unknown optional sections, which readers skip.
      var contents: [(kind: UInt32, flags: SectionFlags, bytes: [UInt8])] = [
        (SectionKind.metadata, [.required], meta),
        (SectionKind.body, [.required, .deflated], body),
      ]
      for _ in 2..<sections { contents.append((UInt32(0x5854_5241), [], [])) }
      return BinaryContainer.assemble(contents, modelHash: model.versionHash)
    }
    #expect(
      try store.decode(Data(file(sections: 1024)), model: model, file: "s.folio")
        .records.isEmpty)
    let error = try #require(throws: StoreError.self) {
      try store.decode(Data(file(sections: 1025)), model: model, file: "s.folio")
    }
    #expect(error.code == .malformedStore)
    #expect(error.message.contains("the section count 1025 is over the limit of 1024"), "\(error)")
    #expect(error.location?.byteOffset == 48, "\(error)")
  }

  @Test("a decompression bomb is refused at its declared length")
  func decompressionBomb() throws {
    let model = try BinaryFixtures.model()
    let meta = try BinaryMetadataCoding.encode(
      StoreMetadata(storeType: "Binary"), entityHashes: [:], nextObjectID: 1)
    let zeros = [UInt8](repeating: 0, count: 64 << 20)
    let bytes = BinaryContainer.assemble(
      [
        (SectionKind.metadata, [.required], meta),
        (SectionKind.body, [.required, .deflated], zeros),
      ],
      modelHash: model.versionHash)
    #expect(bytes.count < 1 << 20)
    let small = declaring(bytes, section: 1, length: 1000)
    let error = try #require(throws: StoreError.self) {
      try store.decode(Data(small), model: model, file: "bomb.folio")
    }
    #expect(error.code == .malformedStore)
    #expect(error.message == "section \"BODY\" inflates to more than the 1000 bytes it declares")
    let huge = declaring(bytes, section: 1, length: 1 << 40)
    let hugeError = try #require(throws: StoreError.self) {
      try store.decode(Data(huge), model: model, file: "bomb.folio")
    }
    #expect(hugeError.code == .malformedStore)
    #expect(hugeError.message.contains("beyond zlib's ratio"), "\(hugeError)")
  }

  @Test(
    "hostile bodies with valid checksums are refused",
    arguments: [
      ("huge string count", [0xFF, 0xFF, 0xFF, 0xFF], StoreError.Code.malformedStore),
      ("string past the end", [1, 0, 0, 0, 0xFF, 0xFF, 0, 0, 65], .truncated),
      ("huge entity count", [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F], .malformedStore),
      ("bad UTF-8", [1, 0, 0, 0, 1, 0, 0, 0, 0xFF, 0, 0, 0, 0], .malformedStore),
      ("string index out of range", [0, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0], .malformedStore),
      ("trailing bytes", [0, 0, 0, 0, 0, 0, 0, 0, 1], .malformedStore),
      ("cut short", [0, 0, 0], .truncated),
      // One string of 128 MiB + 1: refused by its length, before its bytes are looked for.
      ("string over the value limit", [1, 0, 0, 0, 1, 0, 0, 8], .limitExceeded),
    ] as [(String, [UInt8], StoreError.Code)])
  func hostileBodies(name: String, body: [UInt8], code: StoreError.Code) throws {
    let model = try BinaryFixtures.model()
    let meta = try BinaryMetadataCoding.encode(
      StoreMetadata(storeType: "Binary"), entityHashes: [:], nextObjectID: 1)
    let bytes = BinaryContainer.assemble(
      [
        (SectionKind.metadata, [.required], meta),
        (SectionKind.body, [.required, .deflated], body),
      ],
      modelHash: model.versionHash)
    let error = try #require(throws: StoreError.self, "\(name)") {
      try store.decode(Data(bytes), model: model, file: "h.folio")
    }
    #expect(error.code == code, "\(name): \(error)")
    #expect(error.message.contains("BODY section, byte"), "\(name): \(error)")
  }
}
