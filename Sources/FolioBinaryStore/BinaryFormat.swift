import FolioModel
import FolioStores

// The constants of the binary store format, as `Formats/binary-store.md` specifies them.
//
// A file is a fixed 56-byte header, a section table of 36-byte entries, then the sections'
// bytes, laid end to end in table order so that every byte of the file is covered by a
// checksum: the header's CRC-32 covers the header and the table, and each entry carries the
// CRC-32 of its section's stored bytes. All integers are little-endian.

/// The binary store format's fixed numbers.
enum BinaryFormat {
  /// `\x89 F O L I O \r \n \x1A \n`: the high byte breaks under 7-bit or UTF-8 mangling, the
  /// CR-LF under line-ending conversion, and `\x1A` stops a DOS `type`.
  static let magic: [UInt8] = [0x89, 0x46, 0x4F, 0x4C, 0x49, 0x4F, 0x0D, 0x0A, 0x1A, 0x0A]
  /// The major version this build writes and reads; files of another major are refused.
  static let majorVersion: UInt16 = 1
  /// The minor version this build writes; files of any minor of the same major are read.
  static let minorVersion: UInt16 = 1
  /// The header's size in bytes.
  static let headerLength = 56
  /// A section table entry's size in bytes.
  static let entryLength = 36
  /// The byte offset of the model version hash in the header, and its length.
  static let modelHashOffset = 16
  static let modelHashLength = 32
  /// The most sections a file may have.
  static let maximumSectionCount = 1024
  /// Header flags a reader must understand (bits 0–7); none are defined in version 1.0.
  static let requiredFlagsMask: UInt16 = 0x00FF
  /// zlib expands at most 1032:1; a declared inflated length beyond this ratio is a lie.
  static let maximumInflationRatio = 1032
  /// The zlib level the writer uses: the fastest, since saves are on the editor's path.
  static let compressionLevel: Int32 = 1
}

/// A section table entry's flags.
struct SectionFlags: OptionSet, Sendable {
  let rawValue: UInt16
  /// A reader that does not know the section's kind must refuse the file.
  static let required = SectionFlags(rawValue: 1 << 0)
  /// The stored bytes are one zlib stream.
  static let deflated = SectionFlags(rawValue: 1 << 1)
  /// Every flag version 1 defines; other bits must be zero.
  static let known: SectionFlags = [.required, .deflated]
}

/// The kinds of section, as four ASCII bytes read as a little-endian `UInt32`.
enum SectionKind {
  /// Store metadata and the model's entity version hashes; stored, never deflated.
  static let metadata = code("META")
  /// The objects: string table, entity directory, attribute and relationship columns.
  static let body = code("BODY")
  /// The model the store was written with, as the text of an Xcode `contents` file; optional
  /// (since version 1.1), deflated.
  static let model = code("MODL")

  /// The code of a four-character kind.
  static func code(_ name: StaticString) -> UInt32 {
    precondition(name.utf8CodeUnitCount == 4, "section kinds are four ASCII bytes")
    var value: UInt32 = 0
    for index in (0..<4).reversed() {
      value = value << 8 | UInt32(name.utf8Start[index])
    }
    return value
  }

  /// The four characters of `code`, with non-printable bytes as `\xNN`.
  static func name(_ code: UInt32) -> String {
    (0..<4).map { index -> String in
      let byte = UInt8(truncatingIfNeeded: code >> (8 * UInt32(index)))
      return (0x20..<0x7F).contains(byte)
        ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16, uppercase: true)
    }.joined()
  }
}

/// One entry of the section table, as read or to be written.
struct BinarySection: Sendable {
  var kind: UInt32
  var flags: SectionFlags
  /// Where the stored bytes start in the file.
  var offset: Int
  /// How many bytes are stored in the file.
  var storedLength: Int
  /// How many bytes the content has once inflated (the stored length when not deflated).
  var length: Int
  /// The CRC-32 of the stored bytes.
  var checksum: UInt32

  var name: String { SectionKind.name(kind) }
}

/// The relationship kinds of a relationship column.
enum RelationshipKind: UInt8 {
  case toOne = 0
  case toMany = 1
  case orderedToMany = 2

  init(_ relationship: RelationshipDescription) {
    if !relationship.isToMany {
      self = .toOne
    } else {
      self = relationship.isOrdered ? .orderedToMany : .toMany
    }
  }
}

extension AttributeType {
  /// The type's tag in a binary store; `nil` for `undefined`, which is never stored.
  var binaryTag: UInt8? {
    switch self {
    case .integer16: 1
    case .integer32: 2
    case .integer64: 3
    case .decimal: 4
    case .double: 5
    case .float: 6
    case .string: 7
    case .boolean: 8
    case .date: 9
    case .binaryData: 10
    case .uuid: 11
    case .uri: 12
    case .transformable: 13
    case .objectID: 14
    case .composite: 15
    case .undefined: nil
    }
  }

  /// The type a binary store's tag names.
  init?(binaryTag tag: UInt8) {
    guard let type = AttributeType.allCases.first(where: { $0.binaryTag == tag }) else {
      return nil
    }
    self = type
  }
}

extension AttributeType {
  /// The byte width of the type's values in a column, or `nil` when it varies.
  var binaryWidth: Int? {
    switch self {
    case .integer16: 2
    case .integer32, .float, .string, .decimal, .uri, .objectID: 4
    case .integer64, .double, .date: 8
    case .boolean: 1
    case .uuid: 16
    case .binaryData, .transformable, .composite, .undefined: nil
    }
  }
}
