import CZlib
import FolioModel
import FolioSQLiteStore
import FolioStores
import Foundation

/// What Folio's SQLite store decodes and derives itself (SQLite parses the database): the
/// metadata's binary property list, the model Core Data caches in `Z_MODELCACHE`, and the
/// mapping of a model onto Core Data's tables and columns.
///
/// The first byte of an input chooses what the rest is:
/// - 0 (mod 3): a binary property list (`Z_METADATA.Z_PLIST`). One that decodes is encoded
///   again and must decode to the same value, encoded the same; the harness traps otherwise.
/// - 1: a `Z_MODELCACHE` blob (raw DEFLATE of a keyed archive of a model), or, when the rest
///   starts `bplist00`, the keyed archive itself, which the harness deflates: random changes
///   to deflated bytes rarely inflate, so only these reach the archive's reader.
/// - 2: an Xcode model's `contents`.
///
/// A model from 1 or 2 is laid out as SQLite tables. A model the store can hold is written as
/// an empty store and read back, which must succeed: the writer and the reader agree on every
/// table and column name; one it cannot hold must be refused with `.modelMismatch`.
package enum SQLiteFuzzing: FuzzTarget {
  private static let scratch = ScratchFile("store.sqlite")

  /// Warms the decoders up.
  package static func prepare() {
    for mode in 0..<3 { run(Data([UInt8(mode)])) }
  }

  /// Runs one input.
  package static func run(_ input: Data) {
    guard let mode = input.first else { return }
    let rest = Data(input.dropFirst())
    switch mode % 3 {
    case 0:
      propertyList(rest)
    case 1:
      let blob = rest.starts(with: Array("bplist00".utf8)) ? rawDeflate(rest) : rest
      if let model = attempt("model cache", { try SQLiteModelCache.decode(blob, file: nil) }) {
        layOut(model)
      }
    default:
      if let model = attempt("model", { try ManagedObjectModel(xcodeModelData: rest) }) {
        layOut(model)
      }
    }
  }

  private static func propertyList(_ bytes: Data) {
    guard let node = attempt("property list", { try BinaryPropertyList.decode(bytes, file: nil) }),
      let value = node.propertyListValue
    else { return }
    let encoded = BinaryPropertyList.encode(value)
    let again: PropertyListNode
    do {
      again = try BinaryPropertyList.decode(encoded, file: nil)
    } catch {
      preconditionFailure("an encoded property list does not decode: \(error)")
    }
    guard let value = again.propertyListValue else {
      preconditionFailure("an encoded property list decodes to what it cannot hold")
    }
    // Bytes, not values, are compared: NaN is not equal to itself.
    precondition(
      BinaryPropertyList.encode(value) == encoded, "a property list encodes differently again")
  }

  /// `bytes` as raw DEFLATE, as Core Data writes a model cache: zlib's stream, stored
  /// uncompressed, without its 2-byte header and 4-byte checksum.
  private static func rawDeflate(_ bytes: Data) -> Data {
    var length = compressBound(uLong(bytes.count))
    var output = [UInt8](repeating: 0, count: Int(length))
    let status = output.withUnsafeMutableBufferPointer { out in
      bytes.withUnsafeBytes { input in
        compress2(
          out.baseAddress, &length, input.bindMemory(to: UInt8.self).baseAddress,
          uLong(input.count), 0)
      }
    }
    guard status == Z_OK else { preconditionFailure("zlib compress2 failed with \(status)") }
    return Data(output[2..<Int(length) - 4])
  }

  private static func layOut(_ model: ManagedObjectModel) {
    let schema = SQLiteSchema(model: model)
    let store = SQLiteStore()
    let contents = StoreContents(metadata: StoreMetadata(storeType: "SQLite"), records: [])
    try? FileManager.default.removeItem(at: scratch.url)
    do {
      try store.write(contents, model: model, to: scratch.url)
    } catch {
      precondition(
        !schema.unsupported.isEmpty && error.code == .modelMismatch,
        "an empty store of a model SQLite can hold is not written: \(error)")
      return
    }
    precondition(schema.unsupported.isEmpty, "a model SQLite cannot hold is written")
    do {
      _ = try store.read(from: scratch.url, model: model)
    } catch {
      preconditionFailure("an empty store written for a model does not read back: \(error)")
    }
  }
}
