import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

// The container: header and section table, read and checked before any section is decoded.
//
// Checks run in the order the spec gives: the magic, then the major version (so a newer file
// is reported as newer, not as corrupt), then that the table fits in the file, then the
// header's CRC-32 (which covers the table), then flags and each entry. Sections must follow
// the table back to back and end exactly at the end of the file, so every byte is checked.

/// A binary store's header and section table.
struct BinaryContainer: Sendable {
  var majorVersion: UInt16
  var minorVersion: UInt16
  var flags: UInt16
  /// The SHA-256 version hash of the model the store was written with.
  var modelHash: Data
  var sections: [BinarySection]

  /// The length of the header plus a table of `count` entries.
  static func prefixLength(sectionCount count: Int) -> Int {
    BinaryFormat.headerLength + count * BinaryFormat.entryLength
  }

  /// How many bytes of the file the header and table take, read from the header alone.
  ///
  /// - Parameter header: the file's first bytes: all 56 of the header, or the whole file if
  ///   it is shorter.
  /// - Throws: `.badMagic`, `.unsupportedVersion`, `.truncated` or `.malformedStore`.
  static func prefixLength(header: UnsafeRawBufferPointer, fileSize: Int, file: String)
    throws(StoreError) -> Int
  {
    var reader = ByteReader(
      header, place: BinaryPlace(file: file, section: "header", fileOffset: 0))
    let magic = BinaryFormat.magic
    let seen = Array(header.prefix(magic.count))
    guard seen == Array(magic.prefix(seen.count)) else {
      throw StoreError.badMagic(found: seen, file: file)
    }
    try reader.require(magic.count, for: "the magic")
    _ = try reader.slice(magic.count, "the magic")
    let major = try reader.uint16("the major version")
    let minor = try reader.uint16("the minor version")
    guard major == BinaryFormat.majorVersion else {
      throw StoreError.unsupportedVersion(major: major, minor: minor, file: file)
    }
    _ = try reader.uint16("the flags")
    _ = try reader.slice(BinaryFormat.modelHashLength, "the model version hash")
    let countOffset = reader.offset
    let count = Int(try reader.uint32("the section count"))
    guard count <= BinaryFormat.maximumSectionCount else {
      throw reader.error(
        .malformedStore,
        "the section count \(count) is over the limit of \(BinaryFormat.maximumSectionCount)",
        at: countOffset)
    }
    let length = prefixLength(sectionCount: count)
    guard length <= fileSize else {
      throw StoreError(
        .truncated,
        "the file ends at byte \(fileSize) inside the section table of \(count) entries,"
          + " which ends at byte \(length)", at: InputLocation(file: file, byteOffset: fileSize))
    }
    return length
  }

  /// Reads the header and section table from `prefix`, the file's first
  /// ``prefixLength(header:fileSize:file:)`` bytes.
  ///
  /// - Throws: `.badMagic`, `.unsupportedVersion`, `.truncated`, `.badChecksum` or
  ///   `.malformedStore`, each naming the byte.
  init(prefix: UnsafeRawBufferPointer, fileSize: Int, file: String) throws(StoreError) {
    let length = try Self.prefixLength(header: prefix, fileSize: fileSize, file: file)
    precondition(prefix.count >= length, "binary store prefix shorter than its table")
    let place = BinaryPlace(file: file, section: "header", fileOffset: 0)
    var reader = ByteReader(UnsafeRawBufferPointer(rebasing: prefix[0..<length]), place: place)
    _ = try reader.slice(BinaryFormat.magic.count, "the magic")
    majorVersion = try reader.uint16("the major version")
    minorVersion = try reader.uint16("the minor version")
    flags = try reader.uint16("the flags")
    modelHash = Data(try reader.slice(BinaryFormat.modelHashLength, "the model version hash"))
    let count = Int(try reader.uint32("the section count"))
    let stored = try reader.uint32("the header checksum")
    let checksumOffset = BinaryFormat.headerLength - 4
    var crc = Zlib.crc32(UnsafeRawBufferPointer(rebasing: prefix[0..<checksumOffset]))
    crc = Zlib.crc32(
      UnsafeRawBufferPointer(rebasing: prefix[BinaryFormat.headerLength..<length]),
      continuing: crc)
    guard crc == stored else {
      throw StoreError.badChecksum(
        of: "the header and section table", stored: stored, computed: crc, file: file,
        offset: checksumOffset)
    }
    let unknownFlags = flags & BinaryFormat.requiredFlagsMask
    guard unknownFlags == 0 else {
      throw StoreError(
        .unsupportedVersion,
        "the file uses header flags 0x\(String(unknownFlags, radix: 16)) that this version of"
          + " Folio does not know; open it with a newer Folio",
        at: InputLocation(file: file, byteOffset: 14))
    }
    sections = []
    var next = length
    for index in 0..<count {
      let section = try Self.entry(&reader, index: index, expectedOffset: next, fileSize: fileSize)
      sections.append(section)
      next = section.offset + section.storedLength
    }
    guard next == fileSize else {
      throw StoreError(
        .malformedStore,
        "\(fileSize - next) bytes follow the last section, which ends at byte \(next)",
        at: InputLocation(file: file, byteOffset: next))
    }
  }

