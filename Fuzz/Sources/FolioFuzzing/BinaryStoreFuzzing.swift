import CZlib
import FolioBinaryStore
import FolioModel
import FolioStores
import Foundation

/// The binary store reader: any bytes, read as a `.folio` file.
///
/// Each input is read as `folio info` reads a store: the metadata alone, the embedded model,
/// then the whole store with the embedded model and with each fixed model whose version hash
/// the header names (or with the first fixed model, for the mismatch path). Random changes
/// almost never keep the file's CRC-32s right, so the harness then repairs the header's and
/// every section's checksum as the spec defines them and reads the result again: the reader's
/// checks after the checksums get fuzzed too.
package enum BinaryStoreFuzzing: FuzzTarget {
  private static let scratch = ScratchFile("store.folio")

  /// Loads the fixed models and warms the reader up.
  package static func prepare() {
    _ = FixedModels.all
    run(Data())
  }

  /// Runs one input.
  package static func run(_ input: Data) {
    read(input)
    let repaired = BinaryStoreBytes.repairingChecksums(input)
    if repaired != input { read(repaired) }
  }

  private static func read(_ bytes: Data) {
    let url = scratch.write(bytes)
    let store = BinaryStore()
    attempt("metadata") { try store.readMetadata(from: url) }
    if let embedded = attempt("embedded model", { try store.readModel(from: url) }) ?? nil {
      attempt("read with the embedded model") { try store.read(from: url, model: embedded) }
    }
    let header = bytes.count >= 48 ? Data(bytes[16..<48]) : Data()
    let matching = FixedModels.all.filter { $0.versionHash == header }
    for model in matching.isEmpty ? [FixedModels.all[0]] : matching {
      attempt("read with \(model.entities.first?.name ?? "")…") {
        try store.read(from: url, model: model)
      }
    }
  }
}

/// The inflated content of a binary store's `BODY` section: any bytes, wrapped by the harness
/// in a well-formed file for each fixed model and read with that model.
///
/// The body is always deflated, and random changes to deflated bytes rarely inflate, so this
/// target fuzzes the body decoder (string table, entity directory, columns, values) directly.
///
/// A whole-store read builds a block of 32,768 rows or more in two halves at once, on two
/// threads, which no input of libFuzzer's size reaches. So each input is also read as a bare
/// body twice, in one run and with every block of two rows or more built in halves: the two
/// must give equal records or the same error (the first in row order); the harness traps
/// when they do not.
package enum BinaryBodyFuzzing: FuzzTarget {
  private static let scratch = ScratchFile("body.folio")

  /// Loads the fixed models and warms the reader up.
  package static func prepare() {
    _ = FixedModels.all
    run(Data())
  }

  /// Runs one input.
  package static func run(_ input: Data) {
    for model in FixedModels.all {
      let url = scratch.write(BinaryStoreBytes.file(body: input, model: model))
      attempt("body read with \(model.entities.first?.name ?? "")…") {
        try BinaryStore().read(from: url, model: model)
      }
      compareHalves(input, model: model)
    }
  }

  /// Traps unless `body` read in one run, read in halves, and taken record by record give
  /// the same outcome.
  private static func compareHalves(_ body: Data, model: ManagedObjectModel) {
    let whole = records(body, model: model, parallelRows: .max)
    for (other, how) in [
      (records(body, model: model, parallelRows: 2), "read in halves"),
      (records(body, model: model, parallelRows: 2, streamed: true), "taken record by record"),
    ] {
      switch (whole, other) {
      case (.success(let left), .success(let right)):
        // Compared to the bit: a record holding a NaN is not `==` to itself.
        precondition(
          left.elementsEqual(right) { $0.isIdentical(to: $1) },
          "a body \(how) gives other records than in one run")
      case (.failure(let left), .failure(let right)):
        precondition(
          left.description == right.description,
          "a body \(how) fails otherwise: \(right), in one run: \(left)")
      default:
        preconditionFailure("a body read in one run gives \(whole), \(how) \(other)")
      }
    }
  }

  private static func records(
    _ body: Data, model: ManagedObjectModel, parallelRows: Int, streamed: Bool = false
  ) -> Result<[StoreRecord], StoreError> {
    body.withUnsafeBytes { raw in
      do throws(StoreError) {
        return .success(
          try BinaryStore.records(
            ofBody: raw, model: model, parallelRows: parallelRows, streamed: streamed
          ).records)
      } catch {
        return .failure(error)
      }
    }
  }
}

