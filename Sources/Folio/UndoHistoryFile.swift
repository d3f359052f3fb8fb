import FolioDiagnostics
import FolioStores
internal import FolioSupport
import Foundation

/// Why a document's kept undo history was not restored or not written.
public typealias UndoHistoryError = CodedError<UndoHistoryErrorCode>

/// What went wrong in an `UndoHistoryError`, to switch on: `UndoHistoryError.Code`.
public struct UndoHistoryErrorCode: Hashable, Sendable, CustomStringConvertible {
  /// The history file is not one, or its bytes are damaged; the location gives the byte.
  public static let damaged = UndoHistoryErrorCode(.damaged)
  /// The history belongs to another state of the document (it was saved elsewhere since), or
  /// names objects, entities or keys the document does not have.
  public static let mismatch = UndoHistoryErrorCode(.mismatch)
  /// The history could not be read or written.
  public static let io = UndoHistoryErrorCode(.io)

  private enum Kind: Hashable, Sendable { case damaged, mismatch, io }
  private var kind: Kind
  private init(_ kind: Kind) { self.kind = kind }

  /// The member's name: `damaged`.
  public var description: String { "\(kind)" }
}

/// The file a document's undo history is kept in, beside the document
/// (`Formats/undo-history.md`): a header naming the document's bytes it belongs to, a checksum
/// per block of the rest, and the stacks as JSON.
enum UndoHistoryFile {
  static let magic = Array("FOLIOUND".utf8)
  static let version: UInt32 = 1
  static let headerSize = 40
  static let blockSize = 4096

  /// The document's size and CRC-32: of its file, then its `-wal` file when there is one.
  struct Fingerprint: Equatable {
    var size: UInt64 = 0
    var crc: UInt32 = 0
  }

  /// The history file of the document at `url`: `NAME.EXT.folio-undo` beside it.
  static func url(for document: URL) -> URL {
    document.deletingLastPathComponent()
      .appendingPathComponent(document.lastPathComponent + ".folio-undo")
  }

  static func fingerprint(of document: URL) throws -> Fingerprint {
    var fingerprint = Fingerprint()
    let wal = URL(fileURLWithPath: document.path + "-wal")
    for file in [document, wal]
    where file == document || FileManager.default.fileExists(atPath: file.path) {
      let handle = try FileHandle(forReadingFrom: file)
      defer { try? handle.close() }
      while let chunk = try handle.read(upToCount: 1 << 22), !chunk.isEmpty {
        fingerprint.size += UInt64(chunk.count)
        fingerprint.crc = chunk.withUnsafeBytes { Zlib.crc32($0, continuing: fingerprint.crc) }
      }
    }
    return fingerprint
  }

  /// The most JSON a file of at most `bytes` holds.
  static func payloadLimit(forFileSize bytes: Int) -> Int {
    let blocks = (bytes + blockSize - 1) / blockSize
    return max(0, bytes - headerSize - 4 * blocks)
  }

  static func encode(_ payload: Data, for fingerprint: Fingerprint) -> Data {
    var bytes = magic
    func append<T: FixedWidthInteger>(_ value: T) {
      withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
    let blocks = (payload.count + blockSize - 1) / blockSize
    append(version)
    append(fingerprint.size)
    append(fingerprint.crc)
    append(UInt64(payload.count))
    append(UInt32(blockSize))
    append(UInt32(blocks))
    payload.withUnsafeBytes { raw in
      for block in 0..<blocks {
        let range = (block * blockSize)..<min(payload.count, (block + 1) * blockSize)
        append(Zlib.crc32(UnsafeRawBufferPointer(rebasing: raw[range])))
      }
    }
    bytes.append(contentsOf: payload)
    return Data(bytes)
  }

  /// The JSON of the history in `data`, read from `file`, once its bytes check out and it
  /// belongs to the document whose fingerprint is `document`.
  static func payload(of data: Data, file: String, document: Fingerprint) throws(UndoHistoryError)
    -> Data
  {
    let bytes = [UInt8](data)
    func damaged(_ message: String, at offset: Int) -> UndoHistoryError {
      UndoHistoryError(.damaged, message, at: InputLocation(file: file, byteOffset: offset))
    }
    func integer<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
      bytes[offset..<offset + MemoryLayout<T>.size].reversed().reduce(T(0)) { $0 << 8 | T($1) }
    }
    guard bytes.count >= headerSize else {
      throw damaged("the file ends inside the \(headerSize)-byte header", at: bytes.count)
    }
    guard Array(bytes[0..<8]) == magic else {
      throw damaged("not an undo history: it does not start with FOLIOUND", at: 0)
    }
    guard integer(UInt32.self, at: 8) == version else {
      throw damaged("version \(integer(UInt32.self, at: 8)) is not 1", at: 8)
    }
    let length = integer(UInt64.self, at: 24)
    let block = Int(integer(UInt32.self, at: 32))
    let blocks = Int(integer(UInt32.self, at: 36))
    guard block > 0, length <= UInt64(Int.max / 2),
      blocks == (Int(length) + block - 1) / block
    else { throw damaged("the block size and count do not fit the length", at: 24) }
    let start = headerSize + 4 * blocks
    guard bytes.count == start + Int(length) else {
      throw damaged(
        "the file is \(bytes.count) bytes; its header says \(start + Int(length))",
        at: min(bytes.count, start + Int(length)))
    }
    for index in 0..<blocks {
      let range = (start + index * block)..<min(bytes.count, start + (index + 1) * block)
      let crc = bytes[range].withUnsafeBytes { Zlib.crc32($0) }
      guard crc == integer(UInt32.self, at: headerSize + 4 * index) else {
        throw damaged(
          "bytes \(range.lowerBound)–\(range.upperBound - 1) do not match their checksum",
          at: range.lowerBound)
      }
    }
    let kept = Fingerprint(size: integer(UInt64.self, at: 12), crc: integer(UInt32.self, at: 20))
    guard kept == document else {
      throw UndoHistoryError(
        .mismatch,
        "the history was kept for another version of the document (\(kept.size) bytes, CRC-32 \(String(kept.crc, radix: 16))); it changed since",
        at: InputLocation(file: file, byteOffset: 12))
    }
    return Data(bytes[start...])
  }
}