  private static func entry(
    _ reader: inout ByteReader, index: Int, expectedOffset: Int, fileSize: Int
  ) throws(StoreError) -> BinarySection {
    let start = reader.offset
    func fail(_ code: StoreError.Code, _ message: String) -> StoreError {
      reader.place.error(code, "section table entry \(index): \(message)", at: start)
    }
    let kind = try reader.uint32("a section kind")
    let flags = SectionFlags(rawValue: try reader.uint16("section flags"))
    let reserved = try reader.uint16("a reserved field")
    let offset = try reader.length("a section offset")
    let storedLength = try reader.length("a section's stored length")
    let length = try reader.length("a section's length")
    let checksum = try reader.uint32("a section checksum")
    let name = SectionKind.name(kind)
    guard flags.isSubset(of: .known), reserved == 0 else {
      throw fail(
        .malformedStore, "section \"\(name)\" has unknown flags or a nonzero reserved field")
    }
    guard offset == expectedOffset else {
      throw fail(
        .malformedStore,
        "section \"\(name)\" starts at byte \(offset), expected \(expectedOffset)")
    }
    guard storedLength <= fileSize - offset else {
      throw StoreError(
        .truncated,
        "section \"\(name)\" needs \(storedLength) bytes from byte \(offset) but the file ends"
          + " at byte \(fileSize)", at: InputLocation(file: reader.place.file, byteOffset: fileSize)
      )
    }
    if flags.contains(.deflated) {
      let limit = storedLength * BinaryFormat.maximumInflationRatio + 64
      guard length <= limit else {
        throw fail(
          .malformedStore,
          "section \"\(name)\" claims to inflate \(storedLength) bytes to \(length), beyond"
            + " zlib's ratio")
      }
    } else if length != storedLength {
      throw fail(
        .malformedStore,
        "section \"\(name)\" is stored as is but its lengths differ (\(storedLength) and \(length))"
      )
    }
    return BinarySection(
      kind: kind, flags: flags, offset: offset, storedLength: storedLength, length: length,
      checksum: checksum)
  }

  /// A whole file: the header for `modelHash`, a table for `contents`, and their bytes.
  ///
  /// Each content is deflated when its flags say so.
  static func assemble(
    _ contents: [(kind: UInt32, flags: SectionFlags, bytes: [UInt8])], modelHash: Data,
    major: UInt16 = BinaryFormat.majorVersion, minor: UInt16 = BinaryFormat.minorVersion,
    flags: UInt16 = 0
  ) -> [UInt8] {
    let stored = contents.map { content in
      content.flags.contains(.deflated)
        ? content.bytes.withUnsafeBytes {
          Zlib.deflate($0, level: BinaryFormat.compressionLevel)
        } : content.bytes
    }
    return assemble(
      stored: zip(contents, stored).map { ($0.kind, $0.flags, $1, $0.bytes.count) },
      modelHash: modelHash, major: major, minor: minor, flags: flags)
  }

  /// A whole file: the header for `modelHash`, a table for `sections` — each given as its
  /// stored bytes (already deflated when its flags say so) and its content's length — and
  /// their bytes.
  static func assemble(
    stored sections: [(kind: UInt32, flags: SectionFlags, bytes: [UInt8], length: Int)],
    modelHash: Data, major: UInt16, minor: UInt16, flags: UInt16
  ) -> [UInt8] {
    precondition(modelHash.count == BinaryFormat.modelHashLength, "model hashes are SHA-256")
    let contents = sections.map { (kind: $0.kind, flags: $0.flags, length: $0.length) }
    let stored = sections.map(\.bytes)
    var writer = ByteWriter(
      capacity: prefixLength(sectionCount: contents.count) + stored.reduce(0) { $0 + $1.count })
    writer.append(BinaryFormat.magic)
    writer.append(major)
    writer.append(minor)
    writer.append(flags)
    writer.append(modelHash)
    writer.append(UInt32(contents.count))
    writer.append(UInt32(0))
    var offset = prefixLength(sectionCount: contents.count)
    for (content, bytes) in zip(contents, stored) {
      writer.append(content.kind)
      writer.append(content.flags.rawValue)
      writer.append(UInt16(0))
      writer.append(UInt64(offset))
      writer.append(UInt64(bytes.count))
      writer.append(UInt64(content.length))
      writer.append(bytes.withUnsafeBytes { Zlib.crc32($0) })
      offset += bytes.count
    }
    let table = BinaryFormat.headerLength..<writer.count
    let checksum = writer.withUnsafeBytes { raw in
      Zlib.crc32(
        UnsafeRawBufferPointer(rebasing: raw[table]),
        continuing: Zlib.crc32(
          UnsafeRawBufferPointer(rebasing: raw[0..<BinaryFormat.headerLength - 4])))
    }
    writer.set(checksum, at: BinaryFormat.headerLength - 4)
    for bytes in stored { writer.append(bytes) }
    return writer.finished()
  }
}