/// Binary store files built and patched by `Formats/binary-store.md`, independently of
/// FolioStores' own writer.
package enum BinaryStoreBytes {
  static let magic: [UInt8] = [0x89, 0x46, 0x4F, 0x4C, 0x49, 0x4F, 0x0D, 0x0A, 0x1A, 0x0A]
  static let headerLength = 56
  static let entryLength = 36

  /// `bytes` with the header checksum and every in-range section checksum recomputed; the
  /// bytes unchanged when the header or table does not fit.
  package static func repairingChecksums(_ bytes: Data) -> Data {
    var file = [UInt8](bytes)
    guard file.count >= headerLength else { return bytes }
    let count = Int(littleEndian(file, at: 48, size: 4))
    let tableEnd = headerLength + count * entryLength
    guard count <= 1024, tableEnd <= file.count else { return bytes }
    for index in 0..<count {
      let entry = headerLength + index * entryLength
      let offset = littleEndian(file, at: entry + 8, size: 8)
      let length = littleEndian(file, at: entry + 16, size: 8)
      guard offset <= UInt64(file.count), length <= UInt64(file.count) - offset else { continue }
      let crc = crc32(file[Int(offset)..<Int(offset + length)])
      store(crc, in: &file, at: entry + 32)
    }
    store(crc32(file[0..<52] + file[headerLength..<tableEnd]), in: &file, at: 52)
    return Data(file)
  }

  /// A file whose `BODY` content is `body` (stored with zlib, uncompressed), with a minimal
  /// `META` section and `model`'s version hash.
  package static func file(body: Data, model: ManagedObjectModel) -> Data {
    let meta = metadataSection()
    let deflated = zlibStream(of: [UInt8](body))
    let sections: [(kind: String, flags: UInt16, stored: [UInt8], length: Int)] = [
      ("META", 1, meta, meta.count), ("BODY", 3, deflated, body.count),
    ]
    var header: [UInt8] = magic
    append(UInt64(1), size: 2, to: &header)  // major version
    append(UInt64(1), size: 2, to: &header)  // minor version
    append(UInt64(0), size: 2, to: &header)  // flags
    header += [UInt8](model.versionHash)
    append(UInt64(sections.count), size: 4, to: &header)
    var table: [UInt8] = []
    var offset = headerLength + sections.count * entryLength
    for section in sections {
      table += Array(section.kind.utf8)
      append(UInt64(section.flags), size: 2, to: &table)
      append(0, size: 2, to: &table)
      append(UInt64(offset), size: 8, to: &table)
      append(UInt64(section.stored.count), size: 8, to: &table)
      append(UInt64(section.length), size: 8, to: &table)
      append(UInt64(crc32(section.stored[...])), size: 4, to: &table)
      offset += section.stored.count
    }
    append(UInt64(crc32((header + table)[...])), size: 4, to: &header)
    return Data(header + table + sections.flatMap(\.stored))
  }

  /// Identifier, store type, next object ID (above any ID), no framework version, no version
  /// identifiers, no entity hashes, and an empty user dictionary.
  private static func metadataSection() -> [UInt8] {
    var bytes: [UInt8] = []
    for text in ["fuzz", "Binary"] {
      append(UInt64(text.utf8.count), size: 4, to: &bytes)
      bytes += Array(text.utf8)
    }
    append(UInt64(Int64.max), size: 8, to: &bytes)
    bytes.append(0)
    append(0, size: 8, to: &bytes)
    append(0, size: 4, to: &bytes)
    append(0, size: 4, to: &bytes)
    bytes.append(9)
    append(0, size: 4, to: &bytes)
    return bytes
  }

  /// One zlib stream of `bytes`, at level 0 so that the inflation-ratio limit never refuses it.
  private static func zlibStream(of bytes: [UInt8]) -> [UInt8] {
    var length = compressBound(uLong(bytes.count))
    var output = [UInt8](repeating: 0, count: Int(length))
    let status = output.withUnsafeMutableBufferPointer { out in
      bytes.withUnsafeBufferPointer { input in
        compress2(out.baseAddress, &length, input.baseAddress, uLong(input.count), 0)
      }
    }
    guard status == Z_OK else { preconditionFailure("zlib compress2 failed with \(status)") }
    return Array(output.prefix(Int(length)))
  }

  private static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    bytes.withUnsafeBufferPointer { buffer in
      UInt32(CZlib.crc32(0, buffer.baseAddress, uInt(buffer.count)))
    }
  }

  private static func littleEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
    (0..<size).reduce(UInt64(0)) { value, index in
      value | UInt64(bytes[offset + index]) << (8 * UInt64(index))
    }
  }

  private static func store(_ value: UInt32, in bytes: inout [UInt8], at offset: Int) {
    for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
  }

  private static func append(_ value: UInt64, size: Int, to bytes: inout [UInt8]) {
    for index in 0..<size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
  }
}
