import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioStores
@testable import FolioSupport
@testable import FolioXMLStore

/// A store is read from its file a piece at a time, its body inflated as the pieces arrive:
/// the result, and every refusal, must be those of the whole file read at once.
@Suite("Binary store: reading a file in pieces")
struct BinaryStoreStreamingTests {
  let store = BinaryStore()

  /// What inflating `stream` into `length` bytes in pieces of `piece` bytes gives; the whole
  /// stream at once by default.
  func inflated(_ stream: [UInt8], length: Int, piece: Int = .max) -> Result<
    [UInt8], InflateFailure
  > {
    stream.withUnsafeBytes { raw in
      Result { () throws(InflateFailure) in
        try Zlib.inflate(raw, length: length, pieceSize: piece)
      }
    }
  }

  func describe(_ result: Result<[UInt8], InflateFailure>) -> String {
    switch result {
    case .success(let bytes): "\(bytes.count) bytes, sum \(bytes.reduce(0) { $0 &+ Int($1) })"
    case .failure(let failure): "\(failure)"
    }
  }

  @Test("a stream cut into pieces of any size inflates, or fails, as the whole stream does")
  func piecesAgreeWithOneShot() throws {
    var generator = SeededGenerator(seed: 20_261_124)
    let words = ["amount", "person", "Spending", "shop", " ", "\n", "0", "7"]
    let text = (0..<3_000).map { _ in words.randomElement(using: &generator)! }.joined()
    let original = Array(text.utf8)
    let stream = original.withUnsafeBytes { Zlib.deflate($0, level: 6) }
    var corrupted = stream
    corrupted[stream.count / 2] ^= 0x55
    let cases: [(name: String, stream: [UInt8], length: Int)] = [
      ("whole", stream, original.count),
      ("declared one byte short", stream, original.count - 1),
      ("declared one byte long", stream, original.count + 1),
      ("bytes after the end", stream + [0, 1, 2], original.count),
      ("cut short", Array(stream.dropLast(9)), original.count),
      ("Adler-32 cut off", Array(stream.dropLast(4)), original.count),
      ("half the Adler-32 cut off", Array(stream.dropLast(2)), original.count),
      ("corrupted", corrupted, original.count),
      ("empty", [], original.count),
    ]
    for (name, bytes, length) in cases {
      let expected = describe(inflated(bytes, length: length))
      if name == "whole" { #expect(expected == describe(.success(original))) }
      for piece in [1, 2, 3, 5, 64, 1_000, 4_096, bytes.count + 1] {
        #expect(
          describe(inflated(bytes, length: length, piece: piece)) == expected,
          "\(name), pieces of \(piece) bytes")
      }
    }
  }

  /// What inflating `stream` gives when its Adler-32 is checked or not.
  func inflated(_ stream: [UInt8], length: Int, checksAdler32: Bool) -> String {
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 1)
    defer { output.deallocate() }
    var inflater = Inflater(into: output, checksAdler32: checksAdler32)
    stream.withUnsafeBytes { inflater.feed($0) }
    do throws(InflateFailure) {
      try inflater.finish()
      return describe(.success(Array(output)))
    } catch {
      return describe(.failure(error))
    }
  }

  @Test("the body's Adler-32 is left to the section's CRC-32; its four bytes must still be there")
  func adler32() throws {
    let original = Array(String(repeating: "amount person Spending ", count: 200).utf8)
    let stream = original.withUnsafeBytes { Zlib.deflate($0, level: 6) }
    var wrongSum = stream
    wrongSum[stream.count - 1] ^= 0x01
    let whole = describe(.success(original))
    #expect(inflated(stream, length: original.count, checksAdler32: true) == whole)
    #expect(inflated(stream, length: original.count, checksAdler32: false) == whole)
    #expect(inflated(wrongSum, length: original.count, checksAdler32: true).hasPrefix("corrupt"))
    #expect(inflated(wrongSum, length: original.count, checksAdler32: false) == whole)
    for cut in 1...4 {
      let short = Array(stream.dropLast(cut))
      #expect(
        inflated(short, length: original.count, checksAdler32: false)
          == describe(
            .failure(.cutShort(consumed: short.count))),
        "\(cut) bytes of the Adler-32 missing")
    }
    #expect(
      inflated(stream + [0], length: original.count, checksAdler32: false)
        == describe(.failure(.trailingBytes(consumed: stream.count))))

    // In a file, the section's CRC-32 catches what the Adler-32 would have.
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("adler.folio")
    let model = try BinaryFixtures.model()
    try store.write(BinaryFixtures.contents(), model: model, to: url)
    let file = try Data(contentsOf: url)
    let table = try file.withUnsafeBytes { raw in
      try BinaryContainer(prefix: raw, fileSize: file.count, file: url.path)
    }
    let body = try #require(table.sections.first { $0.name == "BODY" })
    var damaged = file
    damaged[body.offset + body.storedLength - 1] ^= 0x01
    try damaged.write(to: url)
    let error = try #require(
      XMLStoreSupport.storeError { () throws(StoreError) in
        _ = try store.read(from: url, model: model)
      })
    #expect(error.code == .badChecksum)
  }

  /// A store whose file is several read pieces long: people with incompressible names.
  func largeContents() -> StoreContents {
    var generator = SeededGenerator(seed: 7)
    var records: [StoreRecord] = []
    for id in 1...24_000 {
      let name = (0..<6).map { _ in String(generator.next(), radix: 36) }.joined(separator: " ")
      records.append(
        StoreRecord(
          entityName: "Person", id: Int64(id), attributes: ["name": .string(name)],
          relationships: id > 1 ? ["friends": [Int64(id - 1)]] : [:]))
      if id > 1 { records[id - 2].relationships["friends", default: []].append(Int64(id)) }
    }
    return StoreContents(metadata: StoreMetadata(storeType: "Binary"), records: records)
  }

  @Test("a file of many read pieces loads from disk as from memory, and refuses damage anywhere")
  func largeFile() throws {
    let model = try BinaryFixtures.model()
    let contents = largeContents()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("large.folio")
    try store.write(contents, model: model, to: url)
    let bytes = try [UInt8](Data(contentsOf: url))
    let pieceSize = try FileSource(url: url).pieceSize
    #expect(bytes.count > 4 * pieceSize)

    let loaded = try store.read(from: url, model: model)
    #expect(loaded.records == contents.records)
    #expect(loaded == (try store.decode(Data(bytes), model: model, file: url.path)))

    // A byte flipped in the last piece of the body, read from disk.
    var damaged = bytes
    damaged[bytes.count - 1_000] ^= 0x20
    try Data(damaged).write(to: url)
    let flipped = try #require(throws: StoreError.self) {
      try store.read(from: url, model: model)
    }
    #expect(flipped.code == .badChecksum)

    // A file cut inside its body: the table promises more than the file holds.
    try Data(bytes.prefix(bytes.count * 2 / 3)).write(to: url)
    let cut = try #require(throws: StoreError.self) { try store.read(from: url, model: model) }
    #expect(cut.code == .truncated)
    #expect(cut.location?.byteOffset == bytes.count * 2 / 3)
  }
}
